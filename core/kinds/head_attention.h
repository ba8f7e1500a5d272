// One head's attention with the run's hooks (stage timers, progress): what the kinds and flash's
// reference path call per head; core/base/head.h's attend_head and attend_head_scores are these
// without hooks, for the model stacks.
#pragma once

#include <cstddef>

#include "core/base/ops.h"
#include "core/base/positions.h"
#include "core/base/settings.h"
#include "core/base/trace.h"
#include "data/base/rng.h"

namespace attn {

// From the raw scores (T, S) = q kᵀ the caller made; q (T, d_k), k (S, d_k), v (S, d_v).
HeadTrace attend_scores(Mat q, Mat k, Mat v, Mat scores, float scale, const MaskSpec& mask, const Settings& c,
                        const RunHooks& hk, TorchGenerator& gen, Trace& t, const LinearBias* bias = nullptr);
// scores = q kᵀ, then as attend_scores; without c.keep_weights no (T, S) matrix is kept.
HeadTrace attend(Mat q, Mat k, Mat v, float scale, const MaskSpec& mask, const Settings& c, const RunHooks& hk,
                 TorchGenerator& gen, Trace& t, const LinearBias* bias = nullptr);
// Head h of `heads` with c's positions: q and k rotated (rope) or the scores biased (alibi) first; the
// unrotated q and k kept in the trace.
HeadTrace attend_with_positions(Mat q, Mat k, Mat v, float scale, const MaskSpec& mask, const Settings& c,
                                const RunHooks& hk, TorchGenerator& gen, Trace& t, std::size_t h, std::size_t heads);

}  // namespace attn
