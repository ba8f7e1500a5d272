// Which head of a model run a view shows, and that head as a trace of its own: every figure and the
// terminal draw a model's head exactly as they draw a seeded kind's.
#pragma once

#include <cstddef>

#include "core/trace.h"

namespace attn::render {

// The head a model view shows: layer (index into the run's layers) and head.
struct HeadChoice {
    std::size_t layer = 0, head = 0;
};

// A trace holding just the chosen head, titled "gpt2 · layer L" (for the terminal view and the figures).
Trace chosen_head_trace(const Trace& t, const HeadChoice& c);

}  // namespace attn::render
