// attn pull: a model's files from the hub into the Hugging Face cache (data/hub/hub_pull.h).
#include "data/hub/hub_pull.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "data/base/error.h"
#include "data/base/files.h"
#include "data/base/limits.h"
#include "data/base/strings.h"
#include "data/checkpoint/model_checkpoint.h"
#include "data/hub/hub_hash.h"
#include "data/hub/hub_http.h"

namespace attn::hub {
namespace {

constexpr std::uint64_t kMaxWeightsBytes = 50'000'000'000ull;  // huggingface_hub's cap on one plain HTTP download
constexpr int kMaxRedirects = 5;
constexpr int kMaxAttempts = 5;  // a transfer cut short resumes with Range this many times

[[noreturn]] void fail(const std::string& what, const std::string& hint) { throw Error(ErrorKind::runtime, what, hint); }

// Python's quote(s, safe): every byte but letters, digits, "_.-~" and `safe` as %XX.
std::string quote(const std::string& s, const std::string& safe) {
    std::string out;
    for (unsigned char c : bytes_of(s)) {
        if (std::isalnum(c) || c == '_' || c == '.' || c == '-' || c == '~' || safe.find(static_cast<char>(c)) != std::string::npos) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += "0123456789ABCDEF"[c >> 4];
            out += "0123456789ABCDEF"[c & 15];
        }
    }
    return out;
}

std::string random_hex8() {
    std::random_device rd;
    const unsigned v = rd();
    std::string out;
    for (int i = 7; i >= 0; --i) out += "0123456789abcdef"[(v >> (4 * i)) & 15];
    return out;
}

// mkdir -p of a folder inside the cache: the cache folder itself as the user named it (links allowed),
// every folder below it made here or checked to be a real folder, never a symbolic link, so nothing attn
// writes can land outside the cache.
void make_folders(const std::string& cache, const std::string& path) {
    for (std::size_t at = 1; at <= path.size(); ++at) {
        if (at != path.size() && path[at] != '/') continue;
        const std::string part = path.substr(0, at);
        const bool inside = part.size() > cache.size() && part.compare(0, cache.size() + 1, cache + "/") == 0;
        struct stat st {};
        if (inside && ::lstat(part.c_str(), &st) == 0) {
            if (S_ISDIR(st.st_mode)) continue;
            fail("the cache's " + part + (S_ISLNK(st.st_mode) ? " is a symbolic link" : " is not a folder"),
                 "attn writes only inside the cache folder: remove it and pull again");
        }
        if (::mkdir(part.c_str(), 0777) != 0 && errno != EEXIST)
            fail("cannot make the cache folder " + part + ": " + std::strerror(errno), "check HF_HUB_CACHE or HF_HOME, and the disk");
    }
}

std::string parent(const std::string& path) { return path.substr(0, path.rfind('/')); }

bool exists_no_follow(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

// Writes `text` to `path` atomically: a unique temporary file beside it, then rename.
void write_atomically(const std::string& path, const std::string& text) {
    const std::string tmp = path + "." + random_hex8() + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    if (fd >= 0) ok = ::close(fd) == 0 && ok;
    if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmp.c_str());
        fail("cannot write " + path + ": " + why, "check that the cache folder is writable");
    }
}

// An empty marker file (.no_exist, CACHEDIR.TAG's kin): created if absent, errors ignored as Python does.
void touch(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd >= 0) ::close(fd);
}

// A held flock on <cache>/.locks/<repo folder>/<etag>.lock, released when destroyed.
class BlobLock {
public:
    BlobLock(const std::string& cache, const std::string& path) {
        make_folders(cache, parent(path));
        fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0664);
        if (fd_ < 0) fail("cannot open the lock file " + path + ": " + std::strerror(errno), "check that the cache folder is writable");
        while (::flock(fd_, LOCK_EX) != 0) {
            if (errno != EINTR || stop_requested()) {
                ::close(fd_);
                fail("cannot lock " + path, stop_requested() ? "interrupted" : "another program holds it: try again when it is done");
            }
        }
    }
    ~BlobLock() { ::close(fd_); }  // closing releases the lock
    BlobLock(const BlobLock&) = delete;
    BlobLock& operator=(const BlobLock&) = delete;

private:
    int fd_ = -1;
};

// A temporary download file, removed unless kept.
struct TempFile {
    std::string path;
    int fd = -1;
    ~TempFile() {
        if (fd >= 0) ::close(fd);
        if (!path.empty()) ::unlink(path.c_str());
    }
};

// Text from the network or the environment made safe to print: the token (and any "Bearer …") and an
// endpoint's user:password@ replaced by "***".
std::string redacted(std::string text, const std::optional<std::string>& token) {
    if (token && !token->empty())
        for (std::size_t at = text.find(*token); at != std::string::npos; at = text.find(*token, at)) text.replace(at, token->size(), "***");
    for (std::size_t at = text.find("Bearer "); at != std::string::npos; at = text.find("Bearer ", at + 7)) {
        std::size_t end = at + 7;
        while (end < text.size() && text[end] != ' ' && text[end] != '"' && text[end] != ',' && text[end] != ';') ++end;
        text.replace(at + 7, end - at - 7, "***");
    }
    const std::size_t scheme = text.find("://");
    if (scheme != std::string::npos) {
        const std::size_t at = text.find('@', scheme), slash = text.find('/', scheme + 3);
        if (at != std::string::npos && (slash == std::string::npos || at < slash)) text.replace(scheme + 3, at - scheme - 3, "***");
    }
    return text;
}

// What a HEAD says about one file.
struct FileMeta {
    std::string commit, etag, location;
    std::uint64_t size = 0;
};

class Puller {
public:
    Puller(const HubEnvironment& env, const RepoRef& ref, const PullEvents& events)
        : env_(env), ref_(ref), events_(events), http_(env.endpoint.rfind("http://", 0) == 0), base_(repo_folder(env.cache, ref.repo)) {
        if (env.endpoint.rfind("https://", 0) != 0 && env.endpoint.rfind("http://", 0) != 0)
            throw Error(ErrorKind::usage, "HF_ENDPOINT '" + excerpt(env.endpoint) + "' is not an http(s) address",
                        "unset HF_ENDPOINT for https://huggingface.co, or give a mirror's https:// address");
    }

    PullResult run();

private:
    std::string url(const std::string& file) const {
        return env_.endpoint + "/" + ref_.repo + "/resolve/" + quote(commit_.empty() ? ref_.revision : commit_, "") + "/" + quote(file, "/");
    }
    HttpAnswer head_with_retries(const std::string& where);
    std::optional<FileMeta> metadata(const std::string& file, bool required);
    [[noreturn]] void refuse(const HttpAnswer& a, const std::string& file);
    void fetch(const std::string& file, const FileMeta& m, std::uint64_t cap);
    void download(const std::string& file, const FileMeta& m, const std::string& blob);
    void link(const std::string& file, const std::string& etag);
    bool want(const std::string& file, bool required, std::uint64_t cap);  // metadata, then fetch; false when absent
    bool want_index(const std::string& index);
    void weights();
    void write_ref();

    const HubEnvironment& env_;
    const RepoRef& ref_;
    const PullEvents& events_;
    HttpClient http_;
    std::string base_, commit_;
    PullResult result_;
};

[[noreturn]] void Puller::refuse(const HttpAnswer& a, const std::string& file) {
    const auto header = [&](const char* name) {
        auto it = a.headers.find(name);
        return it == a.headers.end() ? std::string() : redacted(it->second, env_.token);
    };
    const std::string code = header("x-error-code"), message = header("x-error-message");
    const std::string page = "https://huggingface.co/" + ref_.repo;
    if (code == "GatedRepo")
        fail(ref_.repo + " is a gated model: its files need an account that accepted its licence",
             env_.token ? "accept the licence on " + page + " with the account whose token HF_TOKEN holds, then try again"
                        : "accept the licence on " + page + ", then set HF_TOKEN to a token of that account (huggingface.co/settings/tokens)");
    if (code.empty() && a.status == 401 && !commit_.empty())  // the repo already served a file: this one is refused, not the repo absent
        fail("the hub refused " + file + " of " + ref_.repo + " (HTTP 401) after serving its other files",
             env_.token ? "check that HF_TOKEN's account may read every file of the repo" : "set HF_TOKEN to a token of an account that may read it");
    if (code == "RepoNotFound" || (code.empty() && a.status == 401))
        fail("repo '" + ref_.repo + "' not found on " + redacted(env_.endpoint, env_.token),
             env_.token ? "check the name (e.g. openai-community/gpt2) and that HF_TOKEN's account can see it"
                        : "check the name (e.g. openai-community/gpt2); a private repo needs HF_TOKEN");
    if (code == "RevisionNotFound")
        fail("revision '" + ref_.revision + "' not found in repo '" + ref_.repo + "'", "give a branch, tag or commit the repo has, e.g. " + ref_.repo + "@main");
    if (code == "EntryNotFound" || a.status == 404)
        fail(ref_.repo + " has no " + file + " at revision " + ref_.revision, "attn needs it to run the model: is this a model repo of a family attn runs (attn models)?");
    if (a.status == 403 && message.find("disabled") != std::string::npos)
        fail("repo '" + ref_.repo + "' is disabled on the hub", "choose another copy of the model");
    if (a.status == 429) fail("the hub asks attn to slow down (HTTP 429)", "wait a minute and try again");
    fail("the hub answered HTTP " + std::to_string(a.status) + " for " + file + " of " + ref_.repo + (message.empty() ? "" : ": " + excerpt(message, 120)),
         a.status >= 500 ? "the hub has a problem: try again later" : "check the repo id and HF_TOKEN");
}

// A HEAD, tried again after 1 s and 2 s when the network or the hub failed for a moment (no answer,
// 408, 429, 500, 502, 503, 504), as huggingface_hub retries when nothing is cached.
HttpAnswer Puller::head_with_retries(const std::string& where) {
    HttpAnswer a;
    for (int attempt = 0; attempt < 3; ++attempt) {
        if (attempt > 0) ::sleep(static_cast<unsigned>(attempt));
        if (stop_requested()) fail("interrupted", "run attn pull again to finish");
        a = http_.head(where, env_.token);
        const long s = a.status;
        if (!(s == 0 || s == 408 || s == 429 || s == 500 || s == 502 || s == 503 || s == 504)) break;
    }
    return a;
}

std::optional<FileMeta> Puller::metadata(const std::string& file, bool required) {
    std::string where = url(file);
    HttpAnswer a;
    for (int hop = 0;; ++hop) {
        if (stop_requested()) fail("interrupted", "run attn pull again to finish");
        a = head_with_retries(where);
        if (a.status == 0)
            fail("cannot reach " + redacted(env_.endpoint, env_.token) + ": " + a.error, "check the network, or run offline from the cache (HF_HUB_OFFLINE=1, attn models --cached)");
        if (a.status < 300 || a.status >= 400) break;
        const std::string loc = a.headers.count("location") ? a.headers.at("location") : "";
        if (loc.empty()) fail("the hub redirected " + file + " without saying where", "try again later");
        if (loc.find("://") != std::string::npos && loc.rfind("https://", 0) != 0 && loc.rfind("http://", 0) != 0)
            fail("the hub redirected " + file + " to a " + excerpt(loc.substr(0, loc.find("://")), 16) + ":// address, which attn does not follow",
                 "a hub serves its files over http(s): check HF_ENDPOINT");
        if (loc.find("://") != std::string::npos || loc.rfind("//", 0) == 0) break;  // absolute: the file's CDN
        if (loc.front() != '/') fail("the hub redirected " + file + " to '" + excerpt(loc) + "', which attn does not follow", "try again later");
        if (hop + 1 >= kMaxRedirects) fail("too many redirects for " + file + " of " + ref_.repo + " (a redirect loop?)", "try again later, or check HF_ENDPOINT");
        where = url_origin(where) + loc;  // a renamed repo: same host, token kept
        if (where.rfind("https://", 0) != 0 && where.rfind("http://", 0) != 0) fail("a redirect of " + file + " left the hub", "check HF_ENDPOINT");
    }
    const bool redirect = a.status >= 300 && a.status < 400;
    if (a.status >= 400) {
        const auto code = a.headers.find("x-error-code");
        // an optional file the hub lacks: EntryNotFound, or a plain 404 (a mirror without X-Error-Code)
        if (!required && a.status == 404 && (code == a.headers.end() || code->second == "EntryNotFound")) {
            const auto c = a.headers.find("x-repo-commit");
            if (c != a.headers.end() && is_commit(c->second) && (commit_.empty() || c->second == commit_)) {
                make_folders(env_.cache, base_ + "/.no_exist/" + c->second + "/" + (file.find('/') == std::string::npos ? "" : parent(file)));
                touch(base_ + "/.no_exist/" + c->second + "/" + file);
            }
            return std::nullopt;
        }
        refuse(a, file);
    }
    FileMeta m;
    const auto header = [&](const char* name) { return a.headers.count(name) ? a.headers.at(name) : std::string(); };
    m.commit = header("x-repo-commit");
    if (m.commit.empty())
        fail("the answer for " + file + " carries no X-Repo-Commit: it does not come from a Hugging Face hub",
             "a proxy or firewall may be answering instead: check HF_ENDPOINT and the network");
    if (!is_commit(m.commit))
        fail("the hub names the commit of " + ref_.repo + " '" + excerpt(m.commit) + "', not 40 hex digits", "attn refuses names that could lead outside the cache: check HF_ENDPOINT");
    if (is_commit(ref_.revision) && m.commit != ref_.revision)
        fail("the hub answered " + file + " of " + ref_.repo + " from commit " + m.commit + ", not the " + ref_.revision + " asked for",
             "check the commit, or HF_ENDPOINT");
    if (!commit_.empty() && m.commit != commit_)
        fail("the hub answered " + file + " from commit " + m.commit + ", not " + commit_, "the repo changed during the download: run attn pull again");
    std::string etag = header("x-linked-etag").empty() ? header("etag") : header("x-linked-etag");
    if (etag.rfind("W/", 0) == 0) etag.erase(0, 2);
    while (!etag.empty() && etag.front() == '"') etag.erase(0, 1);
    while (!etag.empty() && etag.back() == '"') etag.pop_back();
    if (!is_etag(etag))
        fail("the hub's etag for " + file + " is '" + excerpt(etag) + "', not a git or LFS hash", "attn refuses names that could lead outside the cache: check HF_ENDPOINT");
    m.etag = etag;
    const std::string size = !header("x-linked-size").empty() ? header("x-linked-size") : redirect ? "" : header("content-length");
    if (size.empty() || size.size() > 19 || size.find_first_not_of("0123456789") != std::string::npos)
        fail("the hub gives no size for " + file + (size.empty() ? "" : " ('" + excerpt(size) + "')"), "try again later, or check HF_ENDPOINT");
    m.size = std::stoull(size);
    m.location = redirect ? a.headers.at("location") : where;
    if (m.location.rfind("//", 0) == 0) m.location = where.substr(0, where.find("://") + 1) + m.location;
    if (commit_.empty()) {
        commit_ = m.commit;
        write_ref();
    }
    return m;
}

void Puller::write_ref() {
    make_folders(env_.cache, base_ + "/snapshots/" + commit_);
    if (!exists_no_follow(env_.cache + "/CACHEDIR.TAG"))
        write_atomically(env_.cache + "/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                                                        "# This file is a cache directory tag: the Hugging Face hub cache.\n");
    if (is_commit(ref_.revision)) return;
    const std::string path = base_ + "/refs/" + ref_.revision;
    make_folders(env_.cache, parent(path));
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {  // unchanged: leave it (a read-only cache still works)
        char buf[41] = {};
        const ssize_t n = ::read(fd, buf, 41);
        ::close(fd);
        if (n == 40 && commit_ == std::string(buf, 40)) return;
    }
    write_atomically(path, commit_);
}

void Puller::download(const std::string& file, const FileMeta& m, const std::string& blob) {
    struct statvfs vfs {};
    if (::statvfs(parent(blob).c_str(), &vfs) == 0 && static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize < m.size)
        fail(file + " needs " + decimal_bytes(static_cast<double>(m.size)) + "; the disk holding the cache has " +
                 decimal_bytes(static_cast<double>(vfs.f_bavail) * static_cast<double>(vfs.f_frsize)) + " free",
             "free some space, or point HF_HUB_CACHE at a larger disk");
    TempFile tmp;
    tmp.path = blob + "." + random_hex8() + ".incomplete";
    tmp.fd = ::open(tmp.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (tmp.fd < 0) {
        const std::string why = std::strerror(errno);
        tmp.path.clear();
        fail("cannot write in " + parent(blob) + ": " + why, "check that the cache folder is writable");
    }
    // The CDN's pre-signed address gets no token: only the hub's own origin does.
    const bool same_origin = url_origin(m.location) == url_origin(env_.endpoint);
    const std::optional<std::string> token = same_origin ? env_.token : std::nullopt;
    const Progress progress = [&](std::uint64_t done, std::uint64_t total) { return !events_.progress || events_.progress(file, done, total); };
    std::uint64_t have = 0;
    HttpAnswer a;
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
        a = http_.get(m.location, token, tmp.fd, have, m.size, progress);
        if (stop_requested() || a.error == "interrupted") fail("interrupted: no partial " + file + " was kept", "run attn pull again to download it");
        if (a.status >= 400) {
            if (!same_origin) fail("the file server answered HTTP " + std::to_string(a.status) + " for " + file, "try again later");
            refuse(a, file);
        }
        have = a.written;
        if (a.error.rfind("more bytes", 0) == 0 || a.error.rfind("could not", 0) == 0) break;
        if (a.error.empty()) break;  // complete (its size is checked below)
    }
    if (!a.error.empty() && a.error.rfind("more bytes", 0) != 0)
        fail("the download of " + file + " failed: " + a.error + " (" + decimal_bytes(static_cast<double>(have)) + " of " +
                 decimal_bytes(static_cast<double>(m.size)) + ")",
             "check the network and run attn pull again");
    if (have != m.size || !a.error.empty())
        fail(file + " arrived with a size other than the " + std::to_string(m.size) + " bytes the hub announced", "try again later; the download was not kept");
    if (::fsync(tmp.fd) != 0 || ::close(tmp.fd) != 0) {
        tmp.fd = -1;
        fail("cannot write " + tmp.path + ": " + std::strerror(errno), "check the disk");
    }
    tmp.fd = -1;
    const auto hash = etag_of_file(tmp.path, m.etag.size());
    if (!hash || *hash != m.etag)
        fail(file + "'s " + (m.etag.size() == 64 ? "sha256" : "git SHA-1") + " is " + hash.value_or("unreadable") + ", not the " + m.etag + " the hub announced",
             "the download was corrupted or tampered with and was not kept: try again");
    if (::rename(tmp.path.c_str(), blob.c_str()) != 0) fail("cannot write " + blob + ": " + std::strerror(errno), "check that the cache folder is writable");
    tmp.path.clear();
    ++result_.downloaded;
    result_.bytes += m.size;
    if (events_.note) events_.note(file + ": " + decimal_bytes(static_cast<double>(m.size)));
}

void Puller::link(const std::string& file, const std::string& etag) {
    const std::string pointer = base_ + "/snapshots/" + commit_ + "/" + file;
    make_folders(env_.cache, parent(pointer));
    std::string target = "../../blobs/" + etag;
    for (char c : file)
        if (c == '/') target = "../" + target;
    ::unlink(pointer.c_str());
    if (::symlink(target.c_str(), pointer.c_str()) == 0) return;
    // No symlinks here: a copy of the blob, as huggingface_hub does on such file systems.
    const std::string bytes = read_file(base_ + "/blobs/" + etag, "cached blob");
    write_atomically(pointer, bytes);
}

// Under the blob's lock no other download of it is running (attn and huggingface_hub take the same lock),
// so temporary files of it are leftovers of a download that was killed: removed.
void remove_stale_downloads(const std::string& blobs, const std::string& etag) {
    DIR* d = ::opendir(blobs.c_str());
    if (d == nullptr) return;
    const std::string start = etag + ".", end = ".incomplete";
    while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        struct stat st {};
        if (name.size() >= start.size() + end.size() - 1 && name.compare(0, start.size(), start) == 0 &&
            name.compare(name.size() - end.size(), end.size(), end) == 0 && ::lstat((blobs + "/" + name).c_str(), &st) == 0 && S_ISREG(st.st_mode))
            ::unlink((blobs + "/" + name).c_str());
    }
    ::closedir(d);
}

void Puller::fetch(const std::string& file, const FileMeta& m, std::uint64_t cap) {
    if (m.size > cap)
        fail(file + " of " + ref_.repo + " is " + decimal_bytes(static_cast<double>(m.size)) + ", larger than the " +
                 decimal_bytes(static_cast<double>(cap)) + " attn reads from such a file",
             "is this the model you meant? attn refuses it before downloading");
    ++result_.files;
    const std::string pointer = base_ + "/snapshots/" + commit_ + "/" + file, blobs = base_ + "/blobs", blob = blobs + "/" + m.etag;
    make_folders(env_.cache, blobs);
    BlobLock lock(env_.cache, env_.cache + "/.locks/" + repo_folder_name(ref_.repo) + "/" + m.etag + ".lock");
    remove_stale_downloads(blobs, m.etag);
    // a blob already there is used only when its bytes hash to its name (a damaged one is fetched again)
    struct stat st {}, pst {};
    const bool cached = ::lstat(blob.c_str(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) == m.size &&
                        etag_of_file(blob, m.etag.size()) == m.etag;
    // a snapshot of plain files (a file system without symlinks: huggingface_hub moves the blob there)
    if (!cached && ::lstat(pointer.c_str(), &pst) == 0 && S_ISREG(pst.st_mode) && static_cast<std::uint64_t>(pst.st_size) == m.size &&
        etag_of_file(pointer, m.etag.size()) == m.etag)
        return;
    if (!cached) download(file, m, blob);
    if (cached && ::stat(pointer.c_str(), &pst) == 0 && ::stat(blob.c_str(), &st) == 0 && pst.st_dev == st.st_dev && pst.st_ino == st.st_ino) return;
    link(file, m.etag);
}

bool Puller::want(const std::string& file, bool required, std::uint64_t cap) {
    if (!required && !commit_.empty() && exists_no_follow(base_ + "/.no_exist/" + commit_ + "/" + file)) return false;
    const std::optional<FileMeta> m = metadata(file, required);
    if (!m) {
        if (events_.note && required) events_.note(file + ": not in the repo");
        return false;
    }
    fetch(file, *m, cap);
    return true;
}

// A shard index and every shard it names; false when the repo has no such index.
bool Puller::want_index(const std::string& index) {
    if (!want(index, false, kMaxInputFileBytes)) return false;
    const std::string path = base_ + "/snapshots/" + commit_ + "/" + index;
    for (const auto& [shard, tensors] : index_shards(read_file(path, "shard index"), index + " of " + ref_.repo)) {
        if (!is_safe_repo_path(shard)) fail(index + " names shard '" + excerpt(shard) + "', not a file of the repo", "attn refuses it");
        want(shard, true, kMaxWeightsBytes);
    }
    return true;
}

// transformers' order: model.safetensors, its index, pytorch_model.bin, its index.
void Puller::weights() {
    if (want("model.safetensors", false, kMaxWeightsBytes) || want_index("model.safetensors.index.json") ||
        want("pytorch_model.bin", false, kMaxWeightsBytes) || want_index("pytorch_model.bin.index.json"))
        return;
    fail(ref_.repo + " has no model.safetensors, pytorch_model.bin or shard index at revision " + ref_.revision,
         "attn runs PyTorch-format weights of the families attn models lists");
}

PullResult Puller::run() {
    want("config.json", true, kMaxInputFileBytes);
    for (const std::string& f : optional_model_files()) want(f, false, kMaxInputFileBytes);
    weights();
    result_.snapshot = {ref_.repo, ref_.revision, commit_, base_ + "/snapshots/" + commit_};
    return result_;
}

}  // namespace

const std::vector<std::string>& optional_model_files() {
    static const std::vector<std::string> files = {"generation_config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                                                   "added_tokens.json", "vocab.json", "merges.txt", "vocab.txt", "spiece.model",
                                                   "source.spm", "target.spm", "target_vocab.json"};
    return files;
}

PullResult pull_model(const HubEnvironment& env, const RepoRef& ref, const PullEvents& events) {
    Puller p(env, ref, events);
    return p.run();
}

}  // namespace attn::hub
