#include "data/base/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "data/base/error.h"
#include "data/base/limits.h"

namespace attn {
namespace {

// Reads fd to its end, never more than kMaxInputFileBytes; `name` names it in errors. With max_words,
// stops (cut = true) once it has read more than max_words words separated by ASCII white space: the
// text then has more tokens than that too (a word is at least one token).
std::string read_all(int fd, const std::string& name, const std::string& what, std::size_t max_words = 0,
                     bool* cut = nullptr) {
    std::size_t words = 0;
    bool in_word = false;
    auto fail = [&](const std::string& why, std::string hint = {}) {
        input_error("cannot read " + what + " " + name + ": " + why, std::move(hint));
    };
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail(std::strerror(errno));
    if (S_ISDIR(st.st_mode)) fail("it is a folder", "name a file inside it");
    const std::string too_big = "it is larger than the " + std::to_string(kMaxInputFileBytes >> 20) + " MiB attn reads";
    if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > kMaxInputFileBytes) fail(too_big);
    // Read to the end (a pipe or a device has no size), never more than the limit.
    std::string bytes;
    if (S_ISREG(st.st_mode)) bytes.reserve(static_cast<std::size_t>(st.st_size));
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail(std::strerror(errno));
        }
        if (n == 0) break;
        if (max_words > 0) {
            for (ssize_t k = 0; k < n; ++k) {
                const char ch = buf[k];
                const bool space = ch == ' ' || (ch >= '\t' && ch <= '\r');
                words += !space && !in_word;
                in_word = !space;
            }
            if (words > max_words) {
                *cut = true;
                return bytes;
            }
        }
        if (bytes.size() + static_cast<std::size_t>(n) > kMaxInputFileBytes) fail(too_big);
        bytes.append(buf, static_cast<std::size_t>(n));
    }
    return bytes;
}

// What to do when open() fails with err.
std::string open_hint(int err) {
    switch (err) {
    case ENOENT:
    case ENOTDIR: return "check the path: a relative one starts from the current folder";
    case EACCES:
    case EPERM: return "check the file's permissions";
    case ELOOP: return "the path's symbolic links go round in a loop: name the file itself";
    default: return {};
    }
}

}  // namespace

void refuse_odd_file(const std::string& path, const std::string& hint) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        struct stat link {};
        if (err == ENOENT && ::lstat(path.c_str(), &link) != 0) return;  // absent: the caller says so
        input_error("cannot read '" + path + "': " + std::strerror(err), hint);
    }
    if (S_ISREG(st.st_mode)) return;
    const char* what = S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a pipe (FIFO)"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : S_ISSOCK(st.st_mode) ? "a socket"
                                                                                                    : "something else";
    input_error("'" + path + "' is " + what + ", not a regular file", hint);
}

void refuse_json_bom(const std::string& text, const std::string& name) {
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0)
        input_error(name + ": starts with a UTF-8 byte order mark, which Python's json and Hugging Face refuse",
                    "save the file as UTF-8 without a byte order mark (BOM)");
}

std::string read_file(const std::string& path, const std::string& what) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        input_error("cannot read " + what + " '" + excerpt(path, 200) + "': " + std::strerror(err), open_hint(err));
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    return read_all(fd, "'" + excerpt(path, 200) + "'", what);
}

std::string read_stdin(const std::string& what) { return read_all(STDIN_FILENO, "from standard input", what); }

std::string read_stdin_words(const std::string& what, std::size_t max_words, bool& cut) {
    cut = false;
    return read_all(STDIN_FILENO, "from standard input", what, max_words, &cut);
}

}  // namespace attn
