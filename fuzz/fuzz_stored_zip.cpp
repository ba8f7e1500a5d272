// libFuzzer target: fuzz/harness_model.h stored_zip_one (the page's zip reader against libzip).
#include "fuzz/harness_model.h"
#include "fuzz/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::fuzz::report(attn::fuzz::stored_zip_one(std::string(reinterpret_cast<const char*>(data), size)));
    return 0;
}
