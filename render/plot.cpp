#include "render/plot.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace attn::render::plot {

const Rgb kSeriesColours[4] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40}};  // tab10

std::string number(double v, int decimals) {
    if (!std::isfinite(v)) return v != v ? "nan" : v < 0 ? "\xE2\x88\x92inf" : "inf";
    std::array<char, 64> buf{};
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed, decimals);
    if (r.ec != std::errc()) return "?";
    std::string s(buf.data(), r.ptr);
    if (!s.empty() && s[0] == '-') {
        if (s.find_first_of("123456789") == std::string::npos) s.erase(0, 1);
        else s.replace(0, 1, "\xE2\x88\x92");
    }
    return s;
}

std::string plot_number(double v) {
    std::string s = number(v, 3);
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

namespace {

struct Tick {
    double value;
    std::string label;
};

std::vector<Tick> ticks(double lo, double hi) {  // about five, 1, 2, 5 × 10^k apart
    std::vector<Tick> out;
    const double span = hi - lo;
    if (!(span > 0) || !std::isfinite(span)) return {{lo, plot_number(lo)}};
    const double raw = span / 5.0, mag = std::pow(10.0, std::floor(std::log10(raw))), n = raw / mag;
    const double step = (n < 1.5 ? 1.0 : n < 3.0 ? 2.0 : n < 7.0 ? 5.0 : 10.0) * mag;
    const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
    for (auto k = static_cast<long long>(std::ceil(lo / step - 1e-9)); k <= static_cast<long long>(std::floor(hi / step + 1e-9)); ++k)
        out.push_back({double(k) * step, number(double(k) * step, decimals)});
    return out;
}

Rgb colour_at(const Colormap& cmap, double f) {
    const double c = std::clamp(std::isfinite(f) ? f : 0.0, 0.0, 1.0);
    return cmap[static_cast<std::size_t>(std::lround(c * 255.0))];
}

bool dark(Rgb c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b < 140.0; }

int label_width(Font& font, const std::vector<std::string>& labels) {
    int w = 0;
    for (const auto& s : labels) w = std::max(w, font.text_width(font.fit(s, kLabelPx, 120), kLabelPx));
    return w;
}

// A 2 px line from (x0, y0) to (x1, y1).
void line(Surface& cv, double x0, double y0, double x1, double y1, Rgb c) { cv.line(x0, y0, x1, y1, c); }

}  // namespace

int heatmap_width(Font& font, const Heatmap& h) {
    return std::max(label_width(font, h.row_labels) + 8 + h.cell * static_cast<int>(h.values->shape(1)),
                    h.title.empty() ? 0 : font.text_width(h.title, kPanelPx));
}

int heatmap_height(Font& font, const Heatmap& h) {
    const int col_labels = h.col_labels.empty() ? 0 : label_width(font, h.col_labels) + 8;
    return (h.title.empty() ? 0 : font.line_height(kPanelPx) + 6) + col_labels + h.cell * static_cast<int>(h.values->shape(0));
}

void draw_heatmap(Surface& cv, Font& font, const Heatmap& h, int x, int y) {
    const Mat& m = *h.values;
    const int R = static_cast<int>(m.shape(0)), C = static_cast<int>(m.shape(1));
    const int lw = label_width(font, h.row_labels), hx = x + lw + 8;
    if (!h.title.empty()) {
        cv.text(font, h.title, kPanelPx, x, y, Align::Start, Align::Start, kInk, TextRole::PanelTitle);
        y += font.line_height(kPanelPx) + 6;
    }
    // 1. column labels, turned, reading upwards
    if (!h.col_labels.empty()) {
        const int ch = label_width(font, h.col_labels) + 8;
        for (int j = 0; j < C && j < static_cast<int>(h.col_labels.size()); ++j)
            cv.text(font, font.fit(h.col_labels[std::size_t(j)], kLabelPx, 120), kLabelPx, hx + j * h.cell + h.cell / 2 - font.line_height(kLabelPx) / 2,
                    y + ch - 4 - font.text_width(font.fit(h.col_labels[std::size_t(j)], kLabelPx, 120), kLabelPx), Align::Start, Align::Start, kInk, TextRole::Tick, true);
        y += ch;
    }
    // 2. cells, row labels, values
    const float value_px = std::min(12.0f, float(h.cell) * 0.3f);
    for (int i = 0; i < R; ++i) {
        if (i < static_cast<int>(h.row_labels.size()))
            cv.text(font, font.fit(h.row_labels[std::size_t(i)], kLabelPx, 120), kLabelPx, hx - 6, y + i * h.cell + h.cell / 2,
                    Align::End, Align::Centre, kInk, TextRole::Tick);
        for (int j = 0; j < C; ++j) {
            const bool hidden = h.visible && (*h.visible)(std::size_t(i), std::size_t(j)) == 0;
            const double v = m(std::size_t(i), std::size_t(j));
            const Rgb c = hidden ? kHidden : colour_at(*h.cmap, (v - h.lo) / (h.hi - h.lo));
            cv.fill(hx + j * h.cell, y + i * h.cell, h.cell, h.cell, c);
            if (h.print_values && !hidden && h.cell >= 26)
                cv.text(font, number(v, 2), value_px, hx + j * h.cell + h.cell / 2, y + i * h.cell + h.cell / 2,
                        Align::Centre, Align::Centre, dark(c) ? kWhite : kInk, TextRole::Value);
        }
    }
    cv.frame(hx - 1, y - 1, C * h.cell + 2, R * h.cell + 2, 1, kFrame);
}

void draw_colour_bar(Surface& cv, Font& font, const Colormap& cmap, double lo, double hi, int x, int y, int h) {
    for (int r = 0; r < h; ++r) cv.fill(x, y + r, 16, 1, colour_at(cmap, double(h - 1 - r) / std::max(1, h - 1)));
    cv.frame(x - 1, y - 1, 18, h + 2, 1, kFrame);
    for (const Tick& t : ticks(lo, hi)) {
        const int ty = y + h - 1 - static_cast<int>(std::lround((t.value - lo) / (hi - lo) * (h - 1)));
        cv.fill(x + 17, ty, 4, 1, kSoftInk);
        cv.text(font, t.label, kLabelPx, x + 24, ty, Align::Start, Align::Centre, kInk, TextRole::Tick);
    }
}

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
    // 2. the frame: title, axis labels, ticks
    const int th = c.title.empty() ? 0 : font.line_height(kPanelPx) + 8;
    if (!c.title.empty()) cv.text(font, c.title, kPanelPx, x, y, Align::Start, Align::Start, kInk, TextRole::PanelTitle);
    int tick_w = 0;
    for (const Tick& t : ticks(y0, y1)) tick_w = std::max(tick_w, font.text_width(t.label, kLabelPx));
    const int lh = font.line_height(kLabelPx);
    const int px = x + lh + 6 + tick_w + 8, py = y + th, pw = w - (px - x) - 10, ph = h - th - 2 * lh - 14;
    auto sx = [&](double v) { return px + (v - x0) / (x1 - x0) * pw; };
    auto sy = [&](double v) { return py + ph - (v - y0) / (y1 - y0) * ph; };
    for (const Tick& t : ticks(y0, y1)) {
        const int ty = static_cast<int>(std::lround(sy(t.value)));
        cv.fill(px, ty, pw, 1, Rgb{232, 232, 232});
        cv.text(font, t.label, kLabelPx, px - 6, ty, Align::End, Align::Centre, kInk, TextRole::Tick);
    }
    for (const Tick& t : ticks(bars ? x0 + 0.5 : x0, bars ? x1 - 0.5 : x1)) {
        const int tx = static_cast<int>(std::lround(sx(t.value)));
        cv.fill(tx, py + ph, 1, 5, kSoftInk);
        cv.text(font, t.label, kLabelPx, tx, py + ph + 7, Align::Centre, Align::Start, kInk, TextRole::Tick);
    }
    cv.frame(px, py, pw + 1, ph + 1, 1, kFrame);
    cv.text(font, c.x_label, kLabelPx, px + pw / 2, py + ph + 9 + lh, Align::Centre, Align::Start, kSoftInk, TextRole::Tick);
    cv.text(font, c.y_label, kLabelPx, x, py + ph / 2 - font.text_width(c.y_label, kLabelPx) / 2, Align::Start,
            Align::Start, kSoftInk, TextRole::Tick, true);
    // 3. the series, then a legend in the top-left corner of the plot
    for (const auto& s : c.series)
        for (std::size_t k = 0; k < s.x.size(); ++k) {
            if (s.steps) {
                const double bw = std::max(2.0, 0.8 * pw / std::max(1.0, x1 - x0) / double(c.series.size()));
                const auto idx = static_cast<double>(&s - c.series.data());
                const int bx = static_cast<int>(std::lround(sx(s.x[k]) - bw * double(c.series.size()) / 2.0 + idx * bw));
                const int top = static_cast<int>(std::lround(sy(s.y[k]))), base = static_cast<int>(std::lround(sy(y0)));
                cv.fill(bx, top, static_cast<int>(std::max(1.0, bw - 1)), base - top, s.colour);
            } else if (k > 0) {
                line(cv, sx(s.x[k - 1]), sy(s.y[k - 1]), sx(s.x[k]), sy(s.y[k]), s.colour);
            }
        }
    int ly = py + 8, legend_w = 0, legend_n = 0;
    for (const auto& s : c.series)
        if (!s.label.empty()) legend_w = std::max(legend_w, font.text_width(s.label, kLabelPx)), ++legend_n;
    if (legend_n) {
        cv.fill(px + 4, py + 4, legend_w + 40, legend_n * (lh + 4) + 8, kWhite);
        cv.frame(px + 4, py + 4, legend_w + 40, legend_n * (lh + 4) + 8, 1, Rgb{200, 200, 200});
    }
    for (const auto& s : c.series) {
        if (s.label.empty()) continue;
        cv.fill(px + 10, ly + lh / 2 - 2, 18, 4, s.colour);
        cv.text(font, s.label, kLabelPx, px + 34, ly + lh / 2, Align::Start, Align::Centre, kInk, TextRole::Tick);
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

std::string png_bytes(const Drawing& d, int scale) {
    Canvas cv(d.width, d.height, kWhite, scale);
    d.draw(cv);
    return encode_png(cv.take());
}

}  // namespace attn::render::plot
