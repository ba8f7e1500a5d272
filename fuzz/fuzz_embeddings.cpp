// libFuzzer target: the bytes as an embeddings file, JSON or .npy (fuzz/harness.h embeddings_one).
#include "fuzz/harness.h"
#include "fuzz/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::fuzz::report(attn::fuzz::embeddings_one({reinterpret_cast<const char*>(data), size}));
    return 0;
}
