// One set of habits across every command (issue 21): --color, --json PATH|-, --prefix, --split, and
// render's colour-scale options, each run through the real binary on every command that takes it.
#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/helpers.h"
#include "tests/model_fixtures.h"

using namespace attn::test;

namespace {

// A command as the habits see it: its arguments for a small run, and what it does.
struct Command {
    std::string name;
    std::vector<std::string> args;  // a run that succeeds; {trace} stands for a saved trace
    bool shades = false;            // prints cells that --color shades (show's matrices, decode's staircase)
    bool json = false;              // takes --json PATH|-
    bool says_wrote = false;        // says "wrote PATH" after --json PATH
    bool figures = false;           // takes --png DIR and --prefix
    bool split = false;             // takes --split for its text
};

// A tiny GPT-2 folder (1 layer, 2 heads, 16 positions, byte tokens) for the model commands, once per run.
std::string tiny_model() {
    static const std::string dir = [] {
        const std::string d = temp_dir();
        write_model_folder(d, "model",
                           "{\"model_type\": \"gpt2\", \"n_layer\": 1, \"n_head\": 2, \"n_embd\": 4, \"n_positions\": 16, "
                           "\"vocab_size\": 257, \"layer_norm_epsilon\": 1e-05}",
                           safetensors_file(tiny_gpt2_tensors(16)));
        return d + "/model";
    }();
    return dir;
}

std::vector<Command> commands(const std::string& trace) {
    const std::string model = tiny_model();
    return {
        {"show --model", {"show", "--model", model, "abc"}, true, true, true, true, false},
        {"decode --model", {"decode", "--model", model, "abc"}, false, true, true, true, false},
        {"heads", {"heads", "--model", model, "abc"}, true, true, true, true, false},
        {"show", {"show", "--kind", "causal", "the cat sat"}, true, true, true, true, true},
        {"decode", {"decode", "--kind", "causal", "the cat sat"}, true, true, true, true, true},
        {"render", {"render", trace}, false, false, false, true, false},
        {"kinds", {"kinds"}, false, true, true, false, false},
        {"bench", {"bench", "--kind", "causal", "--tokens", "8", "--d-in", "8"}, false, true, true, false, false},
    };
}

std::vector<std::string> with(std::vector<std::string> args, std::initializer_list<std::string> more) {
    args.insert(args.end(), more);
    return args;
}

std::vector<std::string> files_in(const std::string& dir) {
    std::vector<std::string> names;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d))
            if (e->d_name[0] != '.') names.push_back(e->d_name);
        ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
}

bool has_escape(const std::string& s) { return s.find("\x1b[") != std::string::npos; }

std::string read_text(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::string saved_trace(const std::string& dir) {
    const std::string trace = dir + "/trace.json";
    const RunResult r = run_attn({"show", "--kind", "mha", "--heads", "2", "the cat sat", "--json", trace});
    REQUIRE(r.code == 0);
    return trace;
}

}  // namespace

TEST_CASE("habits: --color always shades the cells a command prints, never and auto (no terminal) do not, on every command") {
    const std::string dir = temp_dir();
    const std::string trace = saved_trace(dir);
    for (const Command& c : commands(trace)) {
        // render writes figures only: give it a folder so the run has something to do
        const std::vector<std::string> base = c.name == "render" ? with(c.args, {"--png", dir + "/color-" + c.name}) : c.args;
        for (const std::string mode : {"always", "never", "auto"}) {
            INFO(c.name << " --color " << mode);
            const RunResult r = run_attn(with(base, {"--color", mode}));
            INFO(r.err);
            CHECK(r.code == 0);
            CHECK(has_escape(r.out) == (c.shades && mode == "always"));  // NO_COLOR is set and stdout is a file
            CHECK(!has_escape(r.err));
        }
        INFO(c.name << " --color red");
        const RunResult bad = run_attn(with(base, {"--color", "red"}));
        CHECK(bad.code == 2);
        CHECK(one_line(bad).find("--color") != std::string::npos);
    }
}

TEST_CASE("habits: --json PATH writes the file and says so, --json - prints only JSON, on every command with JSON") {
    const std::string dir = temp_dir();
    for (const Command& c : commands(saved_trace(dir))) {
        if (!c.json) continue;
        INFO(c.name);
        const std::string path = dir + "/" + c.name + ".json";
        const RunResult to_file = run_attn(with(c.args, {"--json", path}));
        INFO(to_file.err);
        REQUIRE(to_file.code == 0);
        CHECK(nlohmann::json::accept(read_text(path)));
        CHECK((to_file.out.find("wrote " + path + "\n") != std::string::npos) == c.says_wrote);
        const RunResult to_stdout = run_attn(with(c.args, {"--json", "-"}));
        REQUIRE(to_stdout.code == 0);
        CHECK(nlohmann::json::accept(to_stdout.out));  // nothing but the JSON
        CHECK(to_stdout.out.find("wrote") == std::string::npos);
        const RunResult folder = run_attn(with(c.args, {"--json", dir}));  // an existing folder is no file
        CHECK(folder.code != 0);
        CHECK(one_line(folder).find(dir) != std::string::npos);
    }
}

TEST_CASE("habits: --prefix names every figure a command writes, and is refused without --png") {
    const std::string dir = temp_dir();
    for (const Command& c : commands(saved_trace(dir))) {
        if (!c.figures) continue;
        INFO(c.name);
        const std::string out = dir + "/prefix-" + c.name;
        const RunResult r = run_attn(with(c.args, {"--png", out, "--prefix", "lecture3"}));
        INFO(r.err);
        REQUIRE(r.code == 0);
        const auto names = files_in(out);
        REQUIRE(!names.empty());
        for (const auto& n : names) CHECK(n.rfind("lecture3-", 0) == 0);
        // a second run without --prefix leaves the prefixed set alone (another prefix's files)
        REQUIRE(run_attn(with(c.args, {"--png", out})).code == 0);
        const auto after = files_in(out);
        for (const auto& n : names) CHECK(std::find(after.begin(), after.end(), n) != after.end());
        CHECK(after.size() > names.size());  // the kind's own set beside it
        const RunResult bare = run_attn(with(c.args, {"--prefix", "lecture3"}));
        CHECK(bare.code == 2);
        CHECK(one_line(bare).find("--prefix") != std::string::npos);
    }
}

TEST_CASE("habits: --split chars makes one token per character (spaces apart) on show and decode") {
    for (const Command& c : commands("unused.json")) {
        if (!c.split) continue;
        INFO(c.name);
        std::vector<std::string> args = c.args;
        args.back() = "abc de";
        const RunResult words = run_attn(with(args, {"--json", "-"}));
        const RunResult chars = run_attn(with(args, {"--json", "-", "--split", "chars"}));
        REQUIRE(words.code == 0);
        REQUIRE(chars.code == 0);
        CHECK(nlohmann::json::parse(words.out)["tokens"].size() == 2);
        CHECK(nlohmann::json::parse(chars.out)["tokens"] == nlohmann::json({"a", "b", "c", "d", "e"}));
    }
}

TEST_CASE("habits: render --colormap, --range and --log change the drawn figure, decode --html writes the page") {
    const std::string dir = temp_dir();
    const std::string trace = saved_trace(dir);
    auto figure = [&](const std::string& name, std::initializer_list<std::string> more) {
        const std::string out = dir + "/" + name;
        std::vector<std::string> args = {"render", trace, "--svg", out, "--head", "0"};
        args.insert(args.end(), more);
        const RunResult r = run_attn(args);
        INFO(r.err);
        REQUIRE(r.code == 0);
        return read_text(out + "/mha-h0-weights.svg");
    };
    const std::string plain = figure("plain", {});
    REQUIRE(!plain.empty());
    CHECK(figure("again", {}) == plain);
    CHECK(figure("magma", {"--colormap", "magma"}) != plain);
    CHECK(figure("range", {"--range", "0,0.5"}) != plain);
    CHECK(figure("log", {"--log"}) != plain);
    CHECK(run_attn({"render", trace, "--svg", dir + "/bad", "--colormap", "rainbow"}).code == 2);
    const std::string page = dir + "/decode.html";
    const RunResult d = run_attn({"decode", "--kind", "causal", "the cat sat", "--html", page});
    INFO(d.err);
    REQUIRE(d.code == 0);
    CHECK(d.out.find("wrote " + page + "\n") != std::string::npos);
    const std::string html = read_text(page);
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(html.find("attn decode") != std::string::npos);
}
