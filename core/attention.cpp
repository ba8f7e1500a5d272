// One function per attention kind, in numbered steps, with the shapes in comments:
// T query positions, S key positions, H query heads, G key/value heads, d_k = per-head width.
#include "core/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/ops.h"
#include "data/error.h"

namespace attn {
namespace {

const Mat& P(const Trace& t, const char* name) {
    const Param* p = t.param(name);
    if (p == nullptr) throw std::logic_error(std::string("parameter missing: ") + name);
    return p->value;
}
const Mat* bias_or_null(const Trace& t, const char* name) {
    const Param* p = t.param(name);
    return p ? &p->value : nullptr;
}

float inv_sqrt(std::size_t d) { return 1.0f / std::sqrt(static_cast<float>(d)); }

// The kind's own mask, combined with the user's: (T, S).
Mask make_mask(const Inputs& in, std::size_t t, std::size_t s, bool causal) {
    Mask m = causal ? causal_mask(t, s) : full_mask(t, s);
    if (in.user_mask) mask_and(m, *in.user_mask);
    return m;
}

// One head of attention over given q (T, d_k), k (S, d_k), v (S, d_v) and its raw scores (T, S).
HeadTrace attend_scores(Mat q, Mat k, Mat v, Mat scores, float scale, Mask mask, const Config& c,
                        TorchGenerator& gen, Trace& t) {
    HeadTrace h;
    h.scale = scale;
    // 1. weights = softmax over visible keys of scale * scores      (T, S)
    masked_softmax(scores, scale, mask, h.weights, t.empty_rows);
    // 2. inverted dropout on the weights                             (T, S)
    if (c.dropout > 0.0f) h.dropped_weights = dropout(h.weights, c.dropout, gen);
    // 3. context = weights · values                                  (T, d_v)
    h.context = matmul(c.dropout > 0.0f ? h.dropped_weights : h.weights, v);
    h.queries = std::move(q), h.keys = std::move(k), h.values = std::move(v);
    h.scores = std::move(scores), h.mask = std::move(mask);
    if (!c.keep_weights) h.scores = Mat(), h.weights = Mat(), h.dropped_weights = Mat(), h.mask = Mask();
    return h;
}

// Scaled dot-product attention of one head: scores = q kᵀ.
HeadTrace attend(Mat q, Mat k, Mat v, float scale, Mask mask, const Config& c, TorchGenerator& gen, Trace& t) {
    Mat scores = matmul_nt(q, k);  // (T, S)
    return attend_scores(std::move(q), std::move(k), std::move(v), std::move(scores), scale, std::move(mask), c,
                         gen, t);
}

// H query heads over G key/value heads; query head h reads kv head h / (H / G).
// q (T, H·d_k), k (S, G·d_k), v (S, G·d_v) -> concatenated contexts (T, H·d_v).
Mat multi_head(const Inputs& in, const Config& c, TorchGenerator& gen, Trace& t, const Mat& q, const Mat& k,
               const Mat& v, std::size_t heads, std::size_t kv_heads) {
    const std::size_t d_k = q.shape(1) / heads, d_v = v.shape(1) / kv_heads;
    const Mask mask = make_mask(in, q.shape(0), k.shape(0), c.causal);
    std::vector<const Mat*> contexts;
    for (std::size_t h = 0; h < heads; ++h) {
        const std::size_t g = h / (heads / kv_heads);
        t.heads.push_back(attend(columns(q, h * d_k, d_k), columns(k, g * d_k, d_k), columns(v, g * d_v, d_v),
                                 inv_sqrt(d_k), mask, c, gen, t));  // (T, d_k), (S, d_k), (S, d_v)
        t.heads.back().head = h, t.heads.back().kv_head = g;
    }
    for (const auto& h : t.heads) contexts.push_back(&h.context);
    return concat_columns(contexts);  // (T, H·d_v)
}

// e_ij = v · tanh(q_i + k_j): q (T, D), k (S, D), v (D, 1) -> (T, S)
Mat additive_scores(const Mat& q, const Mat& k, const Mat& v) {
    const std::size_t T = q.shape(0), S = k.shape(0), D = q.shape(1);
    Mat e = Mat::from_shape({T, S});
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < S; ++j) {
            float sum = 0.0f;
            for (std::size_t d = 0; d < D; ++d) sum += v(d, 0) * std::tanh(q(i, d) + k(j, d));
            e(i, j) = sum;
        }
    return e;
}

}  // namespace

// ---- layers: the nn.Linear modules in PyTorch construction order -------------------------------

std::vector<LayerSpec> layers_none(const Config&, std::size_t) { return {}; }

std::vector<LayerSpec> layers_qkv(const Config& c, std::size_t d_src) {
    const char* b = c.qkv_bias ? "b" : "";
    auto bn = [&](const char* n) { return *b ? std::string("b_") + n : std::string(); };
    return {{"W_query", bn("query"), c.d_in, c.d_out}, {"W_key", bn("key"), d_src, c.d_out},
            {"W_value", bn("value"), d_src, c.d_out}};
}

std::vector<LayerSpec> layers_wrapper(const Config& c, std::size_t d_src) {
    std::vector<LayerSpec> layers;
    const std::size_t cols = c.heads * c.d_out;
    for (std::size_t h = 0; h < c.heads; ++h)
        for (LayerSpec l : layers_qkv(c, d_src)) {
            l.col = h * c.d_out, l.cols = cols;
            layers.push_back(l);
        }
    return layers;
}

std::vector<LayerSpec> layers_mha(const Config& c, std::size_t d_src) {
    auto layers = layers_qkv(c, d_src);
    const std::size_t d_kv = c.kv_heads * (c.d_out / c.heads);  // G · d_k
    layers[1].out = layers[2].out = d_kv;
    layers.push_back({"W_out", "b_out", c.d_out, c.d_out});
    return layers;
}

std::vector<LayerSpec> layers_additive(const Config& c, std::size_t d_src) {
    return {{"W_query", "", c.d_in, c.d_out}, {"W_key", "", d_src, c.d_out}, {"v", "", c.d_out, 1}};
}

std::vector<LayerSpec> layers_luong(const Config& c, std::size_t d_src) {
    if (c.score == "general") return {{"W_key", "", d_src, c.d_in}};
    if (c.score == "concat") return layers_additive(c, d_src);
    return {};
}

// ---- kinds -------------------------------------------------------------------------------------

// simple: no weights. q = k = v = x (T, d_in); weights = softmax(x xᵀ); context = weights · x.
void run_simple(const Inputs& in, const Config& c, TorchGenerator& gen, Trace& t) {
    const std::size_t T = in.x.shape(0);
    t.heads.push_back(attend(in.x, in.x, in.x, 1.0f, make_mask(in, T, T, c.causal), c, gen, t));
    t.output = t.heads[0].context;  // (T, d_in)
}

// self: q = x W_q, k = x W_k, v = x W_v (T, d_out); weights = softmax(q kᵀ / sqrt(d_out)).
void run_self(const Inputs& in, const Config& c, TorchGenerator& gen, Trace& t) {
    // 1. projections                                                 (T, d_out) each
    Mat q = linear(in.x, P(t, "W_query"), bias_or_null(t, "b_query"));
    Mat k = linear(in.x, P(t, "W_key"), bias_or_null(t, "b_key"));
    Mat v = linear(in.x, P(t, "W_value"), bias_or_null(t, "b_value"));
    // 2. attention, masked when causal                                (T, T)
    const std::size_t T = in.x.shape(0);
    t.heads.push_back(attend(q, k, v, inv_sqrt(c.d_out), make_mask(in, T, T, c.causal), c, gen, t));
    t.output = t.heads[0].context;  // (T, d_out)
}

// causal: self with future keys hidden (-inf before the softmax). With --renorm, the chapter's first
// method instead: softmax over every key, zero the future, divide by the row sums; the largest
// difference from -inf masking is recorded.
void run_causal(const Inputs& in, const Config& c, TorchGenerator& gen, Trace& t) {
    run_self(in, c, gen, t);
    if (!c.renorm) return;
    HeadTrace& h = t.heads[0];
    const std::size_t T = h.scores.shape(0);
    // 1. softmax over every key                                       (T, T)
    Mat w;
    std::vector<std::size_t> none;
    masked_softmax(h.scores, h.scale, full_mask(T, T), w, none);
    // 2. zero what the mask hides, 3. renormalise each row
    for (std::size_t i = 0; i < T; ++i) {
        float sum = 0.0f;
        for (std::size_t j = 0; j < T; ++j) sum += (w(i, j) *= h.mask(i, j) ? 1.0f : 0.0f);
        for (std::size_t j = 0; j < T; ++j) w(i, j) = sum > 0.0f ? w(i, j) / sum : 0.0f;
    }
    t.diagnostics.push_back({"renorm_max_abs_diff", max_abs_diff(w, h.weights)});
    h.weights = std::move(w);
    if (c.dropout > 0.0f) h.dropped_weights = dropout(h.weights, c.dropout, gen);
    h.context = matmul(c.dropout > 0.0f ? h.dropped_weights : h.weights, h.values);
    t.output = h.context;
}

// mha-wrapper: H independent heads of width d_out, contexts side by side, no output projection.
void run_mha_wrapper(const Inputs& in, const Config& c, TorchGenerator& gen, Trace& t) {
    // 1. projections for every head at once                            (T, H·d_out)
    const Mat q = linear(in.x, P(t, "W_query"), bias_or_null(t, "b_query"));
    const Mat k = linear(in.x, P(t, "W_key"), bias_or_null(t, "b_key"));
    const Mat v = linear(in.x, P(t, "W_value"), bias_or_null(t, "b_value"));
    // 2. each head attends on its column block; contexts concatenated  (T, H·d_out)
    t.output = multi_head(in, c, gen, t, q, k, v, c.heads, c.heads);
}

// mha: one projection of width d_out split into H heads of d_k = d_out/H, then W_out.
void run_mha(const Inputs& in, const Config& c, TorchGenerator& gen, Trace& t) { run_gqa(in, c, gen, t); }

// gqa / mqa: H query heads share G key/value heads (G = H: mha, G = 1: mqa).
void run_gqa(const Inputs& in, const Config& c, TorchGenerator& gen, Trace& t) {
    // 1. projections                                  q (T, H·d_k), k and v (T, G·d_k)
    const Mat q = linear(in.x, P(t, "W_query"), bias_or_null(t, "b_query"));
    const Mat k = linear(in.x, P(t, "W_key"), bias_or_null(t, "b_key"));
    const Mat v = linear(in.x, P(t, "W_value"), bias_or_null(t, "b_value"));
    // 2. heads, contexts side by side                                   (T, d_out)
    const Mat context = multi_head(in, c, gen, t, q, k, v, c.heads, c.kv_heads);
    // 3. output projection                                              (T, d_out)
    t.output = linear(context, P(t, "W_out"), bias_or_null(t, "b_out"));
}

// cross: queries from the sentence (T), keys and values from the source (S).
void run_cross(const Inputs& in, const Config& c, TorchGenerator& gen, Trace& t) {
    // 1. projections                                  q (T, d_out), k and v (S, d_out)
    Mat q = linear(in.x, P(t, "W_query"), bias_or_null(t, "b_query"));
    Mat k = linear(in.source_x, P(t, "W_key"), bias_or_null(t, "b_key"));
    Mat v = linear(in.source_x, P(t, "W_value"), bias_or_null(t, "b_value"));
    // 2. attention across source positions                              (T, S)
    const Mask mask = make_mask(in, in.x.shape(0), in.source_x.shape(0), c.causal);
    t.heads.push_back(attend(q, k, v, inv_sqrt(c.d_out), mask, c, gen, t));
    t.output = t.heads[0].context;  // (T, d_out)
}

// additive (Bahdanau): e_ij = v · tanh(s_i W_q + h_j W_k); softmax over source positions j;
// the values are the source vectors h themselves.
void run_additive(const Inputs& in, const Config& c, TorchGenerator& gen, Trace& t) {
    // 1. projections                                  q (T, d_out), k (S, d_out)
    Mat q = linear(in.x, P(t, "W_query"), nullptr);
    Mat k = linear(in.source_x, P(t, "W_key"), nullptr);
    // 2. scores                                                         (T, S)
    Mat e = additive_scores(q, k, P(t, "v"));
    // 3. softmax across j, context = Σ_j α_ij h_j                       (T, d_src)
    const Mask mask = make_mask(in, in.x.shape(0), in.source_x.shape(0), false);
    t.heads.push_back(attend_scores(q, k, in.source_x, e, 1.0f, mask, c, gen, t));
    t.output = t.heads[0].context;
}

// luong: dot e_ij = s_i · h_j; general e_ij = s_i · (h_j W_k); concat as additive. Scale 1;
// the values are the source vectors.
void run_luong(const Inputs& in, const Config& c, TorchGenerator& gen, Trace& t) {
    if (c.score == "concat") return run_additive(in, c, gen, t);
    // 1. keys: the source itself (dot) or projected into the sentence's space (general)   (S, d_in)
    Mat k = c.score == "general" ? linear(in.source_x, P(t, "W_key"), nullptr) : in.source_x;
    // 2. scores s_i · k_j, softmax across j, context over source vectors        (T, S), (T, d_src)
    const Mask mask = make_mask(in, in.x.shape(0), in.source_x.shape(0), false);
    t.heads.push_back(attend(in.x, k, in.source_x, 1.0f, mask, c, gen, t));
    t.output = t.heads[0].context;
}

// local: self-attention where query i sees key j when |i - j| <= W (i - W <= j <= i when causal).
void run_local(const Inputs& in, const Config& c, TorchGenerator& gen, Trace& t) {
    // 1. projections                                                    (T, d_out)
    Mat q = linear(in.x, P(t, "W_query"), bias_or_null(t, "b_query"));
    Mat k = linear(in.x, P(t, "W_key"), bias_or_null(t, "b_key"));
    Mat v = linear(in.x, P(t, "W_value"), bias_or_null(t, "b_value"));
    // 2. the band mask, then attention                                   (T, T)
    const std::size_t T = in.x.shape(0);
    Mask mask = window_mask(T, T, c.window.value_or(0), c.causal);
    if (in.user_mask) mask_and(mask, *in.user_mask);
    t.heads.push_back(attend(q, k, v, inv_sqrt(c.d_out), mask, c, gen, t));
    t.output = t.heads[0].context;
}

// flash: self/causal computed tile by tile with the online softmax. Per query block, over key
// blocks: m' = max(m, rowmax S), l = e^(m-m') l + rowsum e^(S-m'), O = e^(m-m') O + e^(S-m') V,
// and O / l at the end. Tiles that the mask hides completely are skipped.
void run_flash(const Inputs& in, const Config& c, TorchGenerator& gen, Trace& t) {
    // 1. projections                                                    (T, d_out)
    Mat q = linear(in.x, P(t, "W_query"), bias_or_null(t, "b_query"));
    Mat k = linear(in.x, P(t, "W_key"), bias_or_null(t, "b_key"));
    Mat v = linear(in.x, P(t, "W_value"), bias_or_null(t, "b_value"));
    const std::size_t T = q.shape(0), S = k.shape(0), D = v.shape(1);
    const float scale = inv_sqrt(c.d_out);
    const Mask mask = make_mask(in, T, S, c.causal);
    const std::size_t bq = c.block_q, bk = c.block_k;
    Mat out = Mat::from_shape({T, D});
    std::vector<float> m_row(T), l_row(T);
    // 2. per query block, per key block
    for (std::size_t q0 = 0; q0 < T; q0 += bq) {
        const std::size_t q1 = std::min(T, q0 + bq);
        for (std::size_t i = q0; i < q1; ++i) {
            m_row[i] = -std::numeric_limits<float>::infinity(), l_row[i] = 0.0f;
            std::fill(&out(i, 0), &out(i, 0) + D, 0.0f);
        }
        const Mat q_blk = rows(q, q0, q1 - q0);      // (bq, d_k)
        for (std::size_t k0 = 0; k0 < S; k0 += bk) {
            const std::size_t k1 = std::min(S, k0 + bk);
            bool any = false;  // 2a. skip tiles the mask hides completely
            for (std::size_t i = q0; i < q1 && !any; ++i)
                for (std::size_t j = k0; j < k1 && !any; ++j) any = mask(i, j) != 0;
            if (!any) continue;
            const Mat k_blk = rows(k, k0, k1 - k0);  // (bk, d_k)
            const Mat s_blk = matmul_nt(q_blk, k_blk);                      // (bq, bk)
            for (std::size_t i = q0; i < q1; ++i) {
                // 2b. the new running max over this tile's visible cells
                float m_new = m_row[i];
                for (std::size_t j = k0; j < k1; ++j)
                    if (mask(i, j)) m_new = std::max(m_new, scale * s_blk(i - q0, j - k0));
                if (m_new == -std::numeric_limits<float>::infinity()) continue;  // nothing visible yet
                // 2c. rescale what was accumulated, add this tile's exponentials
                const float alpha = std::exp(m_row[i] - m_new);
                l_row[i] *= alpha;
                for (std::size_t d = 0; d < D; ++d) out(i, d) *= alpha;
                for (std::size_t j = k0; j < k1; ++j) {
                    if (!mask(i, j)) continue;
                    const float p = std::exp(scale * s_blk(i - q0, j - k0) - m_new);
                    l_row[i] += p;
                    for (std::size_t d = 0; d < D; ++d) out(i, d) += p * v(j, d);
                }
                m_row[i] = m_new;
            }
            if (c.keep_weights)
                t.tiles.push_back({0, q0 / bq, k0 / bk, q0, q1, k0, k1, {m_row.begin() + long(q0), m_row.begin() + long(q1)},
                                   {l_row.begin() + long(q0), l_row.begin() + long(q1)}});
        }
        // 3. O / l; a row with nothing visible stays 0
        for (std::size_t i = q0; i < q1; ++i) {
            if (l_row[i] == 0.0f) continue;
            for (std::size_t d = 0; d < D; ++d) out(i, d) /= l_row[i];
        }
    }
    // 4. the full matrices for the trace, and the difference from the unblocked computation
    if (!c.keep_weights) {
        for (std::size_t i = 0; i < T; ++i)
            if (l_row[i] == 0.0f) t.empty_rows.push_back(i);
        HeadTrace h;
        h.scale = scale, h.context = out;
        t.heads.push_back(std::move(h));
        t.output = std::move(out);
        return;
    }
    Config plain = c;
    plain.dropout = 0.0f;
    HeadTrace h = attend(q, k, v, scale, mask, plain, gen, t);
    t.diagnostics.push_back({"flash_max_abs_diff", max_abs_diff(out, h.context)});
    h.context = out;
    t.heads.push_back(std::move(h));
    t.output = std::move(out);
}

}  // namespace attn
