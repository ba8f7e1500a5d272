// libFuzzer target: the bytes as a sentence, through the tokeniser (fuzz/harness.h tokenize_one).
#include "fuzz/harness.h"
#include "fuzz/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::fuzz::report(attn::fuzz::tokenize_one({reinterpret_cast<const char*>(data), size}));
    return 0;
}
