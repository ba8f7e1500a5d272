// What each figure holds, apart from how it is drawn: for a figure name ("weights", "masked-scores",
// "queries", ...), the matrix of every head, which cells are visible, which the dropout removed, the
// labels of both axes, the title words, the subtitle and the colour scale. Every backend (PNG raster,
// SVG) draws a FigureView the same way; the texts come from render/view/stages.h, the colours from
// render/view/colour_scale.h, so the terminal and the images say and show the same.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "core/base/trace.h"
#include "render/view/colour_scale.h"
#include "render/view/stages.h"
#include "render/view/style.h"

namespace attn::render {

// Figure names --figures takes, and the file word of each (<prefix>-<word>.png).
const std::vector<std::string>& figure_names();
// The figures written when --figures is not given: scores, mask, weights, dropped-weights (with
// dropout), tiles (flash), as before --figures existed.
std::vector<std::string> default_figures(const Trace& t);

struct FigurePanel {
    std::size_t head = 0, kv_head = 0;
    const Mat* values = nullptr;     // (R, C); nullptr for the mask figure
    const Mask* visible = nullptr;   // (R, C) 1 = drawn with its colour, 0 = hatched "hidden"
    const Mask* dropped = nullptr;   // (R, C) 1 = removed by the dropout (drawn apart), or nullptr
};

struct FigureView {
    std::string name;                 // "masked-scores"
    Stage stage = Stage::weights;
    std::string title_word;           // "masked scores"
    std::string subtitle;             // exactly what the matrices hold
    std::string row_axis, col_axis;   // "query", "key"; "target (query)", "source (key)"; "dimension"
    std::vector<std::string> row_labels, col_labels;
    std::vector<FigurePanel> panels;  // one per head (one for "output")
    bool signed_values = false;       // diverging scale around 0
    ColourScale scale;                // over every panel's visible values
    std::string bar_caption;          // above the colour bar: "weight", "score", "value"
    std::size_t rows = 0, cols = 0;   // (R, C)
    std::optional<ColourScale> last_row_scale;  // the query strip: its last row (softmax) on its own scale
    std::vector<std::string> notes;   // legend lines below the grid
    std::string hidden_label;         // the legend's words for hatched cells; empty: "hidden by the mask"
    CellValues values = CellValues::automatic;  // --values
    int decimals = 2;                           // digits after the point of a value in a cell, below 10

    // Storage for matrices the trace does not hold (masked scores, zeroed weights, masks of all ones).
    // Panels point into it: a view moves, it is never copied.
    std::deque<Mat> owned;
    std::deque<Mask> owned_masks;

    FigureView() = default;
    FigureView(FigureView&&) = default;
    FigureView& operator=(FigureView&&) = default;
    FigureView(const FigureView&) = delete;
    FigureView& operator=(const FigureView&) = delete;
};

// The view of figure `name` for trace t, or nothing when the trace lacks that stage (no dropout, not
// flash, a kind without scores). Throws std::invalid_argument for an unknown name, and when the
// heads' matrices disagree in shape.
std::optional<FigureView> figure_view(const Trace& t, const std::string& name, const ColourSpec& spec);

// The query strip ("query" in --figures): query i's row through the stages, one panel per head, rows
// q·k (raw), ×scale, masked (−∞ where hidden), softmax; the first three on the scores' diverging
// scale, the softmax row on the weights' scale; the context row Σ_j w_ij v_j in a legend line.
// Nothing when the trace has no scores. Throws std::invalid_argument when i is not a query.
std::optional<FigureView> query_view(const Trace& t, std::size_t i, const ColourSpec& spec);

}  // namespace attn::render
