// Names the Hugging Face hub and its cache use, checked before any of them touches a path: repo ids
// (`gpt2`, `org/name`, `org/name@revision`), the cache folder of a repo, commits, etags and the file
// names a repo lists (a shard index's values). Every check refuses by name, with a one-line hint.
#pragma once

#include <string>

namespace attn::hub {

// A repo id and the revision asked for: "org/name@rev" → {"org/name", "rev"}; revision "main" when none.
struct RepoRef {
    std::string repo;                // "gpt2", "HuggingFaceTB/SmolLM2-135M"
    std::string revision = "main";   // a branch, a tag, "refs/pr/1", or a 40-hex commit
    std::string text() const { return revision == "main" ? repo : repo + "@" + revision; }
};

// True when `name` has the shape of a repo id (with an optional @revision): at most one '/', the hub's
// characters [A-Za-z0-9_.-], no "--" or "..", no ".git" ending. A folder path like "./gpt2/" is not one.
bool looks_like_repo_id(const std::string& name);
// The id parsed and checked (usage error naming what is wrong otherwise).
RepoRef parse_repo_ref(const std::string& name);

// "models--org--name": the repo's folder in the cache, as huggingface_hub names it.
std::string repo_folder_name(const std::string& repo);

bool is_commit(const std::string& s);  // 40 lower-case hex digits
bool is_etag(const std::string& s);    // 40 (git blob SHA-1) or 64 (LFS sha256) lower-case hex digits
// A relative POSIX path inside a repo: no empty, "." or ".." segment, no leading '/', no '\', no ':'
// (drive letters), no NUL or control characters, at most 255 bytes a segment and 1024 in all.
bool is_safe_repo_path(const std::string& path);

}  // namespace attn::hub
