// Figure and terminal titles say what the run is, and nothing that is not so (issue 21): local
// attention states W; a single-head kind has no "head 0"; MHA has no "kv 0"; no "keys: keys:", no
// "1 heads"; the query strip has a colour bar for each scale it draws on.
#include <fstream>
#include <regex>
#include <sstream>

#include "tests/helpers.h"

using namespace attn::test;

namespace {

// The text items of an SVG figure, in order.
std::vector<std::string> svg_texts(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string svg = ss.str();
    std::vector<std::string> out;
    const std::regex text("<text[^>]*>([^<]*)</text>");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1]);
    return out;
}

// The figure `name` of a show run with `args`, as text items (the title first).
std::vector<std::string> figure_texts(std::vector<std::string> args, const std::string& name, std::string* svg_path = nullptr) {
    const std::string dir = temp_dir() + "/svg";
    if (svg_path) *svg_path = dir + "/" + name + ".svg";
    args.insert(args.begin(), "show");
    args.insert(args.end(), {"--svg", dir});
    const RunResult r = run_attn(args);
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto texts = svg_texts(dir + "/" + name + ".svg");
    REQUIRE(!texts.empty());
    return texts;
}

bool any_has(const std::vector<std::string>& texts, const std::string& needle) {
    for (const auto& t : texts)
        if (t.find(needle) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("titles: local attention states its window W, a single-head kind names no head") {
    const auto local = figure_texts({"--kind", "local", "--window", "3", "one two three four five"}, "local-weights");
    CHECK(local[0] == "local (W = 3) \xC2\xB7 weights \xC2\xB7 random weights (seed 123)");
    const auto causal = figure_texts({"--kind", "causal", "one two three"}, "causal-weights");
    CHECK(causal[0] == "causal \xC2\xB7 weights \xC2\xB7 random weights (seed 123)");
    CHECK(!any_has(causal, "head 0"));
}

TEST_CASE("titles: MHA panels name the head only, GQA panels name the shared kv head too") {
    const auto mha = figure_texts({"--kind", "mha", "--heads", "2", "one two three"}, "mha-weights");
    CHECK(mha[0] == "mha \xC2\xB7 2 heads \xC2\xB7 weights \xC2\xB7 random weights (seed 123)");
    CHECK(any_has(mha, "head 1"));
    CHECK(!any_has(mha, "kv"));
    const auto gqa = figure_texts({"--kind", "gqa", "--heads", "4", "--kv-heads", "2", "one two three"}, "gqa-weights");
    CHECK(any_has(gqa, "head 3 \xC2\xB7 kv 1"));
    CHECK(gqa[0] == "gqa \xC2\xB7 4 heads \xC2\xB7 2 kv heads \xC2\xB7 weights \xC2\xB7 random weights (seed 123)");
}

TEST_CASE("titles: seeded weights are said to be random (with the seed) in figures, the terminal and the page, a kind without weights is not") {
    const auto seeded = figure_texts({"--kind", "causal", "--seed", "7", "one two three"}, "causal-weights");
    CHECK(seeded[0] == "causal \xC2\xB7 weights \xC2\xB7 random weights (seed 7)");
    const auto simple = figure_texts({"--kind", "simple", "one two three"}, "simple-weights");
    CHECK(!any_has(simple, "random weights"));
    const RunResult r = run_attn({"show", "--kind", "mha", "--seed", "7", "one two"});
    CHECK(r.out.rfind("attn \xC2\xB7 mha \xC2\xB7 2 tokens \xC2\xB7 random weights (seed 7)\n", 0) == 0);
    CHECK(run_attn({"show", "--kind", "simple", "one two"}).out.find("random weights") == std::string::npos);
    const std::string dir = temp_dir();
    REQUIRE(run_attn({"show", "--kind", "causal", "--seed", "7", "one two", "--html", dir + "/p.html", "--no-live"}).code == 0);
    CHECK(slurp(dir + "/p.html").find("\"weights_note\":\"random weights (seed 7)\"") != std::string::npos);
}

TEST_CASE("titles: the terminal says each stage once (no 'keys: keys:'), and MHA heads without 'kv'") {
    const RunResult r = run_attn({"show", "--kind", "mha", "--heads", "2", "one two three", "--show", "queries,keys,values,weights"});
    REQUIRE(r.code == 0);
    CHECK(r.out.find("keys: keys") == std::string::npos);
    CHECK(r.out.find("values: values") == std::string::npos);
    CHECK(r.out.find("queries: queries") == std::string::npos);
    CHECK(r.out.find("keys: one row per key token") != std::string::npos);
    CHECK(r.out.find(" kv ") == std::string::npos);
    const RunResult g = run_attn({"show", "--kind", "gqa", "--heads", "4", "--kv-heads", "2", "one two three"});
    REQUIRE(g.code == 0);
    CHECK(g.out.find("head 3 \xC2\xB7 kv 1") != std::string::npos);
}

TEST_CASE("titles: the query strip has a bar for rows 1-3 (scores, red-blue) and one for row 4 (weights, viridis)") {
    std::string path;
    const auto q = figure_texts({"--kind", "causal", "one two three", "--figures", "query", "--query", "1"}, "causal-query", &path);
    CHECK(q[0].find("head 0") == std::string::npos);
    CHECK(any_has(q, "rows 1\xE2\x80\x93" "3: score"));
    CHECK(any_has(q, "row 4: weight, fixed 0\xE2\x80\x93" "1"));
    // viridis's top entry (253, 231, 37) is drawn only by the row-4 bar: the weights here stay below 1
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    CHECK(ss.str().find("#fde725") != std::string::npos);
}

TEST_CASE("titles: decode's staircase names the kv head a query head reads only where heads share one") {
    for (const auto& [kind, shared] : {std::pair<std::string, bool>{"mha", false}, {"gqa", true}}) {
        INFO(kind);
        const std::string dir = temp_dir() + "/svg";
        const RunResult r = run_attn({"decode", "--kind", kind, "--heads", "4", "one two three", "--svg", dir});
        INFO(r.err);
        REQUIRE(r.code == 0);
        const auto texts = svg_texts(dir + "/" + kind + "-decode-steps.svg");
        CHECK(any_has(texts, "head 3"));
        CHECK(any_has(texts, "reads kv head") == shared);
    }
}
