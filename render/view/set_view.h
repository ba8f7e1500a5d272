// One attention set of a trace as a trace of its own. An encoder-decoder model's trace holds three sets
// ("encoder" source × source, "decoder" decoder tokens × decoder tokens, "cross" decoder tokens × source,
// core/base/trace.h); every figure, the overview, the layer means and the rollout read a trace's first
// set, its tokens (rows) and source_tokens (columns) and its top-level aggregates. set_view gives them
// one set in that shape, so each set is drawn by the views that draw a decoder's, unchanged.
#pragma once

#include <string>
#include <vector>

#include "core/base/trace.h"

namespace attn::render {

// True for a trace of an encoder-decoder model (several named sets).
bool is_encoder_decoder(const Trace& t);

// The set named `name`, or nullptr.
const AttentionSet* find_set(const Trace& t, const std::string& name);

// The names of t's sets in order: "encoder", "decoder", "cross" (or t's one set).
std::vector<std::string> set_names(const Trace& t);

// Set `name` of t as a one-set trace: sets = {that set}; tokens = its query tokens, source_tokens = its
// key tokens (has_source for "cross": the figures' axes read "target (query)" × "source (key)");
// layer_mean and rollout = the set's own (rollout empty for "cross"); model->type = the set's name, so
// titles read "encoder · layer 2 · head 5" and "cross · layer 5 · mean of 8 heads"; model->n_layer = the
// set's stack's depth; model->stack "encoder" for the encoder set and "cross" for the cross set (nothing
// is hidden in either), "decoder" for the decoder set. Token ids and predictions follow the decoder's
// rows ("decoder", "cross"), the source's ids the encoder's. The file names of a set's figures start with
// set_file_prefix. Precondition: is_encoder_decoder(t) and the set exists (std::invalid_argument if not).
Trace set_view(const Trace& t, const std::string& name);

// "t5-cross": the prefix of set `name`'s figures for base prefix `base` (--prefix, else the model's type),
// so that names read t5-cross-l5-mean.png, t5-encoder-l2-h5-weights.png, t5-decoder-overview.png.
std::string set_file_prefix(const std::string& base, const std::string& name);

}  // namespace attn::render
