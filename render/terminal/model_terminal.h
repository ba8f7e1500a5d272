// The terminal view of a model run (kind "model"): the model, the tokens, the chosen head's matrices,
// the all-heads summary (mean attention distance, layers × heads) and the top predictions.
#pragma once

#include <string>

#include "core/analysis/head_patterns.h"
#include "core/base/trace.h"
#include "render/terminal/terminal.h"
#include "render/view/alignment.h"
#include "render/view/model_choice.h"

namespace attn::render {

// Terminal: the model, the tokens, the chosen head's matrices (opt.show), the all-heads summary
// (mean attention distance, layers × heads: from `distances` when given, the rows of layers the trace no
// longer holds; else from t.layers()) and the top predictions after the last position.
std::string model_terminal_view(const Trace& t, const HeadChoice& c, const TerminalOptions& opt,
                                const std::vector<LayerDistances>* distances = nullptr);

// --ablate: the heads and mode, the text's loss before and after, and a table of the positions whose top
// prediction changed and of the 5 whose loss changed most (every position with opt.full): token, true
// next token, top before → after with probabilities, Δ loss. Empty without t.ablation.
std::string ablation_terminal_view(const Trace& t, const TerminalOptions& opt);

// --lens: layers × positions, each cell the top token and its probability (opt.precision decimals),
// columns elided to opt.width unless opt.full. Empty without t.lens.
std::string lens_terminal_view(const Trace& t, const TerminalOptions& opt);

// Terminal of an encoder-decoder run (render/view/set_view.h is_encoder_decoder): the model (its type,
// encoder layers × decoder layers, heads), the source tokens, the generated tokens, "greedy" or
// "teacher-forced", and the alignment matrix (render/view/alignment.h: rows the generated tokens or words,
// columns the source's, for choice c), elided to opt.width columns and 24 rows unless opt.full. The
// translation's text is the caller's line. Throws attn::Error as alignment() does.
std::string encoder_decoder_terminal_view(const Trace& t, const AlignChoice& c, const TerminalOptions& opt);

}  // namespace attn::render
