// The encoder-decoder stack's passes (core/model/seq2seq.cpp) and its greedy generation
// (core/model/generate.cpp). run_model (core/model/model.h) runs them for T5, BART and Marian.
#pragma once

#include <cstddef>
#include <cstdint>
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
// dec: the decoder's input so far (the start token first); max_new: the generation's limit.
void process_logits(const GenerationConfig& g, const std::vector<std::int64_t>& dec, std::size_t max_new, float* logits,
                    std::size_t V);

// The whole run: the source encoded once; greedy generation from the start token until an end token
// or max_new tokens (or, teacher-forced, the target's ids); then one pass recording every set.
Trace seq2seq_forward(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& src,
                      const ModelRunOptions& opt);

}  // namespace attn
