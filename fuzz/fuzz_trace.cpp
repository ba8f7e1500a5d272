// libFuzzer target: bytes as attn render's input, a JSON trace or a .npy of attention
// (fuzz/harness.h trace_one).
#include "fuzz/harness.h"
#include "fuzz/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::fuzz::report(attn::fuzz::trace_one({reinterpret_cast<const char*>(data), size}));
    return 0;
}
