// Text for the PNG renderer: DejaVu Sans compiled into the binary, rasterised with stb_truetype.
//
// Only the embedded font is ever parsed (stb_truetype is not safe on untrusted fonts): there is no way
// to load a font from a path. Text is anti-aliased; a character the font lacks, a control character and
// every invalid UTF-8 sequence are drawn as a box (an outline rectangle).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attn::render {

// The bytes of the embedded TrueType font (DejaVu Sans, fonts-dejavu-core), valid for the whole run.
std::string_view embedded_font();

// Stands for one invalid UTF-8 sequence in decode_utf8's output (not a Unicode scalar value).
inline constexpr char32_t kInvalidUtf8 = 0xFFFFFFFFu;

// Decodes UTF-8 strictly (RFC 3629): a stray continuation byte, a truncated sequence, an overlong form,
// a surrogate or a value above U+10FFFF each become one kInvalidUtf8, and decoding resumes at the next byte.
std::u32string decode_utf8(std::string_view s);

// A line of text as coverage: alpha (0 = none, 255 = full), row-major, width x height. The baseline is
// `ascent` rows below the top; height = ascent + descent of the font at that size.
struct TextMask {
    int width = 0, height = 0, ascent = 0;
    std::vector<std::uint8_t> alpha;  // (height, width)
};

// The embedded font at any pixel size, with a cache of rasterised glyphs. Not thread-safe: make one per
// thread (construction is cheap: it only parses the font's table directory).
class Font {
public:
    Font();  // throws std::runtime_error if the embedded font cannot be parsed
    ~Font();
    Font(Font&&) noexcept;
    Font& operator=(Font&&) noexcept;
    Font(const Font&) = delete;
    Font& operator=(const Font&) = delete;

    int line_height(float px) const;  // ascent + descent in pixels at em size px
    int ascent(float px) const;
    bool has_glyph(char32_t cp) const;  // false for control characters and kInvalidUtf8

    int text_width(std::string_view utf8, float px) const;  // advance width in pixels, rounded up
    TextMask render(std::string_view utf8, float px);
    // utf8 unchanged if it fits in max_width pixels, else its longest prefix (whole characters) + "…" that does.
    std::string fit(std::string_view utf8, float px, int max_width) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace attn::render
