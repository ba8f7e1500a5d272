// Output files, end to end: written whole or not at all (a full disk, a vanished folder, an interrupt at
// any moment), through links and FIFOs and never over an input, clashes refused before the run, one
// consistent set of files per folder.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/policy/outputs.h"
#include "fuzz/harness.h"
#include "tests/helpers.h"
#include "tests/validation_run.h"

using namespace attn;
using namespace attn::test;
using Json = nlohmann::json;

namespace {


}  // namespace

// ---- output files ---------------------------------------------------------------------------------

TEST_CASE("files: a failed write to /dev/full leaves nothing, not even the folders it made") {
    const std::string dir = temp_dir();
    const RunResult r = run({"show", "hi", "--png", "out/png", "--json", "/dev/full"}, {dir, "", false, ""});
    CHECK(r.code == 1);
    check_error_line(r.err, "attn: error: cannot write file '/dev/full': No space left on device");
    CHECK(snapshot(dir).size() == 1);  // the folder alone: no out/, no temporaries
}

TEST_CASE("files: a PNG name taken by a folder fails before anything is written") {
    const std::string dir = temp_dir();
    REQUIRE(::mkdir((dir + "/png").c_str(), 0755) == 0);
    REQUIRE(::mkdir((dir + "/png/causal-weights.png").c_str(), 0755) == 0);
    const auto before = snapshot(dir);
    const RunResult r = run({"show", "hi", "--json", "t.json", "--png", "png"}, {dir, "", false, ""});
    CHECK(r.code == 1);
    check_error_line(r.err, "attn: error: output path 'png/causal-weights.png' is a folder (hint: name a file inside it)");
    CHECK(snapshot(dir) == before);
}

TEST_CASE("files: two outputs on one path are refused and nothing is written") {
    const std::string dir = temp_dir();
    const RunResult r = run({"show", "hi", "--json", "out/causal-mask.png", "--png", "out"}, {dir, "", false, ""});
    CHECK(r.code == 2);
    check_error_line(r.err, "attn: error: two outputs would both be written to 'out/causal-mask.png' (hint: give --json a "
                            "different name)");
    CHECK(snapshot(dir).size() == 1);  // the folder alone
}

TEST_CASE("files: a --json or --html on a figure or array name of another format inside a figure folder is refused before the run") {
    // a later --svg (or --npy) run into the folder would overwrite or remove it as one of its own files
    struct Case {
        std::vector<std::string> args;
        std::string option, path, folder;
    };
    const std::vector<Case> cases = {
        {{"show", "--html", "q/causal-weights.svg", "--png", "q", "hi"}, "--html", "q/causal-weights.svg", "--png 'q'"},
        {{"show", "--json", "q/causal-scores.png", "--svg", "q", "hi"}, "--json", "q/causal-scores.png", "--svg 'q'"},
        {{"show", "--json", "q/causal-x.npy", "--png", "q", "hi"}, "--json", "q/causal-x.npy", "--png 'q'"},
        {{"show", "--html", "q/causal-h0-weights.npy", "--svg", "q", "hi"}, "--html", "q/causal-h0-weights.npy", "--svg 'q'"},
        {{"show", "--json", "q/causal-weights.png", "--npy", "q", "hi"}, "--json", "q/causal-weights.png", "--npy 'q'"},
        {{"show", "--npy", "q/causal-rope.svg", "--png", "q", "hi"}, "--npy", "q/causal-rope.svg", "--png 'q'"},
        {{"show", "--prefix", "lec", "--html", "q/lec-alibi.svg", "--png", "q", "hi"}, "--html", "q/lec-alibi.svg", "--png 'q'"},
        {{"decode", "--kind", "causal", "--html", "q/causal-decode-steps.svg", "--png", "q", "a b"}, "--html",
         "q/causal-decode-steps.svg", "--png 'q'"},
        {{"decode", "--kind", "causal", "--json", "q/causal-decode-cache.png", "--svg", "q", "a b"}, "--json",
         "q/causal-decode-cache.png", "--svg 'q'"},
    };
    for (const Case& c : cases) {
        const std::string dir = temp_dir();
        INFO(c.path);
        const RunResult r = run(c.args, {dir, "", false, ""});
        CHECK(r.code == 2);
        check_error_line(r.err, "attn: error: " + c.option + " '" + c.path + "' has one of attn's file names inside " + c.folder +
                                    ": a later run writing that folder as --png, --svg or --npy would overwrite or remove it (hint: give " +
                                    c.option + " a name attn does not write there, or another folder)");
        CHECK(snapshot(dir).size() == 1);  // the folder alone
    }
    // a name of another prefix, or none of attn's, stays the user's
    const std::string dir = temp_dir();
    CHECK(run({"show", "--html", "q/mha-weights.svg", "--png", "q", "hi"}, {dir, "", false, ""}).code == 0);
    CHECK(run({"show", "--json", "q/causal-notes.svg", "--png", "q", "hi"}, {dir, "", false, ""}).code == 0);
}

TEST_CASE("files: a run writes the named paths and nothing else") {
    const std::string dir = temp_dir();
    write(dir + "/old.json", "old");
    const RunResult r = run({"show", "hi", "--json", "a/b/t.json", "--png", "c"}, {dir, "", false, ""});
    REQUIRE(r.code == 0);
    std::vector<std::string> paths;
    fuzz::list_tree(dir, "", paths);
    std::sort(paths.begin(), paths.end());
    CHECK(paths == std::vector<std::string>{"a", "a/b", "a/b/t.json", "c", "c/causal-mask.png", "c/causal-scores.png",
                                            "c/causal-weights.png", "old.json"});
    // Overwriting replaces the file whole, with the usual permissions.
    REQUIRE(run({"show", "hi", "--json", "old.json"}, {dir, "", false, ""}).code == 0);
    CHECK(Json::parse(slurp(dir + "/old.json"))["kind"] == "causal");
    struct stat st {};
    REQUIRE(::stat((dir + "/old.json").c_str(), &st) == 0);
    const mode_t mask = ::umask(0);
    ::umask(mask);
    CHECK((st.st_mode & 0777) == (0666 & ~mask));
}

TEST_CASE("files: a folder that vanished and a full standard output are runtime errors") {
    check_row(rule("output.vanished"));
    check_row(rule("output.stdout"));
    // --json - to a full standard output too.
    const RunResult r = run({"show", "hi", "--json", "-"}, {"", "/dev/full", false, ""});
    CHECK(r.code == 1);
    check_error_line(r.err, "attn: error: cannot write to standard output: No space left on device");
}

TEST_CASE("files: an interrupt at any moment leaves no temporary and no half-written file") {
    const std::string dir = temp_dir();
    std::string words;
    for (int i = 0; i < 1200; ++i) words += "w" + std::to_string(i) + " ";
    write(dir + "/words.txt", words);
    int whole = 0;  // runs that got as far as renaming t.json into place
    // The run takes about 0.7 s (longer under sanitizers): the signal lands before, during and after the writes.
    for (int delay_ms : {0, 150, 300, 450, 550, 600, 650, 700, 800}) {
        INFO("SIGTERM after " << delay_ms << " ms");
        const std::string out = dir + "/run" + std::to_string(delay_ms);
        REQUIRE(::mkdir(out.c_str(), 0755) == 0);
        // SIGTERM stays blocked until the child has dropped doctest's handlers (exec keeps it pending).
        sigset_t term, old_mask;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        REQUIRE(::sigprocmask(SIG_BLOCK, &term, &old_mask) == 0);
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            ::signal(SIGTERM, SIG_DFL);
            ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
            const int null = ::open("/dev/null", O_WRONLY);
            ::dup2(null, 1), ::dup2(null, 2);
            ::execl(ATTN_BINARY, ATTN_BINARY, "show", "--kind", "self", "--file", (dir + "/words.txt").c_str(), "--json",
                    (out + "/t.json").c_str(), "--png", (out + "/png").c_str(), static_cast<char*>(nullptr));
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
            ::kill(pid, SIGTERM);
            ::waitpid(pid, &status, 0);
        }
        std::vector<std::string> left;
        fuzz::list_tree(out, "", left);
        for (const auto& p : left) CHECK(p.find(".attn-") == std::string::npos);
        if (std::find(left.begin(), left.end(), "t.json") != left.end()) {
            CHECK_NOTHROW(Json::parse(slurp(out + "/t.json")));  // renamed into place only when whole
            ++whole;
        }
    }
    MESSAGE(whole << " of 9 interrupted runs had written their trace");
}

TEST_CASE("files: the fuzz harness's scratch runs leave no temporaries") {
    // The command-line fuzz target's own checks, on argument vectors that write, and that fail.
    auto joined = [](const std::vector<std::string>& args) {
        std::string s;
        for (const auto& a : args) s += a + std::string(1, '\0');
        return s;
    };
    const std::string scratch = fuzz::make_scratch("validation");
    fuzz::stdin_from_dev_null();
    CHECK(fuzz::cli_one(joined({"show", "hi", "--json", "o/t.json", "--png", "o"}), scratch) == "");
    CHECK(fuzz::cli_one(joined({"show", "hi", "--json", "e.json", "--png", "e.json"}), scratch) == "");
    CHECK(fuzz::cli_one(joined({"show", "--embeddings", "t.json", "--png", "p", "--json", "p/x/"}), scratch) == "");
    CHECK(fuzz::cli_one(joined({"show", "--file", "-"}), scratch) == "");
    std::vector<std::string> left;
    fuzz::list_tree(scratch, "", left);
    CHECK(left.empty());
    // Paths outside the scratch folder are refused before anything runs.
    std::vector<std::string> args;
    CHECK(!fuzz::decode_arguments(joined({"show", "hi", "--json", "/tmp/x.json"}), args));
    CHECK(!fuzz::decode_arguments(joined({"show", "hi", "--png=../x"}), args));
    CHECK(!fuzz::decode_arguments(joined({"show", "hi", "--json", "a/../../x"}), args));
    CHECK(!fuzz::decode_arguments(joined({"show", "hi", "--d-in", "4096"}), args));
    CHECK(fuzz::decode_arguments(joined({"show", "Wait... what?", "--seed", "123456789"}), args));
    fuzz::remove_tree(scratch);
}

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

TEST_CASE("hostile files: an overwritten file keeps its permissions, a name near NAME_MAX is written") {
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

TEST_CASE("hostile files: a signal between two renames still lands the whole set, no folder left empty") {
    // strace raises the signal as the run enters its Nth rename(2): the renames are the last step, so
    // every file is there or none, and a folder the run made is never left without its files.
    REQUIRE_MESSAGE(std::system("strace -o /dev/null true > /dev/null 2>&1") == 0,
                    "strace (installed by scripts/setup.sh --tests) must be able to trace here");
    const std::string dir = temp_dir();
    std::string words;
    for (int i = 0; i < 40; ++i) words += "w" + std::to_string(i) + " ";
    write(dir + "/words.txt", words);
    for (const char* sig : {"SIGINT", "SIGTERM", "SIGHUP"})
        for (int nth : {1, 2, 9, 15}) {  // 15 files: 12 arrays and 3 figures
            INFO(sig << " at rename " << nth);
            const std::string out = dir + "/run-" + sig + "-" + std::to_string(nth);
            const std::string inject = "inject=rename:signal=" + std::string(sig) + ":when=" + std::to_string(nth);
            const pid_t pid = ::fork();
            REQUIRE(pid >= 0);
            if (pid == 0) {
                const int null = ::open("/dev/null", O_WRONLY);
                ::dup2(null, 1), ::dup2(null, 2);
                ::execlp("strace", "strace", "-f", "-o", "/dev/null", "-e", "trace=rename", "-e", inject.c_str(),
                         ATTN_BINARY, "show", "--kind", "self", "--file", (dir + "/words.txt").c_str(), "--npy",
                         (out + "/a/b").c_str(), "--png", (out + "/p/q").c_str(), static_cast<char*>(nullptr));
                ::_exit(127);
            }
            int status = 0;
            REQUIRE(::waitpid(pid, &status, 0) == pid);
            CHECK(WIFSIGNALED(status));  // strace dies by the signal its tracee died of
            const auto left = tree(out);
            CHECK(std::none_of(left.begin(), left.end(), [](const std::string& p) { return p.find(".attn-") != std::string::npos; }));
            CHECK(std::count_if(left.begin(), left.end(), [](const std::string& p) { return p.rfind("a/b/", 0) == 0; }) == 12);
            CHECK(std::count_if(left.begin(), left.end(), [](const std::string& p) { return p.rfind("p/q/", 0) == 0; }) == 3);
        }
}

TEST_CASE("files: a --json pipe whose reader quits early is a failed write, exit 1 with the reason, not a silent SIGPIPE") {
    const std::string dir = attn::test::temp_dir();
    const std::string fifo = dir + "/trace.fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const pid_t reader = ::fork();  // reads 10 bytes of the trace, then goes
    REQUIRE(reader >= 0);
    if (reader == 0) {
        const int fd = ::open(fifo.c_str(), O_RDONLY);
        char buf[10];
        if (fd >= 0) (void)!::read(fd, buf, sizeof buf);
        ::_exit(0);
    }
    // a trace far larger than a pipe's 64 KiB buffer
    attn::test::RunOptions o;
    o.cwd = dir;
    const attn::test::RunResult r = attn::test::run_attn({"show", "--d-in", "64", "--d-out", "64", "--json", "trace.fifo",
                                                          "one two three four five six seven eight nine ten"}, o);
    int status = 0;
    ::waitpid(reader, &status, 0);
    CHECK(r.code == 1);
    CHECK(r.err == "attn: error: cannot write file 'trace.fifo': Broken pipe\n");
}
