// One head of scaled dot-product attention, the function every multi-head kind runs per head
// (defined in core/kinds/head_attention.cpp) and every model family's forward pass (core/model/model.cpp) runs per layer and head.
#pragma once

#include "core/base/ops.h"
#include "core/base/settings.h"
#include "core/base/trace.h"
#include "data/base/rng.h"

namespace attn {

// Grouped-query attention: query head h of H reads key/value head h / (H / G) (G divides H), as
// PyTorch's repeat_interleave and Llama's repeat_kv lay them out.
inline std::size_t kv_head_of(std::size_t h, std::size_t heads, std::size_t kv_heads) { return h / (heads / kv_heads); }

// q (T, d_k), k (S, d_k), v (S, d_v): scores = q kᵀ (T, S); weights = softmax over the keys `mask`
// shows of scale * scores; context = weights · v (T, d_v). With c.keep_weights the trace keeps the
// (T, S) matrices, else only the context. Rows with no visible key are appended to t.empty_rows.
HeadTrace attend_head(Mat q, Mat k, Mat v, float scale, const MaskSpec& mask, const Settings& c, TorchGenerator& gen,
                      Trace& t);
// The same from scores q kᵀ (T, S) the caller computed (a model batches the query heads that share a
// key/value head into one product); q and k are only kept in the trace, and may be empty.
HeadTrace attend_head_scores(Mat q, Mat k, Mat v, Mat scores, float scale, const MaskSpec& mask, const Settings& c,
                             TorchGenerator& gen, Trace& t);

}  // namespace attn
