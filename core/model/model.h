// A forward pass for every family of data/checkpoint/model_family.h, in float32, recording every
// layer's and head's attention: the family's stack picks the function (core/model/stacks.h), built from
// the layer functions of core/model/layers.h. The attention itself is attend_head (core/base/head.h,
// the function the seeded kinds run per head), the rotary positions are rope_rotate
// (core/base/positions.h, `--pos rope --rope-style half`), and query head h reads key/value head
// kv_head_of(h, H, G) as the `gqa` kind does.
//
// Decoders (core/model/decoder.cpp): pre-norm, causal, logits after every position (next tokens).
// Encoders (core/model/encoder.cpp): post-norm, bidirectional (no key hidden), token types, and the
// masked-LM head's top tokens at each mask position.
// Encoder-decoders (core/model/seq2seq.cpp, generate.cpp): the source encoded once, greedy generation
// (or --target's teacher forcing), three attention sets: encoder, decoder, cross.
// Aggregates: layer_mean[l] = mean over heads of weights (T, T); rollout (Abnar & Zuidema 2020):
// Ã_l = 0.5·layer_mean[l] + 0.5·I, rows renormalised, rollout[l] = Ã_l · rollout[l-1] (rollout[0] = Ã_0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/kinds/decode.h"
#include "core/model/sampling.h"
#include "core/base/trace.h"
#include "data/text/tokenizer.h"
#include "data/checkpoint/generation_config.h"
#include "data/checkpoint/model_checkpoint.h"

namespace attn {

// Seconds per stage of a model run (attn bench --model).
struct ModelTiming {
    double embed = 0, layer_norm = 0, qkv = 0, attention = 0, attn_proj = 0, mlp = 0, logits = 0, predictions = 0;
};

// A head's output is its context vector (weights · values, head_dim wide) before the output projection.
// Zero ablation sets it to 0; mean ablation sets it, at every position, to its mean over the text's
// positions. A grouped-query model's head is a query head.
enum class AblationMode { zero, mean };
struct HeadAblation {
    std::vector<std::pair<std::size_t, std::size_t>> heads;  // (layer < n_layer, head < n_head), distinct
    AblationMode mode = AblationMode::zero;
};

// --show queries,keys: the one head whose queries and keys the run keeps (Trace::neuron), and the query
// whose elementwise products with every key it computes (none: no products).
struct NeuronRequest {
    std::size_t layer = 0, head = 0;  // the model's layer number (< n_layer), query head (< n_head)
    std::optional<std::size_t> query;  // < T
};

struct ModelRunOptions {
    std::vector<bool> keep_layers;  // (L) layers whose heads the trace keeps; empty = every layer
    std::size_t top_k = 5;          // predictions per position
    // Predictions after the last position only (t.predictions then holds 1 row, not T): the terminal
    // shows only those; the JSON trace, the page and decode --model need every position's.
    bool predict_last_only = false;
    // Each head's raw (T, T) scores (the JSON trace, .npy, the page, figures, --query and --show scores
    // show them); false: weights and mask only, the weights computed in the scores' place (less memory)
    bool keep_scores = true;
    // Encoders: each token's type id (empty: all 0, as Hugging Face feeds one text), the segment each
    // token belongs to (a sentence pair's 0 and 1; empty for one text), and the mask token whose
    // positions get the masked-LM head's predictions (-1: none).
    std::vector<std::int64_t> type_ids;
    std::vector<std::uint8_t> segments;
    std::int64_t mask_id = -1;
    // Encoder-decoder models: the ids are the source; the decoder generates greedily under `generation`
    // until an end token or max_new_tokens, or, with target_ids (the labels, end token included),
    // reads [start] + target_ids[:-1] (teacher forcing).
    const GenerationConfig* generation = nullptr;
    std::size_t max_new_tokens = 40;
    SamplingOptions sampling;  // greedy, or a seeded draw after the logits processors (core/model/sampling.h)
    std::vector<std::int64_t> target_ids;
    // Decoders only: the heads whose outputs are replaced (none: a plain run); the text's per-position
    // losses (Trace::token_losses, every position's logits computed); the logit lens (Trace::lens).
    HeadAblation ablation;
    bool token_losses = false;
    bool lens = false;
    std::optional<NeuronRequest> neuron;  // decoders and encoders (the caller refuses encoder-decoders)
    ModelTiming* timing = nullptr;
    std::function<void(const char* stage, std::size_t done, std::size_t total)> progress;
    // Decoders and encoders: each layer's heads as computed, before keep_layers keeps or drops them (a
    // caller that summarises every layer, as the terminal's mean distances, need not keep them all)
    std::function<void(const LayerTrace& layer)> on_layer;
};

// Runs the model on token ids (1 <= T <= n_positions, each < vocab_size; the caller checks).
Trace run_model(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids,
                const ModelRunOptions& opt);

// A layer's key/value cache: the keys (rotated at their positions) and values of every row seen so far.
struct LayerCache {
    std::vector<float> k, v;  // (S, G·d) each
    std::size_t rows = 0;     // S
};

// attn decode --model: the tokens fed one at a time through every layer's cache, each step's one query
// over the keys cached so far (the layer function the full pass runs, with n = 1 row at position t).
// The steps record layer `layer`'s heads (every head, or only `head`) and the step's top prediction;
// cache bytes count the checkpoint's dtype (layers × G × head_dim × 2 × dtype bytes per token), and the
// variants the same with G = H, a G between and G = 1. max_abs_diff compares every layer's and head's
// step rows with the full pass's rows (not only the recorded ones).
//
// With max_new_tokens N > 0 the run then generates: after the text's last step, each step's logits go
// through the generation config's logits processors (when given) and choose the next token (greedy, or
// sampled), which the next step feeds, until an end token (`generation->eos`) or N tokens. The full
// pass runs over every fed token (the text and the generated tokens but the last), so each step is
// still checked against its row.
struct ModelDecodeOptions {
    std::size_t layer = 0;            // < n_layer (the caller checks)
    std::optional<std::size_t> head;  // < n_head; none: every head of the layer
    std::size_t max_new_tokens = 0;   // 0: feed the text only; text + N within the context (the caller checks)
    SamplingOptions sampling;
    const GenerationConfig* generation = nullptr;  // end tokens and logits processors; none: no end token
};
DecodeTrace run_model_decode(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids,
                             const ModelDecodeOptions& opt = {});

// The rotary frequencies θ_i (d/2 of them), rope_scaling applied as Hugging
// Face's modeling_rope_utils computes it.
std::vector<double> model_inv_freq(const ModelConfig& c);

// The loss of a text: the mean of its positions' losses (0 for a one-token text, which predicts nothing).
double text_loss(const std::vector<double>& token_losses);

// The ablated run beside the plain one (both with token_losses): each position's top next token and
// the losses before and after. Precondition: the two runs read the same ids, with every position's
// predictions.
AblationSummary compare_ablation(const Trace& plain, const Trace& ablated, const HeadAblation& a);

// attn heads --effect: for every layer × head (L, H), the text loss with that head alone zero-ablated
// minus the plain loss, averaged over the texts (decoders; each text 2+ tokens, the caller checks).
// 1 + L·H forwards per text; progress counts them.
std::vector<std::vector<double>> head_effects(
    const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::vector<std::int64_t>>& texts,
    const std::function<void(const char* stage, std::size_t done, std::size_t total)>& progress = nullptr);

// products (S, d) = queries[i] ⊙ each row of keys (S, d): row j sums to q_i·k_j. Precondition: i < T,
// both d wide.
Mat neuron_products(const Mat& queries, const Mat& keys, std::size_t i);

// The aggregates on their own (tests compare them with a plain computation).
Mat head_mean(const std::vector<HeadTrace>& heads);  // (T, T)
std::vector<Mat> attention_rollout(const std::vector<Mat>& layer_means);  // (L) (T, T)

// Bytes a run holds at its peak beyond the weights (activations, logits, the kept (T, T) matrices at
// cell_bytes a cell and head: 9 with the raw scores, 5 without them).
double model_run_bytes(const ModelConfig& c, std::size_t t, std::size_t kept_layers, double cell_bytes = 9.0);

}  // namespace attn
