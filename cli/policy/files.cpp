#include "cli/policy/files.h"

#include <algorithm>
#include <cerrno>
#include <signal.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <vector>
#include <iostream>
#include <set>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pthread.h>

#include "data/base/error.h"

namespace attn::policy {
namespace {

// The temporaries being written and the folders created for them, for the signal handler: kMaxPath
// bytes each in buffers sized before the writes start, so the handler only reads (async-signal-safe).
constexpr std::size_t kMaxPath = 4096;
std::vector<char> g_storage, g_dir_storage;
char* volatile g_temps = nullptr;
char* volatile g_dirs = nullptr;
volatile std::sig_atomic_t g_pending = 0, g_dir_count = 0;

#if defined(__linux__)
volatile pid_t g_main_tid = 0;  // the thread that creates the files (install_cleanup_handlers' caller)
pid_t this_tid() { return static_cast<pid_t>(::syscall(SYS_gettid)); }
#endif

// Runs on the main thread only: a signal another thread (a BLAS or figure worker) takes is passed on to
// the main thread, which holds it blocked while it creates a file or folder and records it (BlockSignals).
// Cleaning up on another thread while the main one went on could miss a temporary made in between.
extern "C" void on_signal(int sig) {
#if defined(__linux__)
    if (g_main_tid != 0 && this_tid() != g_main_tid) {
        const int saved = errno;
        ::syscall(SYS_tgkill, ::getpid(), g_main_tid, sig);
        errno = saved;
        return;
    }
#endif
    for (std::sig_atomic_t i = 0; i < g_pending; ++i) ::unlink(g_temps + std::size_t(i) * kMaxPath);
    for (std::sig_atomic_t i = g_dir_count; i > 0; --i) ::rmdir(g_dirs + std::size_t(i - 1) * kMaxPath);  // innermost first
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

// SIGINT, SIGTERM and SIGHUP held back on this thread while in scope: a file or folder is created and
// recorded for on_signal as one step.
struct BlockSignals {
    sigset_t old{};
    BlockSignals() {
        sigset_t set;
        ::sigemptyset(&set);
        for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaddset(&set, sig);
        ::pthread_sigmask(SIG_BLOCK, &set, &old);
    }
    ~BlockSignals() { ::pthread_sigmask(SIG_SETMASK, &old, nullptr); }
    BlockSignals(const BlockSignals&) = delete;
    BlockSignals& operator=(const BlockSignals&) = delete;
};

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
    if (dir.size() >= kMaxPath) input_error("output path '" + dir + "' is too long");
    if (::mkdir(dir.c_str(), 0777) == 0) {
        created.push_back(dir);
        if (created.size() * kMaxPath <= g_dir_storage.size()) {  // known to the signal handler too
            std::memcpy(g_dirs + (created.size() - 1) * kMaxPath, dir.c_str(), dir.size() + 1);
            g_dir_count = static_cast<std::sig_atomic_t>(created.size());
        }
    } else if (errno != EEXIST) {
        fail("folder", dir, errno);
    }
}

// What a failed batch undoes: its temporaries, then the folders it created (innermost first).
struct Rollback {
    std::vector<std::string> temps, dirs;
    bool armed = true;
    ~Rollback() {
        if (!armed) return;
        for (const auto& t : temps) ::unlink(t.c_str());
        g_pending = 0;
        g_dir_count = 0;
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

bool same_file_as_fd(const std::string& path, int fd) {
    if (path.empty() || path == "-") return fd == STDOUT_FILENO && path == "-";
    struct stat a {}, b {};
    if (::stat(path.c_str(), &a) != 0 || ::fstat(fd, &b) != 0) return false;
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

bool is_kernel_path(const std::string& path) {
    for (const char* root : {"/proc/", "/dev/fd/"})
        if (path.rfind(root, 0) == 0) return true;
    return path == "/dev/stdout" || path == "/dev/stderr" || path == "/dev/stdin";
}

std::string link_target(const std::string& path) {
    std::string p = path;
    for (int hops = 0; hops < 40; ++hops) {  // the kernel's own limit on links in a row (ELOOP)
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
        std::string to(kMaxPath, '\0');
        const ssize_t n = ::readlink(p.c_str(), to.data(), to.size() - 1);
        if (n <= 0) return p;
        to.resize(static_cast<std::size_t>(n));
        p = to[0] == '/' ? to : join_path(parent_of(p), to);
    }
    input_error("cannot write file '" + path + "': " + std::strerror(ELOOP));
}


void install_cleanup_handlers() {
    static bool installed = false;
    if (installed) return;
    installed = true;
#if defined(__linux__)
    g_main_tid = this_tid();
#endif
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, on_signal);
}

std::string join_path(const std::string& dir, const std::string& name) {
    if (dir.empty()) return name;
    return dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::string folder_name(std::string dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    const std::size_t slash = dir.find_last_of('/');
    return slash == std::string::npos || dir.size() == 1 ? dir : dir.substr(slash + 1);
}

void check_output_file(const std::string& path, const std::string& option) {
    const std::string example = option == "--json" ? "trace.json" : "page.html";  // --html and attn page
    if (path.empty()) usage_error(option + " needs a file name", "e.g. " + option + " out/" + example);
    if (path == "-") return;
    if (path.back() == '/' || base_of(path) == "." || base_of(path) == "..")
        usage_error(option + " '" + path + "' names a folder, not a file", "e.g. " + option + " out/" + example);
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode))
            input_error("output path '" + path + "' is a folder",
                        "name a file inside it, e.g. " + join_path(path, example));
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
    // 1. sort the outputs: standard output or error (a path naming the same file, like /dev/stdout, is
    //    written through the descriptor), devices and pipes (in place), files (temporary + rename
    //    beside the file a symbolic link names, keeping an existing file's permissions)
    std::set<std::string> seen;
    std::vector<const OutputFile*> to_stdout, to_stderr, devices;
    struct Regular {
        const OutputFile* file;
        std::string target;  // where the bytes land: the path, or the file its link names
        mode_t mode;         // 0: a new file (0666 less the umask)
    };
    std::vector<Regular> regular;
    for (const OutputFile& f : files) {
        if (!seen.insert(f.path).second)
            usage_error("two outputs would both be written to '" + f.path + "'", "give --json a different name");
        if (f.path == "-" || same_file_as_fd(f.path, STDOUT_FILENO)) {
            to_stdout.push_back(&f);
            continue;
        }
        if (same_file_as_fd(f.path, STDERR_FILENO)) {
            to_stderr.push_back(&f);
            continue;
        }
        if (f.path.empty() || f.path.back() == '/') input_error("cannot write file '" + f.path + "': not a file name");
        struct stat st {};
        const bool exists = ::stat(f.path.c_str(), &st) == 0;
        if (exists && S_ISDIR(st.st_mode)) input_error("output path '" + f.path + "' is a folder", "name a file inside it");
        std::string target = link_target(f.path);
        if ((exists && !S_ISREG(st.st_mode)) || is_kernel_path(f.path) || is_kernel_path(target)) {
            devices.push_back(&f);  // a device, a pipe, /proc/self/fd/N: no rename over it
            continue;
        }
        regular.push_back({&f, std::move(target), exists ? mode_t(st.st_mode & 07777) : mode_t(0)});
    }
    g_pending = 0, g_dir_count = 0;
    g_storage.assign(regular.size() * kMaxPath, '\0');
    g_temps = g_storage.data();
    std::size_t depth = 0;  // at most this many folders are created
    for (const Regular& r : regular) depth += std::size_t(std::count(r.target.begin(), r.target.end(), '/')) + 1;
    g_dir_storage.assign(std::min<std::size_t>(depth, 256) * kMaxPath, '\0');
    g_dirs = g_dir_storage.data();

    // 2. every file to a temporary in its folder (folders created as needed)
    Rollback undo;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    struct OpenTemps {  // the temporaries' descriptors, closed however this ends
        std::vector<int> fds;
        ~OpenTemps() {
            for (int fd : fds)
                if (fd >= 0) ::close(fd);
        }
    } open;
    for (const Regular& r : regular) {
        int fd = -1;
        {
            const BlockSignals created_and_recorded;
            make_dirs(parent_of(r.target), undo.dirs);
            // ".attn-XXXXXX" whatever the file's name: a name of NAME_MAX bytes still has a temporary
            std::string temp = join_path(parent_of(r.target), ".attn-XXXXXX");
            if (temp.size() >= kMaxPath) input_error("output path '" + r.file->path + "' is too long");
            fd = ::mkstemp(temp.data());
            if (fd < 0) fail("file", r.file->path, errno);
            std::memcpy(g_temps + undo.temps.size() * kMaxPath, temp.c_str(), temp.size() + 1);
            undo.temps.push_back(temp);
            g_pending = static_cast<std::sig_atomic_t>(undo.temps.size());
        }
        open.fds.push_back(fd);
        int err = 0;
        bool ok = ::fchmod(fd, r.mode ? r.mode : 0666 & ~mask) == 0 || (err = errno, false);
        ok = ok && write_all(fd, r.file->bytes, err);
        if (!ok) fail("file", r.file->path, err);
    }
    //    then every temporary's fsync at once: the file system commits them together. `show --png` writes
    //    four files; one after another their fsyncs took 20 ms on ext4 on this project's machine (loaded),
    //    at once 12-17 ms (a loop of 4 files of 150 KB, 5 runs each).
    //    (16 at a time: a model's figures can be hundreds of files)
    std::vector<int> errs(regular.size(), 0);
    const auto sync = [&](std::size_t i) {
        if (::fsync(open.fds[i]) != 0) errs[i] = errno;
    };
    constexpr std::size_t kSyncsAtOnce = 16;
    for (std::size_t first = 0; first < regular.size(); first += kSyncsAtOnce) {
        const std::size_t end = std::min(regular.size(), first + kSyncsAtOnce);
        std::vector<std::thread> syncs;
        for (std::size_t i = first + 1; i < end; ++i) {
            try {
                syncs.emplace_back(sync, i);
            } catch (const std::system_error&) {  // no thread: this one does it
                sync(i);
            }
        }
        sync(first);
        for (std::thread& t : syncs) t.join();
    }
    for (std::size_t i = 0; i < regular.size(); ++i) {
        const int fd = open.fds[i];
        open.fds[i] = -1;
        if (::close(fd) != 0 && errs[i] == 0) errs[i] = errno;
        if (errs[i] != 0) fail("file", regular[i].file->path, errs[i]);
    }
    // 3. devices, in place; a pipe whose reader quit early is a failed write (EPIPE, exit 1 with the
    //    reason), not a silent death by SIGPIPE: SIGPIPE is ignored while they are written
    struct IgnoreSigpipe {
        struct sigaction old {};
        IgnoreSigpipe() {
            struct sigaction ignore {};
            ignore.sa_handler = SIG_IGN;
            ::sigemptyset(&ignore.sa_mask);
            ::sigaction(SIGPIPE, &ignore, &old);
        }
        ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &old, nullptr); }
    } const no_sigpipe;
    for (const OutputFile* f : devices) {
        struct stat st {};
        const bool is_file = ::stat(f->path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
        const int fd = ::open(f->path.c_str(), O_WRONLY | O_CLOEXEC | (is_file ? O_TRUNC : 0));
        if (fd < 0) fail("file", f->path, errno);
        int err = 0;
        const bool ok = write_all(fd, f->bytes, err);
        if (::close(fd) != 0 && ok) fail("file", f->path, errno);
        if (!ok) fail("file", f->path, err);
    }
    // 4. every temporary renamed into place, with the interrupts held back: a signal between two renames
    //    would remove the later temporaries and leave their new folders empty. From here the folders stay.
    {
        const BlockSignals renamed_together;
        undo.dirs.clear();
        g_dir_count = 0;
        for (std::size_t i = 0; i < regular.size(); ++i) {
            if (::rename(undo.temps[i].c_str(), regular[i].target.c_str()) != 0) {
                const int err = errno;
                undo.temps.erase(undo.temps.begin(), undo.temps.begin() + static_cast<long>(i));
                fail("file", regular[i].file->path, err);
            }
        }
        undo.armed = false;
        g_pending = 0;
    }
    // 5. standard error, then standard output, last
    for (const OutputFile* f : to_stderr) {
        int err = 0;
        if (!write_all(STDERR_FILENO, f->bytes, err))
            input_error(std::string("cannot write to standard error: ") + std::strerror(err));
    }
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

}  // namespace attn::policy
