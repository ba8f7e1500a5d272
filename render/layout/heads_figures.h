// attn heads' figures: per pattern one layers × heads heatmap of the scores (rows layers, columns
// heads, 0..1 on viridis with its colour bar, hatched where the pattern is undefined), titled with the
// pattern's definition, the model and the number of texts. Word "heads-<pattern>".
#pragma once

#include <string>
#include <vector>

#include "core/analysis/head_report.h"
#include "render/layout/drawing.h"
#include "render/text/font.h"

namespace attn::render {

// The figure word of a pattern's map: "heads-previous".
std::string heads_figure_word(HeadPattern p);

// One Drawing per pattern defined in some text (in head_patterns() order), then, with r.effect, the
// "heads-effect" map: heads × effect on the next-token loss, diverging around 0 (RdBu, ±the largest
// |effect|), titled with the text(s) and "zero ablation". font must outlive them.
std::vector<Drawing> heads_drawings(const HeadReport& r, const std::string& model_name, Font& font);

}  // namespace attn::render
