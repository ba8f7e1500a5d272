// The rest of the lecture in a seeded run's page data, beside the attention matrices html.cpp stores:
//   "vector_stages": the stages that are not (T, S) attention, in the lecture's order, those the trace
//       has: "inputs" (T, d_in), "queries" (T, d_k), "keys" (S, d_k), "values" (S, d_v), "context"
//       (T, d_v), "output" (T, d_out); each head's q, k, v and context are its "vectors" (html.cpp), the
//       run's inputs and output are "run_vectors": {"inputs", "output"};
//   the layer's "scales" of those stages: signed, ±the largest |value| over every head, as the PNG
//       figures of queries, keys, values, context and output colour them (render/view/colour_scale.h's
//       make_scale of ValueKind::signed_value, the page's scaleOf);
//   "position_figures" with --pos: {"sinusoidal": {"first", "run" (T, D), "table" (64, D)}}, {"rope":
//       {"d_k", "token", "ones" (64), "head0" (64), "base", "style"}} or {"alibi": {"slopes" (H)}}, the
//       numbers the PNG position figures draw (render/view/position_series.h), ALiBi's biases being every
//       head's "vectors"."bias".
// A live run's page builds the same fields from its JSON trace (render/page/vector_stages.js).
#pragma once

#include "core/base/trace.h"
#include "render/trace_io/json.h"
#include "render/view/colour_scale.h"

namespace attn::render {

// A colour scale as the page's scripts read it: [lo, hi, colour map name, log, bottom label, top label].
Json page_scale_json(const ColourScale& sc);

// Adds the fields above to `data`, html.cpp's payload of a seeded kind's trace (one unnumbered layer,
// its heads' "vectors" present). Leaves any other trace's data as it is.
void add_lecture_stages(const Trace& t, const ColourSpec& colour, Json& data);

}  // namespace attn::render
