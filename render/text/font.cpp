// Text shaping and rasterising for the images (HarfBuzz, FreeType). The faces live in render/font_faces.*.
#include "render/text/font.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H
#include <hb.h>

#include "data/base/utf8.h"
#include "render/text/font_faces.h"

namespace attn::render {

// 2. Characters: which face draws each, in which direction and script.
namespace {

bool is_control(char32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp < 0xA0); }

hb_unicode_funcs_t* ucd() { return hb_unicode_funcs_get_default(); }

// Characters that belong to the one before them: combining marks, joiners, variation selectors.
bool attaches(char32_t cp) {
    if (cp == 0x200C || cp == 0x200D || (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0100 && cp <= 0xE01EF)) return true;
    const hb_unicode_general_category_t gc = hb_unicode_general_category(ucd(), cp);
    return gc == HB_UNICODE_GENERAL_CATEGORY_NON_SPACING_MARK || gc == HB_UNICODE_GENERAL_CATEGORY_SPACING_MARK ||
           gc == HB_UNICODE_GENERAL_CATEGORY_ENCLOSING_MARK;
}

bool real_script(hb_script_t s) {
    return s != HB_SCRIPT_COMMON && s != HB_SCRIPT_INHERITED && s != HB_SCRIPT_UNKNOWN && s != HB_SCRIPT_INVALID;
}

enum class Dir : std::uint8_t { Neutral, Ltr, Rtl };

// A character's own direction: its script's, digits left to right, everything else neutral.
Dir strong_dir(char32_t cp) {
    if (cp == kInvalidUtf8) return Dir::Neutral;
    if (hb_unicode_general_category(ucd(), cp) == HB_UNICODE_GENERAL_CATEGORY_DECIMAL_NUMBER) return Dir::Ltr;
    const hb_script_t s = hb_unicode_script(ucd(), cp);
    if (!real_script(s)) return Dir::Neutral;
    return hb_script_get_horizontal_direction(s) == HB_DIRECTION_RTL ? Dir::Rtl : Dir::Ltr;
}

struct Char {
    char32_t cp;
    int face;  // -1: drawn as a box
    Dir dir;
    hb_script_t script;
};

// A run: chars [begin, end) of one face, direction and script, shaped as one HarfBuzz buffer.
struct Run {
    std::size_t begin, end;
    int face;
    int level;  // bidi embedding level: even left to right, odd right to left
    hb_script_t script;
};

// One glyph placed on the line (positions in 1/64 pixel, y up), or a box (face -1).
struct Placed {
    int face;
    unsigned glyph;
    long x, y;
};

struct Line {
    std::vector<Placed> items;
    long advance = 0;  // 1/64 pixel
    std::vector<std::size_t> run_ends;  // items index after each run (visual order), for shaped()
};

struct GlyphBitmap {
    int x0 = 0, y0 = 0, w = 0, h = 0;  // offset from the pen position on the baseline (y down)
    std::vector<std::uint8_t> alpha;   // (h, w)
};

// The box drawn for a missing character: (width, height, side bearing) in pixels.
int box_w(int px) { return std::max(3, static_cast<int>(std::lround(0.55f * static_cast<float>(px)))); }
int box_h(int px) { return std::max(4, static_cast<int>(std::lround(0.72f * static_cast<float>(px)))); }
int box_pad(int px) { return std::max(1, static_cast<int>(std::lround(0.08f * static_cast<float>(px)))); }

int whole_px(float px) { return std::clamp(static_cast<int>(std::lround(px)), 1, 4095); }

}  // namespace

// 3. Shaping and rasterising.
struct Font::Impl {
    FaceChain chain;
    hb_buffer_t* buf = nullptr;
    std::vector<int> size_set;  // pixel size each FreeType face is set to (0 = none yet)
    std::unordered_map<std::uint64_t, GlyphBitmap> cache;
    std::set<char32_t> missing;

    explicit Impl(const std::string& font_file) : chain(font_file), buf(hb_buffer_create()) {
        if (!hb_buffer_allocation_successful(buf)) throw std::runtime_error("HarfBuzz could not start (out of memory?)");
    }
    ~Impl() { hb_buffer_destroy(buf); }
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;

    int metric(long units, int px) const {  // font units of the first face -> whole pixels, rounded up
        const FT_Face f = chain.face(chain.primary()).ft;
        return static_cast<int>(std::ceil(static_cast<double>(units) * px / f->units_per_EM));
    }
    int ascent_px(int px) const { return metric(chain.face(chain.primary()).ft->ascender, px); }
    int descent_px(int px) const { return metric(-const_cast<FaceChain&>(chain).face(chain.primary()).ft->descender, px); }

    // 3a. Each character's face, direction and script.
    std::vector<Char> classify(const std::u32string& cps) {
        std::vector<Char> out;
        out.reserve(cps.size());
        int prev_face = -1;
        for (char32_t cp : cps) {
            Char c{cp, -1, strong_dir(cp), HB_SCRIPT_COMMON};
            if (cp != kInvalidUtf8 && !is_control(cp)) {
                c.script = hb_unicode_script(ucd(), cp);
                c.face = chain.face_for(cp, attaches(cp) ? prev_face : -1);
                if (c.face < 0) missing.insert(cp);
            }
            prev_face = c.face;
            out.push_back(c);
        }
        // Scripts: Common and Inherited characters join the script before them (or the first after).
        hb_script_t cur = HB_SCRIPT_COMMON;
        for (const Char& c : out)
            if (real_script(c.script)) {
                cur = c.script;
                break;
            }
        for (Char& c : out) {
            if (real_script(c.script)) cur = c.script;
            else c.script = cur;
        }
        return out;
    }

    // 3b. Directions of neutral characters, and the label's own (returned: true = right to left).
    static bool resolve_directions(std::vector<Char>& chars) {
        Dir base = Dir::Ltr;
        for (const Char& c : chars)
            if (c.dir != Dir::Neutral) {
                base = c.dir;
                break;
            }
        std::vector<Dir> next(chars.size(), Dir::Neutral);  // the next strong direction after each char
        Dir after = Dir::Neutral;
        for (std::size_t i = chars.size(); i-- > 0;) {
            next[i] = after;
            if (chars[i].dir != Dir::Neutral) after = chars[i].dir;
        }
        Dir before = Dir::Neutral;
        for (std::size_t i = 0; i < chars.size(); ++i) {
            Char& c = chars[i];
            if (c.dir != Dir::Neutral) {
                before = c.dir;
                continue;
            }
            if (i > 0 && attaches(c.cp)) c.dir = chars[i - 1].dir;
            else c.dir = (before != Dir::Neutral && before == next[i]) ? before : base;
        }
        return base == Dir::Rtl;
    }

    // 3c. Runs in visual order.
    static std::vector<Run> runs_of(const std::vector<Char>& chars, bool rtl) {
        std::vector<Run> runs;
        for (std::size_t i = 0; i < chars.size();) {
            std::size_t j = i + 1;
            if (chars[i].face >= 0)
                while (j < chars.size() && chars[j].face == chars[i].face && chars[j].dir == chars[i].dir &&
                       chars[j].script == chars[i].script)
                    ++j;
            const int level = chars[i].dir == Dir::Rtl ? 1 : rtl ? 2 : 0;
            runs.push_back({i, j, chars[i].face, level, chars[i].script});
            i = j;
        }
        int top = 0;
        for (const Run& r : runs) top = std::max(top, r.level);
        for (int lvl = top; lvl >= 1; --lvl)  // rule L2 on whole runs
            for (std::size_t i = 0; i < runs.size();) {
                if (runs[i].level < lvl) {
                    ++i;
                    continue;
                }
                std::size_t j = i;
                while (j < runs.size() && runs[j].level >= lvl) ++j;
                std::reverse(runs.begin() + static_cast<std::ptrdiff_t>(i), runs.begin() + static_cast<std::ptrdiff_t>(j));
                i = j;
            }
        return runs;
    }

    // 3d. The whole line: runs shaped by HarfBuzz and placed left to right.
    Line layout(std::string_view utf8, int px) {
        const std::u32string cps = decode_utf8(shown_text(utf8));
        std::vector<Char> chars = classify(cps);
        const bool rtl = resolve_directions(chars);
        std::vector<std::uint32_t> text(cps.size());  // HarfBuzz's input, with context around each run
        for (std::size_t i = 0; i < cps.size(); ++i)
            text[i] = cps[i] == kInvalidUtf8 || is_control(cps[i]) ? 0xFFFDu : static_cast<std::uint32_t>(cps[i]);
        Line line;
        long pen = 0;
        for (const Run& r : runs_of(chars, rtl)) {
            if (r.face < 0) {  // one box per character
                for (std::size_t k = r.begin; k < r.end; ++k) {
                    line.items.push_back({-1, 0, pen, 0});
                    pen += 64L * (box_w(px) + 2 * box_pad(px));
                }
                line.run_ends.push_back(line.items.size());
                continue;
            }
            hb_font_t* font = chain.face(r.face).hb;
            hb_font_set_scale(font, px * 64, px * 64);
            hb_buffer_clear_contents(buf);
            hb_buffer_add_utf32(buf, text.data(), static_cast<int>(text.size()), static_cast<unsigned>(r.begin),
                                static_cast<int>(r.end - r.begin));
            hb_buffer_set_direction(buf, r.level % 2 == 1 ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
            hb_buffer_set_script(buf, r.script);
            // The language is fixed ("undetermined": each font's default forms), not taken from the
            // process's locale as HarfBuzz would: the same label gives the same glyphs in any environment.
            hb_buffer_set_language(buf, hb_language_from_string("und", -1));
            hb_buffer_guess_segment_properties(buf);  // fills in whatever is still unset
            hb_shape(font, buf, nullptr, 0);
            unsigned n = 0;
            const hb_glyph_info_t* info = hb_buffer_get_glyph_infos(buf, &n);
            const hb_glyph_position_t* pos = hb_buffer_get_glyph_positions(buf, &n);
            // a glyph moves the pen and sits at most kMaxFontEms ems away (a font's metrics may lie)
            const long reach = static_cast<long>(kMaxFontEms * 64.0) * px;
            const auto bound = [reach](long v) { return std::clamp(v, -reach, reach); };
            for (unsigned g = 0; g < n; ++g) {
                line.items.push_back({r.face, info[g].codepoint, pen + bound(pos[g].x_offset), bound(pos[g].y_offset)});
                pen += bound(pos[g].x_advance);
            }
            line.run_ends.push_back(line.items.size());
        }
        line.advance = std::max(0L, pen);
        return line;
    }

    // Glyph g of a face at px, shifted right by sub/4 pixel, unhinted.
    const GlyphBitmap& glyph(int face, unsigned g, int px, int sub) {
        const std::uint64_t key = (static_cast<std::uint64_t>(face) << 48) | (static_cast<std::uint64_t>(g) << 16) |
                                  (static_cast<std::uint64_t>(px) << 2) | static_cast<std::uint64_t>(sub);
        const auto it = cache.find(key);
        if (it != cache.end()) return it->second;
        GlyphBitmap bm;
        const FT_Face f = chain.face(face).ft;
        if (size_set.size() <= static_cast<std::size_t>(face)) size_set.resize(static_cast<std::size_t>(face) + 1, 0);
        bool ok = true;
        if (size_set[static_cast<std::size_t>(face)] != px) {
            ok = FT_Set_Char_Size(f, 0, static_cast<FT_F26Dot6>(px) * 64, 72, 72) == 0;
            size_set[static_cast<std::size_t>(face)] = ok ? px : 0;
        }
        ok = ok && FT_Load_Glyph(f, g, FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP) == 0 &&
             f->glyph->format == FT_GLYPH_FORMAT_OUTLINE;
        if (ok) {  // 2. a glyph larger than kMaxFontEms ems is left out, never rasterised
            FT_BBox box;
            FT_Outline_Get_CBox(&f->glyph->outline, &box);
            const double limit = kMaxFontEms * 64.0 * px;
            ok = double(box.xMax) - double(box.xMin) <= limit && double(box.yMax) - double(box.yMin) <= limit &&
                 std::fabs(double(box.xMin)) <= limit && std::fabs(double(box.yMax)) <= limit;
        }
        if (ok) {
            FT_Outline_Translate(&f->glyph->outline, sub * 16, 0);
            ok = FT_Render_Glyph(f->glyph, FT_RENDER_MODE_NORMAL) == 0;
        }
        const FT_Bitmap& b = f->glyph->bitmap;
        if (ok && b.pixel_mode == FT_PIXEL_MODE_GRAY && b.width > 0 && b.rows > 0) {
            bm.x0 = f->glyph->bitmap_left;
            bm.y0 = -f->glyph->bitmap_top;
            bm.w = static_cast<int>(b.width);
            bm.h = static_cast<int>(b.rows);
            bm.alpha.resize(static_cast<std::size_t>(bm.w) * static_cast<std::size_t>(bm.h));
            for (int y = 0; y < bm.h; ++y)
                std::memcpy(bm.alpha.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(bm.w),
                            b.buffer + static_cast<std::ptrdiff_t>(y) * b.pitch, static_cast<std::size_t>(bm.w));
        }
        return cache.emplace(key, std::move(bm)).first->second;
    }
};

Font::Font(const std::string& font_file) : impl_(std::make_unique<Impl>(font_file)) {}
Font::~Font() = default;
Font::Font(Font&&) noexcept = default;
Font& Font::operator=(Font&&) noexcept = default;

int Font::line_height(float px) const { return impl_->ascent_px(whole_px(px)) + impl_->descent_px(whole_px(px)); }
int Font::ascent(float px) const { return impl_->ascent_px(whole_px(px)); }
bool Font::has_glyph(char32_t cp) {
    return cp != kInvalidUtf8 && !is_control(cp) && impl_->chain.face_for(cp) >= 0;
}

int Font::text_width(std::string_view utf8, float px) {
    return static_cast<int>((impl_->layout(utf8, whole_px(px)).advance + 63) / 64);
}

TextMask Font::render(std::string_view utf8, float px_in) {
    const int px = whole_px(px_in);
    const Line line = impl_->layout(utf8, px);
    TextMask m;
    m.ascent = impl_->ascent_px(px);
    m.height = m.ascent + impl_->descent_px(px);
    m.width = static_cast<int>((line.advance + 63) / 64) + 1;  // +1: anti-aliased edge of the last glyph
    m.alpha.assign(static_cast<std::size_t>(m.width) * static_cast<std::size_t>(m.height), 0);
    const auto plot = [&m](int x, int y, unsigned a) {
        if (x < 0 || y < 0 || x >= m.width || y >= m.height) return;
        std::uint8_t& dst = m.alpha[static_cast<std::size_t>(y) * static_cast<std::size_t>(m.width) + static_cast<std::size_t>(x)];
        dst = static_cast<std::uint8_t>(std::min(255u, dst + a));
    };
    for (const Placed& p : line.items) {
        if (p.face < 0) {  // missing character: an outline box standing on the baseline
            const int w = box_w(px), h = box_h(px);
            const int t = std::max(1, static_cast<int>(std::lround(static_cast<float>(px) / 13.0f)));
            const int bx = static_cast<int>(p.x / 64) + box_pad(px), by = m.ascent - h;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    if (x < t || y < t || x >= w - t || y >= h - t) plot(bx + x, by + y, 255);
            continue;
        }
        const long fx = p.x >= 0 ? p.x / 64 : -((-p.x + 63) / 64);  // floor
        const int ix = static_cast<int>(fx);
        const int sub = static_cast<int>((p.x - fx * 64) / 16);      // quarter pixels
        const int oy = static_cast<int>(p.y >= 0 ? (p.y + 32) / 64 : -((-p.y + 32) / 64));
        const GlyphBitmap& g = impl_->glyph(p.face, p.glyph, px, sub);
        for (int y = 0; y < g.h; ++y)
            for (int x = 0; x < g.w; ++x) {
                const std::uint8_t a = g.alpha[static_cast<std::size_t>(y) * static_cast<std::size_t>(g.w) + static_cast<std::size_t>(x)];
                if (a != 0) plot(ix + g.x0 + x, m.ascent - oy + g.y0 + y, a);
            }
    }
    return m;
}

std::vector<Font::RunGlyphs> Font::shaped(std::string_view utf8, float px) {
    const Line line = impl_->layout(utf8, whole_px(px));
    std::vector<RunGlyphs> out;
    std::size_t i = 0;
    for (std::size_t end : line.run_ends) {
        RunGlyphs r;
        for (; i < end; ++i) {
            const Placed& p = line.items[i];
            r.face = p.face < 0 ? std::string() : impl_->chain.face(p.face).name;
            r.glyphs.push_back(p.face < 0 ? 0u : p.glyph);
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<char32_t> Font::missing() const { return {impl_->missing.begin(), impl_->missing.end()}; }

std::string missing_glyph_warning(const Font& font) {
    const std::vector<char32_t> missing = font.missing();
    if (missing.empty()) return {};
    return "no font has " + codepoint_list(missing) + ": drawn as boxes (hint: install a font that covers " +
           (missing.size() == 1 ? "it" : "them") + ", e.g. Debian's fonts-noto-core, or pass --font FILE)";
}

std::string codepoint_list(const std::vector<char32_t>& cps, std::size_t limit) {
    std::string s;
    for (std::size_t i = 0; i < cps.size() && i < limit; ++i) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cps[i]));
        s += (i ? " " : "") + std::string(buf);
    }
    if (cps.size() > limit) s += " \xE2\x80\xA6";
    return s;
}

std::string shown_text(std::string_view utf8, std::size_t max_chars) {
    const std::string_view head = utf8_prefix(utf8, max_chars);
    if (head.size() == utf8.size()) return std::string(utf8);
    return std::string(head) + "\xE2\x80\xA6";  // U+2026
}

std::string Font::fit(std::string_view utf8, float px, int max_width) {
    // 1. nothing past the first kMaxLabelChars characters is measured (a token may be 1024 bytes, a
    //    trace's labels longer): measuring a 100 MB label whole took 238 s and 10 GB
    const std::string_view head = utf8_prefix(utf8, kMaxLabelChars);
    if (head.size() == utf8.size() && text_width(utf8, px) <= max_width) return std::string(utf8);
    // 2. the longest prefix of head (whole characters, as decode_utf8 counts them) + "…" that fits
    std::vector<std::size_t> ends;  // byte offset after each character of head
    for (std::size_t i = 0; i < head.size();) {
        i += utf8_prefix(head.substr(i), 1).size();
        ends.push_back(i);
    }
    static constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // U+2026
    std::size_t lo = 0, hi = ends.size();  // largest n in [0, hi] whose prefix + "…" fits
    while (lo < hi) {
        const std::size_t mid = (lo + hi + 1) / 2;
        std::string s(head.substr(0, ends[mid - 1]));
        s += kEllipsis;
        if (text_width(s, px) <= max_width) lo = mid;
        else hi = mid - 1;
    }
    std::string out(head.substr(0, lo == 0 ? 0 : ends[lo - 1]));
    out += kEllipsis;
    return out;
}

}  // namespace attn::render
