// Small figure pieces for the position and decode figures: a labelled heatmap with a colour bar and
// a line chart with axes and a legend, drawn on any Surface (a Canvas for PNG, SVG). Sizes are decided
// by the caller; each function says how much room it needs first.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/base/trace.h"
#include "render/layout/drawing.h"
#include "render/layout/surface.h"
#include "render/view/style.h"

namespace attn::render::chart {

// A matrix as coloured cells: value v maps to cmap by the one rule (colour_index, render/view/colour_scale.h);
// hidden cells (mask 0) grey and hatched, as in every figure.
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

}  // namespace attn::render::chart
