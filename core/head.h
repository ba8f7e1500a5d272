// One head of scaled dot-product attention, the function every multi-head kind runs per head
// (core/attention.cpp) and the GPT-2 forward pass (core/gpt2.cpp) runs per layer and head.
#pragma once

#include "core/ops.h"
#include "core/settings.h"
#include "core/trace.h"
#include "data/rng.h"

namespace attn {

// q (T, d_k), k (S, d_k), v (S, d_v): scores = q kᵀ (T, S); weights = softmax over the keys `mask`
// shows of scale * scores; context = weights · v (T, d_v). With c.keep_weights the trace keeps the
// (T, S) matrices, else only the context. Rows with no visible key are appended to t.empty_rows.
HeadTrace attend_head(Mat q, Mat k, Mat v, float scale, const MaskSpec& mask, const Settings& c, TorchGenerator& gen,
                      Trace& t);

}  // namespace attn
