// The model overview: a layers × heads grid of small attention-weight maps (in the spirit of BertViz's
// model view), with each layer's mean over heads and its attention rollout at the right.
#pragma once

#include "core/base/trace.h"
#include "render/layout/drawing.h"
#include "render/text/font.h"

namespace attn::render {

// Each map is at most max_cells cells a side: a cell covering several positions shows the largest
// weight among them (PNG: the map's pixels; SVG: fewer, each cell is an element). Word "overview".
// font must outlive the drawing.
Drawing model_overview_drawing(const Trace& t, Font& font, int max_cells);

}  // namespace attn::render
