// Small figure pieces for the position and decode figures: a labelled heatmap with a colour bar and
// a line chart with axes and a legend, drawn on any Surface (a Canvas for PNG, SVG). Sizes are decided
// by the caller; each function says how much room it needs first.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/trace.h"
#include "render/canvas.h"
#include "render/surface.h"

namespace attn::render {

// How the position and decode figures' files are made: name prefix ("" = the kind), PNG scale (the SVG
// is shown that many times as large), and --font.
struct FigureFiles {
    std::string prefix;
    int scale = 1;
    std::string font_file;
};

}  // namespace attn::render

namespace attn::render::plot {

inline constexpr Rgb kInk{26, 26, 26}, kSoftInk{90, 90, 90}, kFrame{128, 128, 128}, kWhite{255, 255, 255};
inline constexpr Rgb kHidden{225, 225, 225};
inline constexpr float kTitlePx = 21.0f, kSubtitlePx = 14.0f, kPanelPx = 15.0f, kLabelPx = 13.0f;
inline constexpr int kMargin = 20;

std::string number(double v, int decimals);  // without the locale; U+2212 for minus
std::string plot_number(double v);          // at most 3 decimals, trailing zeros dropped

// A matrix as coloured cells: value v maps to cmap at (v − lo) / (hi − lo); hidden cells (mask 0) grey.
struct Heatmap {
    const Mat* values = nullptr;
    const Mask* visible = nullptr;  // optional
    std::vector<std::string> row_labels, col_labels;
    double lo = 0.0, hi = 1.0;
    const Colormap* cmap = &kViridis;
    int cell = 28;
    bool print_values = false;
    std::string title;
};
int heatmap_width(Font& font, const Heatmap& h);   // labels + cells
int heatmap_height(Font& font, const Heatmap& h);  // title + column labels + cells
void draw_heatmap(Surface& cv, Font& font, const Heatmap& h, int x, int y);
void draw_colour_bar(Surface& cv, Font& font, const Colormap& cmap, double lo, double hi, int x, int y, int h);
constexpr int kColourBarWidth = 70;  // bar and its tick labels

struct Series {
    std::string label;
    std::vector<double> x, y;
    Rgb colour;
    bool steps = false;  // draw as points joined by lines (false) or as bars of width 1 (true)
};
struct Chart {
    std::string title, x_label, y_label;
    std::vector<Series> series;
    std::optional<double> y_min;  // default: the data's, with 0 included
};
void draw_chart(Surface& cv, Font& font, const Chart& c, int x, int y, int w, int h);

// The figure's title and subtitle at the top-left; returns the height they take.
int draw_heading(Surface& cv, Font& font, const std::string& title, const std::string& subtitle);
int heading_height(Font& font);

extern const Rgb kSeriesColours[4];

// One figure: the word its file is named by (render/file_names.h), its size in layout pixels, and how
// to draw it. The same drawing gives the PNG (on a Canvas at a scale) and the SVG (render/svg.h).
struct Drawing {
    std::string word;
    int width = 0, height = 0;
    std::function<void(Surface&)> draw;
};
std::string png_bytes(const Drawing& d, int scale);  // drawn on a white Canvas at `scale`, encoded

}  // namespace attn::render::plot
