// Which layer and head a view shows, and that selection as a trace of its own: every figure and the
// terminal draw one layer of one set, so a model's head, a saved trace's layer and a seeded kind
// all go through the same views.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/base/trace.h"

namespace attn::render {

// The head a model view shows: layer (index into the run's layers) and head.
struct HeadChoice {
    std::size_t layer = 0, head = 0;
};

// t's first set narrowed to one layer (an index into t.layers()) and, with `head`, to that head alone,
// titled `kind`: one set with one layer. Flash tiles follow the head (renumbered 0 when one is chosen).
Trace layer_view(const Trace& t, std::size_t layer, std::optional<std::size_t> head, const std::string& kind);

// A trace holding just the chosen head, titled "gpt2 · layer L" (for the terminal view and the figures);
// its queries and keys are the run's neuron view's when that is this head (neuron_of).
Trace chosen_head_trace(const Trace& t, const HeadChoice& c);

// The run's neuron view (--show queries,keys) when it holds the chosen head's queries and keys, else nullptr.
const NeuronTrace* neuron_of(const Trace& t, const HeadChoice& c);

// What the neuron view's queries and keys are, in one line: "after the bias and RoPE, before the scale
// (scores = q·k × 0.125)", naming the key/value head a grouped-query head reads ("; keys of kv g 1").
std::string neuron_note(const Trace& t, const NeuronTrace& n);

}  // namespace attn::render
