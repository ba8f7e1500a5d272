// PNG heatmaps of a trace: one image per matrix (scores, mask, weights, dropped weights), every head of
// a multi-head trace as a panel of one grid image, and for kind "flash" the tile grid over the weights.
//
// Output is deterministic: the same trace gives the same bytes on every run (text is shaped and drawn
// without hinting at fixed sub-pixel steps from the font compiled into the binary, or from --font and
// the system's fallback fonts when a label needs them; numbers are formatted without the locale; zlib is
// fed identical data).
// Nothing here touches the file system: the caller writes PngFile::bytes where it likes.
#pragma once

#include <cstdint>
#include <optional>
#include <functional>
#include <string>
#include <vector>

#include "core/trace.h"
#include "render/colour_scale.h"
#include "render/png_encode.h"

namespace attn::render {

struct PngFile {
    std::string name;   // file name without a directory, e.g. "causal-weights.png"
    std::string bytes;  // the encoded PNG
};

struct PngOptions {
    std::string prefix;  // file names are "<prefix>-<matrix>.png"; empty = the trace's kind
    bool weights_only = false;  // only <prefix>-weights.png (attn bench --png times just that image)
    std::vector<std::string> figures;  // names from figure_names() (render/figure_views.h); empty = the default set
    ColourSpec colour;                 // --range, --log, --colormap
    std::optional<std::size_t> query;  // --query I: the figure "query" draws that query's strip
    int scale = 1;              // image pixels per layout pixel, 1 to 8 (text drawn at that size, not enlarged)
    std::string font_file;      // --font: asked before the built-in font ("" = none; see render/font.h)
    // Called once with a one-line message when some character had no font and was drawn as a box.
    std::function<void(const std::string&)> warn;
};

// Images, in this order when present: <prefix>-scores.png, -mask.png, -weights.png, -dropped-weights.png,
// -tiles.png (kind flash: the weights with the tile grid; tiles never visited are marked "skipped"), or
// the figures opt.figures names (masked-scores, zeroed, queries, keys, values, context, output too).
// An empty matrix (not computed) gives no image. Throws std::invalid_argument if the heads' matrices
// disagree in shape, std::runtime_error if encoding fails.
std::vector<PngFile> render_pngs(const Trace& t, const PngOptions& opt);

}  // namespace attn::render
