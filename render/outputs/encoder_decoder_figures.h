// An encoder-decoder model's figures: every set's figures as a decoder's are drawn (render/view/set_view.h:
// <P>-<set>-l<L>-h<H>-<figure>, <P>-<set>-overview, <P>-<set>-l<L>-mean, -rollout but none for "cross"),
// and the alignment figure of the cross set (render/view/alignment.h: <P>-align-...), as PNG or SVG.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/base/trace.h"
#include "render/outputs/figures.h"
#include "render/view/alignment.h"
#include "render/view/layer_aggregates.h"

namespace attn::render {

// The alignment figure: target rows × source columns on the weights' colour rule (--range, --log,
// --colormap as every heatmap), titled and captioned by alignment(); <prefix>-<file word>, the prefix
// o.prefix, else the model's type. Throws attn::Error as alignment() does.
std::vector<OutputFile> alignment_figures(const Trace& t, const AlignChoice& c, const FigureOptions& o, FileType type);

// What encoder_decoder_figures draws of each set: the head (layer `layer` of each set that keeps it, by
// the layer's number), the overview, and the chosen layer's aggregates (rollout skipped for "cross").
struct SetFigures {
    std::size_t layer = 0, head = 0;
    bool heads = true, overview = true;
    std::vector<LayerAggregate> aggregates = {LayerAggregate::mean, LayerAggregate::rollout};
    AlignChoice align;  // the alignment figure's choice (its layer/head: usually the same)
};

// Every set's figures (a set that does not keep `layer`, or has fewer heads, draws its overview and
// aggregates only) and the alignment figure; the prefix o.prefix, else the model's type.
std::vector<OutputFile> encoder_decoder_figures(const Trace& t, const SetFigures& s, FigureOptions o, FileType type);

}  // namespace attn::render
