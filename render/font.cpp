// The embedded font and its rasteriser. This is the one file that defines STB_TRUETYPE_IMPLEMENTATION.
#include "render/font.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

#include "render/stb_begin.h"
#define STBTT_STATIC
#define STB_TRUETYPE_IMPLEMENTATION
#include <stb_truetype.h>
#include "render/stb_end.h"

// 1. The font file, embedded at build time. ATTN_FONT_PATH (set by CMakeLists.txt to DejaVuSans.ttf from
//    fonts-dejavu-core) is pasted into an assembler .incbin; CMake's OBJECT_DEPENDS on the font rebuilds
//    this file when it changes. GNU as and clang's integrated assembler both understand this (ELF targets).
#ifndef ATTN_FONT_PATH
#error "ATTN_FONT_PATH must name the TrueType file to embed (CMakeLists.txt defines it for attn_render)"
#endif

asm(".pushsection .rodata\n"
    ".balign 16\n"
    ".globl attn_embedded_font_begin\n"
    ".hidden attn_embedded_font_begin\n"
    "attn_embedded_font_begin:\n"
    ".incbin \"" ATTN_FONT_PATH "\"\n"
    ".globl attn_embedded_font_end\n"
    ".hidden attn_embedded_font_end\n"
    "attn_embedded_font_end:\n"
    ".byte 0\n"
    ".popsection\n");

extern "C" {
extern const unsigned char attn_embedded_font_begin[];
extern const unsigned char attn_embedded_font_end[];
}

namespace attn::render {

std::string_view embedded_font() {
    const auto n = static_cast<std::size_t>(attn_embedded_font_end - attn_embedded_font_begin);
    return {reinterpret_cast<const char*>(attn_embedded_font_begin), n};
}

// 2. UTF-8.
std::u32string decode_utf8(std::string_view s) {
    std::u32string out;
    out.reserve(s.size());
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    std::size_t i = 0;
    while (i < s.size()) {
        const unsigned char b0 = byte(i);
        if (b0 < 0x80) {
            out.push_back(b0);
            ++i;
            continue;
        }
        std::size_t len = 0;
        char32_t cp = 0, min = 0;
        if ((b0 & 0xE0) == 0xC0) { len = 2; cp = b0 & 0x1Fu; min = 0x80; }
        else if ((b0 & 0xF0) == 0xE0) { len = 3; cp = b0 & 0x0Fu; min = 0x800; }
        else if ((b0 & 0xF8) == 0xF0) { len = 4; cp = b0 & 0x07u; min = 0x10000; }
        std::size_t k = 1;
        if (len != 0) {
            for (; k < len && i + k < s.size() && (byte(i + k) & 0xC0) == 0x80; ++k)
                cp = (cp << 6) | (byte(i + k) & 0x3Fu);
        }
        if (len == 0 || k < len || cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            out.push_back(kInvalidUtf8);  // the lead byte and the continuation bytes it took
            i += std::max<std::size_t>(k, 1);
            continue;
        }
        out.push_back(cp);
        i += len;
    }
    return out;
}

// 3. The rasteriser.
namespace {

bool is_control(char32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp < 0xA0); }

struct GlyphBitmap {
    int x0 = 0, y0 = 0, w = 0, h = 0;  // offset from the pen position on the baseline
    std::vector<std::uint8_t> alpha;   // (h, w)
};

// One character placed on the line: a glyph of the font, or a box (glyph < 0).
struct Placed {
    int glyph = 0;
    float x = 0.0f;  // pen position
};

struct Line {
    std::vector<Placed> items;
    float advance = 0.0f;
};

}  // namespace

struct Font::Impl {
    stbtt_fontinfo info{};
    int ascent = 0, descent = 0;  // font units; descent < 0
    std::unordered_map<std::uint64_t, GlyphBitmap> cache;

    float scale(float px) const { return stbtt_ScaleForMappingEmToPixels(&info, px); }
    int ascent_px(float px) const { return static_cast<int>(std::ceil(static_cast<float>(ascent) * scale(px))); }
    int descent_px(float px) const { return static_cast<int>(std::ceil(static_cast<float>(-descent) * scale(px))); }

    int glyph_of(char32_t cp) const {
        if (cp == kInvalidUtf8 || is_control(cp)) return 0;
        return stbtt_FindGlyphIndex(&info, static_cast<int>(cp));
    }

    // The box drawn for a missing character: (width, height, side bearing) in pixels.
    static int box_w(float px) { return std::max(3, static_cast<int>(std::lround(0.55f * px))); }
    static int box_h(float px) { return std::max(4, static_cast<int>(std::lround(0.72f * px))); }
    static int box_pad(float px) { return std::max(1, static_cast<int>(std::lround(0.08f * px))); }

    Line layout(const std::u32string& cps, float px) const {
        Line line;
        const float sc = scale(px);
        int prev = 0;
        float pen = 0.0f;
        for (char32_t cp : cps) {
            const int g = glyph_of(cp);
            if (g == 0) {
                line.items.push_back({-1, pen});
                pen += static_cast<float>(box_w(px) + 2 * box_pad(px));
                prev = 0;
                continue;
            }
            if (prev != 0) pen += sc * static_cast<float>(stbtt_GetGlyphKernAdvance(&info, prev, g));
            line.items.push_back({g, pen});
            int advance = 0, lsb = 0;
            stbtt_GetGlyphHMetrics(&info, g, &advance, &lsb);
            pen += sc * static_cast<float>(advance);
            prev = g;
        }
        line.advance = pen;
        return line;
    }

    // Glyph g at em size px, shifted right by sub/4 pixel.
    const GlyphBitmap& glyph(int g, float px, int sub) {
        const auto px_key = static_cast<std::uint64_t>(std::lround(px * 16.0f));
        const std::uint64_t key = (static_cast<std::uint64_t>(g) << 24) | (px_key << 4) | static_cast<std::uint64_t>(sub);
        auto it = cache.find(key);
        if (it != cache.end()) return it->second;
        GlyphBitmap bm;
        const float sc = scale(px);
        const float shift = static_cast<float>(sub) * 0.25f;
        int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
        stbtt_GetGlyphBitmapBoxSubpixel(&info, g, sc, sc, shift, 0.0f, &x0, &y0, &x1, &y1);
        if (x1 > x0 && y1 > y0) {
            bm.x0 = x0;
            bm.y0 = y0;
            bm.w = x1 - x0;
            bm.h = y1 - y0;
            bm.alpha.assign(static_cast<std::size_t>(bm.w) * static_cast<std::size_t>(bm.h), 0);
            stbtt_MakeGlyphBitmapSubpixel(&info, bm.alpha.data(), bm.w, bm.h, bm.w, sc, sc, shift, 0.0f, g);
        }
        return cache.emplace(key, std::move(bm)).first->second;
    }
};

Font::Font() : impl_(std::make_unique<Impl>()) {
    const std::string_view data = embedded_font();
    const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
    // stb_truetype trusts the file; this check only guards against a wrong file being embedded.
    if (data.size() < 12 || !(std::memcmp(bytes, "\x00\x01\x00\x00", 4) == 0 || std::memcmp(bytes, "true", 4) == 0))
        throw std::runtime_error("embedded font is not a TrueType file: rebuild attn with ATTN_FONT set to "
                                 "DejaVuSans.ttf (fonts-dejavu-core)");
    const int offset = stbtt_GetFontOffsetForIndex(bytes, 0);
    if (offset < 0 || stbtt_InitFont(&impl_->info, bytes, offset) == 0)
        throw std::runtime_error("embedded font could not be parsed: rebuild attn with ATTN_FONT set to "
                                 "DejaVuSans.ttf (fonts-dejavu-core)");
    int line_gap = 0;
    stbtt_GetFontVMetrics(&impl_->info, &impl_->ascent, &impl_->descent, &line_gap);
}

Font::~Font() = default;
Font::Font(Font&&) noexcept = default;
Font& Font::operator=(Font&&) noexcept = default;

int Font::line_height(float px) const { return impl_->ascent_px(px) + impl_->descent_px(px); }
int Font::ascent(float px) const { return impl_->ascent_px(px); }
bool Font::has_glyph(char32_t cp) const { return impl_->glyph_of(cp) != 0; }

int Font::text_width(std::string_view utf8, float px) const {
    return static_cast<int>(std::ceil(impl_->layout(decode_utf8(utf8), px).advance));
}

TextMask Font::render(std::string_view utf8, float px) {
    const Line line = impl_->layout(decode_utf8(utf8), px);
    TextMask m;
    m.ascent = impl_->ascent_px(px);
    m.height = m.ascent + impl_->descent_px(px);
    m.width = static_cast<int>(std::ceil(line.advance)) + 1;  // +1: anti-aliased edge of the last glyph
    m.alpha.assign(static_cast<std::size_t>(m.width) * static_cast<std::size_t>(m.height), 0);
    const auto plot = [&m](int x, int y, unsigned a) {
        if (x < 0 || y < 0 || x >= m.width || y >= m.height) return;
        std::uint8_t& dst = m.alpha[static_cast<std::size_t>(y) * static_cast<std::size_t>(m.width) + static_cast<std::size_t>(x)];
        dst = static_cast<std::uint8_t>(std::min(255u, dst + a));
    };
    for (const Placed& p : line.items) {
        if (p.glyph < 0) {  // missing character: an outline box standing on the baseline
            const int w = Impl::box_w(px), h = Impl::box_h(px);
            const int t = std::max(1, static_cast<int>(std::lround(px / 13.0f)));
            const int bx = static_cast<int>(std::lround(p.x)) + Impl::box_pad(px), by = m.ascent - h;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    if (x < t || y < t || x >= w - t || y >= h - t) plot(bx + x, by + y, 255);
            continue;
        }
        const int ix = static_cast<int>(std::floor(p.x));
        const int sub = std::min(3, static_cast<int>((p.x - static_cast<float>(ix)) * 4.0f));
        const GlyphBitmap& g = impl_->glyph(p.glyph, px, sub);
        for (int y = 0; y < g.h; ++y)
            for (int x = 0; x < g.w; ++x) {
                const std::uint8_t a = g.alpha[static_cast<std::size_t>(y) * static_cast<std::size_t>(g.w) + static_cast<std::size_t>(x)];
                if (a != 0) plot(ix + g.x0 + x, m.ascent + g.y0 + y, a);
            }
    }
    return m;
}

std::string Font::fit(std::string_view utf8, float px, int max_width) const {
    if (text_width(utf8, px) <= max_width) return std::string(utf8);
    // Cut at character boundaries; measure at most the first 256 characters (labels are short).
    std::vector<std::size_t> ends;  // byte offset after each character
    for (std::size_t i = 0; i < utf8.size() && ends.size() < 256;) {
        std::size_t j = i + 1;
        while (j < utf8.size() && (static_cast<unsigned char>(utf8[j]) & 0xC0) == 0x80 && j - i < 4) ++j;
        ends.push_back(j);
        i = j;
    }
    static constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // U+2026
    std::size_t lo = 0, hi = ends.size();  // largest n in [0, hi) whose prefix + "…" fits
    while (lo < hi) {
        const std::size_t mid = (lo + hi + 1) / 2;
        std::string s(utf8.substr(0, ends[mid - 1]));
        s += kEllipsis;
        if (text_width(s, px) <= max_width) lo = mid;
        else hi = mid - 1;
    }
    std::string out(utf8.substr(0, lo == 0 ? 0 : ends[lo - 1]));
    out += kEllipsis;
    return out;
}

}  // namespace attn::render
