// GPT-2's forward pass in float32, recording every layer's and head's attention.
//
//   x = wte[ids] + wpe[0..T)                                     (T, C)
//   per block l: a = ln_1(x); qkv = a·W_attn + b                  (T, 3C), columns q | k | v
//     head h: q, k, v = columns h·d .. (h+1)·d of each part        (T, d), d = C / H
//     attend_head (core/head.h, the function `--kind mha` runs) with the causal mask, scale 1/√d
//     x += concat(contexts)·W_proj + b;  x += gelu_tanh(ln_2(x)·W_fc + b)·W_mproj + b
//   logits = ln_f(x)·wteᵀ (or lm_head)                             (T, V)
// Aggregates: layer_mean[l] = mean over heads of weights (T, T); rollout (Abnar & Zuidema 2020):
// Ã_l = 0.5·layer_mean[l] + 0.5·I, rows renormalised, rollout[l] = Ã_l · rollout[l-1] (rollout[0] = Ã_0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/trace.h"
#include "data/gpt2_checkpoint.h"
#include "data/gpt2_tokenizer.h"

namespace attn {

// Seconds per stage of a model run (attn bench --model).
struct Gpt2Timing {
    double embed = 0, layer_norm = 0, qkv = 0, attention = 0, attn_proj = 0, mlp = 0, logits = 0, predictions = 0;
};

struct Gpt2RunOptions {
    std::vector<bool> keep_layers;  // (L) layers whose heads the trace keeps; empty = every layer
    std::size_t top_k = 5;          // predictions per position
    Gpt2Timing* timing = nullptr;
    std::function<void(const char* stage, std::size_t done, std::size_t total)> progress;
};

// Runs the model on token ids (1 <= T <= n_positions, each < vocab_size; the caller checks).
Trace run_gpt2(const Gpt2Checkpoint& m, const Gpt2Tokenizer& tok, const std::vector<std::int64_t>& ids,
               const Gpt2RunOptions& opt);

// The aggregates on their own (tests compare them with a plain computation).
Mat head_mean(const std::vector<HeadTrace>& heads);  // (T, T)
std::vector<Mat> attention_rollout(const std::vector<Mat>& layer_means);  // (L) (T, T)

// Bytes a run holds at its peak beyond the weights (activations, logits, the kept (T, T) matrices).
double gpt2_run_bytes(const Gpt2Config& c, std::size_t t, std::size_t kept_layers);

}  // namespace attn
