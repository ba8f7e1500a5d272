// The encoder-decoder stack's passes (core/model/seq2seq.cpp) and its greedy generation
// (core/model/generate.cpp). run_model (core/model/model.h) runs them for T5, BART and Marian.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/model.h"
#include "data/checkpoint/generation_config.h"

namespace attn {

// T5's relative position bucket of rel = key − query (modeling_t5's _relative_position_bucket, the
// logarithmic part in float32 as torch computes it).
std::size_t t5_bucket(std::int64_t rel, bool bidirectional, std::size_t num_buckets, std::size_t max_distance);

// The encoder's output (S, C) for the source ids; with a set, every layer's heads (the kept ones) and means.
std::vector<float> seq2seq_encode(const ModelCheckpoint& m, const std::vector<std::int64_t>& src, const ModelRunOptions& opt,
                                  Trace* t, AttentionSet* set);
// The decoder on its input over the encoder's output: the logits (T, V), or of the last row only (1, V);
// with sets, the decoder's self-attention and cross-attention heads.
std::vector<float> seq2seq_decode(const ModelCheckpoint& m, const std::vector<float>& enc, std::size_t S,
                                  const std::vector<std::int64_t>& dec, bool last_only, const ModelRunOptions& opt, Trace* t,
                                  AttentionSet* self_set, AttentionSet* cross_set);

// The next token's logits (V) after Hugging Face's logits processors for greedy search, in its order:
// repetition penalty, no-repeat n-grams, bad words, min length, min new tokens, forced BOS, forced EOS.
// dec: the input so far (an encoder-decoder's start token first, or a decoder's text and the tokens it
// generated); prompt: its length before generation (1: the start token); max_new: the generation's limit
// (max_length = prompt + max_new).
void process_logits(const GenerationConfig& g, const std::vector<std::int64_t>& dec, std::size_t max_new, float* logits,
                    std::size_t V, std::size_t prompt = 1);

// One greedy step on the last row's logits (V), processed in place: the first maximum.
std::int64_t greedy_choice(const GenerationConfig& g, const std::vector<std::int64_t>& dec, std::size_t max_new,
                           std::vector<float>& logits);
// The same step choosing as opt.sampling says: greedy, or a draw from rng (core/model/sampling.h).
std::int64_t next_choice(const GenerationConfig& g, const std::vector<std::int64_t>& dec, std::size_t max_new,
                         std::vector<float>& logits, const SamplingOptions& s, TorchGenerator& rng);
// Whether generation ends with `next`, the token chosen at step `step` (0-based): an end token, or the limit.
bool generation_ends(const GenerationConfig& g, std::int64_t next, std::size_t step, std::size_t max_new);

// The whole run: the source encoded once; greedy (or sampled, opt.sampling) generation from the start token until an end token
// or max_new tokens (or, teacher-forced, the target's ids); then one pass recording every set.
Trace seq2seq_forward(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& src,
                      const ModelRunOptions& opt);

}  // namespace attn

namespace attn {

// attn decode --model for an encoder-decoder: the greedy steps one at a time. Each step's decoder row
// (self-attention over the tokens so far) and cross row (over the source) of one layer, per head; the
// self-attention cache grows a token a step, while the cross-attention's keys and values are computed
// once from the encoder's output. max_abs_diff compares every step's rows with the full pass's.
struct Seq2SeqStep {
    std::string token, next;                     // the decoder's input token, the step's choice
    std::int64_t token_id = -1, next_id = -1;
    std::vector<std::vector<float>> self, cross;  // (heads) (t + 1), (S)
    std::uint64_t self_cache_bytes = 0;          // the decoder's self-attention keys and values after the step
};
struct Seq2SeqDecode {
    std::vector<std::string> source;             // (S)
    std::vector<std::size_t> heads;              // the recorded heads
    std::size_t layer = 0;
    std::vector<Seq2SeqStep> steps;
    std::uint64_t cross_cache_bytes = 0;         // every decoder layer's cross keys and values, computed once
    std::size_t dtype_bytes = 4;
    double max_abs_diff = 0.0;
};
Seq2SeqDecode run_seq2seq_decode(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& src,
                                 const ModelRunOptions& opt, std::size_t layer, std::optional<std::size_t> head);

}  // namespace attn
