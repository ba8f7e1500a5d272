// libFuzzer target: fuzz/harness_model.h spm_tokenizer_one.
#include "fuzz/harness_model.h"
#include "fuzz/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::fuzz::report(attn::fuzz::spm_tokenizer_one(std::string(reinterpret_cast<const char*>(data), size)));
    return 0;
}
