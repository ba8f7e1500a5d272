// The Hugging Face cache as huggingface_hub lays it out, read: where it is (HF_HUB_CACHE,
// HUGGINGFACE_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub), the
// endpoint, token and offline switch from the environment, a repo's snapshot for a revision
// (refs/<rev> → snapshots/<commit>/, entries symlinks into blobs/ or plain files), whether a snapshot
// holds what a model run needs, and every cached model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/hub/hub_names.h"

namespace attn::hub {

// The hub settings of this process's environment, as huggingface_hub reads them.
struct HubEnvironment {
    std::string cache;                 // the cache folder
    std::string endpoint;              // HF_ENDPOINT without a trailing '/', else https://huggingface.co
    std::optional<std::string> token;  // HF_TOKEN, HUGGING_FACE_HUB_TOKEN, the token file; never printed
    bool offline = false;              // HF_HUB_OFFLINE (else TRANSFORMERS_OFFLINE) is 1, ON, YES or TRUE
};
HubEnvironment hub_environment();

// A repo's snapshot in the cache.
struct Snapshot {
    std::string repo;      // "org/name"
    std::string revision;  // the revision it was found by ("main"), or the commit
    std::string commit;    // 40 hex
    std::string path;      // <cache>/models--org--name/snapshots/<commit>
};

// The cache folder of a repo: <cache>/models--org--name.
std::string repo_folder(const std::string& cache, const std::string& repo);
// The snapshot `ref` names: a 40-hex revision is the commit itself; otherwise refs/<revision> holds it
// (surrounding white space ignored). Nothing when the ref or the snapshot folder is absent; an input error
// when refs/<revision> holds anything but a commit.
std::optional<Snapshot> find_snapshot(const std::string& cache, const RepoRef& ref);

// The files of a snapshot a model run needs and lacks: config.json; the weights (model.safetensors, or
// its index and every shard it names, else pytorch_model.bin or its index and shards); a tokenizer file.
// Empty when nothing is missing. Entries may be symlinks (followed) or plain files.
std::vector<std::string> missing_model_files(const std::string& snapshot_path);

// Every snapshot a ref points to (and snapshots no ref names, by their commit), repos in name order.
std::vector<Snapshot> cached_snapshots(const std::string& cache);
// "org/name" when `path` is a snapshot folder <...>/models--org--name/snapshots/<commit> (or inside one).
std::optional<std::string> repo_of_snapshot_path(const std::string& path);
// The bytes the files of a snapshot take (symlinks followed), counting each blob once.
std::uint64_t snapshot_bytes(const std::string& snapshot_path);

}  // namespace attn::hub
