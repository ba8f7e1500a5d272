// One head of scaled dot-product attention: scores = q kᵀ, weights = softmax over the visible keys of
// scale · scores (+ a linear bias), context = weights · v. Whole (T, S) matrices when the trace keeps
// them (attend_scores; attend_blocks a block of query rows at a time, in cache), rows without them
// (attend_rows); positions applied first (attend_with_positions). The kinds (core/kinds/attention.cpp)
// and the model stacks (core/model/) run every head through here.
#include "core/kinds/head_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/head.h"
#include "core/base/ops.h"
#include "core/base/positions.h"
#include "core/base/profile.h"
#include "data/base/error.h"

namespace attn {

// One head of attention from its raw scores (T, S), q (T, d_k), k (S, d_k), v (S, d_v).
HeadTrace attend_scores(Mat q, Mat k, Mat v, Mat scores, float scale, const MaskSpec& mask, const Settings& c,
                        const RunHooks& hk, TorchGenerator& gen, Trace& t, const LinearBias* bias) {
    const std::size_t T = scores.shape(0), S = scores.shape(1);
    HeadTrace h;
    h.scale = scale;
    // 1. weights = softmax over visible keys of scale * scores (+ bias)   (T, S); in the scores' own
    //    buffer when they are not kept (the same bytes: softmax_rows reads a row before writing it)
    const bool in_place = !c.keep_scores;
    {
        StageTimer timer(hk.profile, ProfileStage::softmax);
        h.weights = in_place ? std::move(scores) : Mat::from_shape({T, S});
        softmax_rows(in_place ? h.weights.data() : scores.data(), h.weights.data(), 0, T, S, scale, mask, t.empty_rows, bias);
        if (bias != nullptr) h.bias = bias_matrix(*bias, T, S);
        // 2. inverted dropout on the weights                         (T, S)
        if (c.dropout > 0.0f) h.dropped_weights = dropout(h.weights, c.dropout, gen);
    }
    // 3. context = weights · values                                  (T, d_v)
    StageTimer timer(hk.profile, ProfileStage::context);
    h.context = masked_product(c.dropout > 0.0f ? h.dropped_weights : h.weights, v, mask);
    h.queries = std::move(q), h.keys = std::move(k), h.values = std::move(v);
    if (!in_place) h.scores = std::move(scores);
    h.mask = mask.materialize(T, S);
    return h;
}

namespace {

// Query rows per block when the (T, S) matrices are not kept: about 4 MiB of scores at a time.
std::size_t row_block(std::size_t s) { return std::clamp<std::size_t>((std::size_t(1) << 20) / std::max<std::size_t>(s, 1), 16, 512); }

// The same without keeping any (T, S) matrix: row blocks of (B, S) scores, softmax in place,
// context rows straight away. A causal block stops at its last row's key.
HeadTrace attend_rows(const Mat& q, const Mat& k, const Mat& v, float scale, const MaskSpec& mask, const Settings& c,
                      const RunHooks& hk, TorchGenerator& gen, Trace& t, const LinearBias* bias) {
    const std::size_t T = q.shape(0), S = k.shape(0), d_k = q.shape(1), d_v = v.shape(1), B = row_block(S);
    HeadTrace h;
    h.scale = scale;
    h.context = Mat::from_shape({T, d_v});
    std::vector<float> block(B * S);  // (B, S)
    for (std::size_t r0 = 0; r0 < T; r0 += B) {
        const std::size_t n = std::min(B, T - r0);
        const bool cut = mask.causal && !mask.window && !mask.user && c.dropout == 0.0f;
        std::size_t lo_last = 0, hi = S;  // keys past the block's last row are hidden
        if (cut) mask.range(r0 + n - 1, S, lo_last, hi);
        {
            StageTimer timer(hk.profile, ProfileStage::scores);
            gemm(q.data() + r0 * d_k, d_k, k.data(), d_k, block.data(), hi, n, hi, d_k, true);  // (n, hi)
        }
        {
            StageTimer timer(hk.profile, ProfileStage::softmax);
            softmax_rows(block.data(), block.data(), r0, n, hi, scale, mask, t.empty_rows, bias);
            if (c.dropout > 0.0f) dropout_rows(block.data(), n * hi, c.dropout, gen);
        }
        StageTimer timer(hk.profile, ProfileStage::context);
        gemm(block.data(), hi, v.data(), d_v, h.context.data() + r0 * d_v, d_v, n, d_v, hi, false);  // (n, d_v)
    }
    return h;
}

// The same keeping every (T, S) matrix, without dropout: per block of kProductRows query rows, its scores,
// their softmax and its context rows while the block is still in cache (a (256, 2048) block is 2 MiB;
// the whole (T, S) scores of a 2,048-token head, 16 MiB, are not). The blocks are masked_product's, and
// a product split by rows sums each cell as the whole product does: the bytes of attend_scores. Without
// raw scores in the trace (c.keep_scores false) each block's product covers only the keys its rows see
// (the softmax reads no other cell and writes 0 there): a causal mask's half, each cell the same dot product.
HeadTrace attend_blocks(Mat q, Mat k, Mat v, float scale, const MaskSpec& mask, const Settings& c, const RunHooks& hk,
                        Trace& t, const LinearBias* bias) {
    const std::size_t T = q.shape(0), S = k.shape(0), d_k = q.shape(1);
    HeadTrace h;
    h.scale = scale;
    h.weights = zeros_matrix(T, S);  // large: the kernel's zero pages, written only where a row sees keys
    if (c.keep_scores) h.scores = Mat::from_shape({T, S});
    float* scores = c.keep_scores ? h.scores.data() : h.weights.data();  // softmax in place when not kept
    h.context = Mat::from_shape({T, v.shape(1)});
    for (std::size_t r0 = 0; r0 < T; r0 += kProductRows) {
        const std::size_t n = std::min(kProductRows, T - r0);
        std::size_t lo = 0, hi = S;  // the keys whose scores are computed
        if (!c.keep_scores) mask.rows_range(r0, n, S, lo, hi);
        if (lo < hi) {
            StageTimer timer(hk.profile, ProfileStage::scores);  // (n, hi - lo) = q[r0:r0+n] k[lo:hi]ᵀ
            gemm(q.data() + r0 * d_k, d_k, k.data() + lo * d_k, d_k, scores + r0 * S + lo, S, n, hi - lo, d_k, true);
        }
        {
            StageTimer timer(hk.profile, ProfileStage::softmax);  // the weights are 0 but where the product wrote
            const std::pair<std::size_t, std::size_t> written = c.keep_scores || lo >= hi ? std::pair<std::size_t, std::size_t>{0, 0}
                                                                                        : std::pair{lo, hi};
            softmax_rows(scores + r0 * S, h.weights.data() + r0 * S, r0, n, S, scale, mask, t.empty_rows, bias, &written);
        }
        StageTimer timer(hk.profile, ProfileStage::context);  // (n, d_v)
        masked_product_rows(h.weights, v, mask, r0, n, h.context);
    }
    if (bias != nullptr) h.bias = bias_matrix(*bias, T, S);
    h.queries = std::move(q), h.keys = std::move(k), h.values = std::move(v);
    h.mask = mask.materialize(T, S);
    return h;
}

}  // namespace

// Scaled dot-product attention of one head: scores = q kᵀ.
HeadTrace attend(Mat q, Mat k, Mat v, float scale, const MaskSpec& mask, const Settings& c, const RunHooks& hk,
                 TorchGenerator& gen, Trace& t, const LinearBias* bias) {
    if (!c.keep_weights) return attend_rows(q, k, v, scale, mask, c, hk, gen, t, bias);
    if (c.dropout == 0.0f) return attend_blocks(std::move(q), std::move(k), std::move(v), scale, mask, c, hk, t, bias);
    Mat scores;
    {
        StageTimer timer(hk.profile, ProfileStage::scores);
        scores = matmul_nt(q, k);  // (T, S)
    }
    return attend_scores(std::move(q), std::move(k), std::move(v), std::move(scores), scale, mask, c, hk, gen, t, bias);
}

// Head h of H with positions: q (T, d_k) and k (S, d_k) rotated (rope) or the scores biased (alibi)
// first; the unrotated q and k kept for the trace.
HeadTrace attend_with_positions(Mat q, Mat k, Mat v, float scale, const MaskSpec& mask, const Settings& c,
                                const RunHooks& hk, TorchGenerator& gen, Trace& t, std::size_t h, std::size_t heads) {
    HeadPositions pos = position_head(q, k, c, h, heads, position_frame(c, q.shape(0), k.shape(0)));
    HeadTrace out = attend(std::move(q), std::move(k), std::move(v), scale, mask, c, hk, gen, t,
                           pos.has_bias ? &pos.bias : nullptr);
    if (c.keep_weights) {
        out.queries_unrotated = std::move(pos.queries_unrotated);
        out.keys_unrotated = std::move(pos.keys_unrotated);
    }
    return out;
}

HeadTrace attend_head(Mat q, Mat k, Mat v, float scale, const MaskSpec& mask, const Settings& c, TorchGenerator& gen,
                      Trace& t) {
    return attend(std::move(q), std::move(k), std::move(v), scale, mask, c, RunHooks{}, gen, t);
}

HeadTrace attend_head_scores(Mat q, Mat k, Mat v, Mat scores, float scale, const MaskSpec& mask, const Settings& c,
                             TorchGenerator& gen, Trace& t) {
    return attend_scores(std::move(q), std::move(k), std::move(v), std::move(scores), scale, mask, c, RunHooks{}, gen, t);
}

}  // namespace attn
