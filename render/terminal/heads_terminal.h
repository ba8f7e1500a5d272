// attn heads in the terminal: one layers × heads table per pattern (cells shaded 0..1 like the other
// tables), then the top heads named with a one-line reading, and a caution where a sink explains them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/analysis/head_report.h"
#include "render/terminal/terminal.h"

namespace attn::render {

// A head whose sink (core/analysis/head_patterns.h) takes at least this share of the attention of the queries
// after it gets a caution beside its other readings: a bright column shared by every row is a parking
// place, not a job (the "it → animal" demo). Only a sink with at least half of the text's queries
// after it counts: a key near the end is "after" by one or two queries, whose mean says little (in a
// random 3-layer checkpoint the largest such means were 0.4-0.6 at the third-last token).
inline constexpr double kSinkCaution = 0.5;

struct HeadsViewOptions {
    std::string model_name;              // the folder's name
    ColourDepth colour = ColourDepth::none;
    int precision = 2;
    std::optional<HeadPattern> rank;     // --rank: its top heads; none: every pattern's best head
    std::size_t top = 3;                 // how many heads --rank names
};

// "layer 1 head 0: 0.61 of its attention on punctuation (chance 0.08)" (for the sink pattern with its token, on
// the text where it holds most, and that text's own value).
std::string head_reading(const HeadReport& r, HeadPattern p, std::size_t layer, std::size_t head, int precision);

// The caution for a head whose mean sink weight is at least kSinkCaution and whose sink on the text
// where it holds most is followed by at least half of that text's queries, else "". It names that text,
// token and the text's own weight there.
std::string sink_caution(const HeadReport& r, std::size_t layer, std::size_t head, int precision);

std::string heads_terminal_view(const HeadReport& r, const HeadsViewOptions& opt);

// attn heads --effect: the layers × heads table of r.effect (coloured on a diverging scale around 0),
// then the `top` heads whose ablation raises the loss most. Empty when r.effect is.
std::string effect_terminal_view(const HeadReport& r, const HeadsViewOptions& opt, std::size_t top);

// An encoder-decoder's heads (core/analysis/head_report.h score_encoder_decoder): each self-attention
// set's pattern tables, rows named "encoder layer L", "decoder layer L" (induction left out: it needs
// its own run), then the cross set's monotonic and eos-sink tables, each headed by its chance level.
std::string encoder_decoder_heads_terminal_view(const EncoderDecoderHeadReport& r, const HeadsViewOptions& opt);

}  // namespace attn::render
