// libFuzzer target: two bytes of shape (T, S up to 8), then a mask file, JSON or .npy
// (fuzz/harness.h mask_one).
#include "fuzz/harness.h"
#include "fuzz/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::fuzz::report(attn::fuzz::mask_one({reinterpret_cast<const char*>(data), size}));
    return 0;
}
