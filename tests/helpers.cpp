#include "tests/helpers.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/base/error.h"
#include "fuzz/harness.h"
#include "render/text/font.h"

namespace attn::test {

void write(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
    REQUIRE(out.good());
}

std::string npy_header(std::string header, const std::string& data) {
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string out = std::string("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xFF);
    out += static_cast<char>(header.size() >> 8);
    return out + header + data;
}
namespace {

std::string read_fd(int fd) {
    std::string s;
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) s.append(buf, static_cast<std::size_t>(n));
    return s;
}

}  // namespace

RunResult run_attn(const std::vector<std::string>& args, const RunOptions& o) {
    // stdin, stdout and stderr are files in a folder of their own (no pipe deadlock on large output).
    const std::string io = temp_dir();
    const std::string out_path = o.stdout_path.empty() ? io + "/stdout" : o.stdout_path;
    std::ofstream(io + "/stdin") << o.stdin_text;
    std::vector<std::string> argv_s = {ATTN_BINARY};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        const int in = ::open((io + "/stdin").c_str(), O_RDONLY);
        const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = ::open((io + "/stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0 || err < 0) ::_exit(126);
        ::dup2(in, 0), ::dup2(out, 1), ::dup2(err, 2);
        ::setenv("NO_COLOR", "1", 1);
        if (!o.cwd.empty() && ::chdir(o.cwd.c_str()) != 0) ::_exit(125);
        if (o.remove_cwd && ::rmdir(o.cwd.c_str()) != 0) ::_exit(124);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    int status = 0;
    struct rusage usage {};
    ::wait4(pid, &status, 0, &usage);
    RunResult r;
    r.peak_bytes = double(usage.ru_maxrss) * 1024.0;  // kilobytes on Linux
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (o.stdout_path.empty()) r.out = slurp(out_path);
    r.err = slurp(io + "/stderr");
    std::error_code ignored;
    std::filesystem::remove_all(io, ignored);
    return r;
}

std::string dejavu_with_units_per_em(unsigned em) {
    std::string font(attn::render::embedded_font());
    const auto u16 = [&](std::size_t o) { return unsigned(static_cast<unsigned char>(font[o])) << 8 | static_cast<unsigned char>(font[o + 1]); };
    const auto u32 = [&](std::size_t o) { return std::size_t(u16(o)) << 16 | u16(o + 2); };
    const unsigned tables = u16(4);
    for (unsigned i = 0; i < tables; ++i) {
        const std::size_t entry = 12 + 16 * std::size_t(i);
        if (font.compare(entry, 4, "head") != 0) continue;
        const std::size_t units = u32(entry + 8) + 18;  // head.unitsPerEm, big-endian
        font[units] = static_cast<char>(em >> 8), font[units + 1] = static_cast<char>(em & 0xFF);
        return font;
    }
    FAIL("the built-in font has no head table");
    return font;
}

namespace {
// The folders temp_dir made in this process, removed when it exits (ATTN_KEEP_TEST_DIRS=1 keeps them to
// look at): a run of the suite would otherwise leave thousands of folders, gigabytes, in /tmp.
std::vector<std::string>& made_dirs() {
    static std::vector<std::string>* dirs = [] {
        auto* v = new std::vector<std::string>();
        std::atexit([] {
            const char* keep = std::getenv("ATTN_KEEP_TEST_DIRS");
            if (keep && *keep && std::string(keep) != "0") return;
            std::error_code ec;
            for (const std::string& d : made_dirs()) std::filesystem::remove_all(d, ec);
        });
        return v;
    }();
    return *dirs;
}
}  // namespace

std::string temp_dir() {
    static std::atomic<int> counter{0};
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/attn-test-" + std::to_string(::getpid()) +
                       "-" + std::to_string(counter++) + "-XXXXXX";
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    static std::mutex m;
    const std::lock_guard<std::mutex> lock(m);
    made_dirs().push_back(tmpl);
    return tmpl;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

RunResult run_in(const std::string& dir, const std::vector<std::string>& args, const std::string& stdin_text,
                 const std::string& stdout_path) {
    RunOptions o;
    o.cwd = dir, o.stdin_text = stdin_text, o.stdout_path = stdout_path;
    return run_attn(args, o);
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

std::size_t count_of(const std::string& text, const std::string& what) {
    if (what.empty()) throw std::invalid_argument("count_of: an empty text occurs everywhere");
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

std::vector<std::string> tree(const std::string& dir) {
    std::vector<std::string> paths;
    fuzz::list_tree(dir, "", paths);
    std::sort(paths.begin(), paths.end());
    return paths;
}

bool is_link(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

std::string one_line(const RunResult& r) {
    INFO("stderr: " << r.err);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    return r.err;
}

}  // namespace attn::test
