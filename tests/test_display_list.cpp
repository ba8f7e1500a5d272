// Figures drawn strip by strip (render/backends/display_list.h, as encode() makes every PNG): a
// DisplayList played onto strips of a canvas, of any height and at any scale, gives exactly the rows
// of the whole canvas; encode() of a figure is encode_png() of its whole canvas, byte for byte.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "render/backends/canvas.h"
#include "render/backends/display_list.h"
#include "render/backends/encode.h"
#include "render/backends/png_encode.h"
#include "render/layout/drawing.h"
#include "render/layout/model_overview.h"
#include "render/layout/position_charts.h"
#include "render/outputs/figures.h"
#include "render/text/font.h"
#include "render/view/colour_scale.h"
#include "render/view/style.h"
#include "tests/png_helpers.h"

namespace render = attn::render;
using namespace attn::test::png;

namespace {

// The whole canvas's image of d at `scale`.
render::Image whole(const render::Drawing& d, int scale) {
    render::Canvas cv(d.width, d.height, render::kBackground, scale);
    d.draw(cv);
    return cv.take();
}

// The rows of d kept once and played onto strips of `rows` image rows, one after another.
render::Image in_strips(const render::Drawing& d, int scale, int rows) {
    const render::DisplayList list(d, scale);
    render::Image img{d.width * scale, d.height * scale, {}};
    std::vector<std::uint8_t> storage;
    for (int y0 = 0; y0 < img.height; y0 += rows) {
        const int n = std::min(rows, img.height - y0);
        render::Canvas strip(d.width, d.height, render::kBackground, scale, y0, n, std::move(storage));
        list.play(strip);
        CHECK(strip.first_row() == y0);
        storage = strip.take().rgb;
        REQUIRE(storage.size() == static_cast<std::size_t>(n) * static_cast<std::size_t>(img.width) * 3);
        img.rgb.insert(img.rgb.end(), storage.begin(), storage.end());
    }
    return img;
}

// The first row where a and b differ, or -1.
int first_difference(const render::Image& a, const render::Image& b) {
    const std::size_t stride = static_cast<std::size_t>(a.width) * 3;
    for (int y = 0; y < a.height; ++y)
        for (std::size_t k = 0; k < stride; ++k)
            if (a.rgb[static_cast<std::size_t>(y) * stride + k] != b.rgb[static_cast<std::size_t>(y) * stride + k]) return y;
    return -1;
}

// Every Surface call, partly off the canvas too: rectangles, blends, both hatchings, frames, lines
// (steep, shallow, off the edge), text level and turned, and cells with values, hidden cells, a
// non-finite value, a log scale and a last row on its own scale.
render::Drawing every_call(render::Font& font) {
    static const std::vector<float> values = {0.1f, 0.5f, 0.9f, 0.2f, std::numeric_limits<float>::quiet_NaN(), 3.0f,
                                              0.7f, 0.3f, 0.05f, 1.0f, 0.6f, 0.4f};
    static const std::vector<std::uint8_t> visible = {1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1};
    render::Drawing d;
    d.word = "test";
    d.width = 230, d.height = 170;
    d.draw = [&font](render::Surface& s) {
        s.fill(-10, -5, 60, 40, render::Rgb{200, 30, 40});
        s.blend(20, 10, 90, 70, render::Rgb{10, 200, 90}, 100);
        s.hatch(100, 3, 70, 60, render::Rgb{0, 0, 0}, 6, true);
        s.hatch(150, 40, 90, 50, render::Rgb{90, 0, 90}, 5, false);
        s.frame(5, 90, 120, 60, 3, render::Rgb{0, 0, 200});
        s.line(0, 0, 229, 169, render::Rgb{250, 120, 0});
        s.line(3, 160, 200, 150, render::Rgb{0, 120, 250});
        s.line(-20, 80, 40, -30, render::Rgb{30, 30, 30});
        s.text(font, "journey", 14.0f, 60, 120, render::Align::Centre, render::Align::Centre, render::Rgb{0, 0, 0},
               render::TextRole::Title);
        s.text(font, "steps", 11.0f, 215, 165, render::Align::End, render::Align::End, render::Rgb{40, 40, 40},
               render::TextRole::KeyLabel, true);
        // the cells' values and scales live only during this call: the list keeps copies
        std::vector<float> v = values;
        std::vector<std::uint8_t> m = visible;
        render::ColourScale log_scale;
        log_scale.lo = 0.05f, log_scale.hi = 3.0f, log_scale.log = true;
        render::ColourScale last;
        last.lo = 0.0f, last.hi = 1.0f, last.cmap = &render::kMagma;
        render::CellGrid g;
        g.x = 130, g.y = 95, g.cell_w = 20, g.cell_h = 15, g.rows = 3, g.cols = 4;
        g.values = v.data(), g.visible = m.data(), g.cmap = &render::kViridis, g.scale = &log_scale, g.last_row = &last;
        g.non_finite = render::Rgb{255, 0, 255}, g.hidden_base = render::Rgb{220, 220, 220}, g.hidden_line = render::Rgb{120, 120, 120};
        g.hatch = 6;
        s.cells(g);
        v.assign(v.size(), 0.0f), m.assign(m.size(), 0);
    };
    return d;
}

// A model trace of 2 layers of 2 causal heads over six tokens, with each layer's mean and rollout.
attn::Trace model_trace() {
    attn::Trace t = causal_trace(kSix, 2);
    t.kind = "model";
    attn::ModelInfo m;
    m.type = "gpt2", m.dtype = "F32", m.n_layer = 2, m.n_head = 2;
    t.model = m;
    t.config.heads = 2;
    attn::AttentionSet& set = t.sets[0];
    set.model_layers = true;
    set.layers[0].layer = 0;
    set.layers.push_back(set.layers[0]);
    set.layers[1].layer = 1;
    t.layer_mean = {set.layers[0].heads[0].weights, set.layers[1].heads[1].weights};
    t.rollout = t.layer_mean;
    return t;
}

}  // namespace

TEST_CASE("a figure played strip by strip gives the whole canvas's pixels, at any strip height and scale") {
    render::Font font("");
    std::vector<render::Drawing> drawings{every_call(font)};
    const attn::Trace t = causal_trace(kSix, 2);
    render::FigureOptions opt;
    opt.values = render::CellValues::always;
    opt.query = 3;
    opt.figures = {"scores", "mask", "weights", "query"};
    for (render::Drawing& d : render::figure_drawings(t, opt, render::FileType::png, font)) drawings.push_back(std::move(d));
    const attn::Trace model = model_trace();
    drawings.push_back(render::model_overview_drawing(model, font, 64));
    for (const render::Drawing& d : drawings)
        for (int scale : {1, 2, 3}) {
            const render::Image ref = whole(d, scale);
            for (int rows : {1, 7, 64, 1000, ref.height}) {
                INFO(d.word << " at scale " << scale << " in strips of " << rows << " rows");
                const render::Image img = in_strips(d, scale, rows);
                REQUIRE(img.rgb.size() == ref.rgb.size());
                CHECK(first_difference(img, ref) == -1);
            }
        }
}

TEST_CASE("encode() of a figure is encode_png() of its whole canvas, and a strip outside the canvas is refused") {
    render::Font font("");
    const attn::Trace t = causal_trace(kSix);
    render::FigureOptions opt;
    std::vector<render::Drawing> drawings = render::figure_drawings(t, opt, render::FileType::png, font);
    drawings.push_back(every_call(font));
    // a tall one: several parts, each drawn in its own strip with the row above it
    render::Drawing tall = every_call(font);
    tall.height = 2400;
    drawings.push_back(tall);
    for (const render::Drawing& d : drawings) {
        INFO(d.word);
        CHECK(render::encode(d, 2, render::FileType::png) == render::encode_png(whole(d, 2)));
    }
    REQUIRE(render::PngParts::tasks(tall.width * 2, tall.height * 2) > 2);
    const std::vector<std::string> all = render::encode_all(drawings, 2, render::FileType::png);
    REQUIRE(all.size() == drawings.size());
    for (std::size_t k = 0; k < drawings.size(); ++k) CHECK(all[k] == render::encode_png(whole(drawings[k], 2)));
    CHECK_THROWS_AS(render::Canvas(100, 50, render::kBackground, 2, 90, 20, {}), std::invalid_argument);
    CHECK_THROWS_AS(render::Canvas(100, 50, render::kBackground, 2, -1, 5, {}), std::invalid_argument);
    CHECK_THROWS_AS(render::Canvas(100, 50, render::kBackground, 2, 0, 0, {}), std::invalid_argument);
}
