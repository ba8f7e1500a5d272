// End to end through the real binary: exit codes, one-line errors, files written or not.
#include <filesystem>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/helpers.h"

using namespace attn::test;

namespace {

bool exists(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0;
}

// An error is one line on stderr starting "attn: error:", nothing on stdout.
void check_error(const RunResult& r, int code, const std::string& needle) {
    INFO("stderr: " << r.err);
    CHECK(r.code == code);
    CHECK(r.err.rfind("attn: error: ", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find(needle) != std::string::npos);
    CHECK(r.out.empty());
}

}  // namespace

TEST_CASE("cli: show prints the labelled weights of a causal run") {
    const RunResult r = run_attn({"show", "--kind", "causal", "Your journey starts"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("weights") != std::string::npos);
    CHECK(r.out.find("journey") != std::string::npos);
    CHECK(r.out.find("1.0000") != std::string::npos);  // the first token sees only itself
    CHECK(r.out.find("\x1b[") == std::string::npos);   // no colour when not a terminal
}

TEST_CASE("cli: --json - prints only the trace, with the documented fields") {
    const RunResult r = run_attn({"show", "--example", "journey", "--kind", "self", "--init", "torch-rand",
                                  "--d-out", "2", "--json", "-"});
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["format"] == "attn-trace");
    CHECK(j["version"] == 2);
    CHECK(j["kind"] == "self");
    CHECK(j["tokens"].size() == 6);
    CHECK(j["config"]["seed"] == 123);
    CHECK(j["config"]["init"] == "torch-rand");
    CHECK(j["params"]["W_query"].size() == 3);     // d_in x d_out, x @ W orientation
    CHECK(j["params"]["W_query"][0].size() == 2);
    REQUIRE(j["attention"].size() == 1);  // one attention set: the sentence over itself, one layer
    CHECK(j["attention"][0]["name"] == "self");
    CHECK(j["attention"][0]["query_tokens"] == j["tokens"]);
    CHECK(j["attention"][0]["key_tokens"] == j["source_tokens"]);
    REQUIRE(j["attention"][0]["layers"].size() == 1);
    CHECK(j["attention"][0]["layers"][0]["layer"] == 0);
    const auto& h = j["attention"][0]["layers"][0]["heads"][0];
    for (const char* key : {"queries", "keys", "values", "scores", "scale", "mask", "weights", "context"})
        CHECK(h.contains(key));
    CHECK(h["scale"].get<double>() == doctest::Approx(0.70710678).epsilon(1e-6));
    // Numbers are the shortest decimals that read back to the same float32.
    CHECK(r.out.find("\"x\":[[0.43,0.15,0.89],") != std::string::npos);  // not 0.43000001
    CHECK(r.out.find("[0.29611194,0.5165623]") != std::string::npos);   // torch.rand(3, 2), seed 123, row 0
}

TEST_CASE("cli: two identical runs write byte-identical JSON and PNG files") {
    const std::string a = temp_dir(), b = temp_dir();
    for (const auto& d : {a, b}) {
        const RunResult r = run_attn({"show", "--kind", "causal", "--dropout", "0.2", "Your journey starts",
                                      "--json", d + "/t.json", "--png", d + "/png"});
        REQUIRE(r.code == 0);
    }
    CHECK(slurp(a + "/t.json") == slurp(b + "/t.json"));
    for (const char* f : {"causal-weights.png", "causal-scores.png", "causal-mask.png", "causal-dropped-weights.png"}) {
        INFO(f);
        const std::string pa = slurp(a + "/png/" + f);
        CHECK(pa.size() > 100);
        CHECK(pa == slurp(b + "/png/" + f));
    }
}

TEST_CASE("cli: every kind runs from the command line on a sentence") {
    for (const char* kind : {"simple", "self", "causal", "mha-wrapper", "mha", "cross", "additive", "luong", "mqa",
                             "gqa", "local", "flash"}) {
        INFO(kind);
        std::vector<std::string> args = {"show", "--kind", kind, "The cat sat on the mat.", "--json", "-"};
        if (std::string(kind) == "cross") args.insert(args.end(), {"--source", "Le chat"});
        const RunResult r = run_attn(args);
        INFO(r.err);
        CHECK(r.code == 0);
        if (r.code == 0) CHECK(nlohmann::json::parse(r.out)["kind"] == kind);
    }
}

TEST_CASE("cli: usage errors exit 2 with one line") {
    check_error(run_attn({"show", "--kind", "nope", "hi"}), 2, "simple, self, causal");
    check_error(run_attn({"show", ""}), 2, "empty");
    check_error(run_attn({"show", "ab\xff"}), 2, "byte offset 2");
    check_error(run_attn({"show", "--d-out", "0", "hi"}), 2, "--d-out");
    check_error(run_attn({"show", "--dropout", "1.5", "hi"}), 2, "--dropout");
    check_error(run_attn({"show", "--kind", "self", "--heads", "2", "hi"}), 2, "mha");
    check_error(run_attn({"show", "--kind", "mha", "--heads", "3", "--d-out", "4", "hi"}), 2, "--heads");
    check_error(run_attn({"show", "--kind", "gqa", "--heads", "4", "--kv-heads", "3", "--d-out", "8", "hi"}), 2,
                "--kv-heads");
    check_error(run_attn({"show", "--bogus", "hi"}), 2, "--bogus");
    check_error(run_attn({}), 2, "subcommand");
}

TEST_CASE("cli: file errors exit 1 and write nothing") {
    const std::string d = temp_dir();
    check_error(run_attn({"show", "--embeddings", d + "/missing.json", "a b"}), 1, "missing.json");
    std::ofstream(d + "/bad.json") << "[[1, 2], [3, \"x\"]]";
    check_error(run_attn({"show", "--embeddings", d + "/bad.json", "a b"}), 1, "row 1");
    std::ofstream(d + "/file") << "not a folder";
    check_error(run_attn({"show", "hi", "--png", d + "/file"}), 1, "not a folder");
    check_error(run_attn({"show", "hi", "--json", d}), 1, "is a folder");
    ::mkdir((d + "/ro").c_str(), 0555);
    if (::geteuid() != 0) {  // root writes anywhere; the check means something only for a user
        check_error(run_attn({"show", "hi", "--json", d + "/ro/t.json"}), 1, "ro/t.json");
    }
    const RunResult full = run_attn({"show", "hi", "--json", "/dev/full"});
    check_error(full, 1, "No space left on device");
}

TEST_CASE("cli: help and kinds") {
    const RunResult help = run_attn({"show", "--help"});
    CHECK(help.code == 0);
    CHECK(help.out.find("Examples:") != std::string::npos);
    const RunResult k = run_attn({"kinds"});
    CHECK(k.code == 0);
    for (const char* kind : {"simple", "flash", "gqa", "Bahdanau"}) CHECK(k.out.find(kind) != std::string::npos);
    const RunResult kj = run_attn({"kinds", "--json"});
    REQUIRE(kj.code == 0);
    CHECK(nlohmann::json::parse(kj.out).size() == 12);
    // --json PATH|- as every command takes it; alone it still prints
    CHECK(run_attn({"kinds", "--json", "-"}).out == kj.out);
    const std::string dir = attn::test::temp_dir();
    const RunResult kf = run_attn({"kinds", "--json", dir + "/k.json"});
    CHECK(kf.code == 0);
    CHECK(kf.out == "wrote " + dir + "/k.json\n");
    CHECK(attn::test::slurp(dir + "/k.json") == kj.out);
}

TEST_CASE("cli: attn models takes --json PATH or - as kinds does, and models and page take --color as every command does") {
    const RunResult mj = run_attn({"models", "--json"});
    REQUIRE(mj.code == 0);
    CHECK(nlohmann::json::parse(mj.out).size() == 10);  // one row per family
    const RunResult dash = run_attn({"models", "--json", "-"});
    CHECK(dash.code == 0);
    CHECK(dash.out == mj.out);
    const std::string dir = attn::test::temp_dir();
    const RunResult mf = run_attn({"models", "--json", dir + "/m.json"});
    CHECK(mf.code == 0);
    CHECK(mf.out == "wrote " + dir + "/m.json\n");
    CHECK(attn::test::slurp(dir + "/m.json") == mj.out);
    for (const char* mode : {"never", "always", "auto"}) {
        const RunResult m = run_attn({"models", "--color", mode});
        CHECK(m.code == 0);
        CHECK(m.out == run_attn({"models"}).out);  // the list has no shaded cells
    }
    check_error(run_attn({"models", "--color", "sometimes"}), 2, "--color");
    const RunResult page = run_attn({"page", "--color", "never", dir + "/lab.html"});
    CHECK(page.err.find("unknown option") == std::string::npos);
#ifdef ATTN_WASM_BUILT
    CHECK(page.code == 0);
#else
    check_error(page, 2, "attn page needs attn's core compiled to WebAssembly");
#endif
}

TEST_CASE("cli: decode's usage hints name attn decode, show's name attn show") {
    check_error(run_attn({"decode", "a", "b"}), 2,
                "unexpected argument 'b' (hint: put a sentence of several words in quotes: attn decode \"Your journey starts\")");
    check_error(run_attn({"show", "a", "b"}), 2,
                "unexpected argument 'b' (hint: put a sentence of several words in quotes: attn show \"Your journey starts\")");
    check_error(run_attn({"decode"}), 2, "nothing to attend over (hint: give a sentence, e.g. attn decode \"Your journey starts\")");
    check_error(run_attn({"show"}), 2, "nothing to attend over (hint: give a sentence, e.g. attn show \"Your journey starts\")");
    check_error(run_attn({"decode", "--kindd", "causal", "a"}), 2, "(hint: did you mean --kind? see 'attn decode --help')");
}

TEST_CASE("cli: an unknown option is named, with the nearest real one, even before a quoted sentence") {
    check_error(run_attn({"show", "--heds", "4", "The cat"}), 2, "unknown option '--heds' (hint: did you mean --heads?");
    check_error(run_attn({"show", "--colmap", "gray", "The cat"}), 2, "did you mean --colormap?");
    check_error(run_attn({"show", "--kindd", "causal", "The cat"}), 2, "did you mean --kind?");
    const RunResult r = run_attn({"show", "--zzzzzzzz", "The cat"});
    check_error(r, 2, "unknown option '--zzzzzzzz' (hint: see 'attn show --help')");
}

TEST_CASE("cli: settings a kind changes are announced: d_out rounded up to a multiple of the heads") {
    const RunResult r = run_attn({"show", "--kind", "mha", "--heads", "3", "The cat", "--json", "-"});
    REQUIRE(r.code == 0);
    CHECK(r.err == "attn: note: d_out 16 rounded up to 18, a multiple of --heads 3 (give --d-out to choose)\n");
    CHECK(nlohmann::json::parse(r.out)["config"]["d_out"] == 18);
    const RunResult a = run_attn({"show", "--kind", "additive", "The cat"});
    REQUIRE(a.code == 0);
    CHECK(a.err == "attn: note: kind 'additive' without --source: the sentence attends over itself\n");
}

TEST_CASE("cli: an output folder named like the sentence is questioned, ./ makes it a folder") {
    check_error(run_attn({"show", "--png", "The cat sat"}), 2, "looks like a sentence");
    const std::string dir = temp_dir();
    const RunResult r = run_attn({"show", "hi", "--npy", "./my folder"}, RunOptions{dir, "", false, ""});
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK(exists(dir + "/my folder"));
}

// ---- attn page: the live page --------------------------------------------------------------------------

TEST_CASE("page: attn page writes one page with the WebAssembly core and its opening run, or says how to get the core") {
    const std::string dir = temp_dir(), path = dir + "/lab.html";
    const RunResult r = run_attn({"page", path});
#ifdef ATTN_WASM_BUILT
    INFO("stderr: " << r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out == "wrote " + path + "\n");
    const std::string html = slurp(path);
    CHECK(html.size() <= 1500u * 1000);  // under the 3 MB budget with room: the core's .wasm travels deflated
    CHECK(html.find("var AttnCore") != std::string::npos);  // the module (cli/web/), inline
    CHECK(html.find("\"live\":{\"argv\":[\"--kind\",\"causal\",\"Your journey starts with one step\"]}") != std::string::npos);
    CHECK(html.find("script-src 'unsafe-inline' 'wasm-unsafe-eval'; worker-src blob:;") != std::string::npos);
    CHECK(html.find("<script id=\"attn-core\">") != std::string::npos);  // the worker's code: the page's own copy
    CHECK(html.find("'unsafe-eval'") == std::string::npos);  // WebAssembly may compile; JavaScript text may not run
    CHECK(html.find("src=") == std::string::npos);            // nothing from elsewhere
    // --html pages carry the panel with their run's words; --no-live leaves the core out
    const RunResult s = run_attn({"show", "--kind", "gqa", "--heads", "4", "--kv-heads", "2", "a b c", "--html", dir + "/g.html"});
    REQUIRE(s.code == 0);
    CHECK(slurp(dir + "/g.html").find("\"live\":{\"argv\":[\"--kind\",\"gqa\",\"--heads\",\"4\",\"--kv-heads\",\"2\",\"a b c\"]}") !=
          std::string::npos);
    REQUIRE(run_attn({"show", "--kind", "gqa", "a b c", "--html", dir + "/p.html", "--no-live"}).code == 0);
    const std::string plain = slurp(dir + "/p.html");
    CHECK(plain.find("var AttnCore") == std::string::npos);
    CHECK(plain.find("\"live\":{") == std::string::npos);
    CHECK(plain.find("wasm-unsafe-eval") == std::string::npos);
    CHECK(plain.find("; worker-src blob:") == std::string::npos);
#else
    check_error(r, 2, "attn page needs attn's core compiled to WebAssembly, and this attn was built without em++ (hint: "
                      "install emscripten (scripts/setup.sh, or apt-get install emscripten) and rebuild attn)");
    CHECK(!exists(path));
#endif
}

TEST_CASE("cli: where dropout is shown, attn says its mask is PyTorch's CPU generator's and a GPU draws another") {
    const std::string dir = attn::test::temp_dir();
    const RunResult r = attn::test::run_attn({"show", "--kind", "causal", "--example", "journey", "--dropout", "0.5",
                                              "--dropout-seed", "123", "--show", "dropped", "--svg", dir});
    REQUIRE(r.code == 0);
    CHECK(r.out.find("the dropout mask is the one PyTorch's CPU generator draws for this seed; a GPU") != std::string::npos);
    const std::string svg = attn::test::slurp(dir + "/causal-dropped-weights.svg");
    CHECK(svg.find("the mask PyTorch&apos;s CPU generator draws, a GPU draws another") != std::string::npos);
    const RunResult plain = attn::test::run_attn({"show", "--kind", "causal", "--example", "journey"});
    CHECK(plain.out.find("dropout mask") == std::string::npos);  // no dropout, no note
}

TEST_CASE("cli: --precision N given prints N decimals in the figures' cells too, 2 when not given") {
    const std::string a = attn::test::temp_dir(), b = attn::test::temp_dir();
    const RunResult four = attn::test::run_attn({"show", "--kind", "self", "--example", "journey", "--precision", "4", "--svg", a});
    REQUIRE(four.code == 0);
    const RunResult plain = attn::test::run_attn({"show", "--kind", "self", "--example", "journey", "--svg", b});
    REQUIRE(plain.code == 0);
    // the terminal's first weight (row Your, column Your) at 4 decimals, e.g. 0.1747
    const std::size_t at = four.out.find("Your     0.");
    REQUIRE(at != std::string::npos);
    const std::string first = four.out.substr(at + 9, 6);
    CHECK(attn::test::slurp(a + "/self-weights.svg").find(">" + first + "<") != std::string::npos);
    CHECK(attn::test::slurp(b + "/self-weights.svg").find(">" + first.substr(0, 4) + "<") != std::string::npos);
    CHECK(attn::test::slurp(b + "/self-weights.svg").find(">" + first + "<") == std::string::npos);
}

TEST_CASE("cli: a --weights file name with control and bidirectional characters is shown as U+FFFD in the first line") {
    const std::string dir = attn::test::temp_dir();
    REQUIRE(attn::test::run_attn({"show", "--kind", "self", "--json", dir + "/t.json", "the cat sat"}).code == 0);
    const std::string odd = dir + "/x\ny\x1b[31m\xE2\x80\xAE.json";  // a newline, ESC [31m, U+202E
    std::filesystem::copy_file(dir + "/t.json", odd);
    const RunResult r = attn::test::run_attn({"show", "--kind", "self", "--weights", odd, "the cat sat"});
    REQUIRE(r.code == 0);
    const std::string first = r.out.substr(0, r.out.find('\n'));
    CHECK(first.find("weights from x\xEF\xBF\xBDy\xEF\xBF\xBD[31m\xEF\xBF\xBD.json") != std::string::npos);
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find("\xE2\x80\xAE") == std::string::npos);
}

TEST_CASE("start: a library attn opens when needed (libzip) that cannot be loaded is a one-line error with what to install, exit 1") {
    const std::string dir = temp_dir();
    write(dir + "/libzip.so.4", "");  // not a library: found first on LD_LIBRARY_PATH
    write(dir + "/w.npz", std::string("PK\x03\x04", 4) + std::string(60, 'x'));
    const std::string cmd = "cd '" + dir + "' && LD_LIBRARY_PATH='" + dir + "' '" + ATTN_BINARY +
                            "' show --kind self 'a b' --weights w.npz > out.txt 2> err.txt";
    const int status = std::system(cmd.c_str());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(slurp(dir + "/err.txt") ==
          "attn: error: reading a zip archive (pytorch_model.bin, .npz) needs libzip.so.4, which could not be loaded "
          "(hint: install Debian's libzip4: scripts/setup.sh, or apt-get install libzip4)\n");
    CHECK(slurp(dir + "/out.txt").empty());
    // the same run with the system's libzip reads the zip and refuses it for what it is
    const int again = std::system(("cd '" + dir + "' && '" + ATTN_BINARY + "' show --kind self 'a b' --weights w.npz > out.txt 2> err.txt").c_str());
    CHECK(WEXITSTATUS(again) == 1);
    CHECK(slurp(dir + "/err.txt").find("not a readable zip") != std::string::npos);
}
