// The layer functions every model stack is built from (core/model/decoder.cpp, core/model/encoder.cpp):
// norms, projections, activations, one layer's heads, the top predictions of logits rows, the trace's
// header. Shapes: T (or n) rows, C channels, H query heads, G key/value heads, d head_dim, I the MLP's
// width, V vocabulary. Buffers are row-major float32 vectors.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/base/ops.h"
#include "core/base/positions.h"
#include "core/base/trace.h"
#include "core/model/model.h"

namespace attn::layers {

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
void layer_norm(const Buf& x, const Weight& g, const Weight& b, double eps, std::size_t T, std::size_t C, Buf& out);
// out (T, C) = RMSNorm: x / sqrt(mean(x²) + eps) · g over each row (no mean, no bias; Llama's).
void rms_norm(const Buf& x, const Weight& g, double eps, std::size_t T, std::size_t C, Buf& out);
// The recipe's norm: (T, C) -> (T, C).
void norm(const Recipe& r, const Buf& x, const Weight& g, const Weight& b, double eps, std::size_t T, std::size_t C, Buf& out);

// y (T, N) = x (T, K) · W (K, N) + b (1, N): one BLAS product on the weights where they lie (Conv1D).
void conv1d(const Buf& x, const Weight& w, const Weight& b, std::size_t T, Buf& y);
// y (T, N) = x (T, K) · W (N, K)ᵀ (+ b (1, N) when the role is present): nn.Linear.
void linear_t(const Buf& x, const Weight& w, const Weight& b, std::size_t T, Buf& y);
// The recipe's projection: Conv1D (K, N) x·W + b, or nn.Linear (N, K) x·Wᵀ (+ b).
void project(const Recipe& r, const Buf& x, const Weight& w, const Weight& b, std::size_t T, Buf& y);

// Activations in place: GELU's tanh form ("gelu_new"), its erf form ("gelu"), ReLU; `activate` picks one.
void gelu_tanh(Buf& x);
void gelu_erf(Buf& x);
void relu(Buf& x);
void silu(Buf& x);
void activate(MlpKind act, Buf& x);  // gelu_tanh | gelu_erf | relu | silu (not swiglu, which needs two inputs)
// SwiGLU's gate in place: gate = silu(gate) ⊙ up, silu(x) = x·sigmoid(x) = x / (1 + e^(−x)).
void silu_times(Buf& gate, const Buf& up);

// Columns [first, first + count) of a (T, width) buffer as a (T, count) matrix.
Mat slice(const Buf& b, std::size_t T, std::size_t width, std::size_t first, std::size_t count);

// Where one of q, k, v lies: columns [first, first + heads·d) of a (T, width) buffer.
struct Columns {
    const Buf* buf;
    std::size_t width, first;
    Mat head(std::size_t T, std::size_t h, std::size_t d) const { return slice(*buf, T, width, first + h * d, d); }
};

// What one layer's attention needs besides q, k, v.
struct HeadsSetup {
    std::size_t n, S, H, G, d;            // n new query rows at positions p0 .. p0 + n − 1 over S keys
    std::int64_t p0;
    float scale;
    const MaskSpec* mask;                 // causal (and a window), or nothing hidden; materialised once
    const RopeTable* rope;                // rotary positions' angles (rows 0 .. T − 1), or nullptr
    const std::vector<Mat>* bias = nullptr;  // (H) (n, S) added to the scores before the softmax (T5's
                                             // relative positions; kept in each head's trace), or nullptr
    NeuronTrace* keep = nullptr;  // receives head keep_head's queries (n, d) and keys (S, d), or nullptr
    std::size_t keep_head = 0;
    bool keep_scores = true;      // false: the heads' traces hold weights and mask, no raw scores
};

// One layer's heads: q (n, H·d) over k and v (S, G·d) (keys already rotated) -> contexts side by side
// (n, H·d); the heads' traces in `heads`.
void attention(const Columns& q, const Columns& k, const Columns& v, const HeadsSetup& s, Trace& t,
               std::vector<HeadTrace>& heads, Buf& ctx);

// The top k tokens of each logits row (T, V): softmax of each row, in place.
std::vector<std::vector<Prediction>> top_predictions(Buf& logits, std::size_t T, std::size_t V, std::size_t k,
                                                     const Tokenizer& tok);

// A model trace with everything but the layers and outputs: the model's facts, the tokens, one set "self".
Trace model_trace_header(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids);

}  // namespace attn::layers
