// SVG figures of a trace: the same figures as the PNGs (render/figure.h lays them out once, render/raster.h draws them), written as
// SVG 1.1 with cells as rectangles and every label as real text, so that any viewer draws any script
// with its own fonts and the figure scales to any size. Each cell carries a <title> with its query
// token, key token and value (a tooltip in browsers, and what screen readers read).
//
// Classes for whoever styles or checks the file: rect.cell (a visible cell), rect.hidden (hidden by the
// mask); text.title, .subtitle, .panel-title, .query-label, .key-label, .value, .tick, .caption, .legend.
// Output is deterministic: the same trace gives the same bytes on every run.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/trace.h"
#include "render/colour_scale.h"
#include "render/surface.h"

namespace attn::render {

struct SvgFile {
    std::string name;   // file name without a directory, e.g. "causal-weights.svg"
    std::string bytes;  // the document
};

struct SvgOptions {
    std::string prefix;          // file names are "<prefix>-<matrix>.svg"; empty = the trace's kind
    bool weights_only = false;   // only <prefix>-weights.svg
    int scale = 1;               // display size = layout size x scale (the drawing itself is vector)
    std::string font_file;       // --font: used to measure text for the layout, as in the PNGs
    std::function<void(const std::string&)> warn;  // as PngOptions::warn
    std::vector<std::string> figures;  // as PngOptions::figures
    ColourSpec colour;                 // as PngOptions::colour
    std::optional<std::size_t> query;  // as PngOptions::query
};

// Heatmaps with more rows or columns than this (over a whole grid) are max-pooled, as in the PNGs: an
// SVG of a million rectangles helps no one.
inline constexpr int kMaxSvgHeatmapSide = 256;

// The same files as render_pngs, in the same order, ending in .svg. Throws std::invalid_argument on a
// bad prefix or scale or if the heads' matrices disagree in shape.
std::vector<SvgFile> render_svgs(const Trace& t, const SvgOptions& opt);

// A width x height drawing (layout pixels, white background) as an SVG document shown `scale` times as
// large: what the position and decode figures use (render/plot.h).
std::string svg_drawing(int width, int height, int scale, const std::function<void(Surface&)>& draw);

}  // namespace attn::render
