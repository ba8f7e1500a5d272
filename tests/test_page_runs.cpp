// The page's data for a generation (attn decode --model --max-new-tokens --html), an ablation and a logit
// lens (attn show --model --ablate / --lens --html): the same numbers as the JSON the same run writes,
// and nothing of them on a page whose run had none (tests/browser/test_run_panels.py drives the panels).
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "render/page/html.h"
#include "tests/helpers.h"
#include "tests/model_fixtures.h"
#include "tests/page_helpers.h"
#include "tests/png_helpers.h"

namespace {

using Json = nlohmann::json;

// The tiny GPT-2 folder (1 layer, 2 heads, context 4, tests/model_fixtures.h) and a run in its folder.
std::string run_dir() {
    static const std::string dir = [] {
        const std::string d = attn::test::temp_dir();
        attn::test::write_model_fixtures(d);
        return d;
    }();
    return dir;
}

void run_ok(const std::vector<std::string>& args) {
    attn::test::RunOptions o;
    o.cwd = run_dir();
    const attn::test::RunResult r = attn::test::run_attn(args, o);
    REQUIRE_MESSAGE(r.code == 0, r.err);
}

Json run_page_json(const std::string& file) { return attn::test::page_data(attn::test::slurp(run_dir() + "/" + file)).json; }
Json file_json(const std::string& file) { return Json::parse(attn::test::slurp(run_dir() + "/" + file)); }

// Two JSON numbers that hold the same float32 (the page and the trace may print a float differently).
bool same_float(const Json& a, const Json& b) { return static_cast<float>(a.get<double>()) == static_cast<float>(b.get<double>()); }

}  // namespace

TEST_CASE("page: a decode page's generation holds the decode JSON's generated ids, steps, top 5 and each step's head rows") {
    run_ok({"decode", "--model", "model-ok", "ab", "--max-new-tokens", "2", "--json", "gen.json", "--html", "gen.html"});
    const Json dec = file_json("gen.json"), page = run_page_json("gen.html");
    REQUIRE(page.contains("generation"));
    const Json& g = page["generation"];
    CHECK(g["generated_ids"] == dec["generated_ids"]);
    CHECK(g["generated_ids"].size() == 2);
    CHECK(g["layer"] == dec["model"]["layer"]);
    CHECK(g["mode"] == "greedy");
    CHECK(g["prompt_tokens"] == 2);
    REQUIRE(g["steps"].size() == dec["generation"]["steps"].size());
    for (std::size_t k = 0; k < g["steps"].size(); ++k) {
        const Json &s = g["steps"][k], &want = dec["generation"]["steps"][k];
        CHECK(s["id"] == want["id"]);
        CHECK(s["token"] == want["token"]);
        CHECK(s["step"] == want["step"]);
        CHECK(same_float(s["p"], want["p"]));
        REQUIRE(s["top"].size() == want["top"].size());
        for (std::size_t a = 0; a < s["top"].size(); ++a) {
            CHECK(s["top"][a]["id"] == want["top"][a]["id"]);
            CHECK(same_float(s["top"][a]["p"], want["top"][a]["p"]));
        }
    }
    // each fed step (the text, then each generated token but the last): 3 steps; the heads' rows (2 heads)
    // from step 1, the text's last, whose logits chose the first token
    REQUIRE(g["rows"].size() == dec["steps"].size());
    CHECK(g["rows"].size() == 3);
    CHECK(g["rows"][0]["token"] == dec["steps"][0]["token"]);
    CHECK(g["rows"][0]["heads"].empty());
    for (std::size_t t = 1; t < g["rows"].size(); ++t) {
        CHECK(g["rows"][t]["token"] == dec["steps"][t]["token"]);
        CHECK(g["rows"][t]["heads"] == dec["steps"][t]["heads"]);
        CHECK(g["rows"][t]["heads"].size() == 2);
        CHECK(g["rows"][t]["heads"][0]["weights"].size() == t + 1);
    }
}

TEST_CASE("page: an ablated run's page holds its losses and positions, a lens run's its top ids and probabilities, as the trace") {
    run_ok({"show", "--model", "model-ok", "abc", "--ablate", "0.1", "--lens", "--json", "ab.json", "--html", "ab.html"});
    const Json trace = file_json("ab.json"), page = run_page_json("ab.html");
    REQUIRE(page.contains("ablation"));
    const Json &a = page["ablation"], &want = trace["ablation"];
    CHECK(a["heads"] == want["heads"]);
    CHECK(a["mode"] == "zero");
    CHECK(a["loss_before"].get<double>() == want["loss_before"].get<double>());
    CHECK(a["loss_after"].get<double>() == want["loss_after"].get<double>());
    REQUIRE(a["positions"].size() == 2);  // positions 0 and 1 of 3 tokens
    REQUIRE(want["positions"].size() == 2);
    for (std::size_t i = 0; i < 2; ++i)
        for (const char* f : {"top_before", "top_after"}) CHECK(a["positions"][i][f] == want["positions"][i][f]);
    REQUIRE(page["lens"].size() == trace["lens"].size());
    CHECK(page["lens"].size() == 2);  // the embeddings, layer 0
    for (std::size_t r = 0; r < page["lens"].size(); ++r) {
        CHECK(page["lens"][r]["layer"] == trace["lens"][r]["layer"]);
        CHECK(page["lens"][r]["ids"] == trace["lens"][r]["ids"]);
        for (std::size_t i = 0; i < 3; ++i) CHECK(same_float(page["lens"][r]["p"][i], trace["lens"][r]["p"][i]));
        CHECK(page["lens"][r]["tokens"].size() == 3);
    }
}

TEST_CASE("page: a page whose run had no generation, ablation or lens holds none of them") {
    run_ok({"decode", "--model", "model-ok", "a b", "--html", "plain-decode.html"});
    run_ok({"show", "--model", "model-ok", "a b", "--html", "plain-show.html"});
    for (const char* file : {"plain-decode.html", "plain-show.html"}) {
        const Json page = run_page_json(file);
        CHECK_FALSE(page.contains("generation"));
        CHECK_FALSE(page.contains("ablation"));
        CHECK_FALSE(page.contains("lens"));
    }
}

TEST_CASE("page: only a seeded kind's page carries the live panel and its WebAssembly core, a model's page never, whatever the build") {
    // the decision, by trace: a seeded kind's trace can be run again by the panel; a model's, a .npy's cannot
    attn::Trace seeded = attn::test::png::causal_trace(attn::test::png::kSix);
    CHECK(attn::render::page_runs_live(seeded));
    attn::Trace model = seeded;
    model.model = attn::ModelInfo{};
    model.model->type = "gpt2";
    CHECK_FALSE(attn::render::page_runs_live(model));
    attn::Trace npy = seeded;
    npy.kind = "npy";
    CHECK_FALSE(attn::render::page_runs_live(npy));
    attn::Trace layered = seeded;
    layered.sets.at(0).model_layers = true;
    CHECK_FALSE(attn::render::page_runs_live(layered));
    // asked for the panel all the same, a model trace's page has neither the panel's data nor the core
    const std::vector<std::string> words = {"--kind", "causal", "a b"};
    const std::string page = attn::render::render_html(model, {"test", std::nullopt, std::nullopt, words});
    CHECK(page.find("\"live\":") == std::string::npos);
    CHECK(page.find("wasm-unsafe-eval") == std::string::npos);
    CHECK(page.find("var AttnCore") == std::string::npos);
    // through the command line: a model run's page has no core; a seeded run's has it where attn was built with it
    run_ok({"show", "--model", "model-ok", "ab", "--html", "model.html"});
    const std::string model_page = attn::test::slurp(run_dir() + "/model.html");
    CHECK(model_page.find("\"live\":") == std::string::npos);
    CHECK(model_page.find("var AttnCore") == std::string::npos);
    run_ok({"show", "--kind", "causal", "a b c", "--html", "seeded.html"});
    const std::string seeded_page = attn::test::slurp(run_dir() + "/seeded.html");
#ifdef ATTN_WASM_BUILT
    CHECK(seeded_page.find("\"live\":{\"argv\":[\"--kind\",\"causal\",\"a b c\"]}") != std::string::npos);
    CHECK(seeded_page.find("var AttnCore") != std::string::npos);
    CHECK(seeded_page.find("wasm-unsafe-eval") != std::string::npos);
#else
    CHECK(seeded_page.find("var AttnCore") == std::string::npos);  // no core was built to carry
#endif
    CHECK(attn::test::page_data(seeded_page).json["kind"] == "causal");
}
