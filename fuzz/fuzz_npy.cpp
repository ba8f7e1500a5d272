// libFuzzer target: the bytes after "\x93NUMPY" as a .npy file, read as embeddings and as a mask
// (fuzz/harness.h npy_one).
#include "fuzz/harness.h"
#include "fuzz/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::fuzz::report(attn::fuzz::npy_one({reinterpret_cast<const char*>(data), size}));
    return 0;
}
