// config.json parsers of the encoder rows: BERT, RoBERTa (BertConfig, RobertaConfig) and DistilBERT
// (DistilBertConfig), each field read as Hugging Face's modeling code reads it or refused by name.
#include <set>
#include <string>

#include "data/base/error.h"
#include "data/checkpoint/config_parsers.h"

namespace attn::config {

namespace {

// Fields that turn an encoder into something else: refused by name (they change every number).
void refuse_encoder_variants(const nlohmann::json& j, const std::string& name) {
    if (flag(j, "is_decoder", name).value_or(false))
        bad(name, "is_decoder is true: a causal BERT-family model, which attn does not run", "attn runs BERT-family models as encoders");
    if (flag(j, "add_cross_attention", name).value_or(false))
        bad(name, "add_cross_attention is true: an encoder with cross-attention, which attn does not run",
            "attn runs BERT-family models as encoders on their own");
    if (j.contains("position_embedding_type") && j["position_embedding_type"] != "absolute")
        bad(name, "position_embedding_type '" + excerpt(j["position_embedding_type"].dump(), 40) +
                      "' is not one attn runs (relative_key and relative_key_query add distance embeddings to the scores)",
            "attn runs BERT-family models with absolute positions");
}

// BERT and RoBERTa (BertConfig, RobertaConfig): the same layer; RoBERTa's positions start at pad_token_id + 1.
void parse_bert_like(const nlohmann::json& j, const std::string& name, ModelConfig& c, FamilyId id) {
    const char* hint = "a BERT config.json names hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, "
                       "max_position_embeddings and vocab_size";
    check_fields(j, name,
                 {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_act",
                  "max_position_embeddings", "vocab_size", "type_vocab_size", "layer_norm_eps", "position_embedding_type",
                  "tie_word_embeddings", "add_cross_attention"},
                 {"hidden_dropout_prob", "attention_probs_dropout_prob", "classifier_dropout", "gradient_checkpointing",
                  "directionality", "pooler_fc_size", "pooler_num_attention_heads", "pooler_num_fc_layers",
                  "pooler_size_per_head", "pooler_type"});
    refuse_encoder_variants(j, name);
    c.n_embd = required(j, {"hidden_size"}, 1, 65536, name, hint);
    c.n_layer = required(j, {"num_hidden_layers"}, 1, 1024, name, hint);
    c.n_head = required(j, {"num_attention_heads"}, 1, 1024, name, hint);
    c.n_inner = required(j, {"intermediate_size"}, 1, 1 << 20, name, hint);
    c.n_positions = required(j, {"max_position_embeddings"}, 1, 1 << 20, name, hint);
    c.vocab_size = required(j, {"vocab_size"}, 1, 1 << 24, name, hint);
    c.type_vocab_size = whole(j, {"type_vocab_size"}, 1, 1 << 16, name).value_or(2);
    c.norm_eps = number(j, "layer_norm_eps", 0.0, 1.0, "between 0 and 1", name).value_or(1e-12);
    c.mlp = activation(j, "hidden_act", MlpKind::gelu_erf, name);
    // BERT's head transform uses hidden_act; RoBERTa's lm_head calls gelu (the erf form) whatever it says
    c.head_act = id == FamilyId::roberta ? MlpKind::gelu_erf : c.mlp;
    c.tie_word_embeddings = flag(j, "tie_word_embeddings", name).value_or(true);
    if (c.n_embd % c.n_head != 0)
        bad(name, "num_attention_heads " + std::to_string(c.n_head) + " does not divide hidden_size " + std::to_string(c.n_embd),
            "each head takes hidden_size / num_attention_heads channels: use the config.json that came with the model");
    c.n_kv_head = c.n_head, c.head_dim = c.n_embd / c.n_head;
    c.qkv_bias = c.o_bias = c.mlp_bias = true;
    if (id == FamilyId::roberta) {
        // create_position_ids_from_input_ids: positions padding_idx + 1, padding_idx + 2, ...
        const std::size_t pad = whole(j, {"pad_token_id"}, 0, 1 << 24, name).value_or(1);
        c.position_offset = pad + 1;
        if (c.position_offset >= c.n_positions)
            bad(name, "pad_token_id " + std::to_string(pad) + " leaves no position of max_position_embeddings " +
                          std::to_string(c.n_positions) + " (RoBERTa's positions start at pad_token_id + 1)");
    }
}

}  // namespace

void parse_bert(const nlohmann::json& j, const std::string& n, ModelConfig& c) { parse_bert_like(j, n, c, FamilyId::bert); }
void parse_roberta(const nlohmann::json& j, const std::string& n, ModelConfig& c) { parse_bert_like(j, n, c, FamilyId::roberta); }

// DistilBERT (DistilBertConfig): its own names (dim, n_heads, ...), every LayerNorm's eps fixed at 1e-12.
void parse_distilbert(const nlohmann::json& j, const std::string& name, ModelConfig& c) {
    const char* hint = "a DistilBERT config.json names dim, n_layers, n_heads, hidden_dim, max_position_embeddings and vocab_size";
    check_fields(j, name,
                 {"dim", "hidden_size", "n_layers", "num_hidden_layers", "n_heads", "num_attention_heads", "hidden_dim",
                  "activation", "max_position_embeddings", "vocab_size", "sinusoidal_pos_embds", "tie_word_embeddings"},
                 {"dropout", "attention_dropout", "qa_dropout", "seq_classif_dropout", "tie_weights_"});
    refuse_encoder_variants(j, name);
    // Hugging Face's names (DistilBertConfig.attribute_map) win over DistilBERT's own when both are given.
    c.n_embd = required(j, {"hidden_size", "dim"}, 1, 65536, name, hint);
    c.n_layer = required(j, {"num_hidden_layers", "n_layers"}, 1, 1024, name, hint);
    c.n_head = required(j, {"num_attention_heads", "n_heads"}, 1, 1024, name, hint);
    c.n_inner = required(j, {"hidden_dim"}, 1, 1 << 20, name, hint);
    c.n_positions = required(j, {"max_position_embeddings"}, 1, 1 << 20, name, hint);
    c.vocab_size = required(j, {"vocab_size"}, 1, 1 << 24, name, hint);
    c.norm_eps = 1e-12;
    c.mlp = c.head_act = activation(j, "activation", MlpKind::gelu_erf, name);
    c.sinusoidal_positions = flag(j, "sinusoidal_pos_embds", name).value_or(false);
    c.tie_word_embeddings = flag(j, "tie_word_embeddings", name).value_or(true);
    if (c.n_embd % c.n_head != 0)
        bad(name, "n_heads " + std::to_string(c.n_head) + " does not divide dim " + std::to_string(c.n_embd),
            "each head takes dim / n_heads channels: use the config.json that came with the model");
    c.n_kv_head = c.n_head, c.head_dim = c.n_embd / c.n_head;
    c.qkv_bias = c.o_bias = c.mlp_bias = true;
}

}  // namespace attn::config
