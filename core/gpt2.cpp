// GPT-2's forward pass; shapes: T positions, C channels, H heads, d = C / H, V vocabulary, L layers.
#include "core/gpt2.h"

#include "data/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include <xsimd/xsimd.hpp>

#include "core/head.h"
#include "core/ops.h"

namespace attn {
namespace {

using Buf = std::vector<float>;

// Adds the time from construction to destruction to one field of a Gpt2Timing (if any).
class Timer {
public:
    Timer(Gpt2Timing* t, double Gpt2Timing::*field) : t_(t), f_(field), start_(std::chrono::steady_clock::now()) {}
    ~Timer() {
        if (t_) t_->*f_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;

private:
    Gpt2Timing* t_;
    double Gpt2Timing::*f_;
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

// y (T, N) = x (T, K) · W (K, N) + b (1, N): one BLAS product on the weights where they lie.
void conv1d(const Buf& x, const Weight& w, const Weight& b, std::size_t T, Buf& y) {
    y.resize(T * w.cols);
    gemm(x.data(), w.rows, w.data, w.cols, y.data(), w.cols, T, w.cols, w.rows, false);
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t n = 0; n < w.cols; ++n) y[i * w.cols + n] += b.data[n];
}

// GELU, tanh form ("gelu_new"), in place: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), vectorised.
void gelu_tanh(Buf& x) {
    using B = xsimd::batch<float>;
    const float k = std::sqrt(2.0f / 3.14159265358979323846f);
    parallel_for(x.size(), 16, [&](std::size_t a, std::size_t e) {
        std::size_t i = a;
        for (; i + B::size <= e; i += B::size) {
            const B v = B::load_unaligned(x.data() + i);
            const B g = B(0.5f) * v * (B(1.0f) + xsimd::tanh(B(k) * (v + B(0.044715f) * v * v * v)));
            g.store_unaligned(x.data() + i);
        }
        for (; i < e; ++i) {
            const float v = x[i];
            x[i] = 0.5f * v * (1.0f + std::tanh(k * (v + 0.044715f * v * v * v)));
        }
    });
}

// Columns [first, first + count) of a (T, width) buffer as a (T, count) matrix.
Mat slice(const Buf& b, std::size_t T, std::size_t width, std::size_t first, std::size_t count) {
    Mat m = Mat::from_shape({T, count});
    for (std::size_t i = 0; i < T; ++i) std::copy_n(b.data() + i * width + first, count, m.data() + i * count);
    return m;
}

// One block's attention: qkv (T, 3C) -> contexts side by side (T, C); the heads' traces in `heads`.
void attention(const Buf& qkv, std::size_t T, std::size_t C, std::size_t H, const Mask& causal, Trace& t,
               std::vector<HeadTrace>& heads, Buf& ctx) {
    const std::size_t d = C / H;
    Settings c;
    c.kind = "model", c.keep_weights = true;
    MaskSpec mask;
    mask.causal = true, mask.cached = &causal;
    TorchGenerator unused(0);  // no dropout in inference
    ctx.resize(T * C);
    // The heads are independent: split them over both cores (each head's BLAS calls then run on its
    // own thread). A causal mask leaves no row without a key, so no head touches t.empty_rows.
    std::vector<HeadTrace> out(H);
    parallel_for(H, T * T * d, [&](std::size_t h0, std::size_t h1) {
        for (std::size_t h = h0; h < h1; ++h) {
            out[h] = attend_head(slice(qkv, T, 3 * C, h * d, d), slice(qkv, T, 3 * C, C + h * d, d),
                                 slice(qkv, T, 3 * C, 2 * C + h * d, d), 1.0f / std::sqrt(static_cast<float>(d)), mask, c,
                                 unused, t);
            HeadTrace& ht = out[h];
            ht.head = h, ht.kv_head = h;
            for (std::size_t i = 0; i < T; ++i) std::copy_n(ht.context.data() + i * d, d, ctx.data() + i * C + h * d);
            ht.queries = Mat(), ht.keys = Mat(), ht.values = Mat(), ht.context = Mat();
        }
    });
    for (auto& h : out) heads.push_back(std::move(h));
}

// The top k tokens after each position: softmax of each logits row (T, V), in place.
std::vector<std::vector<Prediction>> top_predictions(Buf& logits, std::size_t T, std::size_t V, std::size_t k,
                                                     const Gpt2Tokenizer& tok) {
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

double gpt2_run_bytes(const Gpt2Config& c, std::size_t t, std::size_t kept_layers) {
    const double T = static_cast<double>(t), C = static_cast<double>(c.n_embd), H = static_cast<double>(c.n_head);
    const double activations = 4.0 * T * (C * 3 + 3 * C + C + 4 * C);  // x, a, ctx, qkv, mlp
    const double logits = 4.0 * T * static_cast<double>(c.vocab_size);
    const double per_layer = T * T * (4.0 * 2 + 1) * H;                 // scores, weights, mask per head
    const double aggregates = 2.0 * 4.0 * T * T * static_cast<double>(c.n_layer);
    return activations + logits + per_layer * (static_cast<double>(kept_layers) + 1) + aggregates;
}

namespace {
Trace forward(const Gpt2Checkpoint& m, const Gpt2Tokenizer& tok, const std::vector<std::int64_t>& ids,
              const Gpt2RunOptions& opt);
}  // namespace

// A value that overflows float32 in a model run comes from the checkpoint's weights (its embeddings
// are the model's own too): the message says so, not "use embeddings with smaller values".
Trace run_gpt2(const Gpt2Checkpoint& m, const Gpt2Tokenizer& tok, const std::vector<std::int64_t>& ids,
               const Gpt2RunOptions& opt) {
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
Trace forward(const Gpt2Checkpoint& m, const Gpt2Tokenizer& tok, const std::vector<std::int64_t>& ids,
              const Gpt2RunOptions& opt) {
    const Gpt2Config& cfg = m.config;
    const std::size_t T = ids.size(), C = cfg.n_embd, H = cfg.n_head, L = cfg.n_layer, V = m.lm_head.rows;
    Trace t;
    t.kind = "model";
    t.config.kind = "model", t.config.heads = t.config.kv_heads = H, t.config.causal = true;
    t.config.d_in = t.config.d_out = C;
    t.model = ModelInfo{"gpt2", m.dtype, L, H, C, cfg.n_positions, cfg.vocab_size, m.n_params, cfg.layer_norm_epsilon};
    t.token_ids = ids;
    for (auto id : ids) t.tokens.push_back(tok.label(id));
    t.source_tokens = t.tokens;
    // 1. token + position embeddings                                          (T, C)
    Buf x(T * C), a(T * C), qkv, ctx, y, hidden;
    {
        Timer timer(opt.timing, &Gpt2Timing::embed);
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t c = 0; c < C; ++c)
                x[i * C + c] = m.wte.data[static_cast<std::size_t>(ids[i]) * C + c] + m.wpe.data[i * C + c];
    }
    const Mask causal = [&] {
        MaskSpec s;
        s.causal = true;
        return s.materialize(T, T);
    }();
    // 2. the blocks
    for (std::size_t l = 0; l < L; ++l) {
        const Gpt2Block& b = m.blocks[l];
        {
            Timer timer(opt.timing, &Gpt2Timing::layer_norm);
            layer_norm(x, b.ln_1_w, b.ln_1_b, cfg.layer_norm_epsilon, T, C, a);
        }
        {
            Timer timer(opt.timing, &Gpt2Timing::qkv);
            conv1d(a, b.c_attn_w, b.c_attn_b, T, qkv);  // (T, 3C)
        }
        LayerTrace lt;
        lt.layer = l;
        {
            Timer timer(opt.timing, &Gpt2Timing::attention);
            attention(qkv, T, C, H, causal, t, lt.heads, ctx);  // (T, C)
            t.layer_mean.push_back(head_mean(lt.heads));
        }
        {
            Timer timer(opt.timing, &Gpt2Timing::attn_proj);
            conv1d(ctx, b.attn_proj_w, b.attn_proj_b, T, y);
            for (std::size_t i = 0; i < T * C; ++i) x[i] += y[i];
        }
        {
            Timer timer(opt.timing, &Gpt2Timing::mlp);
            layer_norm(x, b.ln_2_w, b.ln_2_b, cfg.layer_norm_epsilon, T, C, a);
            conv1d(a, b.c_fc_w, b.c_fc_b, T, hidden);  // (T, 4C)
            gelu_tanh(hidden);
            conv1d(hidden, b.mlp_proj_w, b.mlp_proj_b, T, y);  // (T, C)
            for (std::size_t i = 0; i < T * C; ++i) x[i] += y[i];
        }
        if (opt.keep_layers.empty() || opt.keep_layers.at(l)) t.layers.push_back(std::move(lt));
        if (opt.progress) opt.progress("layers", l + 1, L);
    }
    t.rollout = attention_rollout(t.layer_mean);
    // 3. logits = ln_f(x) · lm_headᵀ, every position (each gets its predictions)   (T, V)
    Buf logits(T * V);
    {
        Timer timer(opt.timing, &Gpt2Timing::logits);
        layer_norm(x, m.ln_f_w, m.ln_f_b, cfg.layer_norm_epsilon, T, C, a);
        gemm(a.data(), C, m.lm_head.data, C, logits.data(), V, T, V, C, true);
    }
    // 4. the top k next tokens after each position
    Timer timer(opt.timing, &Gpt2Timing::predictions);
    t.predictions = top_predictions(logits, T, V, opt.top_k, tok);
    t.output = Mat::from_shape({T, C});  // the final hidden state (after ln_f)
    std::copy(a.begin(), a.end(), t.output.begin());
    return t;
}
}  // namespace

}  // namespace attn
