// Figures fitted to a slide: the model overview names the tokens on its first column and row of maps
// when a cell holds a line of text, and a grid of many heads leaves its cell values out by default when
// they would fall under 20 px on a 1920 × 1080 slide (--values auto|always|never overrides).
#include <filesystem>
#include <string>

#include "tests/helpers.h"
#include "tests/model_fixtures.h"

namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

// A tiny GPT-2 (1 layer, 2 heads, byte tokens: one token per letter) with room for 16 positions.
std::string model16() {
    static const std::string dir = [] {
        const std::string d = attn::test::temp_dir();
        std::string cfg = attn::test::tiny_gpt2_config();
        cfg.replace(cfg.find("\"n_positions\": 4"), 16, "\"n_positions\": 16");
        attn::test::write_model_folder(d, "m16", cfg, attn::test::safetensors_file(attn::test::tiny_gpt2_tensors(16)));
        return d + "/m16";
    }();
    return dir;
}

}  // namespace

TEST_CASE("overview: up to 12 tokens, the first column's maps carry query labels and the first row's key labels, 13 tokens none") {
    const std::string out = attn::test::temp_dir();
    REQUIRE(attn::test::run_attn({"show", "--model", model16(), "--svg", out + "/a", "--png", out + "/a", "abcd"}).code == 0);
    const std::string few = attn::test::slurp(out + "/a/gpt2-overview.svg");
    // H = 2 heads + mean + rollout above the first row, 4 keys each; 4 queries beside "layer 0"
    CHECK(count(few, "class=\"key-label\"") == 4 * 4);
    CHECK(count(few, "class=\"query-label\"") == 1 + 4);
    CHECK(count(few, ">c</text>") == 4 + 1);
    CHECK(few.find("weight \xC3\xB7 the map&apos;s largest</text>") != std::string::npos);  // the colour bar's caption
    REQUIRE(attn::test::run_attn({"show", "--model", model16(), "--svg", out + "/b", "abcdefghijklm"}).code == 0);
    const std::string many = attn::test::slurp(out + "/b/gpt2-overview.svg");
    CHECK(many.find("13 tokens") != std::string::npos);
    CHECK(count(many, "class=\"key-label\"") == 0);
    CHECK(count(many, "class=\"query-label\"") == 1);  // "layer 0" only
    CHECK(many.find("weight \xC3\xB7 the map&apos;s largest</text>") != std::string::npos);
    REQUIRE(attn::test::run_attn({"show", "--model", model16(), "--svg", out + "/c", "abcdefghijkl"}).code == 0);
    CHECK(count(attn::test::slurp(out + "/c/gpt2-overview.svg"), "class=\"key-label\"") == 4 * 12);
}

TEST_CASE("values: a 12-head grid of 6 tokens leaves its digits out by default and draws them with --values always") {
    const std::string out = attn::test::temp_dir();
    const std::string s = "Your journey starts with one step";
    REQUIRE(attn::test::run_attn({"show", "-k", "mha", "--heads", "12", "--svg", out + "/auto", s}).code == 0);
    REQUIRE(attn::test::run_attn({"show", "-k", "mha", "--heads", "12", "--values", "always", "--svg", out + "/always", s}).code == 0);
    const std::string dflt = attn::test::slurp(out + "/auto/mha-weights.svg"), always = attn::test::slurp(out + "/always/mha-weights.svg");
    CHECK(count(dflt, "class=\"value\"") == 0);
    CHECK(count(always, "class=\"value\"") == 12 * 21);  // 21 visible causal cells of 6 tokens per head
    CHECK(always.find(">1.00</text>") != std::string::npos);
    // the default 2-head grid keeps its values (legible on a slide) unless --values never
    REQUIRE(attn::test::run_attn({"show", "-k", "mha", "--svg", out + "/two", s}).code == 0);
    REQUIRE(attn::test::run_attn({"show", "-k", "mha", "--values", "never", "--svg", out + "/none", s}).code == 0);
    CHECK(count(attn::test::slurp(out + "/two/mha-weights.svg"), "class=\"value\"") == 2 * 21);
    CHECK(count(attn::test::slurp(out + "/none/mha-weights.svg"), "class=\"value\"") == 0);
    // gqa's default 4 heads: weights at 19 px, scores at 14.7 px on the slide, both keep their values
    REQUIRE(attn::test::run_attn({"show", "-k", "gqa", "--svg", out + "/gqa", s}).code == 0);
    CHECK(count(attn::test::slurp(out + "/gqa/gqa-weights.svg"), "class=\"value\"") == 4 * 21);
    CHECK(count(attn::test::slurp(out + "/gqa/gqa-scores.svg"), "class=\"value\"") > 0);
    CHECK(attn::test::run_attn({"show", "--values", "some", s}).code == 2);
}

TEST_CASE("values: attn render's grid of a model layer's heads takes --values like show") {
    const std::string out = attn::test::temp_dir();
    REQUIRE(attn::test::run_attn({"show", "--model", model16(), "--json", out + "/t.json", "abcd"}).code == 0);
    REQUIRE(attn::test::run_attn({"render", out + "/t.json", "--layer", "0", "--svg", out + "/r"}).code == 0);
    REQUIRE(attn::test::run_attn({"render", out + "/t.json", "--layer", "0", "--values", "never", "--svg", out + "/n"}).code == 0);
    bool some = false;
    for (const auto& e : std::filesystem::directory_iterator(out + "/r")) {
        const std::string name = e.path().filename().string();
        if (name.find("weights.svg") == std::string::npos) continue;
        INFO(name);
        some = true;
        CHECK(count(attn::test::slurp(e.path().string()), "class=\"value\"") == 2 * 10);  // 2 heads × 10 visible cells of 4 tokens
        CHECK(count(attn::test::slurp(out + "/n/" + name), "class=\"value\"") == 0);
    }
    CHECK(some);
}
