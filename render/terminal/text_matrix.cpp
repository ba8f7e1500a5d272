// Matrices as text (render/terminal/text_matrix.h), and the terminal helpers render/terminal/terminal.h declares:
// display_width, xterm256, cell_escape.
#include "render/terminal/text_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "data/base/utf8.h"
#include "render/view/stages.h"

namespace attn::render::text {
namespace {

constexpr std::size_t kLabelMax = 14;   // label column width cap
constexpr std::size_t kMaxRows = 24;

std::size_t char_width(char32_t c) {
    auto in = [c](char32_t lo, char32_t hi) { return c >= lo && c <= hi; };
    if (in(0x0300, 0x036F) || in(0x200B, 0x200F) || in(0x20D0, 0x20FF) || in(0xFE00, 0xFE0F) || c == 0x200D ||
        in(0x1F3FB, 0x1F3FF) || in(0xE0100, 0xE01EF))
        return 0;
    if (in(0x1100, 0x115F) || in(0x2E80, 0x303E) || in(0x3041, 0x33FF) || in(0x3400, 0x4DBF) ||
        in(0x4E00, 0x9FFF) || in(0xA000, 0xA4CF) || in(0xAC00, 0xD7A3) || in(0xF900, 0xFAFF) ||
        in(0xFE30, 0xFE4F) || in(0xFF00, 0xFF60) || in(0xFFE0, 0xFFE6) || in(0x1F300, 0x1F64F) ||
        in(0x1F900, 0x1F9FF) || in(0x1FA70, 0x1FAFF) || in(0x20000, 0x3FFFD))
        return 2;
    return 1;
}

// Cuts a label to at most `width` columns, ending in "…" when cut. Only its first 256 characters are
// read, as the figures' Font::fit reads (render/text/font.h, kMaxLabelChars): a longer label is always cut.
std::string fit(const std::string& s, std::size_t width) {
    const std::string_view head = utf8_prefix(s, 256);
    if (head.size() == s.size() && display_width(s) <= width) return s;
    std::string out;
    std::size_t w = 0;
    for (std::size_t i = 0; i < head.size();) {
        char32_t c = 0;
        std::size_t n = utf8_decode(head, i, c);
        if (n == 0) n = 1, c = '?';
        const std::size_t cw = char_width(c);
        if (w + cw + 1 > width) break;
        out.append(head.substr(i, n));
        w += cw;
        i += n;
    }
    return out + "…";
}

std::string pad_left(const std::string& s, std::size_t width) {
    const std::size_t w = display_width(s);
    return w >= width ? s : std::string(width - w, ' ') + s;
}
std::string pad_right(const std::string& s, std::size_t width) {
    const std::size_t w = display_width(s);
    return w >= width ? s : s + std::string(width - w, ' ');
}

constexpr float kMaxFixed = 1e9f;  // 9 digits before the point at most; larger values print as 1.2345e+09

// The text of cell (i, j): its value at --precision (exponent notation past kMaxFixed), "·" hidden by
// the mask, "×" dropped, 1/· for a mask itself.
std::string cell_text(const MatrixView& m, const TerminalOptions& opt, std::size_t i, std::size_t j) {
    if (m.as_mask) return (*m.as_mask)(i, j) ? "1" : "·";
    if (m.mask && !(*m.mask)(i, j)) return "·";
    if (m.dropout && dropped_cell(*m.dropout, i, j)) return "×";
    const float v = (*m.values)(i, j);
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "−∞" : "∞";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", opt.precision, static_cast<double>(v));
    // past kMaxFixed digits before the point, exponent notation: 3.0000e+38, not 39 digits
    if (std::fabs(v) >= kMaxFixed) std::snprintf(buf, sizeof buf, "%.*e", opt.precision, static_cast<double>(v));
    return buf;
}

// A value that is not 0 but prints as one ("0.0000", "-0"): rounding hides it.
bool hidden_by_rounding(const MatrixView& m, const TerminalOptions& opt, std::size_t i, std::size_t j) {
    if (!m.values || (m.mask && !(*m.mask)(i, j)) || (*m.values)(i, j) == 0.0f) return false;
    const std::string text = cell_text(m, opt, i, j);
    return text.find_first_not_of("-0.") == std::string::npos;
}

// Row i (SIZE_MAX: the "⋮" row) over the columns ci (SIZE_MAX: the "…" column), shaded as asked.
std::string matrix_row(const MatrixView& m, const TerminalOptions& opt, std::size_t i, const std::vector<std::size_t>& ci,
                       const std::vector<std::size_t>& col_w, std::size_t label_w, bool& rounded_away) {
    const auto width_of = [&](std::size_t j) { return j == SIZE_MAX ? std::size_t{1} : col_w[j]; };
    std::string line = pad_right(i == SIZE_MAX ? "⋮" : fit(m.rows[i], kLabelMax), label_w);
    for (std::size_t j : ci) {
        line += "  ";
        if (i == SIZE_MAX || j == SIZE_MAX) {
            line += pad_left(i == SIZE_MAX && j == SIZE_MAX ? "⋱" : (i == SIZE_MAX ? "⋮" : "…"), width_of(j));
            continue;
        }
        rounded_away = rounded_away || hidden_by_rounding(m, opt, i, j);
        const std::string text = pad_left(cell_text(m, opt, i, j), width_of(j));
        const bool hidden = m.mask && !(*m.mask)(i, j);
        const bool dropped = m.dropout && dropped_cell(*m.dropout, i, j);
        if (opt.colour != ColourDepth::none && m.scale && m.values && !hidden && !dropped &&
            std::isfinite((*m.values)(i, j))) {
            line += cell_escape(m.scale->colour((*m.values)(i, j)), opt.colour) + text + "\x1b[0m";
        } else if (opt.colour != ColourDepth::none && (hidden || dropped || (m.values && std::isinf((*m.values)(i, j))))) {
            line += "\x1b[2m" + text + "\x1b[0m";
        } else {
            line += text;
        }
    }
    return line;
}

}  // namespace

// Which indices to print: all, or `edge` at each end around an ellipsis (SIZE_MAX marks the ellipsis).
std::vector<std::size_t> pick(std::size_t n, std::size_t max, bool full, std::size_t edge) {
    std::vector<std::size_t> idx;
    if (full || n <= max || 2 * edge >= n) {
        for (std::size_t i = 0; i < n; ++i) idx.push_back(i);
        return idx;
    }
    edge = std::max<std::size_t>(1, edge);
    for (std::size_t i = 0; i < edge; ++i) idx.push_back(i);
    idx.push_back(SIZE_MAX);
    for (std::size_t i = n - edge; i < n; ++i) idx.push_back(i);
    return idx;
}

// A matrix as a block: its title, the column labels, and rows made as they are printed. Summarised
// to kMaxRows rows and the terminal's width unless --full.
Block render_matrix(const MatrixView& m, const TerminalOptions& opt) {
    const std::size_t nr = m.values ? m.values->shape(0) : m.as_mask->shape(0);
    const std::size_t nc = m.values ? m.values->shape(1) : m.as_mask->shape(1);
    const auto ri = pick(nr, kMaxRows, opt.full);
    const auto cell = [&](std::size_t i, std::size_t j) { return cell_text(m, opt, i, j); };
    // 1. widths: the row labels, and one width for every cell (over the rows printed)
    std::size_t label_w = 0;
    for (std::size_t i : ri)
        if (i != SIZE_MAX) label_w = std::max(label_w, display_width(fit(m.rows[i], kLabelMax)));
    std::vector<std::size_t> col_w(nc, 1);
    for (std::size_t j = 0; j < nc; ++j) {
        col_w[j] = std::max(col_w[j], display_width(fit(m.cols[j], kLabelMax)));
        for (std::size_t i : ri)
            if (i != SIZE_MAX) col_w[j] = std::max(col_w[j], display_width(cell(i, j)));
    }
    // 2. as many columns as the terminal holds: all, or the most at each end around a "…" (at least kEdge)
    std::vector<std::size_t> ci = pick(nc, nc, true);
    if (!opt.full) {
        std::size_t used = label_w, all = label_w;
        for (std::size_t j = 0; j < nc; ++j) all += 2 + col_w[j];
        if (all > opt.width) {
            std::size_t k = 0;
            used += 3;  // the "…" column
            while (k < nc / 2 && used + 4 + col_w[k] + col_w[nc - 1 - k] <= opt.width)
                used += 4 + col_w[k] + col_w[nc - 1 - k], ++k;
            ci = pick(nc, 0, false, std::max(k, kEdge));
        }
    }
    Block b;
    b.add(m.title + " (" + std::to_string(nr) + "×" + std::to_string(nc) + ")");
    std::string head = std::string(label_w, ' ');
    for (std::size_t j : ci) head += "  " + pad_left(j == SIZE_MAX ? "…" : fit(m.cols[j], kLabelMax), j == SIZE_MAX ? 1 : col_w[j]);
    b.add(head);
    // 3. the rows, made when printed: the view, the widths and the options are the body's own copies
    b.body = std::make_shared<Block::Body>();
    b.body->rows = ri.size();
    std::size_t row_w = label_w;
    for (std::size_t j : ci) row_w += 2 + (j == SIZE_MAX ? 1 : col_w[j]);
    b.width = std::max(b.width, row_w);
    Block::Body* body = b.body.get();
    b.body->line = [m, opt, ri, ci, col_w = std::move(col_w), label_w, row_w, body](std::size_t r) {
        return std::pair{matrix_row(m, opt, ri[r], ci, col_w, label_w, body->rounded_away), row_w};
    };
    return b;
}

// Blocks left to right while they fit the width (4 columns apart), then the next row of blocks.
void place(std::ostream& out, const std::vector<Block>& blocks, std::size_t width) {
    constexpr std::size_t kGap = 4;
    for (std::size_t a = 0; a < blocks.size();) {
        std::size_t b = a + 1, used = blocks[a].width;
        while (b < blocks.size() && used + kGap + blocks[b].width <= width) used += kGap + blocks[b++].width;
        std::size_t lines = 0;
        for (std::size_t k = a; k < b; ++k) lines = std::max(lines, blocks[k].size());
        for (std::size_t l = 0; l < lines; ++l) {
            std::string row;
            std::size_t pending = 0;  // spaces owed before the next block's text
            for (std::size_t k = a; k < b; ++k) {
                if (k > a) pending += kGap;
                if (l < blocks[k].size()) {
                    const auto [text, w] = blocks[k].line(l);
                    row += std::string(pending, ' ') + text;
                    pending = blocks[k].width - w;
                } else {
                    pending += blocks[k].width;
                }
            }
            out << row << "\n";
        }
        out << "\n";
        a = b;
    }
}

// Below matrices where a value that is not 0 printed as 0, say so.
void note_rounding(std::ostream& out, const std::vector<Block>& blocks, const TerminalOptions& opt) {
    for (const Block& b : blocks)
        if (b.rounded_away()) {
            out << "(values that are not 0 print as 0 at --precision " << opt.precision
                << "; raise --precision to see them)\n\n";
            return;
        }
}

// One matrix on its own (the positional table).
void print_matrix(std::ostream& out, const MatrixView& m, const TerminalOptions& opt) {
    const std::vector<Block> blocks = {render_matrix(m, opt)};
    place(out, blocks, opt.width);
    note_rounding(out, blocks, opt);
}

std::vector<std::string> dims(std::size_t n) {
    std::vector<std::string> d;
    for (std::size_t i = 0; i < n; ++i) d.push_back("d" + std::to_string(i));
    return d;
}

}  // namespace attn::render::text

namespace attn::render {

std::size_t display_width(std::string_view s) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < s.size();) {
        char32_t c = 0;
        const std::size_t n = utf8_decode(s, i, c);
        w += n ? text::char_width(c) : 1;
        i += n ? n : 1;
    }
    return w;
}

int xterm256(Rgb c) {
    // 1. the nearest point of the 6x6x6 cube (levels 0, 95, 135, 175, 215, 255)
    static constexpr int kLevel[6] = {0, 95, 135, 175, 215, 255};
    const auto q = [](int v) { return v < 48 ? 0 : v < 115 ? 1 : (v - 35) / 40; };
    const int r = q(c.r), g = q(c.g), b = q(c.b);
    const auto dist = [&](int R, int G, int B) {
        return (R - c.r) * (R - c.r) + (G - c.g) * (G - c.g) + (B - c.b) * (B - c.b);
    };
    const int cube = 16 + 36 * r + 6 * g + b, cube_d = dist(kLevel[r], kLevel[g], kLevel[b]);
    // 2. the nearest grey of the ramp 232-255 (8, 18, ..., 238)
    const int avg = (c.r + c.g + c.b) / 3;
    const int gi = std::clamp((avg - 3) / 10, 0, 23), gv = 8 + 10 * gi;
    return dist(gv, gv, gv) < cube_d ? 232 + gi : cube;
}

std::string cell_escape(Rgb c, ColourDepth depth) {
    const bool dark = wants_dark_text(c);
    if (depth == ColourDepth::ansi256)
        return "\x1b[48;5;" + std::to_string(xterm256(c)) + (dark ? ";38;5;16m" : ";38;5;231m");
    return "\x1b[48;2;" + std::to_string(c.r) + ';' + std::to_string(c.g) + ';' + std::to_string(c.b) +
           (dark ? ";38;2;0;0;0m" : ";38;2;255;255;255m");
}

}  // namespace attn::render
