// A figure of a trace: one image's content described once, measured and placed, for any backend
// (render/layout/draw_figure.h draws it on a Surface: pixels for the PNGs, SVG elements for the SVGs). No drawing and no encoding here.
//
// What to draw (a FigureView: one stage of every head, render/view/figure_views.h), the panels (one per head, max-pooled
// when the matrix has more cells than pixels), the colour scale, the layout of a panel, and the
// figure around them: title, subtitle, colour bar or mask legend, legend lines. render/layout/figure_panel.cpp
// holds one panel's pooling and layout, render/layout/figure.cpp the rest.
// Letters: T = query rows, S = key columns (after pooling).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/trace.h"
#include "render/view/colormaps.h"
#include "render/view/colour_scale.h"
#include "render/view/figure_views.h"
#include "render/text/font.h"
#include "render/view/numbers.h"
#include "render/view/style.h"

namespace attn::render {

// ---------------------------------------------------------------------------------------------------
// What to draw

// One head's matrix as drawn: the values (none for the mask image) and which cells are visible,
// max-pooled by (fq, fk) when the matrix has more cells than pixels to show them.
struct Panel {
    std::size_t head = 0, kv_head = 0;
    const Mat* src = nullptr;       // (T, S) or nullptr
    const Mask* src_vis = nullptr;  // (T, S)
    const Mask* dropped = nullptr;  // (T, S) cells the dropout removed, or nullptr (also once pooled)
    Mat pooled;                     // (T', S')
    Mask pooled_vis;                // (T', S')
    bool is_pooled = false;

    const Mat* values() const { return src == nullptr ? nullptr : is_pooled ? &pooled : src; }
    const Mask& visible() const { return is_pooled ? pooled_vis : *src_vis; }
};

// Max-pool (T, S) -> (ceil(T/fq), ceil(S/fk)). A pooled cell is visible if any of its cells is, and
// shows the visible value of largest magnitude (scores: sign kept) or the largest value (weights).
void pool(Panel& p, std::size_t fq, std::size_t fk, bool by_magnitude);

// The colour scale shared by every panel of an image (render/view/colour_scale.h), with the text colour
// that reads best on each entry.
struct Scale {
    ColourScale cs;
    const Colormap* cmap = &kViridis;
    std::array<bool, 256> dark_text{};  // black text reads better than white on this entry

    std::optional<ColourScale> last_row;  // the query strip: its softmax row on the weights' scale

    int index(float v) const { return cs.index(v); }
};

Scale scale_for(const FigureView& v);
// The query strip's second bar: its last row's scale and map (sc.last_row must be set).
Scale last_row_bar(const Scale& sc);

std::string cell_text(bool mask, float v, int decimals = 2);

// ---------------------------------------------------------------------------------------------------
// Layout of one panel (every panel of an image has the same)

struct Layout {
    std::size_t T = 0, S = 0;    // matrix as traced
    std::size_t fq = 1, fk = 1;  // max-pooling factors
    int rows = 0, cols = 0;      // cells drawn: (ceil(T/fq), ceil(S/fk))
    int cell_w = 1, cell_h = 1;
    int label_lh = 0;            // line height of labels
    std::vector<std::string> row_labels, col_labels;  // "" = thinned out
    int row_step = 1, col_step = 1;
    bool rotate_cols = false;
    int left_w = 0, top_h = 0, title_h = 0;
    int heat_x = 0, heat_y = 0, heat_w = 0, heat_h = 0;  // heatmap inside the panel
    int panel_w = 0, panel_h = 0;
    float value_px = 0.0f;       // 0: no values in cells
    std::string corner;          // caption in the empty corner above the query labels
    int corner_lift = 0;         // how far the first query label pokes above the heatmap
};

std::string token_label(const std::vector<std::string>& tokens, std::size_t i);

// Heatmaps longer than max_side layout pixels a side (over the whole grid) are max-pooled.
Layout make_layout(const FigureView& v, const std::vector<Panel>& panels, bool grid, int gcols, int grows, Font& font,
                   int max_side = kMaxHeatmapSide, double cell_scale = 1.0);

// What drawn cell (i, j) of a panel holds, for backends that keep a description (SVG <title>): its row
// and column (position and label, or a position range when pooled) and its value with 4 decimals.
std::string describe_cell(const FigureView& v, const Layout& L, const Panel& p, int i, int j);

// ---------------------------------------------------------------------------------------------------

// Block sizes of the flash tiling: from the config, else from the first tile.
std::pair<std::size_t, std::size_t> tile_blocks(const Trace& t);

// Which (query block, key block) tiles of one head the tiled softmax visited: (nq, nk) flags.
std::vector<std::uint8_t> visited_tiles(const Trace& t, std::size_t head, std::size_t T, std::size_t S);

int bar_labels_width(Font& font, const Scale& sc);

// A legend entry: a swatch and its text.
enum class Swatch { Colour, Hidden, Skipped, TileLine, Dropped, Segment, None };

struct LegendItem {
    Swatch swatch = Swatch::None;
    Rgb colour{};
    std::string text;
};

int legend_item_width(Font& font, const LegendItem& it);

// Items flowed left to right in lines of at most `width` pixels: the line of each item and its x.
struct Flow {
    std::vector<std::pair<int, int>> at;  // (line, x offset)
    int lines = 0, widest = 0;
};

Flow flow(Font& font, const std::vector<LegendItem>& items, int width);

// ---------------------------------------------------------------------------------------------------
// The first position of a sentence pair's segment B when a (T, T) matrix of the trace is drawn: the
// line goes before it on both axes. 0 when the trace is one text or the matrix is not (T, T).
std::size_t segment_break(const Trace& t, std::size_t rows, std::size_t cols);

// A figure: everything one image shows, measured and placed once. A backend draws it as it stands
// (render/layout/draw_figure.h draws it on a Surface: a Canvas for the PNGs, SVG elements for the SVGs).
//
// Top to bottom: title, subtitle, a grid of panels (one per head; a single head is a grid of one),
// the colour bar (or the mask's legend, `side`) right of the grid, `legend` lines below the grid.

struct Figure {
    FigureView view;                   // what the figure holds (render/view/figure_views.h); panels point into it
    bool tiles = false;                // flash: the tile grid over each panel
    const Trace* trace = nullptr;      // the tiles' source
    int max_side = kMaxHeatmapSide;    // largest heatmap side over the grid, layout pixels (then max-pool)
    double cell_scale = 1.0;           // cells shrunk so the image fits the slide's text rule (make_figure)
    std::size_t T = 0, S = 0;          // the matrix as traced
    std::vector<Panel> panels;         // (H)
    std::size_t segment_b = 0;         // a sentence pair's first token of segment B (the line before it), 0: none
    bool grid = false;                 // several heads
    int gcols = 1, grows = 1;          // panels per row, rows
    std::vector<std::size_t> kv_ids;   // key/value heads in order of first use
    bool grouped = false;              // framed bands where a key/value head serves several query heads
    Layout layout;                     // of one panel (every panel has the same)
    Scale scale;
    std::string title, subtitle;
    std::string bar_caption;           // above the colour bar: what the colours mean
    std::vector<LegendItem> side;      // the mask's legend, right of the grid (instead of a colour bar)
    std::vector<LegendItem> legend;    // below the grid
    Flow legend_flow;

    // Geometry of the whole image, pixels.
    int width = 0, height = 0;
    int title_lh = 0, legend_lh = 0;
    int pad = 0, gap_x = 0, gap_y = 0, grid_top = 0;
    int bar_x = 0, bar_y = 0, bar_h = 0, legend_y = 0;
    int bar2_x = 0;            // the query strip's second bar (row 4 on the weights' scale); 0: none
    std::string bar2_caption;

    int panel_x(int c) const { return kMargin + pad + c * (layout.panel_w + gap_x); }
    int panel_y(int r) const { return grid_top + pad + r * (layout.panel_h + gap_y); }
    Rgb group_colour(std::size_t kv) const;
};

// The figure of one view, or nothing when it is empty; heatmaps longer than max_side layout pixels a
// side (over the whole grid) are max-pooled. Throws std::invalid_argument if the heads' matrices
// disagree in shape.
std::optional<Figure> make_figure(const Trace& t, FigureView view, Font& font, int max_side = kMaxHeatmapSide);

// The bar's labels as (fraction of the height from the bottom, text): both ends always, with "≤"/"≥"
// when values were clipped there, and round values between them (decades on a log scale).
std::vector<std::pair<double, std::string>> bar_ticks(const ColourScale& cs);

}  // namespace attn::render
