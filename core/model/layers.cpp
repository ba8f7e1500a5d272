// The layer functions of core/model/layers.h.
#include "core/model/layers.h"

#include <algorithm>
#include <cmath>

#include "core/base/head.h"
#include "core/base/ops.h"
#include "core/base/vector_kernels.h"

namespace attn::layers {


// out (T, C) = LayerNorm over each row of x (T, C) with gain g and bias b (biased variance, as PyTorch).
void layer_norm(const Buf& x, const Weight& g, const Weight& b, double eps, std::size_t T, std::size_t C, Buf& out) {
    parallel_for(T, C * 4, [&](std::size_t r0, std::size_t r1) {
        for (std::size_t i = r0; i < r1; ++i) {
            const float* row = x.data() + i * C;
            double mean = 0.0, var = 0.0;
            for (std::size_t c = 0; c < C; ++c) mean += row[c];
            mean /= static_cast<double>(C);
            for (std::size_t c = 0; c < C; ++c) var += (row[c] - mean) * (row[c] - mean);
            const double inv = 1.0 / std::sqrt(var / static_cast<double>(C) + eps);
            float* o = out.data() + i * C;
            for (std::size_t c = 0; c < C; ++c)
                o[c] = static_cast<float>((row[c] - mean) * inv) * g.data[c] + b.data[c];
        }
    });
}

// out (T, C) = RMSNorm: x / sqrt(mean(x²) + eps) · g over each row (no mean, no bias; Llama's).
void rms_norm(const Buf& x, const Weight& g, double eps, std::size_t T, std::size_t C, Buf& out) {
    parallel_for(T, C * 4, [&](std::size_t r0, std::size_t r1) {
        for (std::size_t i = r0; i < r1; ++i) {
            const float* row = x.data() + i * C;
            double sq = 0.0;
            for (std::size_t c = 0; c < C; ++c) sq += static_cast<double>(row[c]) * row[c];
            const double inv = 1.0 / std::sqrt(sq / static_cast<double>(C) + eps);
            float* o = out.data() + i * C;
            for (std::size_t c = 0; c < C; ++c) o[c] = static_cast<float>(row[c] * inv) * g.data[c];
        }
    });
}

// The recipe's norm: (T, C) -> (T, C).
void norm(const Recipe& r, const Buf& x, const Weight& g, const Weight& b, double eps, std::size_t T, std::size_t C, Buf& out) {
    out.resize(T * C);
    if (r.norm == NormKind::layer_norm) layer_norm(x, g, b, eps, T, C, out);
    else rms_norm(x, g, eps, T, C, out);
}

// y (T, N) = x (T, K) · W (K, N) + b (1, N): one BLAS product on the weights where they lie (Conv1D).
void conv1d(const Buf& x, const Weight& w, const Weight& b, std::size_t T, Buf& y) {
    y.resize(T * w.cols);
    gemm(x.data(), w.rows, w.data, w.cols, y.data(), w.cols, T, w.cols, w.rows, false);
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t n = 0; n < w.cols; ++n) y[i * w.cols + n] += b.data[n];
}

// y (T, N) = x (T, K) · W (N, K)ᵀ (+ b (1, N) when the role is present): nn.Linear.
void linear_t(const Buf& x, const Weight& w, const Weight& b, std::size_t T, Buf& y) {
    y.resize(T * w.rows);
    gemm(x.data(), w.cols, w.data, w.cols, y.data(), w.rows, T, w.rows, w.cols, true);
    if (b.data != nullptr)
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t n = 0; n < w.rows; ++n) y[i * w.rows + n] += b.data[n];
}

// The recipe's projection: Conv1D (K, N) x·W + b, or nn.Linear (N, K) x·Wᵀ (+ b).
void project(const Recipe& r, const Buf& x, const Weight& w, const Weight& b, std::size_t T, Buf& y) {
    if (r.attention == AttnLayout::fused_conv1d) conv1d(x, w, b, T, y);
    else linear_t(x, w, b, T, y);
}

namespace {

// f(x + a, e − a, a) for every part [a, e) of x, the parts on the pool: f runs one of vector_kernels()' activations
// (core/base/vector_kernels.h: xsimd batches, AVX2's where the processor has it, the same bytes).
template <class F>
void on_pool(Buf& x, F f) {
    parallel_for(x.size(), 16, [&](std::size_t a, std::size_t e) { f(x.data() + a, e - a, a); });
}

}  // namespace

// GELU, tanh form ("gelu_new"), in place: 0.5·x·(1 + tanh(u)), u = √(2/π)·(x + 0.044715·x³), computed
// as the same function x / (1 + e^(−2u)) (0.5·(1 + tanh u) is the logistic of 2u): one exponential and a
// division where tanh took both and a select, half the time; within 6e-7 of a double-precision
// evaluation on normal inputs (the tanh form 4e-7), and the same at the ends: x at +inf, −0 far below 0.
void gelu_tanh(Buf& x) {
    const float k2 = -2.0f * std::sqrt(2.0f / 3.14159265358979323846f);  // −2·√(2/π)
    const VectorKernels& k = vector_kernels();
    on_pool(x, [&](float* p, std::size_t n, std::size_t) { k.gelu_tanh(p, n, k2); });
}

// GELU, erf form ("gelu"), in place: 0.5·x·(1 + erf(x/√2)) (xsimd's erf is within an ulp or two of
// std::erf; BERT-base at 128 tokens evaluates it 4.7 million times).
void gelu_erf(Buf& x) {
    const VectorKernels& k = vector_kernels();
    on_pool(x, [&](float* p, std::size_t n, std::size_t) { k.gelu_erf(p, n); });
}

// ReLU in place: max(x, 0).
void relu(Buf& x) {
    for (auto& v : x) v = v > 0.0f ? v : 0.0f;
}

// SiLU in place: x · sigmoid(x) = x / (1 + e^(−x)) (Hugging Face's "silu" and "swish").
void silu(Buf& x) {
    const VectorKernels& k = vector_kernels();
    on_pool(x, [&](float* p, std::size_t n, std::size_t) { k.silu(p, n); });
}

void activate(MlpKind act, Buf& x) {
    if (act == MlpKind::gelu_tanh) gelu_tanh(x);
    else if (act == MlpKind::gelu_erf) gelu_erf(x);
    else if (act == MlpKind::silu) silu(x);
    else relu(x);
}

// SwiGLU's gate in place: gate = silu(gate) ⊙ up, silu(x) = x·sigmoid(x) = x / (1 + e^(−x)) (SmolLM2-135M
// at 256 tokens evaluates it 11.8 million times: 40 ms of CPU one value at a time with std::exp).
void silu_times(Buf& gate, const Buf& up) {
    const VectorKernels& k = vector_kernels();
    on_pool(gate, [&](float* p, std::size_t n, std::size_t a) { k.silu_times(p, up.data() + a, n); });
}

// Columns [first, first + count) of a (T, width) buffer as a (T, count) matrix.
Mat slice(const Buf& b, std::size_t T, std::size_t width, std::size_t first, std::size_t count) {
    Mat m = Mat::from_shape({T, count});
    for (std::size_t i = 0; i < T; ++i) std::copy_n(b.data() + i * width + first, count, m.data() + i * count);
    return m;
}



// One layer's heads: q (n, H·d) over the cached k and v (S, G·d) (keys already rotated) -> contexts side
// by side (n, H·d); the heads' traces in `heads`.
void attention(const Columns& q, const Columns& k, const Columns& v, const HeadsSetup& s, Trace& t,
               std::vector<HeadTrace>& heads, Buf& ctx) {
    const std::size_t n = s.n, H = s.H, d = s.d, width = H * d;
    Settings c;
    c.kind = "model", c.keep_weights = true, c.keep_scores = s.keep_scores;
    TorchGenerator unused(0);  // no dropout in inference
    ctx.resize(n * width);
    // The heads are independent: each pool thread takes the next undone head (9 heads over 2 cores: no
    // fixed halves), and its products and softmax run on that thread. A causal mask leaves no row
    // without a key, so no head touches t.empty_rows.
    // Each head's scores read its key/value head's cached keys in place (row stride G·d), not a copy.
    // (One product for the H/G query heads of a group, (H/G·n, d)·kᵀ, rounds some scores differently
    // in OpenBLAS than a product per head, by an ulp: it would change the traces, so it is not done.)
    const std::size_t S = s.S, Gd = s.G * d;
    std::vector<HeadTrace> out(H);
    parallel_each(H, n * S * d, [&](std::size_t h) {
        const std::size_t g = kv_head_of(h, H, s.G);
        Mat qh = q.head(n, h, d);  // (n, d)
        if (s.rope != nullptr) rope_rotate(qh, s.p0, *s.rope, RopeStyle::half);  // rotate_half, at its position
        Mat scores = Mat::from_shape({n, S});  // (n, S) = q_h · k_gᵀ
        gemm(qh.data(), d, k.buf->data() + k.first + g * d, Gd, scores.data(), S, n, S, d, true);
        Mat raw;
        if (s.bias != nullptr) {  // scores + bias, softmaxed as one (the scale is 1 where a bias is added)
            if (s.keep_scores) raw = scores;
            const Mat& b = (*s.bias)[h];
            for (std::size_t i = 0; i < n * S; ++i) scores.data()[i] += b.data()[i];
        }
        if (s.keep != nullptr && h == s.keep_head) {  // the neuron view's head: q and k as the product read them
            s.keep->queries = qh, s.keep->keys = k.head(S, g, d);
            s.keep->kv_head = g, s.keep->scaled_by = s.scale, s.keep->rotary = s.rope != nullptr;
        }
        out[h] = attend_head_scores(Mat(), Mat(), v.head(S, g, d), std::move(scores), s.scale, *s.mask, c, unused, t);
        HeadTrace& ht = out[h];
        if (s.bias != nullptr) ht.scores = std::move(raw), ht.bias = (*s.bias)[h];  // raw: empty unless kept
        ht.head = h, ht.kv_head = g;
        for (std::size_t i = 0; i < n; ++i) std::copy_n(ht.context.data() + i * d, d, ctx.data() + i * width + h * d);
        ht.values = Mat(), ht.context = Mat();
    });
    for (auto& h : out) heads.push_back(std::move(h));
}

// The top k tokens after each position: softmax of each logits row (T, V), in place.
std::vector<std::vector<Prediction>> top_predictions(Buf& logits, std::size_t T, std::size_t V, std::size_t k,
                                                     const Tokenizer& tok) {
    std::vector<std::vector<std::pair<std::int64_t, float>>> best(T);
    k = std::min(k, V);
    parallel_for(T, V, [&](std::size_t r0, std::size_t r1) {
        for (std::size_t i = r0; i < r1; ++i) {
            float* row = logits.data() + i * V;
            // 1. the k largest logits in one pass (ties: the lower id first)
            std::vector<std::pair<float, std::int64_t>> top;  // sorted, largest first
            for (std::size_t v = 0; v < V; ++v) {
                if (top.size() == k && row[v] <= top.back().first) continue;
                auto at = std::find_if(top.begin(), top.end(), [&](const auto& e) { return row[v] > e.first; });
                top.insert(at, {row[v], static_cast<std::int64_t>(v)});
                if (top.size() > k) top.pop_back();
            }
            // 2. their probabilities: exp(l - max) / sum over the row
            const float mx = top.front().first;
            const double sum = static_cast<double>(exp_shift_sum(row, V, mx));
            for (const auto& [l, id] : top)
                best[i].push_back({id, static_cast<float>(std::exp(static_cast<double>(l - mx)) / sum)});
        }
    });
    std::vector<std::vector<Prediction>> out(T);
    for (std::size_t i = 0; i < T; ++i)
        for (const auto& [id, p] : best[i]) out[i].push_back({id, tok.text(id), p});
    return out;
}

Trace model_trace_header(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids) {
    const ModelConfig& cfg = m.config;
    Trace t;
    t.kind = "model";
    t.config.kind = "model", t.config.heads = cfg.n_head, t.config.kv_heads = cfg.n_kv_head, t.config.causal = true;
    t.config.d_in = t.config.d_out = cfg.n_embd;
    t.model = ModelInfo{m.family->name, m.dtype, cfg.n_layer, cfg.n_head, cfg.n_embd, context_length(cfg), cfg.vocab_size,
                        m.n_params, cfg.norm_eps, "decoder", 0, ""};  // the name: the CLI's (cli/model_source.h)
    t.token_ids = ids;
    for (auto id : ids) t.tokens.push_back(tok.label(id));
    t.source_tokens = t.tokens;
    t.sets = {AttentionSet{"self", t.tokens, t.tokens, {}, true, {}, {}}};  // a decoder's one set: a layer per kept block
    return t;
}

}  // namespace attn::layers
