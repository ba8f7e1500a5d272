// An encoder's trace in the figures, the page and `attn heads`: the line between a sentence pair's
// segments (pixels and SVG), "encoder (bidirectional)" in the captions, the masked-LM predictions and
// segments on the page, and the encoder definitions of the head patterns, worked by hand on one (5, 5)
// bidirectional weight matrix. A decoder's trace gets none of it.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/head_patterns.h"
#include "core/analysis/head_report.h"
#include "core/base/trace.h"
#include "render/layout/draw_figure.h"
#include "render/layout/figure.h"
#include "render/layout/model_overview.h"
#include "render/outputs/figures.h"
#include "render/page/html.h"
#include "render/text/font.h"
#include "render/view/figure_views.h"
#include "tests/page_helpers.h"
#include "tests/png_helpers.h"

using namespace attn;

namespace {

using Json = nlohmann::json;
using attn::test::page_json;

// Tokens "[CLS] a , a [SEP]" (ids 0 5 6 5 1), segments A A A B B, one layer of one head whose rows each
// sum to 1 and see every key:
//   row 0: .2 .2 .2 .2 .2
//   row 1: .1 .2 .3 .3 .1
//   row 2: .5 .1 .1 .1 .2
//   row 3: .0 .4 .2 .2 .2
//   row 4: .1 .1 .1 .1 .6
Trace encoder_trace(bool pair = true, const std::string& stack = "encoder") {
    Trace t;
    t.kind = "model";
    t.tokens = t.source_tokens = {"[CLS]", "a", ",", "a", "[SEP]"};
    t.token_ids = {0, 5, 6, 5, 1};
    if (pair) t.segments = {0, 0, 0, 1, 1};
    ModelInfo m;
    m.type = "bert", m.dtype = "F32", m.n_layer = 1, m.n_head = 1, m.stack = stack;
    t.model = m;
    t.config.heads = 1;
    HeadTrace h;
    const float w[5][5] = {{.2f, .2f, .2f, .2f, .2f}, {.1f, .2f, .3f, .3f, .1f}, {.5f, .1f, .1f, .1f, .2f},
                           {.0f, .4f, .2f, .2f, .2f}, {.1f, .1f, .1f, .1f, .6f}};
    h.weights = Mat::from_shape({5, 5});
    h.scores = Mat::from_shape({5, 5});
    h.mask = Mask::from_shape({5, 5});
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 5; ++j) h.weights(i, j) = w[i][j], h.scores(i, j) = w[i][j], h.mask.edit()(i, j) = 1;
    AttentionSet set;
    set.name = "self", set.query_tokens = set.key_tokens = t.tokens, set.model_layers = true;
    set.layers.push_back({0, {h}});
    t.sets.push_back(set);
    t.layer_mean = {h.weights};
    t.rollout = {h.weights};
    MaskPrediction mp;
    mp.position = 3;
    mp.top = {{7, "paris", 0.412f}, {8, "lyon", 0.2f}};
    if (stack == "encoder") t.mask_predictions = {mp};
    return t;
}

// The weights figure of a trace: where its heatmap is, and its PNG decoded.
struct Drawn {
    std::size_t segment_b = 0, fq = 0;
    int hx = 0, hy = 0, cell_w = 0, cell_h = 0, heat_h = 0;
    test::png::Decoded png;
};
Drawn weights_png(const Trace& t, render::Font& font) {
    std::optional<render::FigureView> v = render::figure_view(t, "weights", {});
    REQUIRE(v);
    std::optional<render::Figure> f = render::make_figure(t, std::move(*v), font);
    REQUIRE(f);
    const render::Layout& L = f->layout;
    Drawn d{f->segment_b, L.fq, f->panel_x(0) + L.heat_x, f->panel_y(0) + L.heat_y, L.cell_w, L.cell_h, L.heat_h, {}};
    const auto files = render::drawing_files({render::figure_drawing(std::move(*f), font, "weights")}, "bert", 1, render::FileType::png);
    REQUIRE(files.size() == 1);
    d.png = test::png::decode(files[0].bytes);
    return d;
}

std::string svg_of(const Trace& t, const std::string& figure) {
    render::FigureOptions o;
    o.prefix = "bert", o.figures = {figure};
    const auto files = render::render_figures(t, o, render::FileType::svg);
    REQUIRE(files.size() == 1);
    return files[0].bytes;
}

}  // namespace

TEST_CASE("encoder heads: previous 0.125, next 0.2, first 0.18, self 0.26, punctuation 0.18, duplicate 0.35 and the sink [SEP] 0.26, as summed by hand") {
    const Trace t = encoder_trace();
    const Mat& w = t.layers()[0].heads[0].weights;
    const std::vector<bool> punct = {false, false, true, false, false};
    const TextHeadScores s = text_head_scores(w, punct, t.token_ids, true);
    const auto at = [&](HeadPattern p) { return s.score[static_cast<std::size_t>(p)]; };
    REQUIRE(at(HeadPattern::next));
    CHECK(*at(HeadPattern::previous) == doctest::Approx((.1 + .1 + .2 + .1) / 4).epsilon(1e-6));  // w[i][i-1], i = 1..4
    CHECK(*at(HeadPattern::next) == doctest::Approx((.2 + .3 + .1 + .2) / 4).epsilon(1e-6));      // w[i][i+1], i = 0..3
    CHECK(*at(HeadPattern::first) == doctest::Approx((.2 + .1 + .5 + .0 + .1) / 5).epsilon(1e-6)); // column 0, all 5 queries
    CHECK(*at(HeadPattern::self) == doctest::Approx((.2 + .2 + .1 + .2 + .6) / 5).epsilon(1e-6));
    CHECK(*at(HeadPattern::punctuation) == doctest::Approx((.2 + .3 + .1 + .2 + .1) / 5).epsilon(1e-6));  // column 2 ","
    CHECK(*at(HeadPattern::duplicate) == doctest::Approx((.3 + .4) / 2).epsilon(1e-6));  // "a" at 1 and 3, each on the other
    REQUIRE(s.sink);
    CHECK(s.sink->key == 4);  // column means .18 .2 .18 .18 .26
    CHECK(s.sink->weight == doctest::Approx(1.3 / 5).epsilon(1e-6));
    CHECK(!at(HeadPattern::induction));
}

TEST_CASE("decoder heads: next is never defined, and the causal definitions are unchanged on the same matrix") {
    const Trace t = encoder_trace();
    const Mat& w = t.layers()[0].heads[0].weights;
    const TextHeadScores s = text_head_scores(w, {false, false, true, false, false}, t.token_ids);
    CHECK(!s.score[static_cast<std::size_t>(HeadPattern::next)]);
    CHECK(*s.score[static_cast<std::size_t>(HeadPattern::first)] == doctest::Approx((.1 + .5 + .0 + .1) / 4).epsilon(1e-6));
    // no key holds as a sink: a uniform causal row gives key j 1/(i+1) from query i, and at least 2 and half
    // of the queries after a key must give it that much. Key 0 gets it from row 2 alone (.5 >= 1/3; .1, .0, .1
    // fall short), key 1 from row 3 alone (.4 >= 1/4), key 2 from none (.2 < 1/4, .1 < 1/5), key 3 has one query
    CHECK_FALSE(s.sink);
    CHECK_FALSE(s.score[static_cast<std::size_t>(HeadPattern::sink)]);
}

TEST_CASE("heads report: an encoder's lists next and says encoder, a decoder's leaves next out") {
    const HeadReport enc = score_trace(encoder_trace(), "a , a");
    CHECK(enc.bidirectional());
    CHECK(enc.shows(HeadPattern::next));
    CHECK(enc.score(HeadPattern::next, 0, 0));
    CHECK(std::string(enc.definition(HeadPattern::sink)) == "the largest mean weight one key gets from all queries");
    const HeadReport dec = score_trace(encoder_trace(false, "decoder"), "a , a");
    CHECK(!dec.bidirectional());
    CHECK(!dec.shows(HeadPattern::next));
    CHECK(dec.shows(HeadPattern::previous));
    CHECK(!dec.score(HeadPattern::next, 0, 0));
}

TEST_CASE("segments: the weights figure draws a white line with dark edges before segment B's first token on both axes") {
    render::Font font;
    const Drawn d = weights_png(encoder_trace(), font);
    REQUIRE(d.segment_b == 3);
    REQUIRE(d.fq == 1);
    const int hx = d.hx, hy = d.hy;
    const int x = hx + 3 * d.cell_w, y = hy + 3 * d.cell_h;
    for (int k = 1; k < d.heat_h - 1; ++k) {  // down the whole column boundary, and along the row boundary
        INFO("k = " << k);
        CHECK(test::png::near(d.png.at(x - 1, hy + k), render::kSegmentLine));
        CHECK(test::png::near(d.png.at(x, hy + k), render::kSegmentLine));
        if (std::abs(hy + k - y) > 2) {  // where the lines cross, the row's white line covers the column's edges
            CHECK(test::png::near(d.png.at(x - 2, hy + k), render::kSegmentEdge));
            CHECK(test::png::near(d.png.at(x + 1, hy + k), render::kSegmentEdge));
        }
        CHECK(test::png::near(d.png.at(hx + k, y - 1), render::kSegmentLine));
        CHECK(test::png::near(d.png.at(hx + k, y), render::kSegmentLine));
    }
    // one text: no line, the cells' own colours there
    const Drawn one = weights_png(encoder_trace(false), font);
    CHECK(one.segment_b == 0);
    CHECK(!test::png::near(one.png.at(x - 1, hy + d.cell_h / 2), render::kSegmentLine));
    CHECK(test::png::in_colormap(one.png.at(x - 1, hy + d.cell_h / 2), render::kViridis, 2));
}

TEST_CASE("segments: the SVG holds the line and the legend segments A | B with each side's tokens, and says encoder (bidirectional)") {
    const std::string svg = svg_of(encoder_trace(), "weights");
    CHECK(svg.find("segments A | B: tokens 0\xE2\x80\x93" "2 | 3\xE2\x80\x93" "4") != std::string::npos);
    CHECK(svg.find("encoder (bidirectional): every query sees every key") != std::string::npos);
    const auto count = [](const std::string& text, const std::string& what) {
        std::size_t n = 0;
        for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
        return n;
    };
    CHECK(count(svg, "fill=\"#141414\"") == 3);  // the edges of the column's line and the row's, and the legend's swatch
    const std::string one = svg_of(encoder_trace(false), "weights");
    CHECK(count(one, "fill=\"#141414\"") == 0);
    CHECK(one.find("segments A | B") == std::string::npos);
    CHECK(one.find("encoder (bidirectional)") != std::string::npos);
    const std::string dec = svg_of(encoder_trace(false, "decoder"), "weights");
    CHECK(dec.find("encoder") == std::string::npos);
}

TEST_CASE("overview: an encoder's maps hide no key, name the segments and draw the line on every map") {
    render::Font font;
    const Trace t = encoder_trace();
    const render::Drawing d = render::model_overview_drawing(t, font, 72);
    const auto files = render::drawing_files({d}, "bert", 1, render::FileType::svg);
    REQUIRE(files.size() == 1);
    const std::string& svg = files[0].bytes;
    CHECK(svg.find("encoder (bidirectional): no key hidden") != std::string::npos);
    CHECK(svg.find("segments A | B: tokens 0\xE2\x80\x93" "2 | 3\xE2\x80\x93" "4 (white line)") != std::string::npos);
    CHECK(svg.find("hatched: future keys") == std::string::npos);
    const auto dec = render::drawing_files({render::model_overview_drawing(encoder_trace(false, "decoder"), font, 72)}, "g", 1,
                                           render::FileType::svg);
    CHECK(dec[0].bytes.find("hatched: future keys") != std::string::npos);
}

TEST_CASE("page: an encoder's page carries its stack, segments and the masked-LM head's predictions, and the code that shows them") {
    const std::string html = render::render_html(encoder_trace(), {});
    const Json j = page_json(html);
    CHECK(j["stack"] == "encoder");
    CHECK(j["segments"] == Json::array({0, 0, 0, 1, 1}));
    REQUIRE(j["mask_predictions"].size() == 1);
    CHECK(j["mask_predictions"][0][0] == 3);
    CHECK(j["mask_predictions"][0][1] == "a");
    CHECK(j["mask_predictions"][0][2][0][0] == "paris");
    CHECK(j["mask_predictions"][0][2][0][1].get<double>() == doctest::Approx(0.412).epsilon(1e-6));
    CHECK(html.find("an encoder's page (BERT, RoBERTa, DistilBERT)") != std::string::npos);
    CHECK(render::page_js(render::PageStack::encoder).size() > render::page_js().size());
    // a decoder's page: none of it
    const std::string dec = render::render_html(encoder_trace(false, "decoder"), {});
    const Json jd = page_json(dec);
    CHECK(!jd.contains("stack"));
    CHECK(!jd.contains("mask_predictions"));
    CHECK(dec.find("an encoder's page") == std::string::npos);
}
