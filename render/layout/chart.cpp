#include "render/layout/chart.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

#include "render/view/colour_scale.h"
#include "render/view/numbers.h"

namespace attn::render::chart {

const Rgb kSeriesColours[4] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40}};  // tab10

namespace {

// The y axis always has a tick: the round ones, or the bottom value alone when the span is empty.
std::vector<Tick> ticks(double lo, double hi) {
    std::vector<Tick> out = ticks_for(lo, hi);
    if (out.empty()) out.push_back({lo, trimmed(lo, 3)});
    return out;
}

Rgb colour_at(const Colormap& cmap, double v, double lo, double hi) {
    return cmap[static_cast<std::size_t>(colour_index(static_cast<float>(v), static_cast<float>(lo), static_cast<float>(hi)))];
}

int label_width(Font& font, const std::vector<std::string>& labels) {
    int w = 0;
    for (const auto& s : labels) w = std::max(w, font.text_width(font.fit(s, kTickPx, 120), kTickPx));
    return w;
}

// A 2 px line from (x0, y0) to (x1, y1).
void line(Surface& cv, double x0, double y0, double x1, double y1, Rgb c) { cv.line(x0, y0, x1, y1, c); }

}  // namespace

int heatmap_width(Font& font, const Heatmap& h) {
    return std::max(label_width(font, h.row_labels) + 8 + h.cell * static_cast<int>(h.values->shape(1)),
                    h.title.empty() ? 0 : font.text_width(h.title, kPanelTitlePx));
}

int heatmap_height(Font& font, const Heatmap& h) {
    const int col_labels = h.col_labels.empty() ? 0 : label_width(font, h.col_labels) + 8;
    return (h.title.empty() ? 0 : font.line_height(kPanelTitlePx) + 6) + col_labels + h.cell * static_cast<int>(h.values->shape(0));
}

void draw_heatmap(Surface& cv, Font& font, const Heatmap& h, int x, int y) {
    const Mat& m = *h.values;
    const int R = static_cast<int>(m.shape(0)), C = static_cast<int>(m.shape(1));
    const int lw = label_width(font, h.row_labels), hx = x + lw + 8;
    if (!h.title.empty()) {
        cv.text(font, h.title, kPanelTitlePx, x, y, Align::Start, Align::Start, kInk, TextRole::PanelTitle);
        y += font.line_height(kPanelTitlePx) + 6;
    }
    // 1. column labels, turned, reading upwards
    if (!h.col_labels.empty()) {
        const int ch = label_width(font, h.col_labels) + 8;
        for (int j = 0; j < C && j < static_cast<int>(h.col_labels.size()); ++j)
            cv.text(font, font.fit(h.col_labels[std::size_t(j)], kTickPx, 120), kTickPx, hx + j * h.cell + h.cell / 2 - font.line_height(kTickPx) / 2,
                    y + ch - 4 - font.text_width(font.fit(h.col_labels[std::size_t(j)], kTickPx, 120), kTickPx), Align::Start, Align::Start, kInk, TextRole::Tick, true);
        y += ch;
    }
    // 2. cells, row labels, values
    const float value_px = std::min(12.0f, float(h.cell) * 0.3f);
    for (int i = 0; i < R; ++i) {
        if (i < static_cast<int>(h.row_labels.size()))
            cv.text(font, font.fit(h.row_labels[std::size_t(i)], kTickPx, 120), kTickPx, hx - 6, y + i * h.cell + h.cell / 2,
                    Align::End, Align::Centre, kInk, TextRole::Tick);
        for (int j = 0; j < C; ++j) {
            const bool hidden = h.visible && (*h.visible)(std::size_t(i), std::size_t(j)) == 0;
            const double v = m(std::size_t(i), std::size_t(j));
            if (hidden) {
                cv.fill(hx + j * h.cell, y + i * h.cell, h.cell, h.cell, kHiddenBase);
                cv.hatch(hx + j * h.cell, y + i * h.cell, h.cell, h.cell, kHiddenLine, kHatch, true);
                continue;
            }
            const Rgb c = colour_at(*h.cmap, v, h.lo, h.hi);
            cv.fill(hx + j * h.cell, y + i * h.cell, h.cell, h.cell, c);
            if (h.print_values && h.cell >= 26)
                cv.text(font, fixed(v, 2), value_px, hx + j * h.cell + h.cell / 2, y + i * h.cell + h.cell / 2,
                        Align::Centre, Align::Centre, wants_dark_text(c) ? kInk : kBackground, TextRole::Value);
        }
    }
    cv.frame(hx - 1, y - 1, C * h.cell + 2, R * h.cell + 2, 1, kFrame);
}

void draw_colour_bar(Surface& cv, Font& font, const Colormap& cmap, double lo, double hi, int x, int y, int h) {
    for (int r = 0; r < h; ++r) cv.fill(x, y + r, 16, 1, colour_at(cmap, double(h - 1 - r) / std::max(1, h - 1), 0.0, 1.0));
    cv.frame(x - 1, y - 1, 18, h + 2, 1, kFrame);
    for (const Tick& t : ticks(lo, hi)) {
        const int ty = y + h - 1 - static_cast<int>(std::lround((t.value - lo) / (hi - lo) * (h - 1)));
        cv.fill(x + 17, ty, 4, 1, kSoftInk);
        cv.text(font, t.label, kTickPx, x + 24, ty, Align::Start, Align::Centre, kInk, TextRole::Tick);
    }
}

namespace {

// How many of the series' points (8 per line segment, every bar's top and base) fall in the box, in pixels.
template <class SX, class SY>
std::size_t points_in(const Chart& c, SX sx, SY sy, double y0, int bx, int by, int bw, int bh) {
    std::size_t hits = 0;
    const auto in = [&](double px, double py) { return px >= bx - 4 && px <= bx + bw + 4 && py >= by - 4 && py <= by + bh + 4; };
    for (const auto& s : c.series)
        for (std::size_t k = 0; k < s.x.size(); ++k) {
            hits += in(sx(s.x[k]), sy(s.y[k]));
            if (s.steps) hits += in(sx(s.x[k]), sy(y0));
            if (k > 0 && !s.steps)
                for (int f = 1; f < 8; ++f)
                    hits += in(sx(s.x[k - 1] + (s.x[k] - s.x[k - 1]) * f / 8.0), sy(s.y[k - 1] + (s.y[k] - s.y[k - 1]) * f / 8.0));
        }
    return hits;
}

}  // namespace

void draw_chart(Surface& cv, Font& font, const Chart& c, int x, int y, int w, int h) {
    // 1. the data's ranges
    double x0 = INFINITY, x1 = -INFINITY, y0 = c.y_min.value_or(0.0), y1 = -INFINITY;
    for (const auto& s : c.series)
        for (std::size_t k = 0; k < s.x.size(); ++k) {
            x0 = std::min(x0, s.x[k]), x1 = std::max(x1, s.x[k]);
            if (!c.y_min) y0 = std::min(y0, s.y[k]);
            y1 = std::max(y1, s.y[k]);
        }
    bool bars = false;
    for (const auto& s : c.series) bars |= s.steps;
    if (bars) x0 -= 0.5, x1 += 0.5;  // room for the first and last groups of bars
    if (!(x1 > x0)) x1 = x0 + 1;
    if (!(y1 > y0)) y1 = y0 + 1;
    const double pad = 0.05 * (y1 - y0);
    y1 += pad;
    if (y0 < 0) y0 -= pad;
    // 2. the plot's box and the legend's size
    const int th = c.title.empty() ? 0 : font.line_height(kPanelTitlePx) + 8;
    const int lh = font.line_height(kTickPx);
    int legend_w = 0, legend_n = 0;
    for (const auto& s : c.series)
        if (!s.label.empty()) legend_w = std::max(legend_w, font.text_width(s.label, kTickPx)), ++legend_n;
    const int bw = legend_w + 40, bh = legend_n * (lh + 4) + 8;
    const auto tick_width = [&](double lo, double hi) {
        int tw = 0;
        for (const Tick& t : ticks(lo, hi)) tw = std::max(tw, font.text_width(t.label, kTickPx));
        return tw;
    };
    int px = x + lh + 6 + tick_width(y0, y1) + 8;
    const int py = y + th, ph = h - th - 2 * lh - 14;
    int pw = w - (px - x) - 10;
    // 3. the legend goes in the first corner (top-left, top-right, bottom-right, bottom-left) that covers
    // none of the series' points; when every corner would, the y range grows until the top band is free.
    std::pair<int, int> at{px + 4, py + 4};
    if (legend_n) {
        const auto corners = [&] {
            return std::array<std::pair<int, int>, 4>{{{px + 4, py + 4}, {px + pw - 4 - bw, py + 4},
                                                       {px + pw - 4 - bw, py + ph - 4 - bh}, {px + 4, py + ph - 4 - bh}}};
        };
        const auto sx = [&](double v) { return px + (v - x0) / (x1 - x0) * pw; };
        const auto sy = [&](double v) { return py + ph - (v - y0) / (y1 - y0) * ph; };
        bool free = false;
        for (const auto& corner : corners())
            if (points_in(c, sx, sy, y0, corner.first, corner.second, bw, bh) == 0) {
                at = corner, free = true;
                break;
            }
        if (!free && ph > bh + 24) {  // the data's top maps to py + bh + 16: y1 = y0 + (top − y0)·ph / (ph − bh − 16)
            const double top = y1 - pad;
            y1 = y0 + (top - y0) * double(ph) / double(ph - bh - 16);
            px = x + lh + 6 + tick_width(y0, y1) + 8, pw = w - (px - x) - 10;
            at = {px + 4, py + 4};
        }
    }
    auto sx = [&](double v) { return px + (v - x0) / (x1 - x0) * pw; };
    auto sy = [&](double v) { return py + ph - (v - y0) / (y1 - y0) * ph; };
    // 4. the frame: title, axis labels, ticks
    if (!c.title.empty()) cv.text(font, c.title, kPanelTitlePx, x, y, Align::Start, Align::Start, kInk, TextRole::PanelTitle);
    for (const Tick& t : ticks(y0, y1)) {
        const int ty = static_cast<int>(std::lround(sy(t.value)));
        cv.fill(px, ty, pw, 1, Rgb{232, 232, 232});
        cv.text(font, t.label, kTickPx, px - 6, ty, Align::End, Align::Centre, kInk, TextRole::Tick);
    }
    for (const Tick& t : ticks(bars ? x0 + 0.5 : x0, bars ? x1 - 0.5 : x1)) {
        const int tx = static_cast<int>(std::lround(sx(t.value)));
        cv.fill(tx, py + ph, 1, 5, kSoftInk);
        cv.text(font, t.label, kTickPx, tx, py + ph + 7, Align::Centre, Align::Start, kInk, TextRole::Tick);
    }
    cv.frame(px, py, pw + 1, ph + 1, 1, kFrame);
    cv.text(font, c.x_label, kTickPx, px + pw / 2, py + ph + 9 + lh, Align::Centre, Align::Start, kSoftInk, TextRole::Tick);
    cv.text(font, c.y_label, kTickPx, x, py + ph / 2 - font.text_width(c.y_label, kTickPx) / 2, Align::Start,
            Align::Start, kSoftInk, TextRole::Tick, true);
    // 5. the series, then the legend
    for (const auto& s : c.series)
        for (std::size_t k = 0; k < s.x.size(); ++k) {
            if (s.steps) {
                const double bar = std::max(2.0, 0.8 * pw / std::max(1.0, x1 - x0) / double(c.series.size()));
                const auto idx = static_cast<double>(&s - c.series.data());
                const int bx = static_cast<int>(std::lround(sx(s.x[k]) - bar * double(c.series.size()) / 2.0 + idx * bar));
                const int top = static_cast<int>(std::lround(sy(s.y[k]))), base = static_cast<int>(std::lround(sy(y0)));
                cv.fill(bx, top, static_cast<int>(std::max(1.0, bar - 1)), base - top, s.colour);
            } else if (k > 0) {
                line(cv, sx(s.x[k - 1]), sy(s.y[k - 1]), sx(s.x[k]), sy(s.y[k]), s.colour);
            }
        }
    if (!legend_n) return;
    cv.fill(at.first, at.second, bw, bh, kBackground);
    cv.frame(at.first, at.second, bw, bh, 1, Rgb{200, 200, 200});
    int ly = at.second + 4;
    for (const auto& s : c.series) {
        if (s.label.empty()) continue;
        cv.fill(at.first + 6, ly + lh / 2 - 2, 18, 4, s.colour);
        cv.text(font, s.label, kTickPx, at.first + 30, ly + lh / 2, Align::Start, Align::Centre, kInk, TextRole::Tick);
        ly += lh + 4;
    }
}

int heading_height(Font& font) { return kMargin + font.line_height(kTitlePx) + 4 + font.line_height(kSubtitlePx) + 14; }

int draw_heading(Surface& cv, Font& font, const std::string& title, const std::string& subtitle) {
    cv.text(font, title, kTitlePx, kMargin, kMargin, Align::Start, Align::Start, kInk, TextRole::Title);
    cv.text(font, subtitle, kSubtitlePx, kMargin, kMargin + font.line_height(kTitlePx) + 4, Align::Start, Align::Start,
            kSoftInk, TextRole::Title);
    return heading_height(font);
}

}  // namespace attn::render::chart
