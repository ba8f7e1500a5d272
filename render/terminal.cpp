#include "render/terminal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "data/tokenize.h"
#include "render/colormaps.h"
#include "render/json.h"

namespace attn::render {
namespace {

constexpr std::size_t kLabelMax = 14;   // label column width cap
constexpr std::size_t kEdge = 3;        // rows/columns kept at each end of a summarised matrix
constexpr std::size_t kMaxRows = 24, kMaxCols = 12;

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

// Cuts a label to at most `width` columns, ending in "…" when cut.
std::string fit(const std::string& s, std::size_t width) {
    if (display_width(s) <= width) return s;
    std::string out;
    std::size_t w = 0;
    for (std::size_t i = 0; i < s.size();) {
        char32_t c = 0;
        std::size_t n = utf8_decode(s, i, c);
        if (n == 0) n = 1, c = '?';
        const std::size_t cw = char_width(c);
        if (w + cw + 1 > width) break;
        out.append(s, i, n);
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

// Viridis, the PNGs' map, for shading a terminal cell by a weight in [0, 1].
void viridis_rgb(float x, int& r, int& g, int& b) {
    const Rgb c = kViridis[static_cast<std::size_t>(std::lround(std::clamp(x, 0.0f, 1.0f) * 255.0f))];
    r = c.r, g = c.g, b = c.b;
}

// Which indices to print: all, or the ends around an ellipsis (SIZE_MAX marks the ellipsis).
std::vector<std::size_t> pick(std::size_t n, std::size_t max, bool full) {
    std::vector<std::size_t> idx;
    if (full || n <= max) {
        for (std::size_t i = 0; i < n; ++i) idx.push_back(i);
        return idx;
    }
    for (std::size_t i = 0; i < kEdge; ++i) idx.push_back(i);
    idx.push_back(SIZE_MAX);
    for (std::size_t i = n - kEdge; i < n; ++i) idx.push_back(i);
    return idx;
}

struct MatrixView {
    std::string title;
    const Mat* values = nullptr;
    const Mask* mask = nullptr;        // hidden cells print as "·"
    const Mask* as_mask = nullptr;     // print this mask itself as 1 / ·
    std::vector<std::string> rows, cols;
    bool shade = false;                // colour by value in [0, 1]
};

void print_matrix(std::ostringstream& out, const MatrixView& m, const TerminalOptions& opt) {
    const std::size_t nr = m.values ? m.values->shape(0) : m.as_mask->shape(0);
    const std::size_t nc = m.values ? m.values->shape(1) : m.as_mask->shape(1);
    const auto ri = pick(nr, kMaxRows, opt.full), ci = pick(nc, kMaxCols, opt.full);
    auto cell = [&](std::size_t i, std::size_t j) -> std::string {
        if (m.as_mask) return (*m.as_mask)(i, j) ? "1" : "·";
        if (m.mask && !(*m.mask)(i, j)) return "·";
        const float v = (*m.values)(i, j);
        if (std::isnan(v)) return "nan";
        char buf[48];
        std::snprintf(buf, sizeof buf, "%.*f", opt.precision, static_cast<double>(v));
        return buf;
    };
    std::size_t label_w = 0;
    for (std::size_t i : ri)
        if (i != SIZE_MAX) label_w = std::max(label_w, display_width(fit(m.rows[i], kLabelMax)));
    std::size_t cell_w = 1;
    for (std::size_t j : ci) {
        if (j == SIZE_MAX) continue;
        cell_w = std::max(cell_w, display_width(fit(m.cols[j], kLabelMax)));
        for (std::size_t i : ri)
            if (i != SIZE_MAX) cell_w = std::max(cell_w, cell(i, j).size());
    }
    out << m.title << " (" << nr << "×" << nc << ")\n";
    out << std::string(label_w, ' ');
    for (std::size_t j : ci) out << "  " << pad_left(j == SIZE_MAX ? "…" : fit(m.cols[j], kLabelMax), cell_w);
    out << "\n";
    for (std::size_t i : ri) {
        out << pad_right(i == SIZE_MAX ? "⋮" : fit(m.rows[i], kLabelMax), label_w);
        for (std::size_t j : ci) {
            out << "  ";
            if (i == SIZE_MAX || j == SIZE_MAX) {
                out << pad_left(i == SIZE_MAX && j == SIZE_MAX ? "⋱" : (i == SIZE_MAX ? "⋮" : "…"), cell_w);
                continue;
            }
            const std::string text = pad_left(cell(i, j), cell_w);
            const bool hidden = (m.mask && !(*m.mask)(i, j));
            if (opt.color && m.shade && !hidden) {
                int r, g, b;
                viridis_rgb((*m.values)(i, j), r, g, b);
                const bool light = 0.299 * r + 0.587 * g + 0.114 * b > 140;
                out << "\x1b[48;2;" << r << ';' << g << ';' << b << (light ? ";38;2;0;0;0m" : ";38;2;255;255;255m")
                    << text << "\x1b[0m";
            } else if (opt.color && hidden) {
                out << "\x1b[2m" << text << "\x1b[0m";
            } else {
                out << text;
            }
        }
        out << "\n";
    }
    out << "\n";
}

std::vector<std::string> dims(std::size_t n) {
    std::vector<std::string> d;
    for (std::size_t i = 0; i < n; ++i) d.push_back("d" + std::to_string(i));
    return d;
}

}  // namespace

const std::vector<std::string>& showable_matrices() {
    static const std::vector<std::string> names = {"scores",  "mask",   "weights", "dropped", "context",
                                                   "queries", "keys",   "values",  "output"};
    return names;
}

std::size_t display_width(std::string_view s) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < s.size();) {
        char32_t c = 0;
        const std::size_t n = utf8_decode(s, i, c);
        w += n ? char_width(c) : 1;
        i += n ? n : 1;
    }
    return w;
}

std::string terminal_view(const Trace& t, const TerminalOptions& opt) {
    std::ostringstream out;
    // 1. what ran
    const std::size_t T = t.tokens.size(), S = t.source_tokens.size();
    out << "attn · " << t.kind << " · " << T << " token" << (T == 1 ? "" : "s");
    if (t.has_source) out << " attending over " << S << " source token" << (S == 1 ? "" : "s");
    out << "\n";
    auto list = [&](const char* label, const std::vector<std::string>& tokens) {
        out << label;
        const auto idx = pick(tokens.size(), 40, opt.full);
        for (std::size_t k = 0; k < idx.size(); ++k)
            out << (k ? " | " : "") << (idx[k] == SIZE_MAX ? std::string("…") : tokens[idx[k]]);
        out << "\n";
    };
    list("tokens:   ", t.tokens);
    if (t.has_source) list("source:   ", t.source_tokens);
    out << "settings: ";
    bool first = true;
    const Json settings = config_json(t.config);
    for (const auto& [key, value] : settings.items()) {
        out << (first ? "" : " ") << key << "=" << (value.is_string() ? value.get<std::string>() : value.dump());
        first = false;
    }
    out << "\n\n";
    // 2. the matrices asked for, head by head
    for (const auto& h : t.heads) {
        const std::string head = t.heads.size() > 1 ? " · head " + std::to_string(h.head) + " · kv " +
                                                          std::to_string(h.kv_head)
                                                    : "";
        for (const auto& name : opt.show) {
            MatrixView m;
            m.rows = t.tokens;
            m.cols = t.source_tokens;
            m.title = name + head;
            if (name == "scores" && h.scores.size()) {
                m.values = &h.scores, m.mask = &h.mask;
                m.title += " (raw q·k; scaled by " + std::to_string(h.scale).substr(0, 6) + " before the softmax)";
            } else if (name == "mask" && h.mask.size()) {
                m.as_mask = &h.mask;
                m.title += " (1 = visible, · = hidden)";
            } else if (name == "weights" && h.weights.size()) {
                m.values = &h.weights, m.mask = &h.mask, m.shade = true;
                if (h.mask.size() && std::find(h.mask.begin(), h.mask.end(), 0) != h.mask.end())
                    m.title += " (· = hidden, weight 0)";
            } else if (name == "dropped" && h.dropped_weights.size()) {
                m.values = &h.dropped_weights, m.mask = &h.mask, m.shade = true;
            } else if (name == "context") {
                m.values = &h.context, m.cols = dims(h.context.shape(1));
            } else if (name == "queries") {
                m.values = &h.queries, m.cols = dims(h.queries.shape(1));
            } else if (name == "keys" || name == "values") {
                m.values = name == "keys" ? &h.keys : &h.values;
                m.rows = t.source_tokens, m.cols = dims(m.values->shape(1));
            } else {
                continue;
            }
            print_matrix(out, m, opt);
        }
    }
    if (std::find(opt.show.begin(), opt.show.end(), "output") != opt.show.end()) {
        MatrixView m;
        m.title = "output";
        m.values = &t.output, m.rows = t.tokens, m.cols = dims(t.output.shape(1));
        print_matrix(out, m, opt);
    }
    // 3. what the run measured
    for (const auto& d : t.diagnostics) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3g", d.value);
        if (d.name == "flash_max_abs_diff")
            out << "flash: largest difference from the unblocked computation: " << buf << " (" << t.tiles.size()
                << " tiles visited)\n";
        else if (d.name == "renorm_max_abs_diff")
            out << "renorm: largest difference from -inf masking: " << buf << "\n";
        else
            out << d.name << ": " << buf << "\n";
    }
    if (!t.empty_rows.empty())
        out << "note: " << t.empty_rows.size() << " query row(s) see no key; their weights and context are 0\n";
    return out.str();
}

}  // namespace attn::render
