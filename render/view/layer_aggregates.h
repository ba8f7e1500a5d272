// A model layer's mean over heads and the attention rollout through it (core/model/model.h computes both),
// as a one-head trace that every figure and terminal view draws like a head's weights.
#pragma once

#include <cstddef>
#include <string>

#include "core/base/trace.h"

namespace attn::render {

enum class LayerAggregate { mean, rollout };

// "mean", "rollout": the --show word and the figure word (<type>-l<L>-mean.png).
const char* aggregate_word(LayerAggregate a);

// One aggregate of model layer `layer` (its number in the model) as a one-layer, one-head trace whose
// weights are t.layer_mean[layer] or t.rollout[layer] (T, T), and the words its figure and table use.
// Hidden cells: for the mean, keys every head of the layer hides; for the rollout, keys no path through
// layers 0..layer reaches (each layer's hidden cells as its mean's, the diagonal always open).
struct AggregateView {
    Trace trace;            // kind "gpt2 · layer 3" (mean) or the model's type (rollout)
    std::string title_word;  // "mean of 12 heads", "rollout through layers 0–3"
    std::string subtitle;    // exactly what the matrix holds
    std::string hidden;      // what its hidden cells are: "keys every head hides"
};
// Precondition: t is a model trace holding layer `layer`'s mean and rollout (t.layer_mean.size() > layer).
AggregateView aggregate_view(const Trace& t, std::size_t layer, LayerAggregate a);

}  // namespace attn::render
