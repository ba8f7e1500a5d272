// The PNG figures: renders hand-built traces, decodes the PNGs with stb_image (tests/png_helpers.h)
// and checks what is on them. The encoder itself is tests/test_png_encode.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/base/trace.h"
#include "render/view/colormaps.h"
#include "render/outputs/figures.h"
#include "tests/png_helpers.h"

using namespace attn::test::png;

namespace {

using attn::HeadTrace;
using attn::Mask;
using attn::Mat;
using attn::Trace;
namespace render = attn::render;

Trace weights_only_trace(const std::vector<std::vector<float>>& w) {
    std::vector<std::string> tokens;
    for (std::size_t i = 0; i < w[0].size(); ++i) tokens.push_back("t" + std::to_string(i));
    Trace t = causal_trace(tokens);
    t.tokens.resize(w.size());
    HeadTrace& h = t.heads()[0];
    h.scores = Mat();
    h.weights = Mat::from_shape({w.size(), w[0].size()});
    h.mask = Mask::from_shape({w.size(), w[0].size()});
    for (std::size_t i = 0; i < w.size(); ++i)
        for (std::size_t j = 0; j < w[0].size(); ++j) h.weights(i, j) = w[i][j], h.mask.edit()(i, j) = 1;
    return t;
}

int count_colour(const Decoded& d, render::Rgb c) {
    int n = 0;
    for (int y = 0; y < d.h; ++y)
        for (int x = 0; x < d.w; ++x) n += near(d.at(x, y), c.r, c.g, c.b, 0);
    return n;
}

}  // namespace

TEST_CASE("a causal trace gives scores, mask and weights images with labels and colour bars") {
    const Trace t = causal_trace(kSix);
    const auto files = render::render_figures(t, {"t"}, render::FileType::png);
    REQUIRE(files.size() == 3);
    CHECK(files[0].name == "t-scores.png");
    CHECK(files[1].name == "t-mask.png");
    CHECK(files[2].name == "t-weights.png");
    CHECK(render::render_figures(t, {}, render::FileType::png)[0].name == "causal-scores.png");  // empty prefix: the kind

    SUBCASE("weights") {
        const Decoded d = decode(files[2].bytes);
        const Grid g = locate(d);
        REQUIRE(g.cell >= 8);
        const int side = 6 * g.cell;
        CHECK(d.w > g.x + side);
        CHECK(d.h > g.y + side);
        CHECK(g.x > 20);  // room for the query labels
        // Query labels left of the heatmap, key labels above it: dark text pixels.
        CHECK(dark_pixels(d, 0, g.y, g.x - 3, g.y + side) > 50);
        CHECK(dark_pixels(d, g.x, g.y - 30, g.x + side, g.y - 3) > 50);
        // Cell (5, 0): weight 1/6, viridis entry floor(256/6) = 42 (a corner pixel, away from the value).
        CHECK(near(d.at(g.x + 2, g.y + 5 * g.cell + 2), render::kViridis[42]));
        // Every cell the mask hides is neutral grey (base or hatch line), no colour of the map.
        for (int i = 0; i < 6; ++i)
            for (int j = i + 1; j < 6; ++j) {
                const Px p = d.at(g.x + j * g.cell + g.cell / 2, g.y + i * g.cell + g.cell / 2);
                CAPTURE(i);
                CAPTURE(j);
                CHECK(p.r == p.g);
                CHECK(p.g == p.b);
                CHECK(p.r > 100);
                CHECK(p.r < 235);
                CHECK_FALSE(in_colormap(p, render::kViridis, 12));
            }
        // Values printed: the visible cell (1, 1) (weight 0.5) has text pixels of another colour.
        int off = 0;
        const Px bg = d.at(g.x + g.cell + 1, g.y + g.cell + 1);
        for (int y = g.y + g.cell; y < g.y + 2 * g.cell; ++y)
            for (int x = g.x + g.cell; x < g.x + 2 * g.cell; ++x) off += !near(d.at(x, y), bg.r, bg.g, bg.b, 40);
        CHECK(off > 20);
        // Colour bar right of the heatmap: yellow (#fde725) at the top, purple (#440154) at the bottom.
        const auto top = find(d, 0xfd, 0xe7, 0x25, g.x + side + 2);
        const auto bottom = find(d, 0x44, 0x01, 0x54, g.x + side + 2);
        REQUIRE(top.has_value());
        REQUIRE(bottom.has_value());
        CHECK(top->second < bottom->second - 50);
        CHECK(std::abs(top->first - bottom->first) < 4);
        // Tick labels beside the bar.
        CHECK(dark_pixels(d, top->first + 20, top->second - 10, d.w, bottom->second + 10) > 100);
    }

    SUBCASE("scores: every cell before the mask, on a diverging map centred on 0") {
        const Decoded d = decode(files[0].bytes);
        // Raw scores 0.5 (i - j) - 1 go from -3.5 (cell (0, 5), a future cell the mask will hide) to 1.5
        // (cell (5, 0)): the scale is +-3.5. Its low end, dark blue #053061, is in cell (0, 5) and at the
        // bottom of the bar; its top end, dark red #67001f, only at the top of the bar.
        const auto bar_red = find(d, 0x67, 0x00, 0x1f);
        REQUIRE(bar_red.has_value());
        const auto bar_blue = find(d, 0x05, 0x30, 0x61, bar_red->first - 2);
        REQUIRE(bar_blue.has_value());
        CHECK(bar_red->second < bar_blue->second - 50);  // positive at the top
        CHECK(std::abs(bar_red->first - bar_blue->first) < 4);
        int cell_blue = 0, diagonal = 0, grey = 0;
        const render::Rgb minus_one = render::kRdBuR[91];  // floor((-1 + 3.5) / 7 * 256)
        for (int y = 0; y < d.h; ++y)
            for (int x = 0; x < bar_red->first - 30; ++x) {
                const Px p = d.at(x, y);
                cell_blue += near(p, 0x05, 0x30, 0x61);
                diagonal += near(p, minus_one);
                grey += p.r == 205 && p.g == 205 && p.b == 205;  // the hidden cells' base grey
            }
        CHECK(cell_blue > 500);  // cell (0, 5), less its printed value
        CHECK(diagonal > 6 * 500);
        CHECK(grey < 100);       // nothing hatched (15 hidden cells would be > 7000): no cell hidden before the mask
        CHECK(minus_one.b > minus_one.r);  // negative is blue
    }

    SUBCASE("mask: two distinct colours") {
        const Decoded d = decode(files[1].bytes);
        // Find the grid from the heatmap frame: the first visible cell is the top-left corner of the
        // heatmap, in the mask's 'visible' colour, which is saturated (not grey).
        int hx = -1, hy = -1;
        for (int y = 0; y < d.h && hx < 0; ++y)
            for (int x = 0; x < d.w; ++x) {
                const Px p = d.at(x, y);
                if (p.b > 150 && p.r < 80) {
                    hx = x;
                    hy = y;
                    break;
                }
            }
        REQUIRE(hx > 0);
        int cell = 0;
        while (d.at(hx + cell, hy).b > 150 && d.at(hx + cell, hy).r < 80) ++cell;
        REQUIRE(cell >= 8);
        const Px visible = d.at(hx + 2, hy + 5 * cell + 2);
        const Px hidden = d.at(hx + 5 * cell + cell / 2, hy + cell / 2);
        CHECK(hidden.r == hidden.b);
        CHECK(std::abs(visible.r - hidden.r) + std::abs(visible.b - hidden.b) > 150);
        // Legend right of the heatmap with a swatch of each.
        bool swatch = false;
        for (int y = hy; y < hy + 80 && !swatch; ++y)
            for (int x = hx + 6 * cell + 10; x < d.w; ++x)
                if (near(d.at(x, y), visible.r, visible.g, visible.b, 2)) swatch = true;
        CHECK(swatch);
    }
}

TEST_CASE("rendering is deterministic") {
    const Trace t = causal_trace(kSix, 2, 1);
    const auto a = render::render_figures(t, {"x"}, render::FileType::png);
    const auto b = render::render_figures(t, {"x"}, render::FileType::png);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].name == b[i].name);
        CHECK(a[i].bytes == b[i].bytes);
    }
}

TEST_CASE("several heads give one grid image per matrix with a panel per head") {
    const Trace two = causal_trace(kSix, 2, 1);
    const auto files = render::render_figures(two, {"g"}, render::FileType::png);
    REQUIRE(files.size() == 3);
    CHECK(files[2].name == "g-weights.png");
    const Decoded grid = decode(files[2].bytes);
    const Decoded single = decode(render::render_figures(causal_trace(kSix), {"s"}, render::FileType::png)[2].bytes);
    CHECK(grid.w > single.w);
    // On the first line of the heatmaps, cell (0, 0) of every panel and the top of the shared colour
    // bar are yellow: three separate runs.
    const auto first = find(grid, 0xfd, 0xe7, 0x25);
    REQUIRE(first.has_value());
    int runs = 0;
    bool inside = false;
    for (int x = 0; x < grid.w; ++x) {
        const bool y = near(grid.at(x, first->second), 0xfd, 0xe7, 0x25);
        runs += y && !inside;
        inside = y;
    }
    CHECK(runs == 3);

    // 8 heads, 2 key/value heads: still one image each, laid out wider than tall.
    const auto eight = render::render_figures(causal_trace(kSix, 8, 2), {"e"}, render::FileType::png);
    REQUIRE(eight.size() == 3);
    const Decoded e = decode(eight[2].bytes);
    CHECK(e.w > e.h);
    CHECK(e.w < 2500);
}

TEST_CASE("600 tokens render with 1-pixel cells and thinned labels") {
    std::vector<std::string> tokens;
    for (int i = 0; i < 600; ++i) tokens.push_back("tok" + std::to_string(i));
    const Trace t = causal_trace(tokens);
    std::vector<render::OutputFile> files;
    REQUIRE_NOTHROW(files = render::render_figures(t, {"big"}, render::FileType::png));
    REQUIRE(files.size() == 3);
    const Decoded d = decode(files[2].bytes);
    const Grid g = locate(d);
    CHECK(g.cell == 1);
    CHECK(d.w >= 600);
    CHECK(d.w < 1100);
    // The last row (weights 1/600) is visible all along: 600 px of the darkest viridis entries.
    for (int x : {0, 299, 599}) CHECK(in_colormap(d.at(g.x + x, g.y + 599), render::kViridis, 2));
    CHECK_FALSE(in_colormap(d.at(g.x + 600, g.y + 599), render::kViridis, 2));
}

TEST_CASE("700 tokens with a random mask: every cell's colour and the hatching of every hidden pixel") {
    // Weights in [0, 0.9) with 30% of the cells hidden (row 5 all hidden, row 6 all visible), the one
    // weight 1.0 at (0, 0): the scale is 0 .. 1 and that cell marks the heatmap's corner.
    const std::size_t T = 700;
    std::vector<std::string> tokens;
    for (std::size_t i = 0; i < T; ++i) tokens.push_back(std::to_string(i));
    Trace t = causal_trace(tokens);
    HeadTrace& h = t.heads()[0];
    h.scores = Mat();
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < T; ++j) {
            const bool visible = i == 6 || (i != 5 && u(rng) >= 0.3f);
            h.mask.edit()(i, j) = visible ? 1 : 0;
            h.weights(i, j) = visible ? 0.9f * u(rng) : 0.0f;
        }
    h.mask.edit()(0, 0) = 1;
    h.weights(0, 0) = 1.0f;
    const auto files = render::render_figures(t, {"r"}, render::FileType::png);
    REQUIRE(files.size() == 2);
    const Decoded d = decode(file(files, "r-weights.png")->bytes);
    const Grid g = locate(d);
    REQUIRE(g.cell == 1);
    REQUIRE(g.x + static_cast<int>(T) < d.w);
    REQUIRE(g.y + static_cast<int>(T) < d.h);

    // Visible: viridis entry floor(w * 256) (matplotlib's rule on the scale 0 .. 1). Hidden: grey whose
    // shade depends only on (x + y) mod 6 in image coordinates: one darker "/" line, five of the base.
    int wrong_visible = 0, wrong_hidden = 0;
    std::array<std::optional<Px>, 6> hatch;
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < T; ++j) {
            const int x = g.x + static_cast<int>(j), y = g.y + static_cast<int>(i);
            const Px p = d.at(x, y);
            if (h.mask(i, j) != 0) {
                const int k = std::min(255, static_cast<int>(std::floor(h.weights(i, j) * 256.0f)));
                const render::Rgb c = render::kViridis[static_cast<std::size_t>(k)];
                wrong_visible += p.r != c.r || p.g != c.g || p.b != c.b;
                continue;
            }
            std::optional<Px>& want = hatch[static_cast<std::size_t>((x + y) % 6)];
            if (!want) want = p;
            wrong_hidden += p.r != want->r || p.g != want->g || p.b != want->b || p.r != p.g || p.g != p.b;
        }
    CHECK(wrong_visible == 0);
    CHECK(wrong_hidden == 0);
    int lightest = 0, darker = 0;
    for (const auto& c : hatch) {
        REQUIRE(c.has_value());
        lightest = std::max(lightest, c->r);
    }
    for (const auto& c : hatch) darker += c->r < lightest;
    CHECK(darker == 1);
    CHECK(hatch[0]->r < lightest);  // the line pixels are where x + y = 0 (mod 6)
    // Right of and below the heatmap: the grey frame, no cell colour.
    CHECK_FALSE(in_colormap(d.at(g.x + static_cast<int>(T), g.y + 6), render::kViridis, 2));
    CHECK_FALSE(in_colormap(d.at(g.x + 6, g.y + static_cast<int>(T)), render::kViridis, 2));
}

TEST_CASE("a matrix wider than the image cap is max-pooled") {
    Trace t;
    t.kind = "cross";
    t.tokens = {"a", "b", "c"};
    const std::size_t S = 4500;
    for (std::size_t j = 0; j < S; ++j) t.source_tokens.push_back("s" + std::to_string(j));
    t.sets = {attn::AttentionSet{"cross", t.tokens, t.source_tokens, {attn::LayerTrace{}}}};
    HeadTrace h;
    h.weights = Mat::from_shape({3, S});
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < S; ++j) h.weights(i, j) = (j == 4499 && i == 0) ? 1.0f : 0.0f;
    t.heads().push_back(h);
    const auto files = render::render_figures(t, {"p"}, render::FileType::png);
    REQUIRE(files.size() == 1);  // no scores, no mask: weights only
    CHECK(files[0].name == "p-weights.png");
    const Decoded d = decode(files[0].bytes);
    CHECK(d.w >= 2250);
    CHECK(d.w < 3000);  // 4500 keys in 2250 columns
    // The single 1.0 survives pooling: a yellow pixel in the heatmap, left of the bar.
    const auto yellow = find(d, 0xfd, 0xe7, 0x25);
    REQUIRE(yellow.has_value());
    CHECK(yellow->first > 2000);
}

TEST_CASE("labels with characters the font lacks and invalid UTF-8 render as boxes") {
    Trace t = causal_trace({"\xEE\x80\x80", "ok", "bad\xFF", "x"});
    const auto files = render::render_figures(t, {"u"}, render::FileType::png);
    REQUIRE(files.size() == 3);
    const Decoded d = decode(files[2].bytes);
    const Grid g = locate(d);
    // Row 0's label is only U+E000: the box is drawn in the label column of that row.
    CHECK(dark_pixels(d, 0, g.y, g.x - 3, g.y + g.cell) > 20);
}

TEST_CASE("empty rows, dropped weights and a flash tile grid") {
    Trace t = causal_trace(kSix);
    t.kind = "flash";
    // Row 0 hides every key (weights 0).
    for (std::size_t j = 0; j < 6; ++j) {
        t.heads()[0].mask.edit()(0, j) = 0;
        t.heads()[0].weights(0, j) = 0.0f;
    }
    t.empty_rows = {0};
    t.heads()[0].weights(1, 0) = 1.0f;  // weight 1, the top of the fixed 0..1 scale: cell (1, 0) is yellow
    t.heads()[0].weights(1, 1) = 0.0f;
    t.config.dropout = 0.5f;
    t.heads()[0].dropped_weights = t.heads()[0].weights * 2.0f;
    t.config.block_q = 2;
    t.config.block_k = 2;
    for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t b = 0; b <= a; ++b) {
            attn::Tile tile;
            tile.q_block = a;
            tile.k_block = b;
            tile.q_begin = 2 * a;
            tile.q_end = 2 * a + 2;
            tile.k_begin = 2 * b;
            tile.k_end = 2 * b + 2;
            t.tiles.push_back(tile);
        }
    const auto files = render::render_figures(t, {"f"}, render::FileType::png);
    REQUIRE(files.size() == 5);
    CHECK(files[3].name == "f-dropped-weights.png");
    CHECK(files[4].name == "f-tiles.png");

    // Weights: cell (1, 0) holds the largest weight and is yellow; the empty row 0 above it is grey.
    const Decoded w = decode(file(files, "f-weights.png")->bytes);
    const Grid g = locate(w);
    REQUIRE(g.cell >= 8);
    const Px empty = w.at(g.x + g.cell / 2, g.y - g.cell / 2);
    CHECK(empty.r == empty.g);
    CHECK(empty.g == empty.b);
    CHECK_FALSE(in_colormap(empty, render::kViridis, 12));

    // Tiles: the tile (query block 0, key block 2) was never visited: shaded dark, while the same
    // place in the weights image is the light hidden grey.
    const Decoded tl = decode(file(files, "f-tiles.png")->bytes);
    const Grid gt = locate(tl);  // the tile lines may cover the cell's first column
    CHECK(std::abs(gt.x - g.x) <= 2);
    const auto count_dark = [](const Decoded& d, const Grid& at) {
        int n = 0;
        const int x0 = at.x + 4 * at.cell + 6, y0 = at.y - at.cell + 6;  // inside tile (0, 2), off its centre
        for (int y = y0; y < y0 + 8; ++y)
            for (int x = x0; x < x0 + 8; ++x) n += lum(d.at(x, y)) < 140;
        return n;
    };
    CHECK(count_dark(tl, gt) > 40);
    CHECK(count_dark(w, g) == 0);
}

TEST_CASE("odd shapes and values still render") {
    // One token; a NaN and an infinity among the scores (drawn in a colour of their own, never crash).
    Trace one = causal_trace({"solo"});
    CHECK(render::render_figures(one, {}, render::FileType::png).size() == 3);
    Trace odd = causal_trace(kSix);
    odd.heads()[0].scores(3, 1) = std::nanf("");
    odd.heads()[0].scores(4, 1) = std::numeric_limits<float>::infinity();
    const auto files = render::render_figures(odd, {}, render::FileType::png);
    REQUIRE(files.size() == 3);
    const Decoded d = decode(files[0].bytes);
    CHECK(d.w > 100);
    // 64 heads of 3 tokens: one grid image, not absurdly large.
    const auto many = render::render_figures(causal_trace({"a", "b", "c"}, 64, 8), {}, render::FileType::png);
    REQUIRE(many.size() == 3);
    const Decoded m = decode(many[2].bytes);
    CHECK(m.w < 4000);
    CHECK(m.h < 4000);
}

TEST_CASE("inconsistent traces are refused with a message") {
    Trace t = causal_trace(kSix, 2, 1);
    t.heads()[1].weights = Mat::from_shape({6, 5});
    CHECK_THROWS_WITH_AS(render::render_figures(t, {}, render::FileType::png), doctest::Contains("same shape"), std::invalid_argument);
    CHECK_THROWS_AS(render::render_figures(causal_trace(kSix), {"../x"}, render::FileType::png), std::invalid_argument);
    CHECK(render::render_figures(Trace{}, {}, render::FileType::png).empty());
}

TEST_CASE("figures: with a fixed range a weight of 0.25 has the same colour in two traces of different spans") {
    const Trace a = weights_only_trace({{0.25f, 0.30f, 0.45f}, {0.05f, 0.25f, 0.70f}});
    const Trace b = weights_only_trace({{0.25f, 0.75f, 0.00f}, {0.95f, 0.05f, 0.00f}});
    render::FigureOptions opt;
    opt.prefix = "r", opt.figures = {"weights"};
    opt.colour.range = render::ColourSpec::Range::fixed, opt.colour.min = 0.0f, opt.colour.max = 1.0f;
    const render::Rgb quarter = render::kViridis[64];  // floor(0.25 * 256)
    const Decoded da = decode(render::render_figures(a, opt, render::FileType::png).at(0).bytes);
    const Decoded db = decode(render::render_figures(b, opt, render::FileType::png).at(0).bytes);
    CHECK(count_colour(da, quarter) > 200);  // cells (0, 0) and (1, 1), less their printed values
    CHECK(count_colour(db, quarter) > 100);
    // the matrix's own range (the old behaviour) colours 0.25 of trace a differently
    opt.colour.range = render::ColourSpec::Range::data;
    const Decoded dd = decode(render::render_figures(a, opt, render::FileType::png).at(0).bytes);
    CHECK(count_colour(dd, quarter) < 50);  // only the colour bar's row of that entry
}

TEST_CASE("figures: masked scores, the renorm intermediate and vectors on request, named by the prefix") {
    Trace t = causal_trace(kSix);
    t.heads()[0].queries = Mat::from_shape({6, 2});
    std::fill(t.heads()[0].queries.begin(), t.heads()[0].queries.end(), 0.5f);
    render::FigureOptions opt;
    opt.prefix = "lecture", opt.figures = {"masked-scores", "zeroed", "queries", "keys"};
    const auto files = render::render_figures(t, opt, render::FileType::png);
    REQUIRE(files.size() == 3);  // no keys in this trace
    CHECK(files[0].name == "lecture-masked-scores.png");
    CHECK(files[1].name == "lecture-zeroed.png");
    CHECK(files[2].name == "lecture-queries.png");
    // masked scores: 15 hidden cells hatched grey; visible scale·scores on the diverging map
    const Decoded m = decode(files[0].bytes);
    CHECK(count_colour(m, render::Rgb{205, 205, 205}) > 15 * 500);
    // queries: every value 0.5 is the top of the ±0.5 diverging scale, dark red
    const Decoded q = decode(files[2].bytes);
    CHECK(count_colour(q, render::kRdBuR[255]) > 6 * 2 * 300);
}

TEST_CASE("figures: cells the dropout removed are red cross-hatched, apart from small weights") {
    Trace t = causal_trace(kSix);
    t.config.dropout = 0.5f;
    t.heads()[0].dropped_weights = t.heads()[0].weights * 2.0f;
    render::FigureOptions opt;
    opt.figures = {"dropped-weights"};
    const Decoded kept = decode(render::render_figures(t, opt, render::FileType::png).at(0).bytes);
    const render::Rgb red{214, 39, 40};
    const int legend_only = count_colour(kept, red);
    CHECK(legend_only == 0);  // nothing dropped: no swatch, no cell
    t.heads()[0].dropped_weights(3, 1) = 0.0f;  // one visible weight (1/4) dropped
    t.heads()[0].dropped_weights(5, 2) = 0.0f;
    const Decoded dropped = decode(render::render_figures(t, opt, render::FileType::png).at(0).bytes);
    CHECK(count_colour(dropped, red) > 2 * 100);
}

TEST_CASE("figures: the query strip shows one query's raw, scaled, masked and softmax rows") {
    const Trace t = causal_trace(kSix);
    render::FigureOptions opt;
    opt.figures = {"query"}, opt.query = 2;
    const auto files = render::render_figures(t, opt, render::FileType::png);
    REQUIRE(files.size() == 1);
    CHECK(files[0].name == "causal-query.png");
    const Decoded d = decode(files[0].bytes);
    // Row 4 (softmax) of query 2 is 1/3 on three keys: viridis entry floor(256/3) = 85, on the weights'
    // scale; the masked row hides keys 3-5 (hatched grey); raw scores 0.5 (2 - j) - 1 span -3.5 .. 0.
    CHECK(count_colour(d, render::kViridis[85]) > 3 * 300);
    CHECK(count_colour(d, render::Rgb{205, 205, 205}) > 3 * 300);
    CHECK_THROWS_AS(render::render_figures(t, [] {
        render::FigureOptions o;
        o.figures = {"query"}, o.query = 6;
        return o;
    }(), render::FileType::png), std::invalid_argument);
}
