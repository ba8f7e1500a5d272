#include "render/files.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/error.h"

namespace attn::render {
namespace {

// The temporary being written, for the signal handler (async-signal-safe: a fixed buffer).
char g_temp[4096];
volatile std::sig_atomic_t g_temp_set = 0;

extern "C" void on_signal(int sig) {
    if (g_temp_set) ::unlink(g_temp);
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

void ensure_dir(const std::string& dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            input_error("output folder '" + dir + "' exists and is not a folder", "name a folder, not a file");
        return;
    }
    if (errno != ENOENT) fail("folder", dir, errno);
    const std::string parent = parent_of(dir);
    if (parent != dir && parent != "." && parent != "/") ensure_dir(parent);
    if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) fail("folder", dir, errno);
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
    int err = 0;
    if (path == "-") {
        if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0)
            fail("to", "stdout", errno);
        return;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) input_error("output path '" + path + "' is a folder", "name a file inside it");
        if (!S_ISREG(st.st_mode)) {  // a device or a pipe: no rename over it
            const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
            if (fd < 0) fail("file", path, errno);
            const bool ok = write_all(fd, bytes, err);
            if (::close(fd) != 0 && ok) fail("file", path, errno);
            if (!ok) fail("file", path, err);
            return;
        }
    }
    ensure_dir(parent_of(path));  // folders are created as needed
    std::string temp = join_path(parent_of(path), "." + path.substr(path.find_last_of('/') + 1) + ".tmp-XXXXXX");
    if (temp.size() >= sizeof g_temp) input_error("output path '" + path + "' is too long");
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) fail("file", path, errno);
    std::memcpy(g_temp, temp.c_str(), temp.size() + 1);
    g_temp_set = 1;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    bool ok = ::fchmod(fd, 0666 & ~mask) == 0 || (err = errno, false);
    ok = ok && write_all(fd, bytes, err);
    if (::close(fd) != 0 && ok) ok = false, err = errno;
    if (ok && ::rename(temp.c_str(), path.c_str()) != 0) ok = false, err = errno;
    if (!ok) ::unlink(temp.c_str());
    g_temp_set = 0;
    if (!ok) fail("file", path, err);
}

}  // namespace attn::render
