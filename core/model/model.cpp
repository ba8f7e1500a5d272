// The forward pass of every model family; shapes: T positions, C channels, H query heads, G key/value
// heads, d head_dim, I the MLP's width, V vocabulary, L layers.
#include "core/model/model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>


#include "core/base/head.h"
#include "core/base/ops.h"
#include "core/base/simd.h"
#include "data/base/error.h"
#include "core/base/positions.h"

namespace attn {
namespace {

using Buf = std::vector<float>;

// Adds the time from construction to destruction to one field of a ModelTiming (if any).
class Timer {
public:
    Timer(ModelTiming* t, double ModelTiming::*field) : t_(t), f_(field), start_(std::chrono::steady_clock::now()) {}
    ~Timer() {
        if (t_) t_->*f_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;

private:
    ModelTiming* t_;
    double ModelTiming::*f_;
    std::chrono::steady_clock::time_point start_;
};

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

// GELU, tanh form ("gelu_new"), in place: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), vectorised.
void gelu_tanh(Buf& x) {
    using B = simd::Batch;
    const float k = std::sqrt(2.0f / 3.14159265358979323846f);
    parallel_for(x.size(), 16, [&](std::size_t a, std::size_t e) {
        std::size_t i = a;
        for (; i + B::size <= e; i += B::size) {
            const B v = B::load_unaligned(x.data() + i);
            const B g = B(0.5f) * v * (B(1.0f) + simd::tanh(B(k) * (v + B(0.044715f) * v * v * v)));
            g.store_unaligned(x.data() + i);
        }
        for (; i < e; ++i) {
            const float v = x[i];
            x[i] = 0.5f * v * (1.0f + std::tanh(k * (v + 0.044715f * v * v * v)));
        }
    });
}

// GELU, erf form ("gelu"), in place: 0.5·x·(1 + erf(x/√2)).
void gelu_erf(Buf& x) {
    parallel_for(x.size(), 16, [&](std::size_t a, std::size_t e) {
        for (std::size_t i = a; i < e; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f));
    });
}

// SwiGLU's gate in place: gate = silu(gate) ⊙ up, silu(x) = x·sigmoid(x) = x / (1 + e^(−x)).
void silu_times(Buf& gate, const Buf& up) {
    parallel_for(gate.size(), 16, [&](std::size_t a, std::size_t e) {
        for (std::size_t i = a; i < e; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
    });
}

// Columns [first, first + count) of a (T, width) buffer as a (T, count) matrix.
Mat slice(const Buf& b, std::size_t T, std::size_t width, std::size_t first, std::size_t count) {
    Mat m = Mat::from_shape({T, count});
    for (std::size_t i = 0; i < T; ++i) std::copy_n(b.data() + i * width + first, count, m.data() + i * count);
    return m;
}

// Where one of q, k, v lies: columns [first, first + heads·d) of a (T, width) buffer.
struct Columns {
    const Buf* buf;
    std::size_t width, first;
    Mat head(std::size_t T, std::size_t h, std::size_t d) const { return slice(*buf, T, width, first + h * d, d); }
};

// What one layer's attention needs besides q, k, v.
struct HeadsSetup {
    std::size_t n, S, H, G, d;            // n new query rows at positions p0 .. p0 + n − 1 over S cached keys
    std::int64_t p0;
    float scale;
    const MaskSpec* mask;                 // causal (and a window), materialised once
    const RopeTable* rope;                // rotary positions' angles (rows 0 .. T − 1), or nullptr
};

// One layer's heads: q (n, H·d) over the cached k and v (S, G·d) (keys already rotated) -> contexts side
// by side (n, H·d); the heads' traces in `heads`.
void attention(const Columns& q, const Columns& k, const Columns& v, const HeadsSetup& s, Trace& t,
               std::vector<HeadTrace>& heads, Buf& ctx) {
    const std::size_t n = s.n, H = s.H, d = s.d, width = H * d;
    Settings c;
    c.kind = "model", c.keep_weights = true;
    TorchGenerator unused(0);  // no dropout in inference
    ctx.resize(n * width);
    // The heads are independent: split them over both cores (each head's BLAS calls then run on its
    // own thread). A causal mask leaves no row without a key, so no head touches t.empty_rows.
    // Each head's scores read its key/value head's cached keys in place (row stride G·d), not a copy.
    // (One product for the H/G query heads of a group, (H/G·n, d)·kᵀ, rounds some scores differently
    // in OpenBLAS than a product per head, by an ulp: it would change the traces, so it is not done.)
    const std::size_t S = s.S, Gd = s.G * d;
    std::vector<HeadTrace> out(H);
    parallel_for(H, n * S * d, [&](std::size_t h0, std::size_t h1) {
        for (std::size_t h = h0; h < h1; ++h) {
            const std::size_t g = kv_head_of(h, H, s.G);
            Mat qh = q.head(n, h, d);  // (n, d)
            if (s.rope != nullptr) rope_rotate(qh, s.p0, *s.rope, RopeStyle::half);  // rotate_half, at its position
            Mat scores = Mat::from_shape({n, S});  // (n, S) = q_h · k_gᵀ
            gemm(qh.data(), d, k.buf->data() + k.first + g * d, Gd, scores.data(), S, n, S, d, true);
            out[h] = attend_head_scores(Mat(), Mat(), v.head(S, g, d), std::move(scores), s.scale, *s.mask, c, unused, t);
            HeadTrace& ht = out[h];
            ht.head = h, ht.kv_head = g;
            for (std::size_t i = 0; i < n; ++i) std::copy_n(ht.context.data() + i * d, d, ctx.data() + i * width + h * d);
            ht.values = Mat(), ht.context = Mat();
        }
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

}  // namespace

Mat head_mean(const std::vector<HeadTrace>& heads) {
    const std::size_t T = heads.at(0).weights.shape(0), S = heads.at(0).weights.shape(1);
    Mat m = Mat::from_shape({T, S});
    std::fill(m.begin(), m.end(), 0.0f);
    for (const auto& h : heads)
        for (std::size_t i = 0; i < T * S; ++i) m.data()[i] += h.weights.data()[i];
    const float inv = 1.0f / static_cast<float>(heads.size());
    for (auto& v : m) v *= inv;
    return m;
}

std::vector<Mat> attention_rollout(const std::vector<Mat>& means) {
    std::vector<Mat> out;
    for (const Mat& a : means) {
        // 1. Ã = 0.5·mean + 0.5·I, rows renormalised                         (T, T)
        const std::size_t T = a.shape(0);
        Mat r = Mat::from_shape({T, T});
        for (std::size_t i = 0; i < T; ++i) {
            float sum = 0.0f;
            for (std::size_t j = 0; j < T; ++j) sum += (r(i, j) = 0.5f * a(i, j) + (i == j ? 0.5f : 0.0f));
            for (std::size_t j = 0; j < T; ++j) r(i, j) /= sum;
        }
        // 2. through this layer: Ã_l · rollout[l-1]                            (T, T)
        out.push_back(out.empty() ? std::move(r) : matmul(r, out.back()));
    }
    return out;
}

double model_run_bytes(const ModelConfig& c, std::size_t t, std::size_t kept_layers) {
    const double T = static_cast<double>(t), C = static_cast<double>(c.n_embd), H = static_cast<double>(c.n_head);
    const double Hd = static_cast<double>(c.n_head * c.head_dim), Gd = static_cast<double>(c.n_kv_head * c.head_dim);
    const double I = static_cast<double>(c.n_inner);
    const double activations = 4.0 * T * (C * 3 + Hd + 2 * Gd + Hd + 2 * I);  // x, a, y, q, k, v, ctx, mlp
    const double logits = 4.0 * T * static_cast<double>(c.vocab_size);
    const double per_layer = T * T * (4.0 * 2 + 1) * H;                 // scores, weights, mask per head
    const double aggregates = 2.0 * 4.0 * T * T * static_cast<double>(c.n_layer);
    return activations + logits + per_layer * (static_cast<double>(kept_layers) + 1) + aggregates;
}

std::vector<double> model_inv_freq(const ModelConfig& c, std::size_t T) {
    const std::size_t d = c.head_dim;
    double base = c.rope_theta;
    // dynamic (NTK): past max_position_embeddings the base grows with the text's length
    if (c.rope_scaling == RopeScaling::dynamic && T > c.n_positions) {
        const double f = c.rope_factor, ratio = f * static_cast<double>(T) / static_cast<double>(c.n_positions) - (f - 1.0);
        base *= std::pow(ratio, static_cast<double>(d) / static_cast<double>(d - 2));
    }
    std::vector<double> inv = rope_inv_freq(base, d);
    if (c.rope_scaling == RopeScaling::linear)
        for (auto& f : inv) f /= c.rope_factor;
    if (c.rope_scaling == RopeScaling::llama3) {
        // Llama 3.1: long wavelengths slowed by factor, short ones kept, the band between blended
        const double pi = 3.14159265358979323846, old = static_cast<double>(c.rope_original_max_positions);
        const double low_wavelen = old / c.rope_low_freq_factor, high_wavelen = old / c.rope_high_freq_factor;
        for (auto& f : inv) {
            const double wavelen = 2.0 * pi / f;
            if (wavelen > low_wavelen) f /= c.rope_factor;
            else if (!(wavelen < high_wavelen)) {
                const double smooth = (old / wavelen - c.rope_low_freq_factor) / (c.rope_high_freq_factor - c.rope_low_freq_factor);
                f = (1.0 - smooth) * f / c.rope_factor + smooth * f;
            }
        }
    }
    return inv;
}

namespace {

// Buffers a layer reuses between calls.
struct Scratch {
    Buf a, q, k, v, ctx, y, hidden, up;
};

// One layer on n rows at positions p0 .. p0 + n − 1 of x (n, C), in place. The layer's cache gains the
// rows' keys (rotated at their positions) and values; their queries attend over every cached row.
void layer_forward(const ModelCheckpoint& m, std::size_t l, Buf& x, std::size_t n, std::size_t p0, LayerCache& cache,
                   const RopeTable* rope, const ModelRunOptions& opt, Scratch& b, Trace& t,
                   std::vector<HeadTrace>& heads) {
    const ModelConfig& cfg = m.config;
    const Recipe& r = m.family->recipe;
    const std::size_t C = cfg.n_embd, H = cfg.n_head, G = cfg.n_kv_head, d = cfg.head_dim, Hd = H * d, Gd = G * d;
    const LayerWeights& w = m.layers[l];
    auto W = [&](Role role) -> const Weight& { return w[static_cast<std::size_t>(role)]; };
    {
        Timer timer(opt.timing, &ModelTiming::layer_norm);
        norm(r, x, W(Role::norm1_w), W(Role::norm1_b), cfg.norm_eps, n, C, b.a);
    }
    // 1. q (n, H·d), k and v (n, G·d): fused q | k | v columns, or three nn.Linear
    Columns cq{&b.q, 3 * C, 0}, ck{&b.q, 3 * C, C}, cv{&b.q, 3 * C, 2 * C};
    {
        Timer timer(opt.timing, &ModelTiming::qkv);
        if (r.attention == AttnLayout::fused_conv1d) {
            conv1d(b.a, W(Role::qkv_w), W(Role::qkv_b), n, b.q);  // (n, 3C)
        } else {
            linear_t(b.a, W(Role::q_w), W(Role::q_b), n, b.q);  // (n, H·d)
            linear_t(b.a, W(Role::k_w), W(Role::k_b), n, b.k);  // (n, G·d)
            linear_t(b.a, W(Role::v_w), W(Role::v_b), n, b.v);  // (n, G·d)
            cq = {&b.q, Hd, 0}, ck = {&b.k, Gd, 0}, cv = {&b.v, Gd, 0};
        }
        // 2. the new keys, rotated at their positions (once per key/value head), and values into the cache
        const std::size_t S = cache.rows + n;
        cache.k.resize(S * Gd), cache.v.resize(S * Gd);
        for (std::size_t g = 0; g < G; ++g) {
            Mat kg = ck.head(n, g, d);  // (n, d)
            if (rope != nullptr) rope_rotate(kg, static_cast<std::int64_t>(p0), *rope, RopeStyle::half);
            const Mat vg = cv.head(n, g, d);
            for (std::size_t i = 0; i < n; ++i) {
                std::copy_n(kg.data() + i * d, d, cache.k.data() + (cache.rows + i) * Gd + g * d);
                std::copy_n(vg.data() + i * d, d, cache.v.data() + (cache.rows + i) * Gd + g * d);
            }
        }
        cache.rows = S;
    }
    // 3. the heads over the cache: causal (bottom-right: row i stands at key p0 + i), Mistral's window
    //    lets a query see its last W keys (i − j ≤ W − 1); scale 1/√d (GPT-2: or 1, and / (l + 1))
    {
        Timer timer(opt.timing, &ModelTiming::attention);
        MaskSpec mask;
        mask.causal = true, mask.shift = static_cast<std::int64_t>(p0);
        if (cfg.sliding_window) mask.window = *cfg.sliding_window - 1;
        const Mask materialised = mask.materialize(n, cache.rows);
        mask.cached = &materialised;
        float scale = cfg.scale_attn_weights ? 1.0f / std::sqrt(static_cast<float>(d)) : 1.0f;
        if (cfg.scale_attn_by_inverse_layer_idx) scale /= static_cast<float>(l + 1);
        const HeadsSetup s{n, cache.rows, H, G, d, static_cast<std::int64_t>(p0), scale, &mask, rope};
        attention(cq, Columns{&cache.k, Gd, 0}, Columns{&cache.v, Gd, 0}, s, t, heads, b.ctx);  // (n, H·d)
    }
    // 4. x += o(contexts)
    {
        Timer timer(opt.timing, &ModelTiming::attn_proj);
        project(r, b.ctx, W(Role::o_w), W(Role::o_b), n, b.y);  // (n, C)
        for (std::size_t i = 0; i < n * C; ++i) x[i] += b.y[i];
    }
    // 5. x += mlp(norm_2(x))
    {
        Timer timer(opt.timing, &ModelTiming::mlp);
        norm(r, x, W(Role::norm2_w), W(Role::norm2_b), cfg.norm_eps, n, C, b.a);
        if (cfg.mlp == MlpKind::swiglu) {
            linear_t(b.a, W(Role::gate_w), Weight{}, n, b.hidden);  // (n, I)
            linear_t(b.a, W(Role::up_w), W(Role::up_b), n, b.up);   // (n, I)
            silu_times(b.hidden, b.up);
        } else {
            project(r, b.a, W(Role::up_w), W(Role::up_b), n, b.hidden);  // (n, I)
            if (cfg.mlp == MlpKind::gelu_tanh) gelu_tanh(b.hidden);
            else gelu_erf(b.hidden);
        }
        project(r, b.hidden, W(Role::down_w), W(Role::down_b), n, b.y);  // (n, C)
        for (std::size_t i = 0; i < n * C; ++i) x[i] += b.y[i];
    }
}

// x (n, C) = E[ids[p0 .. p0 + n)] (+ P[p0 .. p0 + n) with learned positions)
void embed(const ModelCheckpoint& m, const std::vector<std::int64_t>& ids, std::size_t p0, std::size_t n, Buf& x) {
    const std::size_t C = m.config.n_embd;
    const Weight &E = m[Role::embed], &P = m[Role::positions];
    const bool learned = m.family->recipe.positions == PosScheme::learned;
    x.resize(n * C);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < C; ++c)
            x[i * C + c] = learned ? E.data[static_cast<std::size_t>(ids[p0 + i]) * C + c] + P.data[(p0 + i) * C + c]
                                   : E.data[static_cast<std::size_t>(ids[p0 + i]) * C + c];
}

Trace model_trace_header(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids) {
    const ModelConfig& cfg = m.config;
    Trace t;
    t.kind = "model";
    t.config.kind = "model", t.config.heads = cfg.n_head, t.config.kv_heads = cfg.n_kv_head, t.config.causal = true;
    t.config.d_in = t.config.d_out = cfg.n_embd;
    t.model = ModelInfo{m.family->name, m.dtype, cfg.n_layer, cfg.n_head, cfg.n_embd, cfg.n_positions, cfg.vocab_size,
                        m.n_params, cfg.norm_eps};
    t.token_ids = ids;
    for (auto id : ids) t.tokens.push_back(tok.label(id));
    t.source_tokens = t.tokens;
    t.sets = {AttentionSet{"self", t.tokens, t.tokens, {}, true}};  // a decoder's one set: a layer per kept block
    return t;
}

Trace forward(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids,
              const ModelRunOptions& opt);

}  // namespace

// A value that overflows float32 in a model run comes from the checkpoint's weights (its embeddings
// are the model's own too): the message says so, not "use embeddings with smaller values".
Trace run_model(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids,
                const ModelRunOptions& opt) {
    try {
        return forward(m, tok, ids, opt);
    } catch (const Error& e) {
        const std::string what = e.what();
        if (e.kind() != ErrorKind::runtime || what.find("overflow float32") == std::string::npos) throw;
        throw Error(ErrorKind::runtime, what + " in the model's forward pass",
                    "the checkpoint's weights are too large for float32 arithmetic: check model.safetensors, or use "
                    "the checkpoint as Hugging Face saved it");
    }
}

namespace {

Trace forward(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids,
              const ModelRunOptions& opt) {
    const ModelConfig& cfg = m.config;
    const std::size_t T = ids.size(), C = cfg.n_embd, L = cfg.n_layer, V = m[Role::lm_head].rows;
    Trace t = model_trace_header(m, tok, ids);
    // 1. token embeddings (+ learned positions)                              (T, C)
    Buf x;
    {
        Timer timer(opt.timing, &ModelTiming::embed);
        embed(m, ids, 0, T, x);
    }
    // the rotary angles of positions 0 .. T − 1, once for every layer and head
    const RopeTable rope =
        m.family->recipe.positions == PosScheme::rotary ? rope_table(0, T, model_inv_freq(cfg, T)) : RopeTable();
    // 2. the layers, every row at once (each layer's cache holds only this pass)
    Scratch b;
    for (std::size_t l = 0; l < L; ++l) {
        LayerCache cache;
        LayerTrace lt;
        lt.layer = l;
        layer_forward(m, l, x, T, 0, cache, rope.n ? &rope : nullptr, opt, b, t, lt.heads);
        {
            Timer timer(opt.timing, &ModelTiming::attention);
            t.layer_mean.push_back(head_mean(lt.heads));
        }
        if (opt.keep_layers.empty() || opt.keep_layers.at(l)) t.layers().push_back(std::move(lt));
        if (opt.progress) opt.progress("layers", l + 1, L);
    }
    t.rollout = attention_rollout(t.layer_mean);
    // 3. logits = norm_f(x) · W_headᵀ at the positions whose predictions are shown: every position, or
    //    only the last (predict_last_only)                                     (P, V), P = T or 1
    const std::size_t P = opt.predict_last_only ? 1 : T;
    Buf logits(P * V);
    {
        Timer timer(opt.timing, &ModelTiming::logits);
        norm(m.family->recipe, x, m[Role::final_norm_w], m[Role::final_norm_b], cfg.norm_eps, T, C, b.a);
        gemm(b.a.data() + (T - P) * C, C, m[Role::lm_head].data, C, logits.data(), V, P, V, C, true);
    }
    // 4. the top k next tokens after each of those positions
    Timer timer(opt.timing, &ModelTiming::predictions);
    t.predictions = top_predictions(logits, P, V, opt.top_k, tok);
    t.output = Mat::from_shape({T, C});  // the final hidden state (after the final norm)
    std::copy(b.a.begin(), b.a.end(), t.output.begin());
    return t;
}

}  // namespace

DecodeTrace run_model_decode(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids,
                             const ModelDecodeOptions& opt) {
    const ModelConfig& cfg = m.config;
    const std::size_t T = ids.size(), C = cfg.n_embd, L = cfg.n_layer, H = cfg.n_head, G = cfg.n_kv_head, d = cfg.head_dim;
    const std::size_t V = m[Role::lm_head].rows;
    DecodeTrace out;
    out.full = run_model(m, tok, ids, ModelRunOptions{});
    out.layers = L, out.heads = H, out.kv_heads = G, out.d_k = out.d_v = d;
    // the cache one token costs: every layer's G keys and values of head_dim, in the checkpoint's dtype
    DecodeModel info;
    info.layer = opt.layer, info.dtype = m.dtype, info.dtype_bytes = safetensors_dtype_size(m.dtype);
    out.variants = cache_variants(L, H, G, d, d, info.dtype_bytes);
    const std::uint64_t per_token = cache_bytes_per_token(L, G, d, d, info.dtype_bytes);
    // the tokens one at a time through the caches; every step's rows against the full pass's
    // the rotary angles of positions 0 .. T − 1, once for every layer and head
    const RopeTable rope =
        m.family->recipe.positions == PosScheme::rotary ? rope_table(0, T, model_inv_freq(cfg, T)) : RopeTable();
    std::vector<LayerCache> caches(L);
    Scratch b;
    Buf x, logits(V);
    for (std::size_t p = 0; p < T; ++p) {
        DecodeStep s;
        s.step = p, s.token = out.full.tokens[p], s.token_id = ids[p];
        embed(m, ids, p, 1, x);  // (1, C)
        Trace step = model_trace_header(m, tok, ids);
        for (std::size_t l = 0; l < L; ++l) {
            std::vector<HeadTrace> heads;
            layer_forward(m, l, x, 1, p, caches[l], rope.n ? &rope : nullptr, ModelRunOptions{}, b, step, heads);
            for (const HeadTrace& h : heads) {  // (1, p + 1) against row p of the full pass's (T, T)
                const Mat& full = out.full.layers()[l].heads[h.head].weights;
                for (std::size_t j = 0; j < T; ++j) {
                    const double got = j <= p ? static_cast<double>(h.weights(0, j)) : 0.0;
                    out.max_abs_diff = std::max(out.max_abs_diff, std::abs(got - static_cast<double>(full(p, j))));
                }
                if (l != opt.layer || (opt.head && *opt.head != h.head)) continue;
                s.heads.push_back({h.head, h.kv_head, std::vector<float>(h.weights.begin(), h.weights.begin() + (p + 1))});
            }
        }
        norm(m.family->recipe, x, m[Role::final_norm_w], m[Role::final_norm_b], cfg.norm_eps, 1, C, b.a);
        gemm(b.a.data(), C, m[Role::lm_head].data, C, logits.data(), V, 1, V, C, true);
        s.next_id = static_cast<std::int64_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
        s.next = tok.label(s.next_id);
        s.cache_bytes = caches[0].rows * per_token;
        if (s.next_id != out.full.predictions[p][0].id) info.top_changed = true;
        out.steps.push_back(std::move(s));
    }
    out.model = info;
    return out;
}

}  // namespace attn
