#include "render/files.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>
#include <iostream>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/error.h"

namespace attn::render {
namespace {

// The temporaries being written, for the signal handler: kMaxPath bytes each in a buffer sized before
// the writes start, so the handler only reads (async-signal-safe).
constexpr std::size_t kMaxPath = 4096;
std::vector<char> g_storage;
char* volatile g_temps = nullptr;
volatile std::sig_atomic_t g_pending = 0;

extern "C" void on_signal(int sig) {
    for (std::sig_atomic_t i = 0; i < g_pending; ++i) ::unlink(g_temps + std::size_t(i) * kMaxPath);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
    input_error("cannot write " + what + " '" + path + "': " + std::strerror(err));
}

bool write_all(int fd, const std::string& bytes, int& err) {
    const char* p = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            err = errno;
            return false;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    return true;
}

std::string parent_of(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

std::string base_of(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

// The nearest existing ancestor of path must be a folder we can look into.
void check_parents(const std::string& path, const std::string& what) {
    for (std::string p = parent_of(path);; p = parent_of(p)) {
        struct stat st {};
        if (::stat(p.c_str(), &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                input_error("cannot write " + what + " '" + path + "': '" + p + "' is not a folder",
                            "choose a path whose folders are folders");
            return;
        }
        if (errno != ENOENT && errno != ENOTDIR) fail(what, path, errno);
        if (p == "." || p == "/") return;
    }
}

// Creates dir and its missing parents, recording each folder it creates (outermost first).
void make_dirs(const std::string& dir, std::vector<std::string>& created) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            input_error("output folder '" + dir + "' exists and is not a folder", "name a folder, not a file");
        return;
    }
    if (errno != ENOENT) fail("folder", dir, errno);
    const std::string parent = parent_of(dir);
    if (parent != dir && parent != "." && parent != "/") make_dirs(parent, created);
    if (::mkdir(dir.c_str(), 0777) == 0) created.push_back(dir);
    else if (errno != EEXIST) fail("folder", dir, errno);
}

// What a failed batch undoes: its temporaries, then the folders it created (innermost first).
struct Rollback {
    std::vector<std::string> temps, dirs;
    bool armed = true;
    ~Rollback() {
        if (!armed) return;
        for (const auto& t : temps) ::unlink(t.c_str());
        g_pending = 0;
        for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) ::rmdir(it->c_str());
    }
};

void write_stdout(const std::string& bytes) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0) {
        const int err = errno;
        input_error(std::string("cannot write to standard output: ") + std::strerror(err));
    }
}

}  // namespace

void install_cleanup_handlers() {
    static bool installed = false;
    if (installed) return;
    installed = true;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, on_signal);
}

std::string join_path(const std::string& dir, const std::string& name) {
    if (dir.empty()) return name;
    return dir.back() == '/' ? dir + name : dir + "/" + name;
}

void check_output_file(const std::string& path, const std::string& option) {
    if (path.empty()) usage_error(option + " needs a file name", "e.g. " + option + " out/trace.json");
    if (path == "-") return;
    if (path.back() == '/' || base_of(path) == "." || base_of(path) == "..")
        usage_error(option + " '" + path + "' names a folder, not a file", "e.g. " + option + " out/trace.json");
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            input_error("output path '" + path + "' is a folder", "name a file inside it, e.g. " +
                                                                      join_path(path, "trace.json"));
        return;
    }
    if (errno != ENOENT && errno != ENOTDIR) fail("file", path, errno);
    check_parents(path, "file");
}

void check_output_dir(const std::string& dir, const std::string& option) {
    if (dir.empty()) usage_error(option + " needs a folder name", "e.g. " + option + " out");
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            input_error("output folder '" + dir + "' exists and is not a folder", "name a folder, not a file");
        return;
    }
    if (errno != ENOENT && errno != ENOTDIR) fail("folder", dir, errno);
    check_parents(dir, "folder");
}

void write_files_atomic(const std::vector<OutputFile>& files) {
    // 1. sort the outputs: standard output, devices (written in place), files (temporary + rename)
    std::set<std::string> seen;
    std::vector<const OutputFile*> to_stdout, devices, regular;
    for (const OutputFile& f : files) {
        if (!seen.insert(f.path).second)
            usage_error("two outputs would both be written to '" + f.path + "'", "give --json a different name");
        if (f.path == "-") {
            to_stdout.push_back(&f);
            continue;
        }
        if (f.path.empty() || f.path.back() == '/') input_error("cannot write file '" + f.path + "': not a file name");
        struct stat st {};
        if (::stat(f.path.c_str(), &st) == 0) {
            if (S_ISDIR(st.st_mode)) input_error("output path '" + f.path + "' is a folder", "name a file inside it");
            if (!S_ISREG(st.st_mode)) {  // a device or a pipe: no rename over it
                devices.push_back(&f);
                continue;
            }
        }
        regular.push_back(&f);
    }
    g_pending = 0;
    g_storage.assign(regular.size() * kMaxPath, '\0');
    g_temps = g_storage.data();

    // 2. every file to a temporary in its folder (folders created as needed)
    Rollback undo;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    for (const OutputFile* f : regular) {
        make_dirs(parent_of(f->path), undo.dirs);
        std::string temp = join_path(parent_of(f->path), "." + base_of(f->path) + ".tmp-XXXXXX");
        if (temp.size() >= kMaxPath) input_error("output path '" + f->path + "' is too long");
        const int fd = ::mkstemp(temp.data());
        if (fd < 0) fail("file", f->path, errno);
        std::memcpy(g_temps + undo.temps.size() * kMaxPath, temp.c_str(), temp.size() + 1);
        undo.temps.push_back(temp);
        g_pending = static_cast<std::sig_atomic_t>(undo.temps.size());
        int err = 0;
        bool ok = ::fchmod(fd, 0666 & ~mask) == 0 || (err = errno, false);
        ok = ok && write_all(fd, f->bytes, err);
        ok = ok && (::fsync(fd) == 0 || (err = errno, false));
        if (::close(fd) != 0 && ok) ok = false, err = errno;
        if (!ok) fail("file", f->path, err);
    }
    // 3. devices, in place
    for (const OutputFile* f : devices) {
        const int fd = ::open(f->path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0) fail("file", f->path, errno);
        int err = 0;
        const bool ok = write_all(fd, f->bytes, err);
        if (::close(fd) != 0 && ok) fail("file", f->path, errno);
        if (!ok) fail("file", f->path, err);
    }
    // 4. every temporary renamed into place; from here the folders stay
    undo.dirs.clear();
    for (std::size_t i = 0; i < regular.size(); ++i) {
        if (::rename(undo.temps[i].c_str(), regular[i]->path.c_str()) != 0) {
            const int err = errno;
            undo.temps.erase(undo.temps.begin(), undo.temps.begin() + static_cast<long>(i));
            fail("file", regular[i]->path, err);
        }
    }
    undo.armed = false;
    g_pending = 0;
    // 5. standard output last
    for (const OutputFile* f : to_stdout) write_stdout(f->bytes);
}

void write_file_atomic(const std::string& path, const std::string& bytes) { write_files_atomic({{path, bytes}}); }

struct CheckedStdout::Buf : std::streambuf {
    char data[1 << 16];
    int error = 0;
    Buf() { setp(data, data + sizeof data); }
    bool drain() {
        std::string pending(pbase(), static_cast<std::size_t>(pptr() - pbase()));
        setp(data, data + sizeof data);
        int err = 0;
        if (error == 0 && !write_all(STDOUT_FILENO, pending, err)) error = err;
        return error == 0;
    }
    int_type overflow(int_type ch) override {
        if (!drain()) return traits_type::eof();
        if (!traits_type::eq_int_type(ch, traits_type::eof())) sputc(traits_type::to_char_type(ch));
        return traits_type::not_eof(ch);
    }
    int sync() override { return drain() ? 0 : -1; }
};

CheckedStdout::CheckedStdout() : buf_(new Buf), old_(std::cout.rdbuf(buf_)) { std::fflush(stdout); }

CheckedStdout::~CheckedStdout() {
    std::cout.rdbuf(old_);
    delete buf_;
}

int CheckedStdout::flush() {
    std::cout.flush();
    std::cout.clear();
    return buf_->error;
}

}  // namespace attn::render
