// A model run's figures: the chosen head's (<type>-l<L>-h<H>-<figure>, drawn as every kind draws a
// head) and the layers × heads overview (<type>-overview), as PNG or SVG.
#pragma once

#include <vector>

#include "core/base/trace.h"
#include "render/outputs/figures.h"
#include "render/view/layer_aggregates.h"
#include "render/view/model_choice.h"

namespace attn::render {

// `o` as for every kind (scale, font, figures, colours, --query, warn); its prefix (--prefix, "" = the
// model's type) starts every name: <prefix>-l<L>-h<H>-<figure>, <prefix>-overview.
std::vector<OutputFile> model_figures(const Trace& t, const HeadChoice& c, FigureOptions o, FileType type);

// Model layer `layer`'s mean over heads and rollout through it (`which`, render/view/layer_aggregates.h),
// each drawn as a head's weights figure is (token labels, colour bar, title, hatched hidden cells):
// <prefix>-l<L>-mean, <prefix>-l<L>-rollout; o.prefix "" = the model's type; o.colour as every figure's.
std::vector<OutputFile> aggregate_figures(const Trace& t, std::size_t layer, const std::vector<LayerAggregate>& which,
                                          const FigureOptions& o, FileType type);

}  // namespace attn::render
