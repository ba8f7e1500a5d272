// Decoding as a model generates: the tokens fed one at a time, each step's one new query attending
// over the keys and values cached so far (a KV cache), for kinds whose keys come from the sentence.
//
// Step t (0-based) appends token t's key and value to the cache of each of the G key/value heads,
// then its query, at position t, attends over the t + 1 cached keys. The one query is the newest
// position, so the causal mask is aligned bottom-right (query t sees keys 0..t; a window W keeps
// t − W..t), as Hugging Face's and PyTorch's decode paths do. With RoPE, cached keys are stored
// rotated at their own positions; with ALiBi, head h adds m_h (j − t).
//
// The parameters are the full run's (same kind, seed and settings, causal): every step's weights
// and output equal row t of the full causal pass, and the run measures how closely.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/kinds/kinds.h"

namespace attn {

struct DecodeHeadStep {
    std::size_t head = 0, kv_head = 0;
    std::vector<float> weights;  // (t + 1) this head's row over the cached keys
};

struct DecodeStep {
    std::size_t step = 0;             // t; the query's position is t (+ pos_offset)
    std::string token;
    std::vector<DecodeHeadStep> heads;  // (H)
    std::vector<float> output;        // (d_out) the step's output row
    std::uint64_t cache_bytes = 0;    // float32 keys and values of every layer's G kv heads after the step
    // attn decode --model only: the token's id and the step's top prediction (ids -1 otherwise)
    std::int64_t token_id = -1, next_id = -1;
    std::string next;                 // the predicted token's label
};

// The cache one token costs with G key/value heads: layers · G · (d_k + d_v) · 4 bytes.
struct CacheVariant {
    std::string name;  // "MHA", "GQA", "MQA"
    std::size_t kv_heads = 0;
    std::uint64_t bytes_per_token = 0;
    bool this_run = false;
};

// attn decode --model --max-new-tokens N: one generated token, chosen after fed step `row` (the last
// text token's step for the first). p and top: the model's own softmax of the step's logits (before
// the generation config's processors and the sampling warpers); p_sample: the probability the draw
// gave it (sampling only).
struct GeneratedToken {
    std::int64_t id = -1;
    std::string token;                 // its label
    std::size_t row = 0;               // the step (fed position) whose logits chose it
    double p = 0.0, p_sample = 0.0;
    std::vector<Prediction> top;       // the 5 most likely, largest first
};
struct DecodeGeneration {
    bool sample = false;               // "greedy" | "sample"
    double temperature = 1.0, top_p = 1.0;
    std::size_t top_k = 0;             // 0: off
    std::uint64_t sample_seed = 0;
    std::size_t max_new_tokens = 0;
    std::size_t prompt = 0;            // the text's tokens (the steps after them fed generated tokens)
    bool stopped_at_eos = false;
    std::vector<GeneratedToken> tokens;
};

// attn decode --model: which layer the steps record, and the checkpoint's dtype (the cache's).
struct DecodeModel {
    std::size_t layer = 0;        // the layer whose heads the steps record (every head, or --head's)
    std::string dtype = "F32";    // "F32" | "F16" | "BF16"
    std::size_t dtype_bytes = 4;
    bool top_changed = false;     // a step's top prediction differs from the full pass's
    std::optional<DecodeGeneration> generation;  // --max-new-tokens: the tokens generated after the text
};

struct DecodeTrace {
    Trace full;                        // the full causal pass: same parameters, T query rows at once
    std::size_t layers = 1, heads = 1, kv_heads = 1, d_k = 0, d_v = 0;
    std::vector<DecodeStep> steps;     // (T)
    std::vector<CacheVariant> variants;  // MHA (G = H), GQA (a G between), MQA (G = 1), when they differ
    double max_abs_diff = 0.0;         // steps against the full pass: weights and outputs
    std::optional<DecodeModel> model;  // a model's decode (steps hold weights and predictions, no outputs)
};

// Kinds that decode: queries and keys from the sentence itself (not a source).
bool kind_decodes(const Kind& kind);
std::string decoding_kinds();  // "self, causal, ..."

// Checks (usage errors) and runs; s.causal is taken as true (generation never sees the future).
DecodeTrace run_decode(const Inputs& in, const Settings& s, const RunHooks& hooks = {});

// Bytes per token for G kv heads, each number `dtype_bytes` wide (float32: 4).
std::uint64_t cache_bytes_per_token(std::size_t layers, std::size_t kv_heads, std::size_t d_k, std::size_t d_v,
                                    std::size_t dtype_bytes = sizeof(float));

// MHA (G = H), a GQA between (this G when 1 < G < H, else H's largest proper divisor), MQA (G = 1).
std::vector<CacheVariant> cache_variants(std::size_t layers, std::size_t H, std::size_t G, std::size_t d_k, std::size_t d_v,
                                         std::size_t dtype_bytes = sizeof(float));

}  // namespace attn
