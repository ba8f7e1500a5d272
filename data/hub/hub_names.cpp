// Repo ids, revisions, commits, etags and repo paths, checked (data/hub/hub_names.h).
#include "data/hub/hub_names.h"

#include <algorithm>

#include "data/base/error.h"

namespace attn::hub {
namespace {

bool hub_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

// One part of a repo id ("org" or "name"): 1 to 96 hub characters, starting and ending with a letter,
// digit or '_' (huggingface_hub's \b[\w\-.]{1,96}\b), no "--" or "..".
bool id_part(const std::string& s) {
    if (s.empty() || s.size() > 96 || !std::all_of(s.begin(), s.end(), hub_char)) return false;
    auto word = [](char c) { return c != '-' && c != '.'; };
    return word(s.front()) && word(s.back()) && s.find("--") == std::string::npos && s.find("..") == std::string::npos;
}

bool lower_hex(const std::string& s, std::size_t n) {
    return s.size() == n && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A revision: a branch or tag name as git allows it, within what a path may hold: hub characters and '/',
// no empty, "." or ".." segment, at most 200 bytes.
bool safe_revision(const std::string& rev) {
    if (rev.empty() || rev.size() > 200) return false;
    if (!std::all_of(rev.begin(), rev.end(), [](char c) { return hub_char(c) || c == '/'; })) return false;
    return is_safe_repo_path(rev);
}

}  // namespace

bool looks_like_repo_id(const std::string& name) {
    const std::string id = name.substr(0, name.find('@'));
    const std::size_t slash = id.find('/');
    const std::string last = slash == std::string::npos ? id : id.substr(slash + 1);
    if (!id_part(last) || (last.size() >= 4 && last.compare(last.size() - 4, 4, ".git") == 0)) return false;
    return slash == std::string::npos || (id.find('/', slash + 1) == std::string::npos && id_part(id.substr(0, slash)));
}

RepoRef parse_repo_ref(const std::string& name) {
    const std::size_t at = name.find('@');
    RepoRef ref;
    ref.repo = name.substr(0, at);
    if (!looks_like_repo_id(ref.repo))
        throw Error(ErrorKind::usage, "'" + excerpt(name) + "' is neither a folder nor a Hugging Face repo id",
                    "give a model folder, or a repo id such as gpt2 or HuggingFaceTB/SmolLM2-135M (optionally @revision)");
    if (at != std::string::npos) {
        ref.revision = name.substr(at + 1);
        if (!safe_revision(ref.revision))
            throw Error(ErrorKind::usage, "'" + excerpt(ref.revision) + "' is not a revision attn can use",
                        "give a branch, a tag or a 40-hex commit after '@', e.g. gpt2@main");
    }
    return ref;
}

std::string repo_folder_name(const std::string& repo) {
    std::string out = "models";
    std::size_t at = 0;
    while (true) {
        const std::size_t slash = repo.find('/', at);
        out += "--" + repo.substr(at, slash - at);
        if (slash == std::string::npos) return out;
        at = slash + 1;
    }
}

bool is_commit(const std::string& s) { return lower_hex(s, 40); }
bool is_etag(const std::string& s) { return lower_hex(s, 40) || lower_hex(s, 64); }

bool is_safe_repo_path(const std::string& path) {
    if (path.empty() || path.size() > 1024 || path.front() == '/') return false;
    std::size_t at = 0;
    while (true) {
        const std::size_t slash = path.find('/', at);
        const std::string seg = path.substr(at, slash == std::string::npos ? std::string::npos : slash - at);
        if (seg.empty() || seg == "." || seg == ".." || seg.size() > 255) return false;
        for (char c : seg)
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F || c == '\\' || c == ':') return false;
        if (slash == std::string::npos) return true;
        at = slash + 1;
    }
}

}  // namespace attn::hub
