// The record of one attention run: every stage a renderer may show.
//
// Letters used in shape comments throughout attn:
//   T = query positions (tokens of the sentence)
//   S = key/value positions (tokens of the source; S = T for self-attention kinds)
//   H = query heads, G = key/value heads (G = H for MHA, 1 for MQA)
//   D = widths: d_in (embedding), d_out (projection), d_k (per-head query/key), d_v (per-head value)
//
// Matrices are row-major xt::xtensor<float, 2>; parameters are stored in x @ W orientation
// (PyTorch's nn.Linear weight transposed). The JSON trace (docs/trace-format.md) is this struct.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "core/base/settings.h"
#include "data/inputs/inputs.h"
#include "data/inputs/params.h"
#include "data/base/tensor.h"

namespace attn {

// One head's stages.
struct HeadTrace {
    std::size_t head = 0;
    std::size_t kv_head = 0;
    Mat queries;          // (T, d_k) rotated by position with --pos rope
    Mat keys;             // (S, d_k) rotated by position with --pos rope
    Mat queries_unrotated;  // (T, d_k) only with --pos rope: before the rotation
    Mat keys_unrotated;     // (S, d_k) only with --pos rope
    Mat bias;             // (T, S) only with --pos alibi: m_h (j - i), added to scale * scores
    Mat values;           // (S, d_v)
    Mat scores;           // (T, S) raw scores, before scaling and masking
    float scale = 1.0f;   // applied to scores before the softmax
    SharedMask mask;      // (T, S) 1 = visible; heads with the same mask share it
    Mat weights;          // (T, S) softmax over visible keys; exactly 0 where hidden; empty rows all 0
    Mat zeroed;           // (T, S) only with --renorm: softmax over every key, hidden ones zeroed, before
                          // each row is divided by its sum (the chapter's first method)
    Mat dropped_weights;  // (T, S) only when dropout > 0
    Mat context;          // (T, d_v)
};

// One (query block, key block) step of the tiled online softmax (kind "flash").
struct Tile {
    std::size_t head = 0;
    std::size_t q_block = 0, k_block = 0;
    std::size_t q_begin = 0, q_end = 0;   // query rows [q_begin, q_end)
    std::size_t k_begin = 0, k_end = 0;   // key columns [k_begin, k_end)
    std::vector<float> row_max;           // running max m after this tile, one per query row
    std::vector<float> row_sum;           // running sum l after this tile, one per query row
};

// A named scalar the run measured, shown by the terminal view and stored in the JSON
// (for example the largest difference of flash from the unblocked computation).
struct Diagnostic {
    std::string name;
    double value = 0.0;
};

// One layer's heads: a seeded kind's only layer (number 0) or one transformer block of a model.
struct LayerTrace {
    std::size_t layer = 0;         // the layer's own number (kept when --keep-layers drops others)
    std::vector<HeadTrace> heads;  // (H); model heads keep scores, scale, mask, weights (queries/keys/values/context may be empty)
};

// One attention set: the queries of one sequence over the keys of one sequence, layer by layer.
// A seeded kind is one set with one layer; a decoder model one set ("self") with a layer per kept block;
// an encoder-decoder model three: "encoder" (source × source), "decoder" (decoder tokens × decoder tokens,
// causal) and "cross" (decoder tokens × source). Every renderer reads this.
struct AttentionSet {
    std::string name;                       // "self" | "cross" (seeded kinds, decoder and encoder models);
                                            // "encoder" | "decoder" | "cross" (encoder-decoder models)
    std::vector<std::string> query_tokens;  // (T)
    std::vector<std::string> key_tokens;    // (S)
    std::vector<LayerTrace> layers;         // (L) in order
    bool model_layers = false;              // the layers are a model's blocks (views name them "layer N");
                                            // false: a seeded kind's one layer
    // Encoder-decoder models only (the other traces keep theirs in Trace::layer_mean and rollout):
    std::vector<Mat> layer_mean;            // (L) (T, S) mean over a layer's heads, every layer
    std::vector<Mat> rollout;               // (L) (T, T) rollout through layer l; empty for "cross"
};

struct Prediction {
    std::int64_t id = 0;
    std::string token;  // the token's text (decoded bytes, UTF-8; invalid bytes as U+FFFD)
    float p = 0.0f;
};

// The masked-LM head's top tokens at one mask position (encoders).
struct MaskPrediction {
    std::size_t position = 0;
    std::vector<Prediction> top;
};

// One position of an ablated decoder run beside the plain run: position i predicts token i + 1.
struct AblationPosition {
    std::int64_t top_before = 0, top_after = 0;  // the top next token of each run
    float p_before = 0.0f, p_after = 0.0f;       // its probability in that run
    double loss_before = 0.0, loss_after = 0.0;  // −log p(true next token) in each run (natural log)
    std::string token_before, token_after;       // the top tokens' text (the terminal's; not in the JSON)
};

// attn show --model --ablate: the heads whose outputs (context vectors) were replaced, how, and the
// text's loss (mean of the positions' losses) before and after. The trace's weights and predictions
// are the ablated run's.
struct AblationSummary {
    std::vector<std::pair<std::size_t, std::size_t>> heads;  // (layer, query head), as given
    std::string mode = "zero";                               // "zero" | "mean"
    double loss_before = 0.0, loss_after = 0.0;
    std::vector<AblationPosition> positions;  // (T − 1) positions 0 .. T − 2
};

// The logit lens at one depth: the final norm and the output head applied to the residual stream after
// the embeddings (layer "emb", index 0) or after layer l (index l + 1).
struct LensRow {
    std::string layer;              // "emb", "0", "1", ...
    std::vector<std::int64_t> ids;  // (T) the top token after each position
    std::vector<float> p;           // (T) its probability
    std::vector<std::string> tokens;  // (T) the top tokens' text
};

// attn show --model --show queries,keys: one head's queries and keys as its scores' product reads them
// (after the projection's bias, after RoPE for rotary families, before the scale), so that
// scores = (queries · keysᵀ) · scaled_by (+ a mask). A grouped-query head's keys are its key/value
// head's. With a query I, products[j][c] = queries[I][c] · keys[j][c]: row j sums to the raw score q_I·k_j.
struct NeuronTrace {
    std::size_t layer = 0, head = 0, kv_head = 0;  // the model's layer number, query head, key/value head
    float scaled_by = 1.0f;                        // the head's scale (1/√d; DistilBERT's q is divided first: 1)
    bool rotary = false;                           // queries and keys rotated by position (RoPE)
    Mat queries;                                   // (T, d)
    Mat keys;                                      // (S, d)
    std::optional<std::size_t> query;              // I, or none
    Mat products;                                  // (S, d) with a query, else empty
};

struct ModelInfo {
    std::string type;   // "gpt2": the family (data/checkpoint/model_family.h), which also starts file names
    std::string dtype;  // stored dtype: "F32" | "F16" | "BF16"
    std::size_t n_layer = 0, n_head = 0, n_embd = 0, n_positions = 0, vocab_size = 0;
    std::uint64_t n_params = 0;
    double layer_norm_epsilon = 1e-5;
    std::string stack = "decoder";  // "decoder" (causal, next-token predictions) | "encoder" (bidirectional)
                                    // | "encoder-decoder" (n_layer encoder blocks, n_decoder_layer decoder blocks)
    std::size_t n_decoder_layer = 0;
    std::string name;   // the checkpoint: the folder's base name, or the repo id of a Hugging Face cache
                        // snapshot ("HuggingFaceTB/SmolLM2-135M"); "" when unknown (an older trace). Text from
                        // a file system: titles sanitise it (render/view/model_title.h), no file is named by it
};

struct Trace {
    std::string kind;
    Settings config;  // the settings the run used (resolved)
    std::vector<std::string> tokens;         // (T)
    std::vector<std::string> source_tokens;  // (S)
    bool has_source = false;                 // source differs from the sentence
    Mat x;                                   // (T, d_in)
    Mat source_x;                            // (S, d_in) only when has_source
    Mat positions;                           // (T, d_in) only with --pos sinusoidal: added to x
    Mat source_positions;                    // (S, d_src) only with --pos sinusoidal and a source
    std::vector<Param> params;               // in PyTorch construction order
    std::vector<AttentionSet> sets;          // every attention the run computed (one set for every kind and model today)
    Mat output;                              // (T, d_out)
    std::vector<Tile> tiles;                 // flash only
    std::vector<std::size_t> empty_rows;     // query rows with every key hidden (weights and context 0)
    std::vector<Diagnostic> diagnostics;
    std::optional<ModelInfo> model;  // model runs only
    std::vector<std::int64_t> token_ids;  // (T) model runs
    std::vector<Mat> layer_mean;  // (L) (T, T) mean over a layer's heads
    std::vector<Mat> rollout;  // (L) (T, T) attention rollout through layer l
    std::vector<std::vector<Prediction>> predictions;  // (T) top 5 next tokens (decoders)
    std::vector<std::int64_t> token_type_ids;          // (T) encoders: the token types fed to the model
    std::vector<std::uint8_t> segments;                // (T) a sentence pair's segment of each token (0, 1); empty for one text
    std::vector<MaskPrediction> mask_predictions;      // encoders: the top 5 at each mask position
    // Encoder-decoder models: the source is the encoder's input (source_tokens, S), the decoder reads
    // tokens / token_ids (T) = [decoder start] + generated_ids[:-1], so decoder row i predicts generated_ids[i]
    // (predictions[i] are that step's top 5); sets are "encoder", "decoder", "cross".
    std::vector<std::int64_t> source_token_ids;        // (S)
    std::vector<std::int64_t> generated_ids;           // (T) every generated id, the end token included
    bool teacher_forced = false;                       // generated_ids are --target's labels, not greedy choices
    // Decoder models: −log p(token i + 1) after position i (natural log), with ModelRunOptions::token_losses;
    // the logit lens (L + 1 rows) with ModelRunOptions::lens; an ablated run's comparison (the CLI's).
    std::vector<double> token_losses;                  // (T − 1)
    std::vector<LensRow> lens;
    std::optional<AblationSummary> ablation;
    std::optional<NeuronTrace> neuron;  // model runs with --show queries,keys

    // The first set's layers, and the heads of its first layer (all of a seeded run's heads).
    // Precondition: the set and layer exist (every run makes them before filling them).
    std::vector<LayerTrace>& layers() { return sets.at(0).layers; }
    const std::vector<LayerTrace>& layers() const { return sets.at(0).layers; }
    std::vector<HeadTrace>& heads() { return layers().at(0).heads; }
    const std::vector<HeadTrace>& heads() const { return layers().at(0).heads; }

    const Param* param(const std::string& name) const {
        for (const auto& p : params)
            if (p.name == name) return &p;
        return nullptr;
    }
};

}  // namespace attn
