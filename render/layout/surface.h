// What a figure is drawn on: the drawing calls the figure layout makes, implemented by each backend
// (render/backends/canvas.h rasterises them into a PNG's pixels, render/outputs/figures.h writes them as SVG elements).
// Coordinates are layout pixels, x to the right, y down, (0, 0) the top-left corner.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "render/text/font.h"
#include "render/view/colormaps.h"
#include "render/view/colour_scale.h"

namespace attn::render {

enum class Align { Start, Centre, End };  // left/top, centre, right/bottom

// What a piece of text is, for backends that keep it (SVG classes: "title", "query-label", ...).
enum class TextRole { Title, Subtitle, PanelTitle, QueryLabel, KeyLabel, Value, Tick, Caption, Legend };

// The cells of one heatmap: rows x cols cells of cell_w x cell_h with the top-left at (x, y). A visible
// cell is coloured by its value (cmap[colour_index(v, lo, hi)], non_finite for NaN and infinities) or,
// without values, one colour (`plain`); a hidden cell is grey with "/" hatching every `hatch` pixels.
struct CellGrid {
    int x = 0, y = 0, cell_w = 1, cell_h = 1, rows = 0, cols = 0;
    const float* values = nullptr;          // (rows, cols) or nullptr
    const std::uint8_t* visible = nullptr;  // (rows, cols): 0 hidden
    const Colormap* cmap = nullptr;
    float lo = 0.0f, hi = 1.0f;
    Rgb plain{}, non_finite{}, hidden_base{}, hidden_line{};
    int hatch = 6;
    // When set, a visible value's entry is scale->index(v) (a log scale too) instead of colour_index(v, lo, hi).
    const ColourScale* scale = nullptr;
    // When set, the last row is coloured on this scale and its map (the query strip's softmax row).
    const ColourScale* last_row = nullptr;
    // A cell's description for backends that keep one (SVG <title>): query token, key token, value.
    std::function<std::string(int row, int col)> describe;
};

class Surface {
public:
    virtual ~Surface() = default;
    virtual void fill(int x, int y, int w, int h, Rgb c) = 0;
    virtual void blend(int x, int y, int w, int h, Rgb c, int alpha) = 0;  // alpha 0 (none) .. 256 (opaque)
    // Diagonal lines 1 px wide every `spacing` px, continuing across neighbouring rectangles. rising: "/".
    virtual void hatch(int x, int y, int w, int h, Rgb c, int spacing, bool rising) = 0;
    virtual void frame(int x, int y, int w, int h, int thickness, Rgb c) = 0;  // outline inside the rectangle
    virtual void line(double x0, double y0, double x1, double y1, Rgb c) = 0;   // 2 px wide (charts)
    // Text at em size px placed relative to the anchor (x, y): h and v say which side of the text box
    // sits on it; rotated: turned 90° counter-clockwise, reading upwards.
    virtual void text(Font& font, std::string_view utf8, float px, int x, int y, Align h, Align v, Rgb c,
                      TextRole role, bool rotated = false) = 0;
    virtual void cells(const CellGrid& g) = 0;
};

}  // namespace attn::render
