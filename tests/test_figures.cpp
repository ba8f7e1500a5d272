// Figures for slides: --scale renders larger images with text drawn at that size, and grids fit 16:9.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/base/trace.h"
#include "render/outputs/figures.h"
#include "render/outputs/figures.h"
#include "render/backends/svg_doc.h"
#include "tests/helpers.h"

#include "render/backends/stb_begin.h"
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
#include "render/backends/stb_end.h"

namespace {

namespace render = attn::render;

struct Picture {
    int w = 0, h = 0;
    std::vector<std::uint8_t> rgb;
    const std::uint8_t* at(int x, int y) const {
        return rgb.data() + (static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)) * 3;
    }
};

Picture decode_picture(const std::string& png) {
    int w = 0, h = 0, n = 0;
    unsigned char* p = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()),
                                             static_cast<int>(png.size()), &w, &h, &n, 3);
    REQUIRE(p != nullptr);
    Picture pic{w, h, std::vector<std::uint8_t>(p, p + static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3)};
    stbi_image_free(p);
    return pic;
}

bool same(const std::uint8_t* a, const std::uint8_t* b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

attn::Trace trace(std::size_t T, std::size_t heads) {
    attn::Trace t;
    t.kind = "causal";
    for (std::size_t i = 0; i < T; ++i) t.tokens.push_back("tok" + std::to_string(i));
    t.source_tokens = t.tokens;
    t.sets = {attn::AttentionSet{"self", t.tokens, t.source_tokens, {attn::LayerTrace{}}}};
    for (std::size_t h = 0; h < heads; ++h) {
        attn::HeadTrace ht;
        ht.head = ht.kv_head = h;
        ht.weights = attn::Mat::from_shape({T, T});
        ht.mask = attn::Mask::from_shape({T, T});
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t j = 0; j < T; ++j) {
                ht.mask.edit()(i, j) = j <= i ? 1 : 0;
                ht.weights(i, j) = j <= i ? static_cast<float>(j + 1 + h) / static_cast<float>((i + 1) * (i + 2 + 2 * h) / 2) : 0.0f;
            }
        t.heads().push_back(std::move(ht));
    }
    return t;
}

render::FigureOptions at_scale(int s) {
    render::FigureOptions o;
    o.prefix = "f";
    o.weights_only = true;
    o.scale = s;
    return o;
}

}  // namespace

TEST_CASE("figures: --scale 2 is twice the size and drawn anew, not a pixel-doubled copy of --scale 1") {
    const attn::Trace t = trace(6, 1);
    const Picture one = decode_picture(render::render_figures(t, at_scale(1), render::FileType::png).at(0).bytes);
    const Picture two = decode_picture(render::render_figures(t, at_scale(2), render::FileType::png).at(0).bytes);
    CHECK(two.w == 2 * one.w);
    CHECK(two.h == 2 * one.h);
    // A pixel-doubled image has every aligned 2x2 block of one colour; text drawn at twice the size has
    // anti-aliased edges inside the blocks.
    long mixed = 0, differs = 0;
    for (int y = 0; y + 1 < two.h; y += 2)
        for (int x = 0; x + 1 < two.w; x += 2) {
            const std::uint8_t* a = two.at(x, y);
            if (!same(a, two.at(x + 1, y)) || !same(a, two.at(x, y + 1)) || !same(a, two.at(x + 1, y + 1))) ++mixed;
            if (!same(a, one.at(x / 2, y / 2))) ++differs;
        }
    CHECK(mixed > 2000);
    CHECK(differs > 2000);
    // Both draw the same figure: the centres of the heatmap's cells agree, and so do the blank corners.
    CHECK(same(one.at(0, 0), two.at(0, 0)));
    CHECK(same(one.at(one.w - 1, one.h - 1), two.at(two.w - 1, two.h - 1)));
    // Every scale gives the same bytes on every run.
    CHECK(render::render_figures(t, at_scale(3), render::FileType::png).at(0).bytes == render::render_figures(t, at_scale(3), render::FileType::png).at(0).bytes);
    CHECK_THROWS_AS(render::render_figures(t, at_scale(0), render::FileType::png), std::invalid_argument);
    CHECK_THROWS_AS(render::render_figures(t, at_scale(9), render::FileType::png), std::invalid_argument);
}

TEST_CASE("figures: head grids choose their columns for a 16:9 slide") {
    // 12 heads: 4 x 3 (wider than tall); 2 heads side by side; 8 heads 4 x 2.
    for (const auto& [heads, min_ratio, max_ratio] : std::vector<std::tuple<std::size_t, double, double>>{
             {12, 1.1, 1.9}, {2, 1.3, 2.2}, {8, 1.4, 2.2}}) {
        const Picture p = decode_picture(render::render_figures(trace(6, heads), at_scale(1), render::FileType::png).at(0).bytes);
        const double ratio = static_cast<double>(p.w) / p.h;
        INFO(heads << " heads: " << p.w << "x" << p.h);
        CHECK(ratio >= min_ratio);
        CHECK(ratio <= max_ratio);
    }
}

TEST_CASE("figures: attn show draws PNGs at --scale 2 unless told otherwise") {
    const std::string dir = attn::test::temp_dir();
    const auto a = attn::test::run_attn({"show", "--example", "journey", "--png", dir + "/a"});
    const auto b = attn::test::run_attn({"show", "--example", "journey", "--png", dir + "/b", "--scale", "2"});
    const auto c = attn::test::run_attn({"show", "--example", "journey", "--png", dir + "/c", "--scale", "1"});
    REQUIRE(a.code == 0);
    REQUIRE(b.code == 0);
    REQUIRE(c.code == 0);
    const std::string wa = attn::test::slurp(dir + "/a/causal-weights.png");
    CHECK(wa == attn::test::slurp(dir + "/b/causal-weights.png"));
    const Picture pa = decode_picture(wa), pc = decode_picture(attn::test::slurp(dir + "/c/causal-weights.png"));
    CHECK(pa.w == 2 * pc.w);
    CHECK(pa.h == 2 * pc.h);
}

TEST_CASE("figures: SVG text is escaped for XML, invalid UTF-8 and forbidden characters replaced") {
    CHECK(render::xml_escape("<a href=\"x\">&'</a>") == "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
    CHECK(render::xml_escape("\xE7\x8C\xAB \xD8\xB3") == "\xE7\x8C\xAB \xD8\xB3");      // 猫 س kept
    CHECK(render::xml_escape("a\xFF" "b") == "a\xEF\xBF\xBD" "b");                     // invalid byte -> U+FFFD
    CHECK(render::xml_escape(std::string("a\x01\tb", 4)) == "a\xEF\xBF\xBD\tb");      // control -> U+FFFD, tab kept
    CHECK(render::xml_escape("\xEF\xBF\xBE") == "\xEF\xBF\xBD");                       // U+FFFE is not XML
    CHECK(render::xml_escape("\xED\xA0\x80") == "\xEF\xBF\xBD");                       // a surrogate
    CHECK(render::svg_number(14.0) == "14");
    CHECK(render::svg_number(-0.25) == "-0.25");
    CHECK(render::svg_number(1.0 / 3.0) == "0.33");
    CHECK(render::svg_number(-0.001) == "0");
    CHECK(render::hex_colour({253, 231, 37}) == "#fde725");
}

TEST_CASE("figures: SVG grids hold one panel title per head, large matrices are pooled, bytes repeat") {
    render::FigureOptions o;
    o.prefix = "g";
    o.weights_only = true;
    const auto count = [](const std::string& s, const std::string& what) {
        std::size_t n = 0;
        for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
        return n;
    };
    const std::string grid = render::render_figures(trace(6, 12), o, render::FileType::svg).at(0).bytes;
    CHECK(count(grid, "class=\"panel-title\"") == 12);
    CHECK(count(grid, "class=\"cell\"") == 12 * 21);  // 21 visible cells of a 6 x 6 causal mask per head
    CHECK(count(grid, "class=\"query-label\"") == 12 * 6);
    CHECK(grid == render::render_figures(trace(6, 12), o, render::FileType::svg).at(0).bytes);
    const std::string big = render::render_figures(trace(600, 1), o, render::FileType::svg).at(0).bytes;
    const std::size_t cells = count(big, "class=\"cell\"") + count(big, "class=\"hidden\"");
    CHECK(cells <= static_cast<std::size_t>(render::kMaxSvgHeatmapSide * render::kMaxSvgHeatmapSide));
    CHECK(cells >= 150u * 150u);
    CHECK(big.find("largest weight") != std::string::npos);  // pooled cells say what they show
    o.scale = 0;
    CHECK_THROWS_AS(render::render_figures(trace(6, 1), o, render::FileType::svg), std::invalid_argument);
}

TEST_CASE("figures: the SVG and the PNG of a figure come from one layout (same size, same cells)") {
    for (std::size_t heads : {1u, 6u}) {
        const attn::Trace t = trace(6, heads);
        render::FigureOptions so;
        so.prefix = "x";
        so.scale = 2;
        const auto svgs = render::render_figures(t, so, render::FileType::svg);
        render::FigureOptions po;
        po.prefix = "x";
        po.scale = 2;
        const auto pngs = render::render_figures(t, po, render::FileType::png);
        REQUIRE(svgs.size() == pngs.size());
        for (std::size_t i = 0; i < svgs.size(); ++i) {
            CHECK(svgs[i].name.substr(0, svgs[i].name.size() - 4) == pngs[i].name.substr(0, pngs[i].name.size() - 4));
            const Picture p = decode_picture(pngs[i].bytes);
            const std::string size = "width=\"" + std::to_string(p.w) + "\" height=\"" + std::to_string(p.h) + "\" viewBox=\"0 0 " +
                                     std::to_string(p.w / 2) + " " + std::to_string(p.h / 2) + "\"";
            INFO(svgs[i].name << ": " << size);
            CHECK(svgs[i].bytes.find(size) != std::string::npos);
        }
    }
}

TEST_CASE("figures: attn show warns once, in one line, about characters no font has, --font is used") {
    const std::string dir = attn::test::temp_dir();
    // U+0378 is unassigned: no font has it. The run still succeeds and writes every figure.
    const auto r = attn::test::run_attn({"show", "a \xCD\xB8 b \xCD\xB8", "--png", dir + "/p", "--svg", dir + "/s"});
    REQUIRE(r.code == 0);
    CHECK(r.err == "attn: warning: no font has U+0378: drawn as boxes (hint: install a font that covers it, e.g. "
                   "Debian's fonts-noto-core, or pass --font FILE)\n");
    CHECK(attn::test::slurp(dir + "/s/causal-weights.svg").find("\xCD\xB8") != std::string::npos);  // kept as text
    const auto plain = attn::test::run_attn({"show", "Hello world", "--png", dir + "/a", "--scale", "1"});
    const auto serif = attn::test::run_attn({"show", "Hello world", "--png", dir + "/b", "--scale", "1", "--font",
                                             "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"});
    REQUIRE(plain.code == 0);
    REQUIRE(serif.code == 0);
    CHECK(plain.err.empty());
    CHECK(attn::test::slurp(dir + "/a/causal-weights.png") != attn::test::slurp(dir + "/b/causal-weights.png"));
}
