// Hostile inputs, round two, end to end through the binary: outputs written through links and
// never over an input, clashes refused before the run, one consistent set of files per folder,
// no non-finite number in a trace, list options, .npy headers and tokens as numpy and the tokeniser
// read them, and messages that stay short and say what to do.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "data/embed.h"
#include "data/error.h"
#include "data/npy.h"
#include "data/tokenize.h"
#include "fuzz/harness.h"
#include "render/npy.h"
#include "cli/policy/outputs.h"
#include "render/png.h"
#include "tests/helpers.h"

using namespace attn;
using attn::test::RunOptions;
using attn::test::RunResult;
using attn::test::slurp;
using attn::test::temp_dir;
using Json = nlohmann::json;
using attn::test::write;

namespace {


RunResult run_in(const std::string& dir, const std::vector<std::string>& args, const std::string& stdin_text = "",
                 const std::string& stdout_path = "") {
    RunOptions o;
    o.cwd = dir, o.stdin_text = stdin_text, o.stdout_path = stdout_path;
    return attn::test::run_attn(args, o);
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

std::string npy_text(const std::string& header, const std::string& data, const char* version = "\x01\x00") {
    std::string h = header;
    while ((10 + h.size() + 1) % 64 != 0) h += ' ';
    h += '\n';
    std::string out = std::string("\x93NUMPY", 6) + std::string(version, 2);
    out += static_cast<char>(h.size() & 0xFF);
    out += static_cast<char>(h.size() >> 8);
    return out + h + data;
}

std::string floats(std::initializer_list<float> v, bool big_endian = false) {
    std::string s;
    for (float f : v) {
        char b[4];
        std::memcpy(b, &f, 4);
        if (big_endian) std::reverse(b, b + 4);
        s.append(b, 4);
    }
    return s;
}

std::string npy_error(const std::string& bytes) {
    try {
        load_embeddings_bytes(bytes, "e.npy");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

// ---- 1. links, devices, standard output, permissions ------------------------------------------------

TEST_CASE("hostile files: a symbolic link is written through and stays a link") {
    const std::string dir = temp_dir();
    REQUIRE(::mkdir((dir + "/real").c_str(), 0755) == 0);
    write(dir + "/real/t.json", "old");
    REQUIRE(::symlink("real/t.json", (dir + "/link.json").c_str()) == 0);
    const RunResult r = run_in(dir, {"show", "hi", "--json", "link.json"});
    REQUIRE(r.code == 0);
    CHECK(is_link(dir + "/link.json"));
    CHECK(Json::parse(slurp(dir + "/real/t.json"))["kind"] == "causal");
    CHECK(tree(dir) == std::vector<std::string>{"link.json", "real", "real/t.json"});  // no temporary left beside either
    // a link to a file that does not exist yet: the file is created where the link points
    REQUIRE(::symlink("real/new.json", (dir + "/dangling.json").c_str()) == 0);
    REQUIRE(run_in(dir, {"show", "hi", "--json", "dangling.json"}).code == 0);
    CHECK(is_link(dir + "/dangling.json"));
    CHECK(Json::parse(slurp(dir + "/real/new.json"))["tokens"] == Json::array({"hi"}));
}

TEST_CASE("hostile files: a link to standard output writes into the redirected file and stays a link") {
    // what `attn show hi --json /dev/stdout > out.txt` does, with a link of our own to /proc/self/fd/1
    const std::string dir = temp_dir();
    REQUIRE(::symlink("/proc/self/fd/1", (dir + "/stdout-link").c_str()) == 0);
    const RunResult r = run_in(dir, {"show", "hi", "--json", "stdout-link"}, "", dir + "/out.txt");
    REQUIRE(r.code == 0);
    CHECK(is_link(dir + "/stdout-link"));
    const std::string out = slurp(dir + "/out.txt");
    CHECK(Json::parse(out)["kind"] == "causal");  // the trace alone, as with --json -
    CHECK(tree(dir) == std::vector<std::string>{"out.txt", "stdout-link"});
    // the same through a link to standard error: the trace lands in the stderr file, stdout holds the view
    REQUIRE(::symlink("/proc/self/fd/2", (dir + "/stderr-link").c_str()) == 0);
    const RunResult e = run_in(dir, {"show", "hi", "--json", "stderr-link"});
    REQUIRE(e.code == 0);
    CHECK(is_link(dir + "/stderr-link"));
    CHECK(Json::parse(e.err)["kind"] == "causal");
    CHECK(e.out.find("attn · causal") != std::string::npos);
}

TEST_CASE("hostile files: a FIFO is written in place, not replaced") {
    const std::string dir = temp_dir();
    REQUIRE(::mkfifo((dir + "/pipe").c_str(), 0600) == 0);
    REQUIRE(::symlink("pipe", (dir + "/pipe-link").c_str()) == 0);
    const pid_t reader = ::fork();
    REQUIRE(reader >= 0);
    if (reader == 0) {  // drain the pipe into a file
        const int in = ::open((dir + "/pipe").c_str(), O_RDONLY);
        const int out = ::open((dir + "/drained").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        char buf[4096];
        ssize_t n;
        while ((n = ::read(in, buf, sizeof buf)) > 0)
            if (::write(out, buf, static_cast<std::size_t>(n)) != n) ::_exit(1);
        ::_exit(0);
    }
    const RunResult r = run_in(dir, {"show", "hi", "--json", "pipe-link"});
    const int release = ::open((dir + "/pipe").c_str(), O_WRONLY | O_NONBLOCK);  // if attn never opened it
    if (release >= 0) ::close(release);
    int status = 0;
    ::waitpid(reader, &status, 0);
    REQUIRE(r.code == 0);
    struct stat st {};
    REQUIRE(::lstat((dir + "/pipe").c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
    CHECK(is_link(dir + "/pipe-link"));
    CHECK(Json::parse(slurp(dir + "/drained"))["kind"] == "causal");
}

TEST_CASE("hostile files: an overwritten file keeps its permissions; a name near NAME_MAX is written") {
    const std::string dir = temp_dir();
    write(dir + "/t.json", "secret");
    REQUIRE(::chmod((dir + "/t.json").c_str(), 0600) == 0);
    REQUIRE(run_in(dir, {"show", "hi", "--json", "t.json"}).code == 0);
    struct stat st {};
    REQUIRE(::stat((dir + "/t.json").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    CHECK(Json::parse(slurp(dir + "/t.json"))["kind"] == "causal");
    // NAME_MAX - 5 bytes: the temporary's name must not grow with it
    const std::string name = std::string(NAME_MAX - 10, 'n') + ".json";
    const RunResult r = run_in(dir, {"show", "hi", "--json", name});
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK(Json::parse(slurp(dir + "/" + name))["kind"] == "causal");
}

// ---- 2, 3. outputs over inputs, outputs over outputs ---------------------------------------------------

TEST_CASE("hostile files: no output may be the same file as an input, by any name") {
    const std::string dir = temp_dir();
    const std::string emb = R"({"tokens": ["a", "b"], "x": [[1, 2], [3, 4]]})";
    write(dir + "/e.json", emb);
    write(dir + "/s.txt", "a b");
    write(dir + "/m.json", "[[1, 0], [1, 1]]");
    REQUIRE(::link((dir + "/s.txt").c_str(), (dir + "/hard.txt").c_str()) == 0);
    REQUIRE(::symlink("m.json", (dir + "/m-link.json").c_str()) == 0);
    struct Case {
        std::vector<std::string> args;
        std::string error;
    };
    const std::vector<Case> cases = {
        {{"show", "--embeddings", "e.json", "a b", "--json", "e.json"},
         "--json 'e.json' is the same file as --embeddings 'e.json'"},
        {{"show", "--file", "s.txt", "--json", "s.txt"}, "--json 's.txt' is the same file as --file 's.txt'"},
        {{"show", "--file", "s.txt", "--json", "hard.txt"}, "--json 'hard.txt' is the same file as --file 's.txt'"},
        {{"show", "a b", "--mask", "m.json", "--json", "m-link.json"},
         "--json 'm-link.json' is the same file as --mask 'm.json'"},
        {{"show", "a b", "--mask", "m-link.json", "--json", "./m.json"},
         "--json './m.json' is the same file as --mask 'm-link.json'"},
    };
    for (const Case& c : cases) {
        INFO(c.args.back());
        const RunResult r = run_in(dir, c.args);
        CHECK(r.code == 2);
        CHECK(one_line(r).find(c.error) != std::string::npos);
    }
    CHECK(slurp(dir + "/e.json") == emb);
    CHECK(slurp(dir + "/s.txt") == "a b");
    CHECK(slurp(dir + "/m.json") == "[[1, 0], [1, 1]]");
    // an input among the files an --npy folder would write (or remove as stale)
    REQUIRE(::mkdir((dir + "/n").c_str(), 0755) == 0);
    write(dir + "/n/causal-x.npy", "[[1, 2], [3, 4]]");
    const RunResult r = run_in(dir, {"show", "--embeddings", "n/causal-x.npy", "a b", "--npy", "n"});
    CHECK(r.code == 2);
    CHECK(one_line(r).find("--npy 'n' would overwrite --embeddings 'n/causal-x.npy'") != std::string::npos);
    CHECK(slurp(dir + "/n/causal-x.npy") == "[[1, 2], [3, 4]]");
}

TEST_CASE("hostile files: output clashes are refused before the run and create nothing") {
    const std::vector<std::vector<std::string>> clashes = {
        {"--json", "same", "--npy", "same"},
        {"--json", "same", "--png", "same"},
        {"--json", "d", "--png", "d/x"},
        {"--json", "q/t.json", "--npy", "q/t.json"},
        {"--png", "q/t.json", "--json", "q/t.json"},
        {"--json", "a/./b.json", "--npy", "a//b.json/"},
        {"--json", "o/causal-x.npy", "--npy", "o"},
        {"--png", "o/causal-x.npy", "--npy", "o"},
        {"--png", "-"},
        {"--npy", "-"},
    };
    for (const auto& extra : clashes) {
        const std::string dir = temp_dir();
        std::vector<std::string> args = {"show", "hi"};
        args.insert(args.end(), extra.begin(), extra.end());
        INFO(extra[0] << " " << extra[1] << " ...");
        const RunResult r = run_in(dir, args);
        CHECK(r.code == 2);
        one_line(r);
        CHECK(tree(dir).empty());
        CHECK(r.out.empty());
    }
    // folders may share a path: their names differ (.png, .npy)
    const std::string dir = temp_dir();
    CHECK(run_in(dir, {"show", "hi", "--png", "o", "--npy", "o", "--json", "o/trace.json"}).code == 0);
}

// ---- 4. one consistent set per folder ---------------------------------------------------------------

TEST_CASE("hostile files: a second run into a folder leaves its own set, and other files alone") {
    const std::string dir = temp_dir();
    REQUIRE(run_in(dir, {"show", "--kind", "mha", "--heads", "4", "--dropout", "0.2", "a b c", "--npy", "o", "--png",
                         "o"})
                .code == 0);
    const auto first = tree(dir);
    CHECK(std::count(first.begin(), first.end(), "o/mha-h3-weights.npy") == 1);
    CHECK(std::count(first.begin(), first.end(), "o/mha-dropped-weights.png") == 1);
    write(dir + "/o/notes.txt", "mine");
    write(dir + "/o/mha-wrapper-x.npy", "another kind's");
    write(dir + "/o/mha-h0-weights.npy.bak", "not attn's name");
    REQUIRE(run_in(dir, {"show", "--kind", "mha", "--heads", "2", "a b c", "--npy", "o", "--png", "o"}).code == 0);
    std::set<std::string> want = {"o", "o/notes.txt", "o/mha-wrapper-x.npy", "o/mha-h0-weights.npy.bak"};
    // exactly what a fresh run writes, beside the files that are not this kind's
    const std::string fresh = temp_dir();
    REQUIRE(run_in(fresh, {"show", "--kind", "mha", "--heads", "2", "a b c", "--npy", "o", "--png", "o"}).code == 0);
    for (const auto& p : tree(fresh)) want.insert(p);
    const auto after = tree(dir);
    CHECK(std::set<std::string>(after.begin(), after.end()) == want);
}

TEST_CASE("hostile files: every name attn writes into a folder is one of its documented names") {
    const std::string dir = temp_dir();
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--kind", "gqa", "--heads", "12", "--kv-heads", "3", "--d-out", "12", "--dropout", "0.1",
                                   "--qkv-bias"},
          {"--kind", "flash", "--heads", "2"},
          {"--kind", "cross", "--source", "x y"},
          {"--kind", "additive"},
          {"--kind", "mha-wrapper"}}) {
        std::vector<std::string> a = {"show", "a b c", "--npy", "n", "--png", "p"};
        a.insert(a.end(), args.begin(), args.end());
        REQUIRE(run_in(dir, a).code == 0);
    }
    const auto files = tree(dir);
    CHECK(files.size() > 60);
    for (const auto& f : files) {
        if (f == "n" || f == "p") continue;
        INFO(f);
        const std::string name = f.substr(2), kind = name.substr(0, name.find('-'));
        const std::string prefix = name.rfind("mha-wrapper-", 0) == 0 ? "mha-wrapper" : kind;
        CHECK(policy::is_output_name(f[0] == 'n' ? policy::Folder::npy : policy::Folder::png, prefix, name));
    }
    CHECK(!policy::is_output_name(policy::Folder::npy, "mha", "mha-wrapper-x.npy"));
    CHECK(!policy::is_output_name(policy::Folder::npy, "mha", "mha-h1-notes.npy"));
    CHECK(!policy::is_output_name(policy::Folder::png, "causal", "causal-x.npy"));
}

// ---- 5. interrupts ---------------------------------------------------------------------------------

TEST_CASE("hostile files: an interrupt while writing removes the folders the run created") {
    const std::string dir = temp_dir();
    std::string words;
    for (int i = 0; i < 1200; ++i) words += "w" + std::to_string(i) + " ";
    write(dir + "/words.txt", words);
    int landed = 0;
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
        for (int delay_ms : {150, 250, 300, 350, 400, 450}) {  // the run takes about 0.5 s
            INFO("signal " << sig << " after " << delay_ms << " ms");
            const std::string out = dir + "/run" + std::to_string(sig) + "-" + std::to_string(delay_ms);
            REQUIRE(::mkdir(out.c_str(), 0755) == 0);
            sigset_t set, old_mask;
            sigemptyset(&set);
            sigaddset(&set, sig);
            REQUIRE(::sigprocmask(SIG_BLOCK, &set, &old_mask) == 0);
            const pid_t pid = ::fork();
            REQUIRE(pid >= 0);
            if (pid == 0) {
                ::signal(sig, SIG_DFL);
                ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
                const int null = ::open("/dev/null", O_WRONLY);
                ::dup2(null, 1), ::dup2(null, 2);
                ::execl(ATTN_BINARY, ATTN_BINARY, "show", "--kind", "self", "--file", (dir + "/words.txt").c_str(),
                        "--npy", (out + "/a/b").c_str(), "--png", (out + "/p/q").c_str(), static_cast<char*>(nullptr));
                ::_exit(127);
            }
            ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
            int status = 0;
            bool done = false;
            for (int waited = 0; waited < delay_ms && !done; waited += 5) {
                ::usleep(5000);
                done = ::waitpid(pid, &status, WNOHANG) == pid;
            }
            if (!done) {
                ::kill(pid, sig);
                ::waitpid(pid, &status, 0);
            }
            const auto left = tree(out);
            for (const auto& p : left) CHECK(p.find(".attn-") == std::string::npos);
            // a folder the run made is there only with the files it was made for
            for (const char* folder : {"a/b", "p/q"}) {
                const bool has_folder = std::count(left.begin(), left.end(), folder) > 0;
                bool has_files = false;
                for (const auto& p : left) has_files = has_files || p.rfind(std::string(folder) + "/", 0) == 0;
                CHECK(has_folder == has_files);
                landed += has_files;
            }
            CHECK((std::count(left.begin(), left.end(), "a") > 0) ==
                  (std::count(left.begin(), left.end(), "a/b") > 0));
        }
    MESSAGE(landed << " of 36 folders were written whole before the signal");
}

// ---- 6. every stage finite -------------------------------------------------------------------------

TEST_CASE("hostile numerics: embeddings of ±3e38 fail naming the stage on every kind, never null in a trace") {
    const std::string dir = temp_dir();
    std::string a = "[", b = "[";
    for (int i = 0; i < 16; ++i) a += (i ? ",3e38" : "3e38"), b += (i ? ",-3e38" : "-3e38");
    write(dir + "/big.json", "[" + a + "]," + b + "]]");
    for (const auto& k : kinds()) {
        std::vector<std::string> args = {"show", "--kind", k.name, "--embeddings", "big.json", "a b", "--json", "t.json"};
        if (std::string(k.name) == "luong") args.insert(args.end(), {"--score", "concat"});
        if (k.options & opt_heads) args.insert(args.end(), {"--heads", "2"});
        INFO(k.name);
        const RunResult r = run_in(dir, args);
        CHECK(r.code == 1);
        CHECK(one_line(r).find("overflow float32") != std::string::npos);
        CHECK(::access((dir + "/t.json").c_str(), F_OK) != 0);
    }
    const RunResult add = run_in(dir, {"show", "--kind", "additive", "--embeddings", "big.json", "a b"});
    CHECK(add.err.find("the queries (x W_query) overflow float32 at row 0") != std::string::npos);
    const RunResult luong = run_in(dir, {"show", "--kind", "luong", "--score", "concat", "--embeddings", "big.json", "a b"});
    CHECK(luong.err.find("the queries (x W_query) overflow float32 at row 0") != std::string::npos);
    // values that stay finite through every stage still run, and the trace holds no null outside row_max
    write(dir + "/ok.json", "[[1e15, -1e15], [-1e15, 1e15]]");
    const RunResult fine = run_in(dir, {"show", "--kind", "simple", "--embeddings", "ok.json", "a b", "--json", "-"});
    REQUIRE(fine.code == 0);
    CHECK(fine.out.find("null") == std::string::npos);
}

// ---- 7. list options --------------------------------------------------------------------------------

TEST_CASE("hostile cli: --show takes exactly one comma-separated value") {
    const RunResult a = attn::test::run_attn({"show", "--show", "weights", "Your journey"});
    INFO(a.err);
    CHECK(a.code == 0);
    CHECK(a.out.find("tokens:   Your | journey") != std::string::npos);
    const RunResult b = attn::test::run_attn({"show", "--show=weights,scores", "Your journey"});
    CHECK(b.code == 0);
    CHECK(b.out.find("scores: raw scores q_i·k_j") != std::string::npos);
    const RunResult twice = attn::test::run_attn({"show", "--show", "a", "--show", "b", "hi"});
    CHECK(twice.code == 2);
    CHECK(one_line(twice) == "attn: error: --show is given 2 times; give it once (hint: see 'attn show --help')\n");
}

// ---- 8. wrong answers --------------------------------------------------------------------------------

TEST_CASE("hostile inputs: FLT_MAX as attn writes it is a finite float32; one past it is named") {
    const Embeddings e = load_embeddings_bytes("[[3.4028235e38, -3.4028235e38]]", "e.json");
    CHECK(e.x(0, 0) == FLT_MAX);
    CHECK(e.x(0, 1) == -FLT_MAX);
    std::string why;
    try {
        load_embeddings_bytes("[[1, 3.4028236e38]]", "e.json");
    } catch (const Error& err) {
        why = err.what();
    }
    CHECK(why == "e.json: row 0, column 1 is not a finite float32 value (3.4028236e38)");
    // float64 .npy: the same bound
    const double max = 3.4028235e38;
    std::string d(reinterpret_cast<const char*>(&max), 8);
    const Embeddings n =
        load_embeddings_bytes(npy_text("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", d), "e.npy");
    CHECK(n.x(0, 0) == FLT_MAX);
}

TEST_CASE("hostile inputs: .npy headers as numpy reads them, big-endian floats read") {
    const std::string data = floats({1.0f, 2.5f, -3.0f, 4.0f});
    const std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
    CHECK(npy_error(npy_text(ok, data)).empty());
    CHECK(npy_error(npy_text("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'shape': (4, 1), }", data)) ==
          "e.npy: not a valid .npy file: the header gives 'shape' twice");
    CHECK(npy_error(npy_text(ok, data, "\x01\x01")) == "e.npy: not a valid .npy file: unsupported format version 1.1");
    CHECK(npy_error(npy_text(ok, data, "\x02\x05")) == "e.npy: not a valid .npy file: unsupported format version 2.5");
    CHECK(npy_error(npy_text("'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)", data)).find(
              "the header is not a Python dict") != std::string::npos);
    const std::string nul =
        npy_error(npy_text("{'descr': '<f4" + std::string(1, '\0') + "', 'fortran_order': False, 'shape': (2, 2), }", data));
    CHECK(nul == "e.npy: not a valid .npy file: dtype '<f4\\x00' is not supported (use float32 or float64; bool or "
                 "uint8 for masks)");
    // >f4 and >f8 are float32 and float64 in the other byte order: the same matrix
    const Embeddings little = load_embeddings_bytes(npy_text(ok, data), "e.npy");
    const Embeddings big = load_embeddings_bytes(
        npy_text("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", floats({1.0f, 2.5f, -3.0f, 4.0f}, true)),
        "e.npy");
    CHECK(big.x == little.x);
    std::string d8;
    for (double v : {1.0, 2.5, -3.0, 4.0}) {
        char b[8];
        std::memcpy(b, &v, 8);
        std::reverse(b, b + 8);
        d8.append(b, 8);
    }
    CHECK(load_embeddings_bytes(npy_text("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 2), }", d8), "e.npy").x ==
          little.x);
}

TEST_CASE("hostile inputs: embeddings tokens follow the tokeniser's rules; invisible characters are not kept") {
    auto token_error = [](const std::string& token) {
        try {
            load_embeddings_bytes(R"({"tokens": ["ok", )" + Json(token).dump() + R"(], "x": [[1], [2]]})", "e.json");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(token_error("") == "e.json: token 1 is empty");
    CHECK(token_error("   ") == "e.json: token 1 has white space at byte offset 0 (U+0020)");
    CHECK(token_error("a b") == "e.json: token 1 has white space at byte offset 1 (U+0020)");
    CHECK(token_error("a\u00a0b") == "e.json: token 1 has white space at byte offset 1 (U+00A0)");
    CHECK(token_error("\u200b") == "e.json: token 1 has an invisible character at byte offset 0 (U+200B)");
    CHECK(token_error("a\u2060") == "e.json: token 1 has an invisible character at byte offset 1 (U+2060)");
    CHECK(token_error("\ufeffa") == "e.json: token 1 has an invisible character at byte offset 0 (U+FEFF)");
    CHECK(token_error("a\uffff") == "e.json: token 1 has a noncharacter at byte offset 1 (U+FFFF)");
    CHECK(token_error("##ing").empty());  // subword pieces are fine: one word, nothing invisible
    // the tokeniser: U+200B separates, U+2060 and U+FEFF inside the text join, U+FFFE is refused
    CHECK(tokenize("a\u200bb") == std::vector<std::string>{"a", "b"});
    CHECK(tokenize("jour\u2060ney \ufeffstarts") == std::vector<std::string>{"journey", "starts"});
    CHECK(text_problem("a\xEF\xBF\xBE").value() == "has a noncharacter at byte offset 1 (U+FFFE)");
}

TEST_CASE("hostile inputs: --d-in 1 keeps every weight matrix a matrix in the JSON") {
    const RunResult r = attn::test::run_attn({"show", "--kind", "mha", "--d-in", "1", "--heads", "1", "--qkv-bias",
                                              "a b", "--json", "-"});
    REQUIRE(r.code == 0);
    const Json j = Json::parse(r.out);
    for (const char* w : {"W_query", "W_key", "W_value", "W_out"}) {
        INFO(w);
        REQUIRE(j["params"][w].is_array());
        CHECK(j["params"][w].size() == 1);
        CHECK(j["params"][w][0].is_array());
    }
    CHECK(j["params"]["b_query"][0].is_number());  // biases stay vectors
    const RunResult add = attn::test::run_attn({"show", "--kind", "additive", "--d-in", "1", "--d-out", "1", "a b",
                                                "--json", "-"});
    REQUIRE(add.code == 0);
    CHECK(Json::parse(add.out)["params"]["v"][0].is_number());
}

TEST_CASE("hostile cli: luong refuses the options its score does not use") {
    struct Case {
        std::vector<std::string> args;
        int code;
    };
    for (const Case& c : std::vector<Case>{{{"--score", "dot", "--d-out", "7"}, 2},
                                           {{"--score", "dot", "--init", "torch-rand"}, 2},
                                           {{"--score", "general", "--d-out", "7"}, 2},
                                           {{"--score", "general", "--init", "torch-rand"}, 0},
                                           {{"--score", "concat", "--d-out", "7", "--init", "torch-rand"}, 0}}) {
        std::vector<std::string> args = {"show", "--kind", "luong", "a b"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        INFO(c.args[1] << " " << c.args[2]);
        const RunResult r = attn::test::run_attn(args);
        CHECK(r.code == c.code);
        if (c.code == 2) CHECK(one_line(r).find("does not apply to kind 'luong' with --score " + c.args[1]) != std::string::npos);
    }
}

// ---- 9. documentation -------------------------------------------------------------------------------

TEST_CASE("hostile docs: kinds says s_i and local-m; the format says row_max is scaled") {
    const RunResult k = attn::test::run_attn({"kinds"});
    CHECK(k.out.find("s_{i-1}") != std::string::npos);
    CHECK(k.out.find("local-m") != std::string::npos);
    const std::string format = slurp(std::string(ATTN_SOURCE_DIR) + "/docs/trace-format.md");
    CHECK(format.find("`row_max` is in scaled units") != std::string::npos);
    const std::string readme = slurp(std::string(ATTN_SOURCE_DIR) + "/README.md");
    CHECK(readme.find("rounded up to a multiple of H") != std::string::npos);
    CHECK(readme.find("at the default sizes") != std::string::npos);
    // the documented default d_out of multi-head kinds: d_in rounded up to a multiple of H
    const RunResult r = attn::test::run_attn({"show", "--kind", "mha", "--heads", "3", "--d-in", "4", "a b", "--json", "-"});
    REQUIRE(r.code == 0);
    CHECK(Json::parse(r.out)["config"]["d_out"] == 6);
}

// ---- 10. messages -----------------------------------------------------------------------------------

TEST_CASE("hostile messages: UTF-16, bounded echoes, standard input cut short") {
    const std::string dir = temp_dir();
    write(dir + "/bom16.txt", std::string("\xFF\xFEh\0i\0", 6));
    const RunResult bom = run_in(dir, {"show", "--file", "bom16.txt"});
    CHECK(bom.code == 1);
    CHECK(one_line(bom) == "attn: error: bom16.txt: the text looks like UTF-16 (hint: save it as UTF-8)\n");
    write(dir + "/m16.json", std::string("\xFF\xFE[\0[\0" "1\0]\0]\0", 12));
    const RunResult mask = run_in(dir, {"show", "--mask", "m16.json", "hi"});
    CHECK(mask.code == 1);
    CHECK(one_line(mask) == "attn: error: m16.json: the file looks like UTF-16 (hint: save it as UTF-8)\n");
    // a 5000-digit option value: the line stays short
    const RunResult lit = attn::test::run_attn({"show", "--d-in", std::string(5000, '9'), "hi"});
    CHECK(lit.code == 2);
    CHECK(one_line(lit).size() < 300);
    CHECK(lit.err.find("(5000 bytes)") != std::string::npos);
    const RunResult kind = attn::test::run_attn({"show", "--kind", std::string(5000, 'k'), "hi"});
    CHECK(kind.code == 2);
    CHECK(one_line(kind).size() < 400);
    // `yes word | attn show --file -`: stops once past --max-tokens
    std::string many;
    for (int i = 0; i < 200000; ++i) many += "word\n";
    const RunResult cut = attn::test::run_attn({"show", "--file", "-", "--max-tokens", "3"}, many);
    CHECK(cut.code == 1);
    CHECK(one_line(cut) == "attn: error: standard input: the text has more than 3 tokens (--max-tokens 3); attn stopped "
                           "reading there (hint: raise --max-tokens or shorten the text)\n");
}

TEST_CASE("hostile messages: bench and kinds take no sentence; bench --json is checked and written first") {
    const RunResult be = attn::test::run_attn({"bench", "extra"});
    CHECK(be.code == 2);
    CHECK(one_line(be) == "attn: error: unexpected argument 'extra' (hint: 'attn bench' takes no sentence; see 'attn bench "
                          "--help')\n");
    const RunResult empty = attn::test::run_attn({"bench", "--tokens", "4", "--json", ""});
    CHECK(empty.code == 2);
    const RunResult full = attn::test::run_attn({"bench", "--tokens", "4", "--d-in", "4", "--json", "/dev/full"});
    CHECK(full.code == 1);
    CHECK(full.out.empty());  // no report before the failure
    CHECK(one_line(full) == "attn: error: cannot write file '/dev/full': No space left on device\n");
    const RunResult twice = attn::test::run_attn({"kinds", "--json", "--json"});
    CHECK(twice.code == 2);
}

TEST_CASE("hostile messages: standard input for --embeddings and --mask; --precision 0 says what it hides") {
    const RunResult e = attn::test::run_attn({"show", "--embeddings", "-", "--json", "-"},
                                             R"({"tokens": ["a", "b"], "x": [[1, 2], [3, 4]]})");
    INFO(e.err);
    REQUIRE(e.code == 0);
    CHECK(Json::parse(e.out)["tokens"] == Json::array({"a", "b"}));
    const RunResult m = attn::test::run_attn({"show", "--kind", "self", "a b", "--mask", "-", "--json", "-"}, "[[1, 0], [0, 1]]");
    REQUIRE(m.code == 0);
    CHECK(Json::parse(m.out)["heads"][0]["weights"] == Json::parse("[[1.0, 0.0], [0.0, 1.0]]"));
    const RunResult p = attn::test::run_attn({"show", "--precision", "0", "--kind", "self", "a b c d e f"});
    REQUIRE(p.code == 0);
    CHECK(p.out.find("print as 0 at --precision 0") != std::string::npos);
    const RunResult p4 = attn::test::run_attn({"show", "--kind", "self", "a b c d e f"});
    CHECK(p4.out.find("print as 0") == std::string::npos);
    // very large finite values: exponent notation, not 31 digits
    const std::string dir = temp_dir();
    write(dir + "/e.json", "[[1e15, -1e15], [-1e15, 1e15]]");
    const RunResult big = run_in(dir, {"show", "--kind", "simple", "--embeddings", "e.json", "a b", "--show", "scores"});
    REQUIRE(big.code == 0);
    CHECK(big.out.find("2.0000e+30") != std::string::npos);
    CHECK(big.out.find("000000000000") == std::string::npos);
    const RunResult re = attn::test::run_attn({"show", "--renorm", "--no-causal", "hi"});
    CHECK(re.code == 2);
}
