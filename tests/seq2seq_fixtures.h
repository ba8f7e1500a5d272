// A hand-made encoder-decoder trace (core/base/trace.h: sets "encoder", "decoder", "cross") with known
// numbers, for the reader, the views, the alignment figure, the terminal and attn heads.
//   source (S = 4): ▁Das ▁Ha us </s>            (words: Das | Haus | </s>)
//   decoder input (T = 3): <pad> ▁Ho use         generated: ▁Ho use </s> (ids 100 101 1; words House | </s>)
//   2 encoder layers, 2 decoder layers, 2 heads; the cross heads' weights below, their layer means
//   computed by hand (each row sums to 1).
#pragma once

#include <string>
#include <vector>

#include "core/base/trace.h"

namespace attn::test {

inline Mat mat_of(const std::vector<std::vector<float>>& rows) {
    Mat m = Mat::from_shape({rows.size(), rows.empty() ? 0 : rows[0].size()});
    for (std::size_t i = 0; i < rows.size(); ++i)
        for (std::size_t j = 0; j < rows[i].size(); ++j) m(i, j) = rows[i][j];
    return m;
}

// cross layer l, head h (T, S)
inline std::vector<std::vector<float>> cross_head_rows(std::size_t l, std::size_t h) {
    if (l == 0 && h == 0) return {{0.7f, 0.1f, 0.1f, 0.1f}, {0.1f, 0.6f, 0.2f, 0.1f}, {0.1f, 0.1f, 0.2f, 0.6f}};
    if (l == 0) return {{0.25f, 0.25f, 0.25f, 0.25f}, {0.25f, 0.25f, 0.25f, 0.25f}, {0.25f, 0.25f, 0.25f, 0.25f}};
    if (h == 0) return {{0.1f, 0.2f, 0.3f, 0.4f}, {0.4f, 0.3f, 0.2f, 0.1f}, {0.0f, 0.0f, 0.0f, 1.0f}};
    return {{0.6f, 0.2f, 0.1f, 0.1f}, {0.2f, 0.2f, 0.5f, 0.1f}, {0.1f, 0.3f, 0.3f, 0.3f}};
}

// the cross layers' means over their two heads, by hand
inline std::vector<std::vector<float>> cross_mean_rows(std::size_t l) {
    if (l == 0) return {{0.475f, 0.175f, 0.175f, 0.175f}, {0.175f, 0.425f, 0.225f, 0.175f}, {0.175f, 0.175f, 0.225f, 0.425f}};
    return {{0.35f, 0.2f, 0.2f, 0.25f}, {0.3f, 0.25f, 0.35f, 0.1f}, {0.05f, 0.15f, 0.15f, 0.65f}};
}

inline HeadTrace fake_head(std::size_t h, const Mat& w, bool causal) {
    HeadTrace head;
    head.head = h, head.kv_head = h;
    head.weights = w;
    head.scores = Mat::from_shape({w.shape(0), w.shape(1)});
    std::fill(head.scores.begin(), head.scores.end(), 0.5f);
    head.scale = 1.0f;
    head.mask = Mask::from_shape({w.shape(0), w.shape(1)});
    for (std::size_t i = 0; i < w.shape(0); ++i)
        for (std::size_t j = 0; j < w.shape(1); ++j) head.mask.edit()(i, j) = (!causal || j <= i) ? 1 : 0;
    return head;
}

inline Trace fake_seq2seq_trace() {
    Trace t;
    t.kind = "model";
    t.config.kind = "model";
    ModelInfo m;
    m.type = "t5", m.dtype = "F32", m.n_layer = 2, m.n_head = 2, m.n_embd = 8, m.n_positions = 512, m.vocab_size = 128;
    m.n_params = 4096, m.layer_norm_epsilon = 1e-6, m.stack = "encoder-decoder", m.n_decoder_layer = 2;
    t.model = m;
    t.source_tokens = {"\xE2\x96\x81" "Das", "\xE2\x96\x81" "Ha", "us", "</s>"};
    t.source_token_ids = {20, 21, 22, 1};
    t.tokens = {"<pad>", "\xE2\x96\x81" "Ho", "use"};
    t.token_ids = {0, 100, 101};
    t.generated_ids = {100, 101, 1};
    t.predictions = {{{100, "\xE2\x96\x81" "Ho", 0.5f}, {7, "\xE2\x96\x81" "A", 0.25f}},
                     {{101, "use", 0.75f}, {8, "se", 0.125f}},
                     {{1, "</s>", 0.875f}, {5, ".", 0.0625f}}};
    const Mat enc = mat_of({{0.25f, 0.25f, 0.25f, 0.25f}, {0.25f, 0.25f, 0.25f, 0.25f}, {0.25f, 0.25f, 0.25f, 0.25f}, {0.25f, 0.25f, 0.25f, 0.25f}});
    const Mat dec = mat_of({{1.0f, 0.0f, 0.0f}, {0.5f, 0.5f, 0.0f}, {0.25f, 0.25f, 0.5f}});
    AttentionSet e{"encoder", t.source_tokens, t.source_tokens, {}, true};
    AttentionSet d{"decoder", t.tokens, t.tokens, {}, true};
    AttentionSet c{"cross", t.tokens, t.source_tokens, {}, true};
    for (std::size_t l = 0; l < 2; ++l) {
        e.layers.push_back({l, {fake_head(0, enc, false), fake_head(1, enc, false)}});
        d.layers.push_back({l, {fake_head(0, dec, true), fake_head(1, dec, true)}});
        c.layers.push_back({l, {fake_head(0, mat_of(cross_head_rows(l, 0)), false), fake_head(1, mat_of(cross_head_rows(l, 1)), false)}});
        e.layer_mean.push_back(enc), e.rollout.push_back(enc);
        d.layer_mean.push_back(dec), d.rollout.push_back(dec);
        c.layer_mean.push_back(mat_of(cross_mean_rows(l)));
    }
    t.sets = {e, d, c};
    return t;
}

}  // namespace attn::test

#include <cstring>

#include "tests/model_fixtures.h"

namespace attn::test {

// A tiny BART folder's tensors (2 encoder layers, 2 decoder layers, 4 heads, d_model 16, MLP 32, 64
// positions, the 257 byte tokens), values from a fixed LCG around `base` (norms' weights around 1):
// enough to run a translation through every renderer (the numbers are random, not a model's).
inline std::vector<StEntry> tiny_bart_tensors() {
    const std::size_t V = 257, D = 16, F = 32, P = 64 + 2;
    std::uint32_t state = 11;
    std::vector<StEntry> t;
    auto add = [&](const std::string& n, std::vector<std::size_t> shape, float base, float spread) {
        std::size_t count = 1;
        for (auto d : shape) count *= d;
        std::string b(count * 4, '\0');
        for (std::size_t i = 0; i < count; ++i) {
            state = state * 1664525u + 1013904223u;
            const float v = base + (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * spread;
            std::memcpy(&b[i * 4], &v, 4);
        }
        t.push_back({n, "F32", shape, b});
    };
    add("model.shared.weight", {V, D}, 0, 1.0f);
    for (const std::string s : {"encoder", "decoder"}) {
        add("model." + s + ".embed_positions.weight", {P, D}, 0, 1.0f);
        add("model." + s + ".layernorm_embedding.weight", {D}, 1, 0.1f), add("model." + s + ".layernorm_embedding.bias", {D}, 0, 0.1f);
        for (std::size_t l = 0; l < 2; ++l) {
            const std::string p = "model." + s + ".layers." + std::to_string(l) + ".";
            std::vector<std::string> attns = {"self_attn"};
            if (s == "decoder") attns.push_back("encoder_attn");
            for (const std::string& a : attns) {
                for (const char* x : {"q_proj", "k_proj", "v_proj", "out_proj"})
                    add(p + a + "." + x + ".weight", {D, D}, 0, 2.0f), add(p + a + "." + x + ".bias", {D}, 0, 0.2f);
                const std::string ln = a == "self_attn" ? "self_attn_layer_norm" : "encoder_attn_layer_norm";
                add(p + ln + ".weight", {D}, 1, 0.1f), add(p + ln + ".bias", {D}, 0, 0.1f);
            }
            add(p + "fc1.weight", {F, D}, 0, 1.0f), add(p + "fc1.bias", {F}, 0, 0.2f);
            add(p + "fc2.weight", {D, F}, 0, 1.0f), add(p + "fc2.bias", {D}, 0, 0.2f);
            add(p + "final_layer_norm.weight", {D}, 1, 0.1f), add(p + "final_layer_norm.bias", {D}, 0, 0.1f);
        }
    }
    add("final_logits_bias", {1, V}, 0, 0.2f);
    return t;
}

inline std::string tiny_bart_config() {
    return R"({"model_type": "bart", "d_model": 16, "encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4,
  "decoder_attention_heads": 4, "encoder_ffn_dim": 32, "decoder_ffn_dim": 32, "max_position_embeddings": 64, "vocab_size": 257,
  "activation_function": "gelu", "bos_token_id": 0, "pad_token_id": 1, "eos_token_id": 2, "decoder_start_token_id": 2})";
}

}  // namespace attn::test
