// Reading runs back (render/trace_io/trace_read.h) and the interactive page's data (render/page/html.h): traces
// round-trip to the same bytes, .npy attention and token files are read strictly, and the page's
// numbers decode to exactly the trace's values at 4 decimals.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <limits>
#include <functional>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "render/page/html.h"
#include "render/trace_io/json.h"
#include "render/trace_io/trace_read.h"
#include "tests/helpers.h"
#include "tests/page_helpers.h"

using namespace attn;
using attn::test::run_attn;
using attn::test::RunResult;
using Json = nlohmann::json;
using attn::test::npy;
using attn::test::four;
using attn::test::page_cell;
using attn::test::page_data;
using attn::test::PageData;

using attn::test::error_of;

namespace {

std::string floats(const std::vector<float>& v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

}  // namespace

TEST_CASE("trace reader: every kind's trace reads back and writes the same bytes") {
    const std::vector<std::vector<std::string>> runs = {
        {"--kind", "simple", "--dropout", "0.2"},
        {"--kind", "self", "--qkv-bias"},
        {"--kind", "causal", "--renorm"},
        {"--kind", "mha-wrapper"},
        {"--kind", "mha", "--heads", "4"},
        {"--kind", "cross", "--source", "Wie geht es dir heute"},
        {"--kind", "additive", "--source", "a b c"},
        {"--kind", "luong", "--score", "concat", "--source", "a b c"},
        {"--kind", "mqa"},
        {"--kind", "gqa", "--heads", "4", "--kv-heads", "2", "--d-out", "8"},
        {"--kind", "mha", "--heads", "2", "--pos", "rope", "--rope-style", "interleaved"},
        {"--kind", "cross", "--source", "a b", "--causal", "--align", "bottom-right", "--pos", "alibi"},
        {"--kind", "local", "--window", "1"},
        {"--kind", "flash", "--causal", "--block-q", "2", "--block-k", "3", "--heads", "2", "--d-out", "8"},
        {"--example", "journey", "--kind", "self", "--init", "torch-rand"},
    };
    for (auto args : runs) {
        args.insert(args.begin(), "show");
        if (args[1] != "--example") args.push_back("The cat sat on the mat.");
        args.insert(args.end(), {"--json", "-"});
        INFO(args[2]);
        const RunResult r = run_attn(args);
        REQUIRE(r.code == 0);
        const Trace t = render::read_trace_json(r.out, "trace.json");
        CHECK(test::first_difference(render::trace_json_text(t), r.out) == "");
    }
}

TEST_CASE("trace reader: a model trace's layers, aggregates and predictions are read") {
    const Json j = Json::parse(R"({"format": "attn-trace", "version": 1, "kind": "model",
        "tokens": ["Hello", " world"], "source_tokens": ["Hello", " world"],
        "model": {"type": "gpt2", "dtype": "F32", "n_layer": 2, "n_head": 1, "n_embd": 8, "n_positions": 16,
                  "vocab_size": 50257, "n_params": 1234, "layer_norm_epsilon": 1e-5},
        "token_ids": [15496, 995],
        "layers": [{"layer": 0, "heads": [{"head": 0, "kv_head": 0, "scores": [[1, 2], [3, 4]], "scale": 0.5,
                                           "mask": [[true, false], [true, true]], "weights": [[1, 0], [0.25, 0.75]]}]},
                   {"layer": 1, "heads": [{"head": 0, "kv_head": 0, "scores": [[1, 2], [3, 4]], "scale": 0.5,
                                           "mask": [[true, false], [true, true]], "weights": [[1, 0], [0.5, 0.5]]}]}],
        "aggregates": {"layer_mean": [[[1, 0], [0.25, 0.75]], [[1, 0], [0.5, 0.5]]],
                       "rollout": [[[1, 0], [0.25, 0.75]], [[1, 0], [0.375, 0.625]]]},
        "predictions": [[{"id": 11, "token": ",", "p": 0.5}], [{"id": 13, "token": ".", "p": 0.25}]]})");
    const Trace t = render::read_trace_json(j.dump(), "model.json");
    REQUIRE(t.model);
    CHECK(t.model->type == "gpt2");
    CHECK(t.model->n_params == 1234);
    CHECK(t.token_ids == std::vector<std::int64_t>{15496, 995});
    REQUIRE(t.layers().size() == 2);
    CHECK(t.layers()[1].layer == 1);
    CHECK(t.layers()[1].heads[0].weights(1, 1) == 0.5f);
    CHECK(t.layers()[0].heads[0].mask(0, 1) == 0);
    CHECK(t.layers()[0].heads[0].scale == 0.5f);
    REQUIRE(t.rollout.size() == 2);
    CHECK(t.rollout[1](1, 0) == 0.375f);
    REQUIRE(t.predictions.size() == 2);
    CHECK(t.predictions[1][0].token == ".");
    CHECK(t.predictions[1][0].id == 13);
    // and the page shows it: two layers, the stages it has, the predictions
    const PageData d = page_data(render::render_html(t, {}));
    CHECK(d.json["layered"] == true);
    CHECK(d.json["layers"].size() == 2);
    CHECK(d.json["stages"] == Json::parse(R"(["weights", "scores", "masked-scores", "mask"])"));
    CHECK(d.json["model"]["n_layer"] == 2);
    CHECK(page_cell(d, d.json["layers"][1]["heads"][0]["stages"]["weights"], 3) == "0.5000");
    const Json& st0 = d.json["layers"][0]["heads"][0]["stages"];
    CHECK(page_cell(d, st0["masked-scores"], 2, &st0["scores"], 0.5f) == "1.5000");
    const Json& agg = d.json["layers"][1]["aggregates"];
    CHECK(page_cell(d, agg["rollout"], 2) == "0.3750");
    CHECK(page_cell(d, agg["layer_mean"], 3) == "0.5000");
}

TEST_CASE("trace reader: foreign, truncated and future files are one-line errors naming the file") {
    const RunResult r = run_attn({"show", "--kind", "causal", "a b c", "--json", "-"});
    REQUIRE(r.code == 0);
    const std::string hint = render::read_trace_json(r.out, "t.json").kind;
    CHECK(hint == "causal");
    CHECK(error_of([&] { render::read_trace_json(r.out.substr(0, 100), "t.json"); })
              .rfind("t.json: invalid JSON at byte offset 100", 0) == 0);
    CHECK(error_of([&] { render::read_trace_json(R"({"name": "x"})", "t.json"); }) ==
          "t.json: not an attn trace (no \"format\": \"attn-trace\")");
    CHECK(error_of([&] { render::read_trace_json("[1, 2]", "t.json"); }) ==
          "t.json: not an attn trace (no \"format\": \"attn-trace\")");
    Json future = Json::parse(r.out);
    future["version"] = 3;
    CHECK(error_of([&] { render::read_trace_json(future.dump(), "t.json"); }) ==
          "t.json: trace version 3 is not supported (this attn reads versions 1 and 2)");
    // 2.0 is the number 2 (Python's json writes a float so): read as version 2; 2.5 is no version
    Json two = Json::parse(r.out);
    const std::string two_text = two.dump();
    const auto at = two_text.find("\"version\":2");
    REQUIRE(at != std::string::npos);
    const std::string as_float = std::string(two_text).replace(at, 11, "\"version\":2.0");
    CHECK(render::read_trace_json(as_float, "t.json").kind == "causal");
    CHECK(error_of([&] { render::read_trace_json(std::string(two_text).replace(at, 11, "\"version\":2.5"), "t.json"); }) ==
          "t.json: trace version 2.5 is not supported (this attn reads versions 1 and 2)");
    Json ragged = Json::parse(r.out);
    ragged["attention"][0]["layers"][0]["heads"][0]["weights"][1] = {0.5};
    CHECK(error_of([&] { render::read_trace_json(ragged.dump(), "t.json"); }) ==
          "t.json: attention[0].layers[0].heads[0].weights row 1: has 1 values but row 0 has 3");
    Json wrong = Json::parse(r.out);
    wrong["attention"][0]["layers"][0]["heads"][0]["weights"] = {{1, 0}, {0.5, 0.5}};
    CHECK(error_of([&] { render::read_trace_json(wrong.dump(), "t.json"); }) ==
          "t.json: attention[0].layers[0].heads[0].weights: is (2, 2) but (T, S) = (3, 3)");
    Json text = Json::parse(r.out);
    text["attention"][0]["layers"][0]["heads"][0]["scores"][0][0] = "1";
    CHECK(error_of([&] { render::read_trace_json(text.dump(), "t.json"); }) ==
          "t.json: attention[0].layers[0].heads[0].scores row 0: expected a number");
    std::string deep = "{\"format\": \"attn-trace\", \"x\": ";
    for (int i = 0; i < 100000; ++i) deep += "[";
    CHECK(error_of([&] { render::read_trace_json(deep, "t.json"); }) == "t.json: nested more than 9 deep");
}

TEST_CASE("npy attention: (L, H, T, S), (H, T, S) and (T, S) with their tokens, bad shapes and NaN refused") {
    // (L, H, T, S) = (2, 3, 2, 2): value = 1000 l + 100 h + 10 i + j, in C order and in Fortran order
    std::vector<float> c, f(24);
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 3; ++h)
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j) {
                    const float v = float(1000 * l + 100 * h + 10 * i + j);
                    c.push_back(v);
                    f[static_cast<std::size_t>(l + 2 * (h + 3 * (i + 2 * j)))] = v;
                }
    const render::TokenLabels tok = render::read_token_labels("[\"a\", \"</script>\"]", "tok.json");
    for (bool fortran : {false, true}) {
        const Trace t = render::read_attention_npy(npy("<f4", "(2, 3, 2, 2)", floats(fortran ? f : c), fortran), "a.npy",
                                                   tok, "tok.json");
        REQUIRE(t.layers().size() == 2);
        REQUIRE(t.layers()[1].heads.size() == 3);
        CHECK(t.layers()[1].heads[2].weights(1, 0) == 1210.0f);
        CHECK(t.layers()[0].heads[1].weights(0, 1) == 101.0f);
        CHECK(t.tokens[1] == "</script>");
    }
    const Trace t3 = render::read_attention_npy(npy("<f4", "(3, 2, 2)", floats(std::vector<float>(c.begin(), c.begin() + 12))),
                                                "a.npy", std::nullopt, "");
    CHECK_FALSE(t3.sets.at(0).model_layers);  // (H, T, S): one layer, not a model's numbered blocks
    CHECK(t3.layers().size() == 1);
    CHECK(t3.heads().size() == 3);
    CHECK(t3.tokens == std::vector<std::string>{"0", "1"});
    const Trace t2 = render::read_attention_npy(npy("<f8", "(2, 3)", std::string(48, '\0')), "a.npy",
                                                render::read_token_labels("{\"tokens\": [\"x\", \"y\"], \"source_tokens\": [\"p\", \"q\", \"r\"]}", "t"),
                                                "t");
    CHECK(t2.heads().size() == 1);
    CHECK(t2.source_tokens[2] == "r");
    // the errors
    const auto err = [&](const std::string& bytes, const std::optional<render::TokenLabels>& labels) {
        return error_of([&] { render::read_attention_npy(bytes, "a.npy", labels, "tok.txt"); });
    };
    CHECK(err(npy("<f4", "(4,)", floats({1, 2, 3, 4})), std::nullopt) ==
          "a.npy: attention of shape (4,) has 1 dimensions, not 2, 3 or 4");
    CHECK(err(npy("<f4", "(1, 1, 1, 1, 1)", floats({1})), std::nullopt) ==
          "a.npy: attention of shape (1, 1, 1, 1, 1) has 5 dimensions, not 2, 3 or 4");
    CHECK(err(npy("<f4", "(2, 2)", floats({1, 0, NAN, 1})), std::nullopt) ==
          "a.npy: the value at (1, 0) is NaN; attention must be finite numbers");
    CHECK(err(npy("|b1", "(2, 2)", std::string(4, '\1')), std::nullopt) ==
          "a.npy: attention must be float32 or float64, not |b1");
    CHECK(err(npy("<f4", "(2, 2)", floats({1, 0, 0, 1})), render::read_token_labels("a\nb\nc\n", "tok.txt")) ==
          "tok.txt: 3 tokens, but a.npy holds (T, S) = (2, 2)");
    CHECK(err(npy("<f4", "(2, 3)", floats({1, 0, 0, 0, 1, 0})), render::read_token_labels("a\nb\n", "tok.txt")) ==
          "tok.txt: one list of 2 tokens, but a.npy holds cross attention (T, S) = (2, 3)");
    // token files
    CHECK(render::read_token_labels("\xEF\xBB\xBF" "a\r\n b\n", "t").tokens == std::vector<std::string>{"a", " b"});
    CHECK(error_of([] { render::read_token_labels("a\tb\n", "t"); }).rfind("t: token 0 has a control character", 0) == 0);
    CHECK(error_of([] { render::read_token_labels("[\"a\", 2]", "t"); }) == "t: the list holds a value that is not a string");
}

TEST_CASE("page data: 4-decimal readouts equal \"%.4f\" of the value, for every cell and across ranges") {
    // 1. the rounding itself, on values at and beside every kind of boundary
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f), wide(-3000.0f, 3000.0f);
    std::size_t checked = 0;
    for (int n = 0; n < 200000; ++n) {
        for (float v : {unit(gen), wide(gen), std::nextafter(float(n) / 20000.0f + 0.00005f, 1.0f),
                        std::nextafter(float(n) / 20000.0f + 0.00005f, 0.0f), -unit(gen) * 1e-4f}) {
            INFO(v);
            REQUIRE(render::format_ten_thousandths(render::ten_thousandths(v)) == four(v));
            ++checked;
        }
    }
    CHECK(checked == 1000000);
    // 2. through a whole page: every stage of every head of a run with wide scores (3-byte cells)
    const RunResult r = run_attn({"show", "--kind", "mha", "--heads", "2", "--dropout", "0.1", "--d-in", "64",
                                  "--init", "torch-rand", "The cat sat on the mat and looked at the dog.", "--json", "-"});
    REQUIRE(r.code == 0);
    const Trace t = render::read_trace_json(r.out, "t.json");
    const PageData d = page_data(render::render_html(t, {}));
    const std::size_t T = t.tokens.size(), S = t.source_tokens.size();
    std::set<int> widths;
    for (std::size_t h = 0; h < t.heads().size(); ++h) {
        const HeadTrace& ht = t.heads()[h];
        const Json& st = d.json["layers"][0]["heads"][h]["stages"];
        for (const char* stage : {"weights", "scores", "masked-scores", "dropped"}) widths.insert(st[stage][1].get<int>());
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t j = 0; j < S; ++j) {
                const std::size_t idx = i * S + j;
                CHECK(page_cell(d, st["mask"], idx) == (ht.mask(i, j) ? "1.0000" : "0.0000"));
                if (!ht.mask(i, j)) continue;
                CHECK(page_cell(d, st["weights"], idx) == four(ht.weights(i, j)));
                CHECK(page_cell(d, st["dropped"], idx) == four(ht.dropped_weights(i, j)));
                CHECK(page_cell(d, st["scores"], idx) == four(ht.scores(i, j)));
                CHECK(page_cell(d, st["masked-scores"], idx, &st["scores"], ht.scale) == four(ht.scale * ht.scores(i, j)));
            }
    }
    CHECK(d.json["layers"][0]["heads"][0]["stages"]["masked-scores"].size() == 6);  // stored as residuals
    CHECK(widths.count(2) == 1);  // weights
    CHECK(widths.count(3) == 1);  // torch-rand at d_in 64: raw scores span more than 6.5535
}

TEST_CASE("page: one file, no external resources, data escaped, the code embedded whole") {
    Trace t = render::read_trace_json(run_attn({"show", "--kind", "causal", "a b c", "--json", "-"}).out, "t.json");
    t.tokens[1] = "</script><script>alert(1)</script>&amp;";
    const std::string html = render::render_html(t, {});
    // the token never appears raw: only escaped, inside the JSON data
    CHECK(html.find("<script>alert(1)") == std::string::npos);
    CHECK(html.find("\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\\u0026amp;") != std::string::npos);
    CHECK(page_data(html).json["tokens"][1] == t.tokens[1]);
    // nothing from elsewhere: no src=, href= or url( in the page, and a policy forbidding it
    CHECK(html.find("src=") == std::string::npos);
    CHECK(html.find("href=") == std::string::npos);
    CHECK(html.find("url(") == std::string::npos);
    CHECK(html.find("default-src 'none'") != std::string::npos);
    // the code as the files hold it (the page's scripts in order, render/page/page_assets.cpp), which must
    // not close its own <script>
    const auto text_of = [](const std::string& file) {
        std::ifstream in(std::string(ATTN_SOURCE_DIR) + "/render/page/" + file);
        REQUIRE(in);
        return std::string((std::istreambuf_iterator<char>(in)), {});
    };
    std::string js_text = text_of("page.js") + "\n(function () {\n";
    const char* const views[] = {"shared.js", "frame.js", "matrix_view.js", "head_view.js", "heads_table.js", "model_overview.js",
                                 "flash_steps.js", "generation_view.js", "interventions_view.js", "steps_view.js", "vector_stages.js", "position_view.js", "core_worker.js", "live_payload.js", "live.js", "model_panel.js", "decode_view.js", "start.js"};
    for (const char* view : views) js_text += (view == views[0] ? "" : "\n") + text_of(view);
    js_text += "})();\n";
    const std::string css_text = text_of("page.css");
    CHECK(render::page_js() == js_text);
    CHECK(render::page_css() == css_text);
    CHECK(html.find(js_text) != std::string::npos);
    std::string lower = js_text + css_text;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    CHECK(lower.find("</script") == std::string::npos);
    CHECK(lower.find("</style") == std::string::npos);
    // the views share one scope: a function declared twice would silently replace the first (the later
    // wins for every caller), so each name is declared once ("  function NAME(" at the scope's indent)
    std::map<std::string, std::string> declared;
    for (const char* view : views) {
        const std::string text = text_of(view);
        for (std::size_t at = text.find("\n  function "); at != std::string::npos; at = text.find("\n  function ", at + 1)) {
            const std::size_t begin = at + 12, end = text.find('(', begin);
            const std::string name = text.substr(begin, end - begin);
            INFO(name << " in " << view << " and " << declared[name]);
            CHECK(declared.count(name) == 0);
            declared.emplace(name, view);
        }
    }
    CHECK(declared.size() > 100);
}

TEST_CASE("cli: show --html and render write pages, render --png draws every layer, or --layer and --head") {
    const std::string dir = attn::test::temp_dir();
    attn::test::RunOptions o;
    o.cwd = dir;
    // 1. show --html beside --json: the page's numbers are the trace's
    RunResult r = attn::test::run_attn({"show", "--kind", "gqa", "--heads", "4", "--kv-heads", "2", "--d-out", "8",
                                        "a b c d", "--json", "t.json", "--html", "show.html"}, o);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("wrote show.html") != std::string::npos);
    const Trace t = render::read_trace_json(attn::test::slurp(dir + "/t.json"), "t.json");
    const PageData shown = page_data(attn::test::slurp(dir + "/show.html"));
    CHECK(shown.json["layers"][0]["heads"].size() == 4);
    CHECK(shown.json["layers"][0]["heads"][3]["kv_head"] == 1);
    CHECK(page_cell(shown, shown.json["layers"][0]["heads"][2]["stages"]["weights"], 3 * 4 + 1) == four(t.heads()[2].weights(3, 1)));
    // 2. render the trace: the same data, opened at head 2
    r = attn::test::run_attn({"render", "t.json", "--html", "render.html", "--head", "2"}, o);
    REQUIRE(r.code == 0);
    const PageData rendered = page_data(attn::test::slurp(dir + "/render.html"));
    CHECK(rendered.blob == shown.blob);
    CHECK(rendered.json["init"]["head"] == 2);
    // 3. a (L, H, T, S) .npy: one PNG set per layer, or only --layer's --head
    std::vector<float> v(2 * 2 * 3 * 3, 0.25f);
    {
        std::ofstream f(dir + "/a.npy", std::ios::binary);
        f << npy("<f4", "(2, 2, 3, 3)", floats(v));
    }
    r = attn::test::run_attn({"render", "a.npy", "--png", "all"}, o);
    REQUIRE(r.code == 0);
    CHECK(!attn::test::slurp(dir + "/all/npy-l0-weights.png").empty());
    CHECK(!attn::test::slurp(dir + "/all/npy-l1-weights.png").empty());
    r = attn::test::run_attn({"render", "a.npy", "--png", "one", "--layer", "1", "--head", "0"}, o);
    REQUIRE(r.code == 0);
    CHECK(!attn::test::slurp(dir + "/one/npy-l1-h0-weights.png").empty());
    r = attn::test::run_attn({"render", "a.npy", "--html", "a.html", "--layer", "2"}, o);
    CHECK(r.code == 2);
    CHECK(r.err == "attn: error: --layer 2 is not in a.npy (it holds layers 0, 1) (hint: pick one of the layers it holds)\n");
}

TEST_CASE("cli: render --png and --svg of a saved trace draw the same bytes as the show run that wrote it") {
    const std::string dir = attn::test::temp_dir();
    attn::test::RunOptions o;
    o.cwd = dir;
    RunResult r = attn::test::run_attn({"show", "--kind", "mha", "--heads", "2", "--d-out", "4", "The cat sat", "--json",
                                        "t.json", "--png", "s", "--svg", "s", "--scale", "3"}, o);
    REQUIRE(r.code == 0);
    r = attn::test::run_attn({"render", "t.json", "--png", "r", "--svg", "r", "--scale", "3"}, o);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("wrote SVGs to r") != std::string::npos);
    for (const char* name : {"mha-scores.png", "mha-mask.png", "mha-weights.png", "mha-scores.svg", "mha-mask.svg",
                             "mha-weights.svg"}) {
        INFO(name);
        const std::string shown = attn::test::slurp(dir + "/s/" + name);
        CHECK(!shown.empty());
        CHECK(attn::test::slurp(dir + "/r/" + name) == shown);
    }
    // --svg alone is enough to write; nothing at all is a usage error naming the three outputs
    r = attn::test::run_attn({"render", "t.json", "--svg", "only"}, o);
    CHECK(r.code == 0);
    r = attn::test::run_attn({"render", "t.json"}, o);
    CHECK(r.code == 2);
    CHECK(r.err.find("give --html FILE, --png DIR or --svg DIR") != std::string::npos);
}

namespace {
// A model trace of two layers as show --model --keep-layers 1 writes it: only layer 1, both layers' aggregates.
Json kept_layer_trace() {
    return Json::parse(R"({"format": "attn-trace", "version": 1, "kind": "model",
        "tokens": ["Hello", " world"],
        "model": {"type": "gpt2", "dtype": "F32", "n_layer": 2, "n_head": 1, "n_embd": 8, "n_positions": 16,
                  "vocab_size": 50257, "n_params": 1234, "layer_norm_epsilon": 1e-5},
        "layers": [{"layer": 1, "heads": [{"head": 0, "kv_head": 0, "scores": [[1, 2], [3, 4]], "scale": 0.5,
                                           "mask": [[true, false], [true, true]], "weights": [[1, 0], [0.5, 0.5]]}]}],
        "aggregates": {"layer_mean": [[[1, 0], [0.25, 0.75]], [[1, 0], [0.5, 0.5]]],
                       "rollout": [[[1, 0], [0.25, 0.75]], [[1, 0], [0.375, 0.625]]]}})");
}
}  // namespace

TEST_CASE("render: a --keep-layers trace keeps its layers' numbers in names, titles, --layer and the page") {
    const std::string dir = test::temp_dir();
    test::write(dir + "/kl1.json", kept_layer_trace().dump());
    test::RunOptions o;
    o.cwd = dir;
    // the finding: model-layer0-* (now gpt2-l1-*) titled "layer 0", and --layer 1 "past the last layer (0)"
    RunResult r = run_attn({"render", "kl1.json", "--svg", "d"}, o);
    REQUIRE(r.code == 0);
    const std::vector<std::string> files = test::tree(dir + "/d");
    REQUIRE(!files.empty());
    for (const std::string& f : files) CHECK(f.rfind("gpt2-l1-", 0) == 0);
    CHECK(test::slurp(dir + "/d/" + files[0]).find("layer 1") != std::string::npos);
    CHECK(test::slurp(dir + "/d/" + files[0]).find("layer 0") == std::string::npos);
    r = run_attn({"render", "kl1.json", "--svg", "e", "--layer", "1"}, o);
    CHECK(r.code == 0);
    CHECK(test::tree(dir + "/e") == files);
    r = run_attn({"render", "kl1.json", "--svg", "f", "--layer", "0"}, o);
    CHECK(r.code == 2);
    CHECK(r.err == "attn: error: --layer 0 is not in kl1.json (it holds layer 1) (hint: pick one of the layers it holds)\n");
    // the page takes layer 1's own mean and rollout, not layer 0's
    const Trace t = render::read_trace_json(kept_layer_trace().dump(), "kl1.json");
    const PageData d = page_data(render::render_html(t, {}));
    REQUIRE(d.json["layers"].size() == 1);
    CHECK(d.json["layers"][0]["layer"] == 1);
    CHECK(page_cell(d, d.json["layers"][0]["aggregates"]["rollout"], 2) == "0.3750");
}

TEST_CASE("trace reader: refuses what the writer never writes: layers past the model's, twice, no rollout, a model's seeded heads") {
    const auto refused = [](const Json& j, const std::string& why) {
        INFO(why);
        try {
            render::read_trace_json(j.dump(), "m.json");
            FAIL("read");
        } catch (const attn::Error& e) {
            CHECK(std::string(e.what()) == "m.json: " + why);
            CHECK(e.exit_code() == 1);
        }
    };
    Json j = kept_layer_trace();
    j["layers"][0]["layer"] = 2;
    refused(j, "layers[0].layer: 2 is past the model's last layer (1)");
    j = kept_layer_trace();
    j["layers"].push_back(j["layers"][0]);
    refused(j, "layers[1].layer: layer 1 appears twice");
    j = kept_layer_trace();
    j["aggregates"].erase("rollout");
    refused(j, "aggregates: a model's trace needs \"layer_mean\" and \"rollout\", one matrix per layer");
    j = kept_layer_trace();
    j.erase("aggregates");
    refused(j, "aggregates: a model's trace needs \"layer_mean\" and \"rollout\", one matrix per layer");
    j = kept_layer_trace();
    j["heads"] = j["layers"][0]["heads"];
    refused(j, "heads: a model's trace keeps its heads in \"layers\", not \"heads\"");
}

TEST_CASE("render: a big-endian .npy draws as its little-endian twin (one reader with --embeddings), a .npy without its magic is refused as one") {
    const std::string dir = test::temp_dir();
    const auto raw = [](std::initializer_list<float> v, bool big) {
        std::string s;
        for (float f : v) {
            char b[4];
            std::memcpy(b, &f, 4);
            if (big) std::reverse(b, b + 4);
            s.append(b, 4);
        }
        return s;
    };
    test::write(dir + "/le.npy", npy("<f4", "(2, 2)", raw({1.0f, 0.0f, 0.25f, 0.75f}, false)));
    test::write(dir + "/be.npy", npy(">f4", "(2, 2)", raw({1.0f, 0.0f, 0.25f, 0.75f}, true)));
    test::write(dir + "/trace.npy", R"({"format": "attn-trace", "version": 1})");
    test::RunOptions o;
    o.cwd = dir;
    RunResult r = run_attn({"render", "le.npy", "--svg", "le"}, o);
    REQUIRE(r.code == 0);
    r = run_attn({"render", "be.npy", "--svg", "be"}, o);
    REQUIRE(r.code == 0);
    const std::vector<std::string> files = test::tree(dir + "/le");
    REQUIRE(files == test::tree(dir + "/be"));
    for (const std::string& f : files) CHECK(test::slurp(dir + "/le/" + f) == test::slurp(dir + "/be/" + f));
    // the finding: a .npy holding a trace's text was read as a trace, and then --tokens "applies to a .npy input"
    r = run_attn({"render", "trace.npy", "--tokens", "le.npy", "--html", "p.html"}, o);
    CHECK(r.code == 1);
    CHECK(r.err == "attn: error: trace.npy: not a valid .npy file: the magic string \\x93NUMPY is missing "
                   "(hint: save it with numpy.save(path, array))\n");
}

namespace {

// A trace `attn show` wrote, edited by `edit`, must be refused with exactly "t.json: <why>" (exit 1).
void refused_edit(const std::vector<std::string>& show, const std::function<void(Json&)>& edit, const std::string& why) {
    std::vector<std::string> args = {"show"};
    args.insert(args.end(), show.begin(), show.end());
    args.insert(args.end(), {"--json", "-"});
    const RunResult r = run_attn(args);
    REQUIRE(r.code == 0);
    CHECK_NOTHROW(render::read_trace_json(r.out, "t.json"));  // as written: read
    Json j = Json::parse(r.out);
    edit(j);
    INFO(why);
    try {
        render::read_trace_json(j.dump(), "t.json");
        FAIL("read");
    } catch (const attn::Error& e) {
        CHECK(std::string(e.what()) == "t.json: " + why);
        CHECK(e.exit_code() == 1);
    }
}

Json& head0(Json& j, std::size_t h = 0) { return j["attention"][0]["layers"][0]["heads"][h]; }

}  // namespace

TEST_CASE("trace reader: a key given twice in an object is refused by its JSON path, at the top and deep inside") {
    const RunResult r = run_attn({"show", "--kind", "causal", "a b c", "--json", "-"});
    REQUIRE(r.code == 0);
    REQUIRE(r.out.rfind("{\"format\"", 0) == 0);
    // nlohmann (and Python's json) keep the last of two equal keys, other readers the first
    const std::string top = "{\"kind\":\"self\"," + r.out.substr(1);
    CHECK(error_of([&] { render::read_trace_json(top, "t.json"); }) ==
          "t.json: kind: is given twice in its object (JSON does not say which one counts)");
    std::string deep = r.out;
    const auto scale = deep.find("\"scale\":");
    REQUIRE(scale != std::string::npos);
    deep.insert(scale, "\"scale\":100,");
    CHECK(error_of([&] { render::read_trace_json(deep, "t.json"); }) ==
          "t.json: attention[0].layers[0].heads[0].scale: is given twice in its object (JSON does not say which one counts)");
    // the same key in two objects, or in an array's two objects, is fine
    CHECK_NOTHROW(render::read_trace_json(r.out, "t.json"));
}

TEST_CASE("trace reader: weights in hidden cells, outside [0, 1] or in rows that do not sum to 1 are refused by cell or row") {
    const std::vector<std::string> causal = {"--kind", "causal", "a b c"};
    const std::string w = "attention[0].layers[0].heads[0].weights";
    refused_edit(causal, [](Json& j) { head0(j)["weights"][0][1] = 0.5; },
                 w + "[0][1]: is 0.5 but the mask hides this key (a hidden key's weight is 0)");
    refused_edit(causal, [](Json& j) { head0(j)["weights"][2][0] = -0.25; }, w + "[2][0]: is -0.25, not a weight in [0, 1]");
    refused_edit(causal, [](Json& j) { head0(j)["weights"][2][0] = 4096; }, w + "[2][0]: is 4096, not a weight in [0, 1]");
    refused_edit(causal, [](Json& j) { head0(j)["weights"][2][0] = 1e30; }, w + "[2][0]: is 1.00000002e+30, not a weight in [0, 1]");
    refused_edit(causal, [](Json& j) { head0(j)["weights"][1] = {0.5, 0.625, 0}; },
                 w + "[1]: sums to 1.125, not 1 (a softmax row, within 0.001)");
    refused_edit(causal, [](Json& j) { head0(j)["weights"][1] = {0, 0, 0}; }, w + "[1]: sums to 0, not 1 (a softmax row, within 0.001)");
    // a row within the tolerance reads (a float32 softmax row is never exactly 1)
    Json j = Json::parse(run_attn({"show", "--kind", "causal", "a b c", "--json", "-"}).out);
    head0(j)["weights"][1] = {0.5, 0.5009765625, 0};
    CHECK_NOTHROW(render::read_trace_json(j.dump(), "t.json"));
    // --renorm's zeroed stage: 0 where hidden, rows at most 1
    refused_edit({"--kind", "causal", "--renorm", "a b c"}, [](Json& j) { head0(j)["zeroed"][0][2] = 0.125; },
                 "attention[0].layers[0].heads[0].zeroed[0][2]: is 0.125 but the mask hides this key (a hidden key's weight is 0)");
    refused_edit({"--kind", "causal", "--renorm", "a b c"}, [](Json& j) { head0(j)["zeroed"][2] = {0.5, 0.5, 0.5}; },
                 "attention[0].layers[0].heads[0].zeroed[2]: sums to 1.5, more than 1 (a softmax row with hidden keys set to 0)");
    // a local window hides keys too, and a model trace is checked as a seeded one
    refused_edit({"--kind", "local", "--window", "1", "a b c d"}, [](Json& j) { head0(j)["weights"][3][0] = 0.25; },
                 w + "[3][0]: is 0.25 but the mask hides this key (a hidden key's weight is 0)");
    Json m = kept_layer_trace();
    m["layers"][0]["heads"][0]["weights"] = {{0.75, 0.25}, {0.5, 0.5}};
    CHECK(error_of([&] { render::read_trace_json(m.dump(), "m.json"); }) ==
          "m.json: layers[0].heads[0].weights[0][1]: is 0.25 but the mask hides this key (a hidden key's weight is 0)");
}

TEST_CASE("trace reader: dropped weights are 0 or weight / (1 - p), 0 where hidden, and may pass 1") {
    // with p = 0.5 every kept weight doubles: row 0 of a causal run (weight 1) is 0 or 2
    const std::vector<std::string> run = {"--kind", "causal", "--dropout", "0.5", "--dropout-seed", "4", "a b c d e"};
    const RunResult r = run_attn({"show", "--kind", "causal", "--dropout", "0.5", "--dropout-seed", "4", "a b c d e", "--json", "-"});
    REQUIRE(r.code == 0);
    const Trace t = render::read_trace_json(r.out, "t.json");
    const HeadTrace& h = t.layers()[0].heads[0];
    std::size_t above_one = 0, kept = 0;
    for (std::size_t i = 0; i < h.weights.shape(0); ++i)
        for (std::size_t k = 0; k < h.weights.shape(1); ++k) {
            above_one += h.dropped_weights(i, k) > 1.0f;
            if (h.dropped_weights(i, k) == 0.0f) continue;
            ++kept;
            CHECK(h.dropped_weights(i, k) == doctest::Approx(2.0 * h.weights(i, k)));
        }
    CHECK(kept > 0);
    CHECK(above_one > 0);  // read although above 1
    // the first kept cell of the last row, changed to another value
    std::size_t cell = 0;
    while (h.dropped_weights(4, cell) == 0.0f) ++cell;
    const std::string expected = [&] {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.9g", double(h.weights(4, cell)) * 2.0);
        return std::string(buf);
    }();
    refused_edit(run, [&](Json& j) { head0(j)["dropped_weights"][4][cell] = 0.001; },
                 "attention[0].layers[0].heads[0].dropped_weights[4][" + std::to_string(cell) +
                     "]: is 0.00100000005, neither 0 nor weights[4][" + std::to_string(cell) + "] / (1 - config.dropout) = " + expected);
    refused_edit(run, [](Json& j) { head0(j)["dropped_weights"][0][3] = 2; },
                 "attention[0].layers[0].heads[0].dropped_weights[0][3]: is 2 but the mask hides this key (a hidden key's weight is 0)");
    refused_edit(run, [](Json& j) { j["config"]["dropout"] = 1; }, "config.dropout: is 1, not a probability in [0, 1)");
}

TEST_CASE("trace reader: head numbers repeated or past the heads, and config.heads unlike the heads present, are refused") {
    const std::vector<std::string> mha = {"--kind", "mha", "--heads", "2", "a b c"};
    refused_edit(mha, [](Json& j) { head0(j, 1)["head"] = 0; }, "attention[0].layers[0].heads[1].head: head 0 appears twice");
    refused_edit(mha, [](Json& j) { head0(j, 1)["head"] = 5; },
                 "attention[0].layers[0].heads[1].head: 5 is past the last head (1, config.heads 2)");
    refused_edit(mha, [](Json& j) { j["config"]["heads"] = 7; }, "config.heads: is 7 but attention[0].layers[0].heads holds 2 heads");
    refused_edit(mha, [](Json& j) { j["config"]["heads"] = 0; }, "config.heads: is 0, but a run has at least one head");
    // a model's heads against model.n_head
    Json m = kept_layer_trace();
    m["model"]["n_head"] = 3;
    CHECK(error_of([&] { render::read_trace_json(m.dump(), "m.json"); }) == "m.json: model.n_head: is 3 but layers[0].heads holds 1 head");
    m = kept_layer_trace();
    m["layers"][0]["heads"][0]["head"] = 1;
    CHECK(error_of([&] { render::read_trace_json(m.dump(), "m.json"); }) ==
          "m.json: layers[0].heads[0].head: 1 is past the last head (0, model.n_head 1)");
    // every kind's own trace has as many heads as its config says (the round trip above reads them all)
    for (const char* kind : {"simple", "self", "mha-wrapper", "mqa", "gqa", "flash", "additive", "luong"}) {
        const RunResult r = run_attn({"show", "--kind", kind, "a b c d", "--json", "-"});
        REQUIRE(r.code == 0);
        const Json j = Json::parse(r.out);
        CHECK(j["attention"][0]["layers"][0]["heads"].size() == j["config"]["heads"]);
    }
}

TEST_CASE("trace reader: a trace holding both versions' heads is refused by the field of the other version") {
    Json v1 = kept_layer_trace();
    v1["attention"] = Json::array();
    CHECK(error_of([&] { render::read_trace_json(v1.dump(), "m.json"); }) ==
          "m.json: attention: is version 2's field, but the trace says version 1 (whose heads are in \"heads\" or \"layers\")");
    refused_edit({"--kind", "causal", "a b"}, [](Json& j) { j["heads"] = head0(j); },
                 "heads: is version 1's field, but the trace says version 2 (whose heads are in \"attention\")");
    refused_edit({"--kind", "causal", "a b"}, [](Json& j) { j["layers"] = j["attention"][0]["layers"]; },
                 "layers: is version 1's field, but the trace says version 2 (whose heads are in \"attention\")");
}

TEST_CASE("trace reader: model.type is a family of the table, so no trace names files outside it") {
    const std::string families = "gpt2, llama, mistral, qwen2, bert, roberta, distilbert, t5, bart, marian";
    for (const char* type : {"..", "gpt2/../../x", "", "GPT2", ".hidden"}) {
        Json m = kept_layer_trace();
        m["model"]["type"] = type;
        CHECK(error_of([&] { render::read_trace_json(m.dump(), "m.json"); }) ==
              "m.json: model.type: \"" + std::string(type) + "\" is not a model family attn runs (" + families + ")");
    }
    // end to end: one line, exit 1, nothing written (before: ".." wrote hidden "..-l1-*" files, the path an internal error)
    const std::string dir = test::temp_dir();
    for (const char* type : {"..", "gpt2/../../x"}) {
        Json m = kept_layer_trace();
        m["model"]["type"] = type;
        test::write(dir + "/t.json", m.dump());
        test::RunOptions o;
        o.cwd = dir;
        const RunResult r = run_attn({"render", "t.json", "--png", "out"}, o);
        CHECK(r.code == 1);
        CHECK(test::one_line(r).rfind("attn: error: t.json: model.type: \"" + std::string(type) + "\" is not a model family", 0) == 0);
        CHECK(test::tree(dir + "/out").empty());
        CHECK(test::tree(dir) == std::vector<std::string>{"t.json"});
    }
}

TEST_CASE("render: figures and the page name the checkpoint by model.name, an older trace by its type, control characters made visible") {
    const std::string dir = test::temp_dir();
    test::RunOptions o;
    o.cwd = dir;
    Json named = kept_layer_trace();
    named["model"]["name"] = "tiny-llama";
    test::write(dir + "/n.json", named.dump());
    RunResult r = run_attn({"render", "n.json", "--svg", "n", "--html", "n.html"}, o);
    REQUIRE(r.code == 0);
    const std::string weights = test::slurp(dir + "/n/gpt2-l1-weights.svg");  // files keep the family's name
    CHECK(weights.find("tiny-llama \xC2\xB7 layer 1") != std::string::npos);
    CHECK(weights.find("gpt2") == std::string::npos);
    CHECK(page_data(test::slurp(dir + "/n.html")).json["model"]["name"] == "tiny-llama");
    // the name reads back and writes the same bytes
    const Trace t = render::read_trace_json(named.dump(), "n.json");
    CHECK(t.model->name == "tiny-llama");
    CHECK(Json::parse(render::trace_json_text(t))["model"]["name"] == "tiny-llama");
    // no name: the type, as before
    test::write(dir + "/o.json", kept_layer_trace().dump());
    r = run_attn({"render", "o.json", "--svg", "o", "--html", "o.html"}, o);
    REQUIRE(r.code == 0);
    CHECK(test::slurp(dir + "/o/gpt2-l1-weights.svg").find("gpt2 \xC2\xB7 layer 1") != std::string::npos);
    CHECK(page_data(test::slurp(dir + "/o.html")).json["model"].count("name") == 0);
    // a bell and a right-to-left override in the name are drawn as U+FFFD
    named["model"]["name"] = "a\x07" "b\xE2\x80\xAE" "c";
    test::write(dir + "/c.json", named.dump());
    r = run_attn({"render", "c.json", "--svg", "c"}, o);
    REQUIRE(r.code == 0);
    const std::string svg = test::slurp(dir + "/c/gpt2-l1-weights.svg");
    CHECK(svg.find("a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c \xC2\xB7 layer 1") != std::string::npos);
    CHECK(svg.find('\x07') == std::string::npos);
    CHECK(svg.find("\xE2\x80\xAE") == std::string::npos);
    // a name is at most 256 bytes
    named["model"]["name"] = std::string(300, 'n');
    CHECK(error_of([&] { render::read_trace_json(named.dump(), "n.json"); }).rfind("n.json: model.name: is 300 bytes", 0) == 0);
}

TEST_CASE("render input: a version-1 trace whose config does not state its heads holds the heads it has, and reads back as written") {
    const std::string text = attn::test::slurp(std::string(ATTN_SOURCE_DIR) + "/fuzz/corpus/trace/v1-config-without-heads.json");
    const attn::Trace t = attn::render::read_trace_json(text, "v1.json");
    CHECK(t.config.heads == t.heads().size());
    const std::string once = attn::render::trace_json_text(t);
    CHECK(attn::render::trace_json_text(attn::render::read_trace_json(once, "again.json")) == once);
}
