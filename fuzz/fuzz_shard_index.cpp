// libFuzzer target: fuzz/harness_model.h shard_index_one (model.safetensors.index.json and its shards).
#include "fuzz/harness_model.h"
#include "fuzz/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attn::fuzz::report(attn::fuzz::shard_index_one(std::string_view(reinterpret_cast<const char*>(data), size)));
    return 0;
}
