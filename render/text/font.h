// Text for the images: labels shaped with HarfBuzz and rasterised with FreeType, from a chain of fonts
// (render/text/font_faces.h: --font FILE, then DejaVu Sans compiled into the binary, then fontconfig's
// fallbacks for characters DejaVu Sans lacks, such as CJK and emoji).
//
// Shaping: a label is cut into runs of one face, one script and one direction; each run is shaped by
// HarfBuzz (Arabic joins, marks are placed, ligatures and kerning applied, right-to-left runs come out in
// visual order). The runs are then ordered by a simple bidi rule: the label's direction is that of its
// first strong character; characters without a direction (spaces, punctuation) take their neighbours'
// direction when both agree, else the label's; digits run left to right; runs against the label's
// direction are reversed as groups (the Unicode bidi algorithm's rule L2 applied to whole runs).
//
// A control character, an invalid UTF-8 sequence and a character no font has are drawn as a box (an
// outline rectangle); the characters no font has are remembered (missing()) so that the caller can warn.
// Positions are integers in 1/64 pixel and glyphs are drawn at quarter-pixel offsets without hinting:
// the same text gives the same pixels on every run (with the same fonts installed).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attn::render {

// The bytes of the embedded TrueType font (DejaVu Sans, fonts-dejavu-core), valid for the whole run.
std::string_view embedded_font();

// A line of text as coverage: alpha (0 = none, 255 = full), row-major, width x height. The baseline is
// `ascent` rows below the top; height = ascent + descent of the font at that size.
struct TextMask {
    int width = 0, height = 0, ascent = 0;
    std::vector<std::uint8_t> alpha;  // (height, width)
};

// The most characters of a label Font::fit measures (shaping costs time and memory in proportion to
// the text): 256 characters are wider than any label's room in a figure, even at the smallest size.
constexpr std::size_t kMaxLabelChars = 256;

// The most characters of any text Font shapes (titles, subtitles, captions; labels go through fit
// first): a longer text is measured and drawn as its first kMaxTextChars characters and "…". Far above
// attn's own longest title; it bounds what a trace's "kind" or a model's type can cost.
constexpr std::size_t kMaxTextChars = 1024;

// The largest a font's glyphs may be, in ems: a --font whose glyph box, advance or line height is larger
// is refused (naming the font), a fallback font skipped, and a single glyph larger than this at draw time
// is left out. DejaVu Sans reaches 2.8 ems (its widest glyph box); CJK and math fonts stay under 4.
constexpr double kMaxFontEms = 16.0;

// utf8 itself when it has at most max_chars characters (as decode_utf8 counts them), else its first
// max_chars characters and "…". With the default, the text Font measures and draws for utf8 (the SVG
// writer writes the same).
std::string shown_text(std::string_view utf8, std::size_t max_chars = kMaxTextChars);

// The font chain at any pixel size (rounded to a whole pixel), with a cache of rasterised glyphs.
// Not thread-safe: make one per thread.
class Font {
public:
    // font_file: --font FILE, asked before the built-in font ("" = none). Throws attn::Error (runtime) if
    // it cannot be read or is not a scalable font, std::runtime_error if the embedded font cannot be opened.
    explicit Font(const std::string& font_file = {});
    ~Font();
    Font(Font&&) noexcept;
    Font& operator=(Font&&) noexcept;
    Font(const Font&) = delete;
    Font& operator=(const Font&) = delete;

    int line_height(float px) const;  // ascent + descent in pixels at em size px (of the first font)
    int ascent(float px) const;
    bool has_glyph(char32_t cp);      // some font of the chain has it; false for controls and kInvalidUtf8

    int text_width(std::string_view utf8, float px);  // advance width in pixels, rounded up
    TextMask render(std::string_view utf8, float px);
    // utf8 unchanged if it fits in max_width pixels, else its longest prefix (whole characters) + "…" that does.
    // Only the first kMaxLabelChars characters are measured: a longer label is always cut.
    std::string fit(std::string_view utf8, float px, int max_width);

    // The glyphs one shaped run of a label drew from one face, for tests: face name and glyph ids in
    // visual order. A box has face "" and glyph id 0.
    struct RunGlyphs {
        std::string face;
        std::vector<unsigned> glyphs;
    };
    std::vector<RunGlyphs> shaped(std::string_view utf8, float px);

    // Characters that were drawn as boxes because no font of the chain has them, ascending.
    std::vector<char32_t> missing() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Throws attn::Error (runtime) unless `path` is a scalable font FreeType can open with sane metrics
// (kMaxFontEms): what --font checks. Returns how much larger than DejaVu Sans its text may come out (its
// line height and widest advance against DejaVu's, 1 at least), for the memory estimate of the figures.
double check_font_file(const std::string& path);

// The one-line warning for the characters a font chain had none for ("" when none).
std::string missing_glyph_warning(const Font& font);

// "U+E000 U+1F600" for missing(): at most `limit` characters, then "…".
std::string codepoint_list(const std::vector<char32_t>& cps, std::size_t limit = 8);

}  // namespace attn::render
