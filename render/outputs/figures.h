// A run's figures as files: the one entry every command calls. A trace's stage figures (scores, masked
// scores, mask, weights, ..., the query strip, flash's tiles: render/view/figure_views.h) are laid out
// once (render/layout/figure.h) and drawn by the backend of the format (render/backends/encode.h); the
// position and decode charts and a model's figures go through the same Drawing (render/layout/drawing.h).
//
// Output is deterministic: the same trace gives the same bytes on every run (text is shaped and drawn
// without hinting at fixed sub-pixel steps from the font compiled into the binary, or from --font and
// the system's fallback fonts when a label needs them; numbers are formatted without the locale; zlib is
// fed identical data). Nothing here touches the file system: the caller writes OutputFile::bytes.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/kinds/decode.h"
#include "core/base/trace.h"
#include "render/layout/drawing.h"
#include "render/trace_io/file_names.h"
#include "render/view/colour_scale.h"
#include "render/view/style.h"

namespace attn::render {

struct OutputFile {
    std::string name;   // file name without a directory, e.g. "causal-weights.png"
    std::string bytes;  // the encoded PNG or SVG document
};

struct FigureOptions {
    std::string prefix;  // file names are "<prefix>-<figure>.<ext>"; empty = the trace's kind
    bool weights_only = false;  // only <prefix>-weights (attn bench --png times just that image)
    std::vector<std::string> figures;  // names from figure_names() (render/view/figure_views.h); empty = the default set
    ColourSpec colour;                 // --range, --log, --colormap
    std::optional<std::size_t> query;  // --query I: the figure "query" draws that query's strip
    CellValues values = CellValues::automatic;  // --values: numbers in the cells (render/view/style.h)
    int decimals = 2;                           // digits after the point in the cells (--precision when given)
    int scale = 1;              // PNG: image pixels per layout pixel, 1 to 8 (text drawn at that size, not
                                // enlarged); SVG: shown that many times as large (the drawing is vector)
    std::string font_file;      // --font: asked before the built-in font ("" = none; see render/text/font.h)
    // Called once with a one-line message when some character had no font and was drawn as a box.
    std::function<void(const std::string&)> warn;
};

// Heatmaps with more rows or columns than this (over a whole grid) are max-pooled in SVG, as in the
// PNGs at kMaxHeatmapSide: an SVG of a million rectangles helps no one.
inline constexpr int kMaxSvgHeatmapSide = 256;

// The stage figures, in this order when present: <prefix>-scores, -mask, -weights, -dropped-weights,
// -tiles (kind flash: the weights with the tile grid; tiles never visited are marked "skipped"), or the
// figures opt.figures names, as .png or .svg. An empty matrix (not computed) gives no file. Throws
// std::invalid_argument on a bad prefix or scale or if the heads' matrices disagree in shape,
// std::runtime_error if encoding fails.
std::vector<OutputFile> render_figures(const Trace& t, const FigureOptions& opt, FileType type);

// The stage figures render_figures encodes, laid out (prefix and warn unused): for a caller that draws and
// encodes them itself (attn bench --small-run times the two apart). The drawings use `font`.
class Font;
std::vector<Drawing> figure_drawings(const Trace& t, const FigureOptions& opt, FileType type, Font& font);

// The position figures the trace's --pos has (render/layout/position_charts.h): <prefix>-positions,
// -rope, -alibi. None for --pos none.
std::vector<OutputFile> position_figures(const Trace& t, const FigureFiles& o, FileType type);

// attn decode's figures: <prefix>-decode-steps (the staircase of rows as produced) and
// <prefix>-decode-cache (the cache per step for MHA, GQA and MQA).
std::vector<OutputFile> decode_figures(const DecodeTrace& d, const FigureFiles& o, FileType type);

// Drawings as files <prefix>-<word>.<ext> at `scale`: what every entry above ends in.
std::vector<OutputFile> drawing_files(const std::vector<Drawing>& drawings, const std::string& prefix, int scale,
                                      FileType type);

}  // namespace attn::render
