// The fuzz corpora replayed as ordinary tests: every file under fuzz/corpus/<target>/ goes through
// the same function of fuzz/harness.h that the libFuzzer target fuzz_<target> calls, so an input that
// once crashed (copied there from build-fuzz/artifacts) stays fixed. Under scripts/sanitize.sh these
// run with AddressSanitizer and UBSan as the fuzzers do.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>

#include "fuzz/harness.h"
#include "tests/helpers.h"

namespace {

std::vector<std::string> corpus_files(const std::string& target) {
    const std::string dir = std::string(ATTN_SOURCE_DIR) + "/fuzz/corpus/" + target;
    std::vector<std::string> files;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d))
            if (e->d_name[0] != '.') files.push_back(dir + "/" + e->d_name);
        ::closedir(d);
    }
    std::sort(files.begin(), files.end());
    return files;
}

// Runs every file of a corpus through one harness function; each must come back with no problem.
void replay(const std::string& target, const std::function<std::string(const std::string&)>& one) {
    const auto files = corpus_files(target);
    REQUIRE(files.size() >= 5);  // the seeds are in the repository
    for (const auto& f : files) {
        INFO(f);
        const std::string bytes = attn::test::slurp(f);
        std::string problem;
        CHECK_NOTHROW(problem = one(bytes));
        CHECK(problem == "");
    }
    MESSAGE(target << ": " << files.size() << " inputs replayed");
}

// attn's terminal output goes to /dev/null while the command-line corpus runs in this process.
struct QuietStdout {
    int saved;
    QuietStdout() : saved(::dup(1)) {
        std::fflush(stdout);
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, 1);
        ::close(null);
    }
    ~QuietStdout() {
        std::fflush(stdout);
        ::dup2(saved, 1);
        ::close(saved);
    }
};

}  // namespace

TEST_CASE("corpus: tokenize") { replay("tokenize", [](const std::string& b) { return attn::fuzz::tokenize_one(b); }); }

TEST_CASE("corpus: embeddings") {
    replay("embeddings", [](const std::string& b) { return attn::fuzz::embeddings_one(b); });
}

TEST_CASE("corpus: npy") { replay("npy", [](const std::string& b) { return attn::fuzz::npy_one(b); }); }

TEST_CASE("corpus: trace") { replay("trace", [](const std::string& b) { return attn::fuzz::trace_one(b); }); }

TEST_CASE("corpus: mask") { replay("mask", [](const std::string& b) { return attn::fuzz::mask_one(b); }); }

TEST_CASE("corpus: cli") {
    const std::string scratch = attn::fuzz::make_scratch("corpus-cli");
    attn::fuzz::stdin_from_dev_null();
    {
        QuietStdout quiet;
        replay("cli", [&](const std::string& b) { return attn::fuzz::cli_one(b, scratch); });
    }
    std::vector<std::string> left;
    attn::fuzz::list_tree(scratch, "", left);
    CHECK(left.empty());
    attn::fuzz::remove_tree(scratch);
}

TEST_CASE("corpus: font") {
    const std::string scratch = attn::fuzz::make_scratch("corpus-font");
    attn::fuzz::stdin_from_dev_null();
    {
        QuietStdout quiet;
        replay("font", [&](const std::string& b) { return attn::fuzz::font_one(b, scratch); });
    }
    std::vector<std::string> left;
    attn::fuzz::list_tree(scratch, "", left);
    CHECK(left.empty());
    attn::fuzz::remove_tree(scratch);
}

TEST_CASE("font seeds: the small-em font with DejaVu's metrics is refused by name, its consistent twin draws") {
    const std::string dir = std::string(ATTN_SOURCE_DIR) + "/fuzz/corpus/font/";
    const std::string out = attn::test::temp_dir();
    const auto run = [&](const std::string& seed) {
        return attn::test::run_attn({"show", "--kind", "causal", "Ab g", "--png", out, "--font", dir + seed, "--max-memory", "200M"});
    };
    const auto absurd = run("small-em-16-dejavu-metrics");
    CHECK(absurd.code == 1);
    CHECK(attn::test::one_line(absurd).find("metrics are absurd") != std::string::npos);
    CHECK(absurd.err.find("units per em 16") != std::string::npos);
    const auto fine = run("small-em-16");
    INFO(fine.err);
    CHECK(fine.code == 0);
}

TEST_CASE("corpus: a harness reports a broken invariant") {
    // The checks themselves can fail: a wrong exit code is a problem, a clean answer is not.
    CHECK(attn::fuzz::check_error(attn::Error(attn::ErrorKind::usage, "x"), 1) != "");
    CHECK(attn::fuzz::check_error(attn::Error(attn::ErrorKind::runtime, "x"), 1) == "");
    CHECK(attn::fuzz::tokenize_one("Hello, world!") == "");
    CHECK(attn::fuzz::mask_one(std::string("\1\1", 2) + "[[1, 0], [0, 1]]") == "");
}
