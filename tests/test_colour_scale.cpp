// Colour scales shared by the terminal and the images: fixed ranges comparable across runs, colours
// monotone in the value, log scales, the diverging map centred at 0, the 256-colour fallback.
#include <cmath>
#include <cstdlib>

#include "render/view/colour_scale.h"
#include "render/view/stages.h"
#include "render/terminal/terminal.h"
#include "tests/helpers.h"
#include "tests/model_fixtures.h"

using namespace attn;
using namespace attn::render;

namespace {

ValueRange range_of(std::initializer_list<float> values) {
    ValueRange r;
    for (float v : values) r.add(v);
    return r;
}

double luminance(Rgb c) {
    const auto lin = [](std::uint8_t u) {
        const double s = u / 255.0;
        return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

// A one-head trace whose weights are `w` (T = rows, S = cols), every key visible.
Trace weights_trace(const std::vector<std::vector<float>>& w) {
    Trace t;
    t.kind = "self";
    const std::size_t T = w.size(), S = w[0].size();
    for (std::size_t i = 0; i < T; ++i) t.tokens.push_back("q" + std::to_string(i));
    for (std::size_t j = 0; j < S; ++j) t.source_tokens.push_back("k" + std::to_string(j));
    t.sets = {AttentionSet{"self", t.tokens, t.source_tokens, {LayerTrace{}}}};
    HeadTrace h;
    h.weights = Mat::from_shape({T, S});
    h.mask = Mask::from_shape({T, S});
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < S; ++j) h.weights(i, j) = w[i][j], h.mask.edit()(i, j) = 1;
    h.context = Mat::from_shape({T, 1});
    t.heads().push_back(std::move(h));
    return t;
}

// The SGR escape the terminal printed just before the first cell showing `text`.
std::string escape_before(const std::string& out, const std::string& text) {
    const auto at = out.find(text);
    REQUIRE(at != std::string::npos);
    const auto esc = out.rfind("\x1b[48;", at);
    REQUIRE(esc != std::string::npos);
    return out.substr(esc, out.find('m', esc) - esc + 1);
}

}  // namespace

TEST_CASE("colour: --range 0,1 gives 0.25 the same colour in matrices of different spans") {
    ColourSpec fixed;
    fixed.range = ColourSpec::Range::fixed, fixed.min = 0.0f, fixed.max = 1.0f;
    const ColourScale a = make_scale(ValueKind::probability, range_of({0.05f, 0.25f, 0.3f}), fixed, "weight");
    const ColourScale b = make_scale(ValueKind::probability, range_of({0.0f, 0.25f, 0.95f}), fixed, "weight");
    CHECK(a.colour(0.25f) == b.colour(0.25f));
    CHECK(a.index(0.25f) == 64);  // floor(0.25 * 256)
    // auto is 0..1 for weights too; the matrix's own range (--range data) is what differs
    const ColourScale c = make_scale(ValueKind::probability, range_of({0.05f, 0.25f, 0.3f}), ColourSpec{}, "weight");
    CHECK(c.colour(0.25f) == a.colour(0.25f));
    ColourSpec data;
    data.range = ColourSpec::Range::data;
    const ColourScale d1 = make_scale(ValueKind::probability, range_of({0.05f, 0.25f, 0.3f}), data, "weight");
    const ColourScale d2 = make_scale(ValueKind::probability, range_of({0.0f, 0.25f, 0.95f}), data, "weight");
    CHECK(d1.colour(0.25f) != d2.colour(0.25f));
}

TEST_CASE("colour: near-uniform weights 0.07-0.11 stay within a tenth of the map under auto") {
    const ColourScale sc = make_scale(ValueKind::probability, range_of({0.07f, 0.11f}), ColourSpec{}, "weight");
    CHECK(sc.index(0.11f) - sc.index(0.07f) <= 26);
    CHECK(sc.caption == "weight, fixed 0\xE2\x80\x93" "1");
}

// The maps are monotone in lightness as published (floats); rounding to 8 bits per channel leaves
// steps back of at most 0.0003 in relative luminance (viridis 0.14321 -> 0.14299): 0.001 allows that.
TEST_CASE("colour: every sequential map gets lighter as the value grows, and the index never falls") {
    for (const std::string& name : colormap_names()) {
        INFO(name);
        const Colormap* m = find_colormap(name);
        REQUIRE(m != nullptr);
        for (std::size_t k = 1; k < 256; ++k) CHECK(luminance((*m)[k]) >= luminance((*m)[k - 1]) - 1e-3);
        ColourSpec spec;
        spec.colormap = name;
        const ColourScale sc = make_scale(ValueKind::probability, range_of({0.0f, 1.0f}), spec, "weight");
        CHECK(luminance((*m)[255]) - luminance((*m)[0]) > 0.7);
        int last = -1;
        for (int k = 0; k <= 1000; ++k) {
            const int idx = sc.index(static_cast<float>(k) / 1000.0f);
            CHECK(idx >= last);
            last = idx;
        }
        CHECK(sc.index(0.0f) == 0);
        CHECK(sc.index(1.0f) == 255);
    }
    // the published ends (matplotlib's tables)
    CHECK(kMagma[0] == Rgb{0, 0, 4});
    CHECK(kMagma[255] == Rgb{252, 253, 191});
    CHECK(kCividis[0] == Rgb{0, 34, 78});
    CHECK(kCividis[255] == Rgb{254, 232, 56});
    CHECK(kGray[128] == Rgb{128, 128, 128});
}

TEST_CASE("colour: scores use a diverging map centred at 0, symmetric in the largest |score|") {
    const ColourScale sc = make_scale(ValueKind::signed_value, range_of({-0.5f, 2.0f}), ColourSpec{}, "score");
    CHECK(sc.lo == -2.0f);
    CHECK(sc.hi == 2.0f);
    CHECK(sc.cmap == &kRdBuR);
    CHECK(sc.index(0.0f) == 128);
    const Rgb mid = sc.colour(0.0f);
    CHECK(std::min({mid.r, mid.g, mid.b}) >= 240);  // near white
    CHECK(sc.colour(-1.0f).b > sc.colour(-1.0f).r);  // negative: blue
    CHECK(sc.colour(1.0f).r > sc.colour(1.0f).b);    // positive: red
}

TEST_CASE("colour: --log spreads weights over decades from the smallest visible weight") {
    ColourSpec spec;
    spec.log = true;
    const ColourScale sc = make_scale(ValueKind::probability, range_of({0.0f, 0.0021f, 0.5f}), spec, "weight");
    CHECK(sc.log);
    CHECK(sc.lo == doctest::Approx(0.001));
    CHECK(sc.hi == 1.0f);
    CHECK(sc.clipped_low);  // the 0 lies below the bottom
    CHECK(sc.low_label() == "\xE2\x89\xA4 0.001");
    // one decade is a third of the map (3 decades)
    CHECK(sc.index(0.01f) == 85);
    CHECK(sc.index(0.1f) == 170);
    CHECK(sc.index(0.0f) == 0);
}

TEST_CASE("colour: dropped weights above 1 are clipped and the bar's top says so") {
    const ColourScale sc = make_scale(ValueKind::probability, range_of({0.0f, 1.6f}), ColourSpec{}, "dropped weight");
    CHECK(sc.clipped_high);
    CHECK(sc.high_label() == "\xE2\x89\xA5 1");
    CHECK(sc.low_label() == "0");
}

TEST_CASE("terminal: with a fixed range the same weight gets the same colour in two runs") {
    ColourSpec fixed;
    fixed.range = ColourSpec::Range::fixed, fixed.min = 0.0f, fixed.max = 1.0f;
    TerminalOptions opt;
    opt.colour = ColourDepth::truecolour, opt.scale = fixed, opt.precision = 3;
    const std::string a = terminal_view(weights_trace({{0.25f, 0.75f}}), opt);
    const std::string b = terminal_view(weights_trace({{0.05f, 0.25f, 0.70f}}), opt);
    CHECK(escape_before(a, "0.250") == escape_before(b, "0.250"));
    // 0.25 is index 64 of viridis
    const Rgb v = kViridis[64];
    CHECK(escape_before(a, "0.250").find("48;2;" + std::to_string(v.r) + ";" + std::to_string(v.g) + ";" +
                                         std::to_string(v.b)) != std::string::npos);
}

TEST_CASE("terminal: the 256-colour palette maps the cube's corners and greys exactly") {
    CHECK(xterm256({0, 0, 0}) == 16);
    CHECK(xterm256({255, 255, 255}) == 231);
    CHECK(xterm256({255, 0, 0}) == 196);
    CHECK(xterm256({0, 0, 255}) == 21);
    CHECK(xterm256({128, 128, 128}) == 244);  // grey ramp: 8 + 10 * 12
    CHECK(xterm256({95, 135, 175}) == 16 + 36 * 1 + 6 * 2 + 3);
    CHECK(cell_escape({0, 0, 0}, ColourDepth::ansi256) == "\x1b[48;5;16;38;5;231m");  // white text on black
    CHECK(cell_escape({255, 255, 255}, ColourDepth::ansi256) == "\x1b[48;5;231;38;5;16m");
}

TEST_CASE("cli: shading is 24-bit only when COLORTERM announces it, else the 256-colour palette") {
    ::unsetenv("COLORTERM");
    const test::RunResult plain = test::run_attn({"show", "--color", "always", "Your journey starts"});
    REQUIRE(plain.code == 0);
    CHECK(plain.out.find("\x1b[48;5;") != std::string::npos);
    CHECK(plain.out.find("\x1b[48;2;") == std::string::npos);
    ::setenv("COLORTERM", "truecolor", 1);
    const test::RunResult full = test::run_attn({"show", "--color", "always", "Your journey starts"});
    ::unsetenv("COLORTERM");
    REQUIRE(full.code == 0);
    CHECK(full.out.find("\x1b[48;2;") != std::string::npos);
    CHECK(full.out.find("\x1b[48;5;") == std::string::npos);
}

TEST_CASE("cli: a model run shades as the terminal supports: 256 colours unless COLORTERM says 24-bit") {
    const std::string dir = test::temp_dir();
    test::write_model_fixtures(dir);
    ::unsetenv("COLORTERM");
    const test::RunResult plain = test::run_attn({"show", "--model", dir + "/model-ok", "--color", "always", "a b"});
    REQUIRE(plain.code == 0);
    CHECK(plain.out.find("\x1b[48;5;") != std::string::npos);
    CHECK(plain.out.find("\x1b[48;2;") == std::string::npos);
    ::setenv("COLORTERM", "24bit", 1);
    const test::RunResult full = test::run_attn({"show", "--model", dir + "/model-ok", "--color", "always", "a b"});
    ::unsetenv("COLORTERM");
    REQUIRE(full.code == 0);
    CHECK(full.out.find("\x1b[48;2;") != std::string::npos);
}
