// An encoder-decoder trace's page (render/page/html.cpp): three sets in its data, encoder (S, S), decoder
// (T, T) and cross (T, S), each with its tokens, every layer's heads (their numbers decode to the trace's
// at 4 decimals), the set's layer mean and rollout (none for cross) and the colour scales the PNGs use;
// the translation line's source and text; the code of the tabs; and the pages of one-set traces untouched.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/trace.h"
#include "render/page/html.h"
#include "tests/page_helpers.h"

using namespace attn;
using Json = nlohmann::json;
using attn::test::four;
using attn::test::page_cell;
using attn::test::page_data;

namespace {

// Source "·The ·house ·is </s>" (S = 4); the decoder read "<pad> ·Das ·Haus" (T = 3) and generated
// ids 10 11 1 ("·Das ·Haus </s>"); the encoder has 2 layers, the decoder 3, each of 2 heads.
// Weights w(i, j) ∝ 1 + i + 2j + h + 3l over the visible keys; raw scores (i - j)(h + 1) + l / 2, scale 0.5.
// The decoder's self-attention is causal (key j ≤ query i).
AttentionSet make_set(const std::string& name, const std::vector<std::string>& rows, const std::vector<std::string>& cols,
                      std::size_t layers, bool causal) {
    AttentionSet set;
    set.name = name, set.query_tokens = rows, set.key_tokens = cols, set.model_layers = true;
    const std::size_t T = rows.size(), S = cols.size();
    for (std::size_t l = 0; l < layers; ++l) {
        LayerTrace layer{l, {}};
        Mat mean = xt::zeros<float>({T, S});
        for (std::size_t h = 0; h < 2; ++h) {
            HeadTrace x;
            x.head = x.kv_head = h, x.scale = 0.5f;
            x.scores = Mat::from_shape({T, S}), x.weights = Mat::from_shape({T, S}), x.mask = Mask::from_shape({T, S});
            for (std::size_t i = 0; i < T; ++i) {
                double sum = 0;
                for (std::size_t j = 0; j < S; ++j) {
                    x.mask.edit()(i, j) = !causal || j <= i;
                    if (x.mask(i, j)) sum += 1.0 + double(i) + 2.0 * double(j) + double(h) + 3.0 * double(l);
                }
                for (std::size_t j = 0; j < S; ++j) {
                    x.scores(i, j) = static_cast<float>((double(i) - double(j)) * double(h + 1) + double(l) / 2.0);
                    x.weights(i, j) = x.mask(i, j) ? static_cast<float>((1.0 + double(i) + 2.0 * double(j) + double(h) + 3.0 * double(l)) / sum) : 0.0f;
                    mean(i, j) += x.weights(i, j) / 2.0f;
                }
            }
            layer.heads.push_back(x);
        }
        set.layers.push_back(layer);
        set.layer_mean.push_back(mean);
        if (name != "cross") set.rollout.push_back(mean);  // any (T, T) matrix: the page stores what it is given
    }
    return set;
}

Trace seq2seq_trace() {
    Trace t;
    t.kind = "model";
    t.source_tokens = {"\xC2\xB7The", "\xC2\xB7house", "\xC2\xB7is", "</s>"};
    t.source_token_ids = {5, 6, 7, 1};
    t.tokens = {"<pad>", "\xC2\xB7" "Das", "\xC2\xB7Haus"};
    t.token_ids = {0, 10, 11};
    t.generated_ids = {10, 11, 1};
    t.predictions = {{{10, "\xC2\xB7" "Das", 0.6f}, {12, "\xC2\xB7" "Ein", 0.2f}},
                     {{11, "\xC2\xB7Haus", 0.7f}, {13, "\xC2\xB7Heim", 0.1f}},
                     {{1, "</s>", 0.9f}, {14, ".", 0.05f}}};
    ModelInfo m;
    m.type = "t5", m.dtype = "F32", m.n_layer = 2, m.n_head = 2, m.n_embd = 8, m.stack = "encoder-decoder", m.n_decoder_layer = 3;
    t.model = m;
    t.sets = {make_set("encoder", t.source_tokens, t.source_tokens, 2, false),
              make_set("decoder", t.tokens, t.tokens, 3, true),
              make_set("cross", t.tokens, t.source_tokens, 3, false)};
    return t;
}

std::string error_of(const Trace& t, const render::HtmlOptions& o) {
    try {
        render::render_html(t, o);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("seq2seq page: the encoder, decoder and cross sets are in the page data with their tokens and shapes (S x S, T x T, T x S)") {
    const Trace t = seq2seq_trace();
    const test::PageData d = page_data(render::render_html(t, {}));
    const Json& j = d.json;
    CHECK(j["stack"] == "encoder-decoder");
    CHECK(j["model"]["n_layer"] == 2);
    CHECK(j["model"]["n_decoder_layer"] == 3);
    CHECK(j["layers"].empty());  // the views read one set at a time
    REQUIRE(j["sets"].size() == 3);
    const std::vector<std::string> names = {"encoder", "decoder", "cross"};
    const std::vector<std::size_t> rows = {4, 3, 3}, cols = {4, 3, 4}, depth = {2, 3, 3};
    for (std::size_t k = 0; k < 3; ++k) {
        const Json& s = j["sets"][k];
        INFO(names[k]);
        CHECK(s["name"] == names[k]);
        CHECK(s["tokens"] == Json(t.sets[k].query_tokens));
        CHECK(s["source_tokens"] == Json(t.sets[k].key_tokens));
        CHECK(s["tokens"].size() == rows[k]);
        CHECK(s["source_tokens"].size() == cols[k]);
        REQUIRE(s["layers"].size() == depth[k]);
        CHECK(s["stages"] == Json::array({"weights", "scores", "masked-scores", "mask"}));
        for (std::size_t l = 0; l < depth[k]; ++l) {
            CHECK(s["layers"][l]["layer"] == l);
            CHECK(s["layers"][l]["heads"].size() == 2);
            CHECK(s["layers"][l]["aggregates"].contains("layer_mean"));
            CHECK(s["layers"][l]["aggregates"].contains("rollout") == (names[k] != "cross"));
        }
        CHECK(s["empty_rows"].empty());
    }
    // the page opens on cross: its stages are the page's first
    CHECK(j["stages"] == j["sets"][2]["stages"]);
}

TEST_CASE("seq2seq page: every set's weights, masked scores, mask and layer mean decode to the trace's values at 4 decimals") {
    const Trace t = seq2seq_trace();
    const test::PageData d = page_data(render::render_html(t, {}));
    std::size_t checked = 0;
    for (std::size_t k = 0; k < 3; ++k) {
        const AttentionSet& set = t.sets[k];
        const std::size_t T = set.query_tokens.size(), S = set.key_tokens.size();
        for (std::size_t l = 0; l < set.layers.size(); ++l) {
            const Json& jl = d.json["sets"][k]["layers"][l];
            for (std::size_t h = 0; h < 2; ++h) {
                const HeadTrace& x = set.layers[l].heads[h];
                const Json& st = jl["heads"][h]["stages"];
                for (std::size_t i = 0; i < T; ++i)
                    for (std::size_t j = 0; j < S; ++j, ++checked) {
                        INFO(set.name, " layer ", l, " head ", h, " (", i, ", ", j, ")");
                        const std::size_t idx = i * S + j;
                        // raw scores are stored for every cell; the other stages where the mask shows the key
                        // (the page reads "hidden" for the others)
                        CHECK(page_cell(d, st["mask"], idx, nullptr, 1, T * S) == (x.mask(i, j) ? "1.0000" : "0.0000"));
                        CHECK(page_cell(d, st["scores"], idx, nullptr, 1, T * S) == four(x.scores(i, j)));
                        if (!x.mask(i, j)) continue;
                        CHECK(page_cell(d, st["weights"], idx, nullptr, 1, T * S) == four(x.weights(i, j)));
                        CHECK(page_cell(d, st["masked-scores"], idx, &st["scores"], x.scale, T * S) == four(0.5f * x.scores(i, j)));
                        CHECK(page_cell(d, jl["aggregates"]["layer_mean"], idx, nullptr, 1, T * S) == four(set.layer_mean[l](i, j)));
                        if (set.name != "cross")
                            CHECK(page_cell(d, jl["aggregates"]["rollout"], idx, nullptr, 1, T * S) == four(set.rollout[l](i, j)));
                    }
            }
        }
    }
    CHECK(checked == 2 * 2 * 16 + 3 * 2 * 9 + 3 * 2 * 12);
    // the decoder's causal mask: query 0 "<pad>" does not see key 2, query 2 does
    const Json& mask = d.json["sets"][1]["layers"][0]["heads"][0]["stages"]["mask"];
    CHECK(page_cell(d, mask, 0 * 3 + 2, nullptr, 1, 9) == "0.0000");
    CHECK(page_cell(d, mask, 2 * 3 + 2, nullptr, 1, 9) == "1.0000");
}

TEST_CASE("seq2seq page: the colour scales are the PNGs' rule, weights 0 to 1 on viridis and scores from -M to M on RdBu_r") {
    const test::PageData d = page_data(render::render_html(seq2seq_trace(), {}));
    // cross layer 2: scores (i - j)(h + 1) + 1, i < 3, j < 4: the largest |score| is head 1's (0 - 3) * 2 + 1 = -5
    const Json& sc = d.json["sets"][2]["layers"][2]["scales"];
    CHECK(sc["weights"] == Json::array({0.0, 1.0, "viridis", false, "0", "1"}));
    CHECK(sc["scores"] == Json::array({-5.0, 5.0, "RdBu_r", false, "\u22125", "5"}));
    CHECK(sc["masked-scores"] == Json::array({-2.5, 2.5, "RdBu_r", false, "\u22122.5", "2.5"}));
    CHECK(sc["aggregates"] == Json::array({0.0, 1.0, "viridis", false, "0", "1"}));
    CHECK(!sc.contains("mask"));
    // [lo, hi, map, log, the bar's bottom and top labels]; --range 0,0.1 clips the weights (a row of at most 4 keys holds one of 0.25 or more), magma
    render::HtmlOptions fixed;
    fixed.colour.range = render::ColourSpec::Range::fixed, fixed.colour.max = 0.1f, fixed.colour.colormap = "magma";
    const test::PageData f = page_data(render::render_html(seq2seq_trace(), fixed));
    const Json& w = f.json["sets"][2]["layers"][2]["scales"]["weights"];
    CHECK(w[1].get<float>() == 0.1f);
    CHECK(w[2] == "magma");
    CHECK(w[5] == "\u2265 0.1");
    CHECK(f.json["colour"]["range"] == "fixed");
    // the decoder's masked scores span the visible cells only (j <= i): layer 0 head 1's (2 - 0) * 2 = 4, times 0.5
    const Json& dec = d.json["sets"][1]["layers"][0]["scales"];
    CHECK(dec["masked-scores"] == Json::array({-2.0, 2.0, "RdBu_r", false, "\u22122", "2"}));
    // raw scores span every cell, hidden ones too: (0 - 2) * 2 = -4
    CHECK(dec["scores"] == Json::array({-4.0, 4.0, "RdBu_r", false, "\u22124", "4"}));
}

TEST_CASE("seq2seq page: the translation line says the source, the generated text without its end token, and greedy or teacher-forced") {
    Trace t = seq2seq_trace();
    Json tr = page_data(render::render_html(t, {})).json["translation"];
    CHECK(tr["source"] == "The house is");  // the labels' '·' read as spaces, </s> left out
    CHECK(tr["text"] == "Das Haus");
    CHECK(tr["generated"] == Json::array({"\xC2\xB7" "Das", "\xC2\xB7Haus", "</s>"}));  // the last from row 2's top 5
    CHECK(tr["teacher_forced"] == false);
    // as given by the run, and teacher-forced
    t.teacher_forced = true;
    render::HtmlOptions o;
    o.text = "The house is.", o.translation = "Das Haus.";
    tr = page_data(render::render_html(t, o)).json["translation"];
    CHECK(tr["source"] == "The house is.");
    CHECK(tr["text"] == "Das Haus.");
    CHECK(tr["teacher_forced"] == true);
    // a last id outside row 2's top 5 (a forced end token) is named where the trace names it: the source's
    // tokens, the decoder's, another row's top 5; else by its number
    t.generated_ids.back() = 6;
    CHECK(page_data(render::render_html(t, {})).json["translation"]["generated"][2] == "\xC2\xB7house");
    t.generated_ids.back() = 0;
    CHECK(page_data(render::render_html(t, {})).json["translation"]["generated"][2] == "<pad>");
    t.generated_ids.back() = 13;
    CHECK(page_data(render::render_html(t, {})).json["translation"]["generated"][2] == "\xC2\xB7Heim");
    t.generated_ids.back() = 99;
    CHECK(page_data(render::render_html(t, {})).json["translation"]["generated"][2] == "#99");
}

TEST_CASE("seq2seq page: its script has the tabs and its style their CSS, and it opens on cross, where --layer and --head point") {
    const Trace t = seq2seq_trace();
    render::HtmlOptions o;
    o.layer = 2, o.head = 1;  // cross has 3 layers, the encoder 2
    const std::string html = render::render_html(t, o);
    CHECK(html.find("Encoder | Decoder | Cross tabs") != std::string::npos);
    CHECK(html.find(".set-tabs") != std::string::npos);
    CHECK(html.find("an encoder's page (BERT") == std::string::npos);
    CHECK(render::page_js(render::PageStack::encoder_decoder).size() > render::page_js().size());
    CHECK(render::page_css(render::PageStack::encoder_decoder).size() > render::page_css().size());
    const Json j = page_data(html).json;
    CHECK(j["init"]["layer"] == 2);
    CHECK(j["init"]["head"] == 1);
    CHECK(j["head_scores"].is_null());
    CHECK(html.find("<title>attn: model — \xC2\xB7The …</title>") != std::string::npos);  // the source's first token
    o.layer = 3;
    CHECK(error_of(t, o) == "render_html: no such layer");
    o.layer = 0, o.head = 2;
    CHECK(error_of(t, o) == "render_html: no such head");
}

TEST_CASE("seq2seq page: a trace whose sets are not encoder, decoder and cross in that order is refused") {
    const std::string want = "render_html: an encoder-decoder trace needs the sets encoder, decoder and cross, in that order, each with layers";
    Trace t = seq2seq_trace();
    std::swap(t.sets[0], t.sets[1]);
    CHECK(error_of(t, {}) == want);
    t = seq2seq_trace();
    t.sets.pop_back();
    CHECK(error_of(t, {}) == want);
    t = seq2seq_trace();
    t.sets[2].layers.clear();
    CHECK(error_of(t, {}) == want);
}

TEST_CASE("seq2seq page: a decoder model's page has no sets, translation or tabs") {
    Trace t = seq2seq_trace();
    t.model->stack = "decoder";
    t.sets = {t.sets[1]};
    t.sets[0].name = "self";
    t.source_tokens = t.tokens;
    const std::string html = render::render_html(t, {});
    const Json j = page_data(html).json;
    CHECK(!j.contains("sets"));
    CHECK(!j.contains("translation"));
    CHECK(j["layers"].size() == 3);
    CHECK(html.find("Encoder | Decoder | Cross tabs") == std::string::npos);
    CHECK(html.find(".set-tabs") == std::string::npos);
}
