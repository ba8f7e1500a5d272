// config.json parsers of the encoder-decoder rows (T5Config, BartConfig, MarianConfig), each field read as
// Hugging Face's modeling code reads it. The generation fields (eos, the decoder's start, forced tokens,
// bad words, ...) are read by data/checkpoint/generation_config.cpp; here they only pass the field check.
#include <string>

#include "data/base/error.h"
#include "data/checkpoint/config_parsers.h"
#include "data/checkpoint/generation_config.h"

namespace attn::config {
namespace {

std::set<std::string> with_generation(std::set<std::string> read) {
    for (const auto& f : generation_fields()) read.insert(f);
    return read;
}

void check_heads(ModelConfig& c, const std::string& name) {
    if (c.n_embd % c.n_head != 0)
        bad(name, "the attention heads (" + std::to_string(c.n_head) + ") do not divide d_model " + std::to_string(c.n_embd),
            "each head takes d_model / heads channels: use the config.json that came with the model");
    c.n_kv_head = c.n_head, c.head_dim = c.n_embd / c.n_head;
}

// A pair of encoder/decoder fields attn needs equal (one head count and MLP width for both stacks).
std::size_t same(const nlohmann::json& j, const char* enc, const char* dec, std::size_t hi, const std::string& name, const char* hint) {
    const std::size_t e = required(j, {enc}, 1, hi, name, hint);
    const std::size_t d = whole(j, {dec}, 1, hi, name).value_or(e);
    if (d != e)
        bad(name, std::string(dec) + " " + std::to_string(d) + " differs from " + enc + " " + std::to_string(e) +
                      ", which attn does not run",
            "attn runs encoder-decoder models whose encoder and decoder have the same heads and MLP width");
    return e;
}

}  // namespace

// T5, T5 v1.1, FLAN-T5 (T5Config): feed_forward_proj is "ACT" or "gated-ACT"; "gated-gelu" runs the
// tanh GELU (dense_act_fn "gelu_new", as Hugging Face forces it); no absolute positions.
void parse_t5(const nlohmann::json& j, const std::string& name, ModelConfig& c) {
    const char* hint = "a T5 config.json names d_model, d_kv, d_ff, num_heads, num_layers and vocab_size";
    check_fields(j, name,
                 with_generation({"d_model", "d_kv", "d_ff", "num_heads", "num_layers", "num_decoder_layers",
                                  "relative_attention_num_buckets", "relative_attention_max_distance", "feed_forward_proj",
                                  "layer_norm_epsilon", "tie_word_embeddings", "vocab_size", "is_gated_act", "dense_act_fn",
                                  "hidden_size", "num_attention_heads", "num_hidden_layers"}),
                 {"dropout_rate", "initializer_factor", "n_positions", "classifier_dropout", "gradient_checkpointing"});
    c.n_embd = required(j, {"d_model", "hidden_size"}, 1, 65536, name, hint);
    c.head_dim = required(j, {"d_kv"}, 1, 65536, name, hint);
    c.n_inner = required(j, {"d_ff"}, 1, 1 << 20, name, hint);
    c.n_head = c.n_kv_head = required(j, {"num_heads", "num_attention_heads"}, 1, 1024, name, hint);
    c.n_layer = required(j, {"num_layers", "num_hidden_layers"}, 1, 1024, name, hint);
    c.n_decoder_layer = whole(j, {"num_decoder_layers"}, 1, 1024, name).value_or(c.n_layer);
    c.vocab_size = required(j, {"vocab_size"}, 1, 1 << 24, name, hint);
    c.rel_buckets = whole(j, {"relative_attention_num_buckets"}, 2, 4096, name).value_or(32);
    c.rel_max_distance = whole(j, {"relative_attention_max_distance"}, 1, 1 << 20, name).value_or(128);
    c.norm_eps = number(j, "layer_norm_epsilon", 0.0, 1.0, "between 0 and 1", name).value_or(1e-6);
    c.tie_word_embeddings = flag(j, "tie_word_embeddings", name).value_or(true);
    c.scale_tied_head = c.tie_word_embeddings;
    c.n_positions = std::size_t(1) << 20;  // relative positions: no table bounds the text (the memory budget does)
    const std::string proj = j.contains("feed_forward_proj") && j["feed_forward_proj"].is_string()
                                 ? j["feed_forward_proj"].get<std::string>() : j.contains("feed_forward_proj") ? "?" : "relu";
    c.gated_mlp = proj.rfind("gated-", 0) == 0;
    const std::string act = c.gated_mlp ? proj.substr(6) : proj;
    if (act == "relu") c.mlp = MlpKind::relu;
    else if (act == "gelu") c.mlp = c.gated_mlp ? MlpKind::gelu_tanh : MlpKind::gelu_erf;  // "gated-gelu": gelu_new
    else if (act == "gelu_new" || act == "gelu_pytorch_tanh") c.mlp = MlpKind::gelu_tanh;
    else if (act == "silu" || act == "swish") c.mlp = MlpKind::silu;
    else
        bad(name, "feed_forward_proj '" + excerpt(proj, 40) + "' is not one attn runs (relu, gelu, gelu_new, silu, each optionally gated-)",
            "attn runs T5's MLPs as Hugging Face's T5DenseActDense and T5DenseGatedActDense do");
    // T5Config derives dense_act_fn and is_gated_act from feed_forward_proj, but a config.json that gives them
    // sets them over it: one that disagrees is refused, never silently run either way
    const std::string derived = proj == "gated-gelu" ? "gelu_new" : act;
    if (j.contains("dense_act_fn") && !(j["dense_act_fn"].is_string() && j["dense_act_fn"].get<std::string>() == derived))
        bad(name, "dense_act_fn " + excerpt(j["dense_act_fn"].dump(), 40) + " disagrees with feed_forward_proj '" + excerpt(proj, 40) +
                      "' (which gives " + derived + ")",
            "give feed_forward_proj alone, or both as the model's own config.json does");
    if (j.contains("is_gated_act") && !(j["is_gated_act"].is_boolean() && j["is_gated_act"].get<bool>() == c.gated_mlp))
        bad(name, "is_gated_act disagrees with feed_forward_proj '" + excerpt(proj, 40) + "'",
            "give feed_forward_proj alone, or both as the model's own config.json does");
    c.qkv_bias = c.o_bias = c.mlp_bias = false;
}

// BART (BartConfig): post-norm, layernorm_embedding, learned positions at offset 2. Its legacy fields
// (normalize_before, add_final_layer_norm, ...) have not changed the computation since the model type
// decides it; they pass as harmless.
void parse_bart_like(const nlohmann::json& j, const std::string& name, ModelConfig& c, bool marian) {
    const char* hint = "a BART or Marian config.json names d_model, encoder_layers, decoder_layers, encoder_attention_heads, "
                       "encoder_ffn_dim, max_position_embeddings and vocab_size";
    std::set<std::string> read = {"d_model", "encoder_layers", "decoder_layers", "encoder_attention_heads",
                                  "decoder_attention_heads", "encoder_ffn_dim", "decoder_ffn_dim", "activation_function",
                                  "scale_embedding", "max_position_embeddings", "vocab_size", "tie_word_embeddings",
                                  "num_hidden_layers", "hidden_size", "num_attention_heads"};
    if (marian) read.insert({"decoder_vocab_size", "share_encoder_decoder_embeddings"});
    check_fields(j, name, with_generation(read),
                 {"dropout", "attention_dropout", "activation_dropout", "classifier_dropout", "classif_dropout", "init_std",
                  "encoder_layerdrop", "decoder_layerdrop", "normalize_before", "add_final_layer_norm", "normalize_embedding",
                  "static_position_embeddings", "add_bias_logits", "extra_pos_embeddings", "gradient_checkpointing",
                  "force_bos_token_to_be_generated", "num_labels"});
    c.n_embd = required(j, {"d_model", "hidden_size"}, 1, 65536, name, hint);
    c.n_layer = required(j, {"encoder_layers", "num_hidden_layers"}, 1, 1024, name, hint);
    c.n_decoder_layer = whole(j, {"decoder_layers"}, 1, 1024, name).value_or(12);
    c.n_head = same(j, "encoder_attention_heads", "decoder_attention_heads", 1024, name, hint);
    c.n_inner = same(j, "encoder_ffn_dim", "decoder_ffn_dim", 1 << 20, name, hint);
    c.vocab_size = required(j, {"vocab_size"}, 1, 1 << 24, name, hint);
    const std::size_t P = required(j, {"max_position_embeddings"}, 1, 1 << 20, name, hint);
    c.mlp = activation(j, "activation_function", MlpKind::gelu_erf, name, true);
    c.tie_word_embeddings = flag(j, "tie_word_embeddings", name).value_or(true);
    c.norm_eps = 1e-5;  // nn.LayerNorm's default: the modeling code passes no eps
    check_heads(c, name);
    c.qkv_bias = c.o_bias = c.mlp_bias = true;
    if (marian) {
        c.scale_embedding = flag(j, "scale_embedding", name).value_or(true);
        c.n_positions = P, c.sinusoidal_positions = true, c.sinusoid_halves = true;
        if (const auto dv = whole(j, {"decoder_vocab_size"}, 1, 1 << 24, name); dv && *dv != c.vocab_size)
            bad(name, "decoder_vocab_size " + std::to_string(*dv) + " differs from vocab_size " + std::to_string(c.vocab_size) +
                          " (separate target embeddings), which attn does not run",
                "attn runs Marian models whose encoder and decoder share one vocabulary");
        if (!flag(j, "share_encoder_decoder_embeddings", name).value_or(true))
            bad(name, "share_encoder_decoder_embeddings is false, which attn does not run",
                "attn runs Marian models whose encoder and decoder share one embedding");
    } else {
        c.scale_embedding = flag(j, "scale_embedding", name).value_or(false);
        c.n_positions = P + 2, c.position_offset = 2;  // BartLearnedPositionalEmbedding: P + 2 rows, looked up at i + 2
    }
}

void parse_bart(const nlohmann::json& j, const std::string& name, ModelConfig& c) { parse_bart_like(j, name, c, false); }
void parse_marian(const nlohmann::json& j, const std::string& name, ModelConfig& c) { parse_bart_like(j, name, c, true); }

}  // namespace attn::config
