// Text in images: the built-in font and UTF-8 decoding, shaping (HarfBuzz), rasterising (FreeType), the
// fallback chain and --font.
// Reference renderings come from FreeType called directly here, by character code rather than through
// attn's shaping; glyph ids of shaped words are compared with the same letters shaped alone.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include <ft2build.h>
#include FT_FREETYPE_H

#include "core/base/trace.h"
#include "data/base/error.h"
#include "data/base/utf8.h"
#include "render/text/font.h"
#include "render/outputs/figures.h"

namespace {

namespace render = attn::render;
using Glyphs = std::vector<unsigned>;

long ink(const render::TextMask& m) { return std::accumulate(m.alpha.begin(), m.alpha.end(), 0L); }

// All glyph ids of a label in visual order, and the one face they came from (checked to be one).
Glyphs glyphs_of(render::Font& f, const std::string& s, std::string* face = nullptr) {
    Glyphs out;
    for (const auto& r : f.shaped(s, 32.0f)) {
        if (face) *face = r.face;
        out.insert(out.end(), r.glyphs.begin(), r.glyphs.end());
    }
    return out;
}

// FreeType alone: character cp of the font file at px, unhinted, at pen 0; total coverage.
long reference_ink(const std::string& file, char32_t cp, int px) {
    FT_Library lib = nullptr;
    REQUIRE(FT_Init_FreeType(&lib) == 0);
    FT_Face face = nullptr;
    long sum = -1;
    if (FT_New_Face(lib, file.c_str(), 0, &face) == 0) {
        REQUIRE(FT_Set_Char_Size(face, 0, px * 64, 72, 72) == 0);
        REQUIRE(FT_Load_Char(face, cp, FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP | FT_LOAD_RENDER) == 0);
        const FT_Bitmap& b = face->glyph->bitmap;
        sum = 0;
        for (unsigned y = 0; y < b.rows; ++y)
            for (unsigned x = 0; x < b.width; ++x) sum += b.buffer[static_cast<long>(y) * b.pitch + x];
        FT_Done_Face(face);
    }
    FT_Done_FreeType(lib);
    return sum;
}

attn::Trace labelled_trace(const std::vector<std::string>& tokens) {
    attn::Trace t;
    t.kind = "causal";
    t.tokens = t.source_tokens = tokens;
    t.sets = {attn::AttentionSet{"self", t.tokens, t.source_tokens, {attn::LayerTrace{}}}};
    const std::size_t T = tokens.size();
    attn::HeadTrace h;
    h.weights = attn::Mat::from_shape({T, T});
    h.mask = attn::Mask::from_shape({T, T});
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < T; ++j) {
            h.mask.edit()(i, j) = j <= i ? 1 : 0;
            h.weights(i, j) = j <= i ? 1.0f / static_cast<float>(i + 1) : 0.0f;
        }
    t.heads().push_back(std::move(h));
    return t;
}

const char* const kCat = "\xE7\x8C\xAB";                                   // 猫 U+732B
const char* const kSalam = "\xD8\xB3\xD9\x84\xD8\xA7\xD9\x85";             // سلام
const char* const kShalom = "\xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D";            // שלום
const char* const kUnassigned = "\xCD\xB8";                                 // U+0378, in no font

}  // namespace

TEST_CASE("embedded font and UTF-8 decoding") {
    const std::string_view font = render::embedded_font();
    REQUIRE(font.size() > 100000);
    CHECK(font.substr(0, 4) == std::string_view("\x00\x01\x00\x00", 4));  // TrueType
    render::Font f;
    CHECK(f.has_glyph(U'A'));
    CHECK(f.has_glyph(U'\u00e9'));
    CHECK_FALSE(f.has_glyph(U'\ue000'));  // private use: not in DejaVu Sans
    CHECK_FALSE(f.has_glyph(attn::kInvalidUtf8));
    CHECK(f.text_width("Wide words", 14.0f) > f.text_width("i", 14.0f));

    CHECK(attn::decode_utf8("a\xC3\xA9z") == std::u32string{U'a', U'\u00e9', U'z'});
    CHECK(attn::decode_utf8("\xEE\x80\x80") == std::u32string{U'\ue000'});
    const char32_t bad = attn::kInvalidUtf8;
    CHECK(attn::decode_utf8("a\xFF" "b") == std::u32string{U'a', bad, U'b'});
    CHECK(attn::decode_utf8("\xC0\x80") == std::u32string{bad});         // overlong NUL
    CHECK(attn::decode_utf8("\xED\xA0\x80") == std::u32string{bad});     // surrogate
    CHECK(attn::decode_utf8("\xF4\x90\x80\x80") == std::u32string{bad}); // above U+10FFFF
    CHECK(attn::decode_utf8("\xE2\x82") == std::u32string{bad});         // truncated
    CHECK(attn::decode_utf8("\x80x") == std::u32string{bad, U'x'});      // stray continuation

    // Too long for the width: cut, ending in an ellipsis, within the width.
    const std::string cut = f.fit("supercalifragilisticexpialidocious", 14.0f, 80);
    CHECK(cut.size() < 34);
    CHECK(cut.substr(cut.size() - 3) == "\xE2\x80\xA6");
    CHECK(f.text_width(cut, 14.0f) <= 80);
    CHECK(f.fit("short", 14.0f, 80) == "short");
}

TEST_CASE("text: a CJK character comes from a fallback font and matches FreeType's own rendering of it") {
    render::Font f;
    std::string face;
    const Glyphs g = glyphs_of(f, kCat, &face);
    REQUIRE(g.size() == 1);
    CHECK(g[0] != 0);
    CHECK(face.find(".tt") != std::string::npos);  // a system font file (WenQuanYi on Debian), not the built-in one
    CHECK(f.missing().empty());
    const long want = reference_ink(face, U'\u732B', 32);
    REQUIRE(want > 0);
    const render::TextMask m = f.render(kCat, 32.0f);
    CHECK(ink(m) == want);                               // the same glyph, the same pixels
    CHECK(ink(m) > 2 * ink(f.render(kUnassigned, 32.0f)));  // far more ink than a box outline
}

TEST_CASE("text: Arabic letters join (contextual glyphs, not the isolated forms) and run right to left") {
    render::Font f;
    std::string face;
    const Glyphs word = glyphs_of(f, kSalam, &face);
    CHECK(face == "DejaVu Sans (built in)");
    // The letters alone: seen, lam, alef, meem (isolated forms).
    const Glyphs seen = glyphs_of(f, "\xD8\xB3"), lam = glyphs_of(f, "\xD9\x84"), alef = glyphs_of(f, "\xD8\xA7"),
                 meem = glyphs_of(f, "\xD9\x85");
    REQUIRE(seen.size() == 1);
    REQUIRE(meem.size() == 1);
    // Lam + alef become one ligature glyph: 3 glyphs for 4 letters, in visual order meem ... seen.
    REQUIRE(word.size() == 3);
    CHECK(word.back() != seen[0]);   // initial seen, rightmost
    CHECK(word.front() == meem[0]);  // leftmost: alef never joins to the letter after it, so meem stands alone
    CHECK(word[1] != lam[0]);
    CHECK(word[1] != alef[0]);
    CHECK(f.missing().empty());
}

TEST_CASE("text: Hebrew runs right to left, mixed labels order their runs by the first strong character") {
    render::Font f;
    Glyphs letters;  // shin, lamed, vav, final mem, each alone
    for (const char* c : {"\xD7\xA9", "\xD7\x9C", "\xD7\x95", "\xD7\x9D"}) letters.push_back(glyphs_of(f, c).at(0));
    const Glyphs reversed(letters.rbegin(), letters.rend());
    CHECK(glyphs_of(f, kShalom) == reversed);

    const Glyphs abc = glyphs_of(f, "abc"), space = glyphs_of(f, " ");
    Glyphs ltr_first = abc;  // "abc שלום": left to right, the Hebrew word reversed in place
    ltr_first.insert(ltr_first.end(), space.begin(), space.end());
    ltr_first.insert(ltr_first.end(), reversed.begin(), reversed.end());
    CHECK(glyphs_of(f, std::string("abc ") + kShalom) == ltr_first);
    // "שלום abc": a right-to-left label, so "abc" stands at the left end, still reading left to right.
    CHECK(glyphs_of(f, std::string(kShalom) + " abc") == ltr_first);
    // Digits in an Arabic label keep their left-to-right order: "سلام 2024" shows 2024 on the left.
    const Glyphs digits = glyphs_of(f, "2024");
    const Glyphs mixed = glyphs_of(f, std::string(kSalam) + " 2024");
    REQUIRE(mixed.size() >= digits.size());
    CHECK(Glyphs(mixed.begin(), mixed.begin() + static_cast<std::ptrdiff_t>(digits.size())) == digits);
}

TEST_CASE("text: rendering is deterministic and --font replaces the built-in font") {
    render::Font a, b;
    const std::string label = std::string("Wie geht's ") + kCat + " " + kSalam;
    CHECK(a.render(label, 14.0f).alpha == b.render(label, 14.0f).alpha);
    CHECK(a.render(label, 14.0f).alpha == a.render(label, 14.0f).alpha);  // from the glyph cache

    const std::string serif = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf";  // fonts-dejavu-core
    render::Font s(serif);
    std::string face;
    glyphs_of(s, "Hello", &face);
    CHECK(face == serif);
    CHECK(s.render("Hello", 20.0f).alpha != a.render("Hello", 20.0f).alpha);
    glyphs_of(s, kSalam, &face);  // DejaVu Serif has no Arabic: the chain goes on to the built-in font
    CHECK(face == "DejaVu Sans (built in)");

    CHECK_THROWS_AS(render::Font("/nonexistent/font.ttf"), attn::Error);
    CHECK_THROWS_AS(render::check_font_file(std::string(ATTN_SOURCE_DIR) + "/README.md"), attn::Error);
}

TEST_CASE("text: accents combine with their letter, emoji come from a fallback font") {
    render::Font f;
    // e + COMBINING ACUTE ACCENT: HarfBuzz composes it to é (one glyph) or places the mark over the e.
    const Glyphs decomposed = glyphs_of(f, "e\xCC\x81"), composed = glyphs_of(f, "\xC3\xA9");
    CHECK((decomposed == composed || decomposed.size() == 2));
    CHECK(f.text_width("e\xCC\x81", 20.0f) == f.text_width("e", 20.0f));  // the mark takes no room of its own
    CHECK(f.has_glyph(U'\U0001F642'));  // 🙂: Symbola (fonts-symbola, installed by scripts/setup.sh)
    CHECK(ink(f.render("\xF0\x9F\x99\x82", 32.0f)) > ink(f.render(kUnassigned, 32.0f)));
    CHECK(f.missing() == std::vector<char32_t>{U'\u0378'});  // only the box drawn for comparison
}

TEST_CASE("text: a character no font has is a box, reported once through the warning") {
    render::Font f;
    CHECK_FALSE(f.has_glyph(U'\u0378'));
    CHECK(f.has_glyph(U'\u732B'));
    f.render(std::string("x") + kUnassigned, 14.0f);
    CHECK(f.missing() == std::vector<char32_t>{U'\u0378'});
    CHECK(render::codepoint_list({U'\u0378', U'\U0001F600'}) == "U+0378 U+1F600");

    std::vector<std::string> warnings;
    render::FigureOptions opt;
    opt.prefix = "w";
    opt.warn = [&](const std::string& s) { warnings.push_back(s); };
    render::render_figures(labelled_trace({kCat, kSalam, kShalom, "ok"}), opt, render::FileType::png);
    CHECK(warnings.empty());
    render::render_figures(labelled_trace({kUnassigned, "ok", kUnassigned}), opt, render::FileType::png);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("U+0378") != std::string::npos);
}

TEST_CASE("text: PNG labels in CJK, Arabic and Hebrew are glyphs, not boxes") {
    render::FigureOptions opt;
    opt.prefix = "s";
    opt.weights_only = true;
    const auto real = render::render_figures(labelled_trace({kCat, kSalam, kShalom}), opt, render::FileType::png);
    const auto boxes = render::render_figures(labelled_trace({kUnassigned, kUnassigned, kUnassigned}), opt, render::FileType::png);
    REQUIRE(real.size() == 1);
    CHECK(real[0].bytes != boxes[0].bytes);
    CHECK(render::render_figures(labelled_trace({kCat, kSalam, kShalom}), opt, render::FileType::png)[0].bytes == real[0].bytes);
}
