// attn pull: the files of a model a run needs, downloaded from the hub into the Hugging Face cache as
// huggingface_hub writes it, so Python tools and attn share one copy:
//   refs/<revision>                 the commit, no newline, written atomically (not for a commit revision)
//   blobs/<etag>                    the bytes: downloaded to blobs/<etag>.<8 hex>.incomplete, size and
//                                   hash checked (sha256 for LFS files, git's blob SHA-1 for the others),
//                                   then renamed into place
//   snapshots/<commit>/<file>       a relative symlink ../../blobs/<etag>
//   .no_exist/<commit>/<file>       an optional file the hub says is absent at that commit
//   <cache>/.locks/<repo folder>/<etag>.lock  held (flock) while a blob is written, as Python does
// The protocol: HEAD {endpoint}/{repo}/resolve/{revision}/{file}, the commit from X-Repo-Commit, the
// etag from X-Linked-Etag or ETag, the size from X-Linked-Size (or Content-Length when not a
// redirect); relative redirects followed with the token (a renamed repo), an absolute one (the file
// CDN) fetched without it. Every name from the network is checked before it touches a path.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "data/hub/hub_cache.h"

namespace attn::hub {

struct PullEvents {
    // A file's download: its name, bytes so far, its size (called often; return false to stop).
    std::function<bool(const std::string& file, std::uint64_t done, std::uint64_t total)> progress;
    // A line for the user: "config.json: 1.2 kB", "generation_config.json: not in the repo".
    std::function<void(const std::string& line)> note;
};

struct PullResult {
    Snapshot snapshot;
    std::size_t files = 0;       // files in the snapshot that the run needs
    std::size_t downloaded = 0;  // of those, the ones fetched now (the rest were in the cache)
    std::uint64_t bytes = 0;     // bytes fetched now
};

// Downloads what a model run needs (config.json; generation_config.json and the tokenizer files when the
// repo has them; the weights: model.safetensors, else its index and shards, else pytorch_model.bin, else
// its index and shards). Errors (runtime, one line and a hint) say which repo, revision or file, and why.
PullResult pull_model(const HubEnvironment& env, const RepoRef& ref, const PullEvents& events);

// The optional files pull_model asks for beside config.json and the weights.
const std::vector<std::string>& optional_model_files();

}  // namespace attn::hub
