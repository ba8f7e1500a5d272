// The SVG backend: a Drawing (render/layout/drawing.h) written as an SVG 1.1 document, cells as
// rectangles and every label as real text, so that any viewer draws any script with its own fonts and
// the figure scales to any size. Each heatmap cell carries a <title> with its query token, key token
// and value (a tooltip in browsers, and what screen readers read).
//
// Classes for whoever styles or checks the file: rect.cell (a visible cell), rect.hidden (hidden by the
// mask); text.title, .subtitle, .panel-title, .query-label, .key-label, .value, .tick, .caption, .legend.
// Output is deterministic: the same drawing gives the same bytes on every run.
#pragma once

#include <string>

#include "render/layout/drawing.h"

namespace attn::render {

// The drawing as an SVG document shown `scale` times as large as its layout size.
std::string svg_bytes(const Drawing& d, int scale);

}  // namespace attn::render
