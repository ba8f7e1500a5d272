// The Hugging Face cache read: its folder, the environment's settings, snapshots (data/hub/hub_cache.h).
#include "data/hub/hub_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <set>

#include "data/base/error.h"
#include "data/base/files.h"
#include "data/checkpoint/model_checkpoint.h"

namespace attn::hub {
namespace {

std::optional<std::string> env(const char* name) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
}

std::string home_folder() {
    if (auto h = env("HOME")) return *h;
    if (const passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_dir != nullptr) return pw->pw_dir;
    return "/";
}

// Python's os.path.expandvars(os.path.expanduser(path)): a leading ~ is the home folder; $NAME and
// ${NAME} are replaced when NAME is set and left as they are when it is not.
std::string expand_path(const std::string& path) {
    std::string p = path;
    if (p == "~" || p.rfind("~/", 0) == 0) p = home_folder() + p.substr(1);
    std::string out;
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (p[i] != '$') {
            out += p[i];
            continue;
        }
        const bool braced = i + 1 < p.size() && p[i + 1] == '{';
        std::size_t start = i + (braced ? 2 : 1), end = start;
        while (end < p.size() && (std::isalnum(static_cast<unsigned char>(p[end])) || p[end] == '_')) ++end;
        if (end == start || (braced && (end >= p.size() || p[end] != '}'))) {
            out += p[i];
            continue;
        }
        const std::string name = p.substr(start, end - start);
        const std::size_t last = braced ? end : end - 1;
        if (const char* v = std::getenv(name.c_str())) out += v;
        else out += p.substr(i, last - i + 1);
        i = last;
    }
    return out;
}

bool is_true(const std::optional<std::string>& v) {
    if (!v) return false;
    std::string s = *v;
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s == "1" || s == "ON" || s == "YES" || s == "TRUE";
}

// A token as huggingface_hub cleans it: \r and \n removed, white space stripped; empty is none.
std::optional<std::string> clean_token(std::string t) {
    t.erase(std::remove_if(t.begin(), t.end(), [](char c) { return c == '\r' || c == '\n'; }), t.end());
    const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
    while (!t.empty() && space(static_cast<unsigned char>(t.back()))) t.pop_back();
    std::size_t lead = 0;
    while (lead < t.size() && space(static_cast<unsigned char>(t[lead]))) ++lead;
    t.erase(0, lead);
    if (t.empty()) return std::nullopt;
    return t;
}

// A small file's bytes (at most `cap`), or nothing when it cannot be read as a regular file.
std::optional<std::string> small_file(const std::string& path, std::size_t cap) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return std::nullopt;
    struct stat st {};
    std::optional<std::string> out;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) <= cap) {
        std::string text(static_cast<std::size_t>(st.st_size), '\0');
        if (::read(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size())) out = std::move(text);
    }
    ::close(fd);
    return out;
}

bool regular_file(const std::string& path) {  // symlinks followed
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool folder(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> entries(const std::string& dir) {  // names in a folder, sorted, without . and ..
    std::vector<std::string> out;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d)) {
            const std::string n = e->d_name;
            if (n != "." && n != "..") out.push_back(n);
        }
        ::closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool present(const std::string& path) {  // an entry of any kind, a link not followed
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

// A snapshot entry that is there but is no file, named with why: a link to a blob that is gone, a link
// loop, a folder; else just its name (absent).
std::string absent(const std::string& dir, const std::string& name) {
    const std::string path = dir + "/" + name;
    struct stat lst {}, st {};
    if (::lstat(path.c_str(), &lst) != 0) return name;
    if (S_ISLNK(lst.st_mode) && ::stat(path.c_str(), &st) != 0)
        return name + (errno == ELOOP ? " (a link loop)" : " (a link to a missing blob)");
    return name + " (not a regular file)";
}

// The weights of a snapshot, or what they lack: "" when complete. The first weights entry present
// decides, as the model reader takes model.safetensors, then an index, then pytorch_model.bin.
std::string missing_weights(const std::string& dir) {
    if (regular_file(dir + "/model.safetensors")) return "";
    if (present(dir + "/model.safetensors")) return absent(dir, "model.safetensors");
    for (const char* index : {"model.safetensors.index.json", "pytorch_model.bin.index.json"}) {
        const std::string path = dir + "/" + index;
        if (!regular_file(path)) {
            if (present(path)) return absent(dir, index);
            continue;
        }
        const auto text = small_file(path, 64u << 20);
        if (!text) return index;
        for (const auto& [shard, tensors] : index_shards(*text, path))
            if (!regular_file(dir + "/" + shard)) return absent(dir, shard);
        return "";
    }
    if (regular_file(dir + "/pytorch_model.bin")) return "";
    if (present(dir + "/pytorch_model.bin")) return absent(dir, "pytorch_model.bin");
    return "model.safetensors";
}

}  // namespace

HubEnvironment hub_environment() {
    HubEnvironment e;
    const std::string hf_home = expand_path(env("HF_HOME").value_or(env("XDG_CACHE_HOME").value_or(home_folder() + "/.cache") + "/huggingface"));
    e.cache = expand_path(env("HF_HUB_CACHE").value_or(env("HUGGINGFACE_HUB_CACHE").value_or(hf_home + "/hub")));
    e.endpoint = env("HF_ENDPOINT").value_or("https://huggingface.co");
    while (!e.endpoint.empty() && e.endpoint.back() == '/') e.endpoint.pop_back();
    e.offline = is_true(env("HF_HUB_OFFLINE") ? env("HF_HUB_OFFLINE") : env("TRANSFORMERS_OFFLINE"));
    if (!is_true(env("HF_HUB_DISABLE_IMPLICIT_TOKEN"))) {
        if (auto t = env("HF_TOKEN")) e.token = clean_token(*t);
        if (!e.token)
            if (auto t = env("HUGGING_FACE_HUB_TOKEN")) e.token = clean_token(*t);
        if (!e.token)
            if (auto t = small_file(expand_path(env("HF_TOKEN_PATH").value_or(hf_home + "/token")), 64 << 10)) e.token = clean_token(*t);
    }
    return e;
}

std::string repo_folder(const std::string& cache, const std::string& repo) { return cache + "/" + repo_folder_name(repo); }

std::optional<Snapshot> find_snapshot(const std::string& cache, const RepoRef& ref) {
    const std::string base = repo_folder(cache, ref.repo);
    Snapshot s{ref.repo, ref.revision, ref.revision, ""};
    if (!is_commit(ref.revision)) {
        const std::string ref_file = base + "/refs/" + ref.revision;
        struct stat lst {}, st {};
        if (::lstat(ref_file.c_str(), &lst) != 0) return std::nullopt;
        const auto text = small_file(ref_file, 4096);
        if (!text) {  // there, but not a small file holding a commit
            const bool resolves = ::stat(ref_file.c_str(), &st) == 0;
            const std::string what = !resolves              ? "is a link to nothing, not a file holding a commit"
                                     : S_ISDIR(st.st_mode)  ? "is a folder, not a file holding a commit"
                                     : !S_ISREG(st.st_mode) ? "is not a regular file holding a commit"
                                     : st.st_size > 4096    ? "holds " + std::to_string(st.st_size) + " bytes, far more than a commit"
                                                            : "cannot be read";
            throw Error(ErrorKind::runtime, "the cache's " + ref_file + " " + what,
                        "delete it and pull again: attn pull " + ref.text());
        }
        std::string commit = *text;
        while (!commit.empty() && std::isspace(static_cast<unsigned char>(commit.back()))) commit.pop_back();
        while (!commit.empty() && std::isspace(static_cast<unsigned char>(commit.front()))) commit.erase(0, 1);
        // a ref that links elsewhere is not quoted: its text may be any file's on the machine
        if (!is_commit(commit))
            throw Error(ErrorKind::runtime,
                        "the cache's " + ref_file + (S_ISLNK(lst.st_mode) ? " (a link) does not hold a commit" : " holds '" + excerpt(commit) + "', not a commit"),
                        "delete that file and pull again: attn pull " + ref.text());
        s.commit = commit;
    }
    s.path = base + "/snapshots/" + s.commit;
    if (!folder(s.path)) return std::nullopt;
    return s;
}

std::vector<std::string> missing_model_files(const std::string& dir) {
    std::vector<std::string> missing;
    if (!regular_file(dir + "/config.json")) missing.push_back(absent(dir, "config.json"));
    if (const std::string w = missing_weights(dir); !w.empty()) missing.push_back(w);
    const std::vector<std::string> tokenizers = {"tokenizer.json", "vocab.json", "vocab.txt", "spiece.model", "source.spm"};
    bool tokenizer = false;
    for (const std::string& f : tokenizers) tokenizer = tokenizer || regular_file(dir + "/" + f);
    if (!tokenizer) {
        std::string which = "tokenizer.json";  // else the first tokeniser file that is there but broken
        for (auto f = tokenizers.rbegin(); f != tokenizers.rend(); ++f)
            if (present(dir + "/" + *f)) which = absent(dir, *f);
        missing.push_back(which);
    }
    return missing;
}

std::vector<Snapshot> cached_snapshots(const std::string& cache) {
    std::vector<Snapshot> out;
    for (const std::string& name : entries(cache)) {
        if (name.rfind("models--", 0) != 0) continue;
        std::string repo = name.substr(8);
        if (const std::size_t sep = repo.find("--"); sep != std::string::npos) repo.replace(sep, 2, "/");
        if (!looks_like_repo_id(repo) || repo.find('@') != std::string::npos) continue;
        const std::string base = cache + "/" + name;
        std::set<std::string> named;
        std::function<void(const std::string&)> walk_refs = [&](const std::string& rel) {  // refs/ and refs/pr/...
            for (const std::string& e : entries(base + "/refs" + rel)) {
                const std::string rev = (rel.empty() ? "" : rel.substr(1) + "/") + e;
                if (folder(base + "/refs" + rel + "/" + e)) {
                    if (rel.size() < 200) walk_refs(rel + "/" + e);
                } else if (!is_commit(rev)) {
                    try {
                        if (auto s = find_snapshot(cache, {repo, rev})) {
                            named.insert(s->commit);
                            out.push_back(*s);
                        }
                    } catch (const Error&) {
                        // a ref that holds no commit: skipped; its snapshot is listed by commit below
                    }
                }
            }
        };
        walk_refs("");
        for (const std::string& commit : entries(base + "/snapshots"))
            if (is_commit(commit) && named.count(commit) == 0 && folder(base + "/snapshots/" + commit))
                out.push_back({repo, commit, commit, base + "/snapshots/" + commit});
    }
    return out;
}

std::optional<std::string> repo_of_snapshot_path(const std::string& path) {
    std::string p = path;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    const std::size_t snap = p.rfind("/snapshots/");
    if (snap == std::string::npos) return std::nullopt;
    const std::string commit = p.substr(snap + 11, 40);
    if (!is_commit(commit) || (p.size() > snap + 51 && p[snap + 51] != '/')) return std::nullopt;
    const std::size_t start = p.rfind('/', snap - 1);
    const std::string folder = p.substr(start == std::string::npos ? 0 : start + 1, snap - (start == std::string::npos ? 0 : start + 1));
    if (folder.rfind("models--", 0) != 0) return std::nullopt;
    std::string repo = folder.substr(8);
    if (const std::size_t sep = repo.find("--"); sep != std::string::npos) repo.replace(sep, 2, "/");
    if (!looks_like_repo_id(repo) || repo.find('@') != std::string::npos) return std::nullopt;
    return repo;
}

std::uint64_t snapshot_bytes(const std::string& dir) {
    std::uint64_t total = 0;
    std::set<std::pair<dev_t, ino_t>> seen;
    std::function<void(const std::string&, int)> walk = [&](const std::string& d, int depth) {
        for (const std::string& e : entries(d)) {
            struct stat st {};
            const std::string p = d + "/" + e;
            if (::stat(p.c_str(), &st) != 0) continue;
            if (S_ISDIR(st.st_mode) && depth < 16) walk(p, depth + 1);
            else if (S_ISREG(st.st_mode) && seen.insert({st.st_dev, st.st_ino}).second) total += static_cast<std::uint64_t>(st.st_size);
        }
    };
    walk(dir, 0);
    return total;
}

}  // namespace attn::hub
