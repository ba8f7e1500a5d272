#include "data/checkpoint/model_family.h"

#include <cmath>
#include <set>

#include "data/base/error.h"
#include "data/base/files.h"
#include "data/checkpoint/config_parsers.h"

namespace attn {
namespace {

using namespace config;

// The body shared by BERT and RoBERTa (modeling_bert, modeling_roberta), under "bert." / "roberta.".
#define ATTN_BERT_BODY                                                                                              \
    "embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",                                   \
        "encoder.layer.{L}.attention.output.LayerNorm.weight", "encoder.layer.{L}.attention.output.LayerNorm.bias", \
        nullptr, nullptr,                                                                                           \
        "encoder.layer.{L}.attention.self.query.weight", "encoder.layer.{L}.attention.self.query.bias",             \
        "encoder.layer.{L}.attention.self.key.weight", "encoder.layer.{L}.attention.self.key.bias",                 \
        "encoder.layer.{L}.attention.self.value.weight", "encoder.layer.{L}.attention.self.value.bias",             \
        "encoder.layer.{L}.attention.output.dense.weight", "encoder.layer.{L}.attention.output.dense.bias",         \
        "encoder.layer.{L}.output.LayerNorm.weight", "encoder.layer.{L}.output.LayerNorm.bias",                     \
        "encoder.layer.{L}.intermediate.dense.weight", "encoder.layer.{L}.intermediate.dense.bias", nullptr,        \
        "encoder.layer.{L}.output.dense.weight", "encoder.layer.{L}.output.dense.bias",                             \
        nullptr, nullptr
constexpr RoleNames kBertNames = {ATTN_BERT_BODY, "cls.predictions.decoder.weight",
    "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias",
    "cls.predictions.transform.dense.weight", "cls.predictions.transform.dense.bias",
    "cls.predictions.transform.LayerNorm.weight", "cls.predictions.transform.LayerNorm.bias", "cls.predictions.bias"};
constexpr RoleNames kRobertaNames = {ATTN_BERT_BODY, "lm_head.decoder.weight",
    "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias",
    "lm_head.dense.weight", "lm_head.dense.bias", "lm_head.layer_norm.weight", "lm_head.layer_norm.bias", "lm_head.bias"};
#undef ATTN_BERT_BODY
constexpr RoleNames kDistilbertNames = {
    "embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
    "transformer.layer.{L}.sa_layer_norm.weight", "transformer.layer.{L}.sa_layer_norm.bias",
    nullptr, nullptr,
    "transformer.layer.{L}.attention.q_lin.weight", "transformer.layer.{L}.attention.q_lin.bias",
    "transformer.layer.{L}.attention.k_lin.weight", "transformer.layer.{L}.attention.k_lin.bias",
    "transformer.layer.{L}.attention.v_lin.weight", "transformer.layer.{L}.attention.v_lin.bias",
    "transformer.layer.{L}.attention.out_lin.weight", "transformer.layer.{L}.attention.out_lin.bias",
    "transformer.layer.{L}.output_layer_norm.weight", "transformer.layer.{L}.output_layer_norm.bias",
    "transformer.layer.{L}.ffn.lin1.weight", "transformer.layer.{L}.ffn.lin1.bias", nullptr,
    "transformer.layer.{L}.ffn.lin2.weight", "transformer.layer.{L}.ffn.lin2.bias",
    nullptr, nullptr,
    "vocab_projector.weight",
    nullptr, "embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias",
    "vocab_transform.weight", "vocab_transform.bias", "vocab_layer_norm.weight", "vocab_layer_norm.bias", "vocab_projector.bias"};
// An encoder's recipe: post-norm layers, learned positions, nn.Linear projections with biases, the masked-LM head.
constexpr Recipe encoder_recipe(const char* eps_key, ScaleAt scale_at, bool token_types) {
    return {Stack::encoder, NormKind::layer_norm, NormPlace::post, eps_key, PosScheme::learned, scale_at,
            AttnLayout::separate_linear, MlpKind::gelu_erf, true, true, false, token_types, OutputHead::masked_lm};
}

// A row's names given role by role (the roles not listed are absent).
constexpr RoleNames named(std::initializer_list<std::pair<Role, const char*>> list) {
    RoleNames n{};
    for (const auto& [role, text] : list) n[static_cast<std::size_t>(role)] = text;
    return n;
}

// T5 (modeling_t5): blocks of layers — self-attention (layer.0), the decoder's cross-attention (layer.1),
// the MLP (the encoder's layer.1, the decoder's layer.2) — q, k, v, o without biases, RMSNorm without bias.
#define ATTN_T5_BLOCK(stack, mlp)                                                                                  \
    {Role::norm1_w, stack ".block.{L}.layer.0.layer_norm.weight"},                                               \
        {Role::q_w, stack ".block.{L}.layer.0.SelfAttention.q.weight"},                                          \
        {Role::k_w, stack ".block.{L}.layer.0.SelfAttention.k.weight"},                                          \
        {Role::v_w, stack ".block.{L}.layer.0.SelfAttention.v.weight"},                                          \
        {Role::o_w, stack ".block.{L}.layer.0.SelfAttention.o.weight"},                                          \
        {Role::norm2_w, stack ".block.{L}.layer." mlp ".layer_norm.weight"},                                     \
        {Role::up_w, stack ".block.{L}.layer." mlp ".DenseReluDense.wi{G}.weight"},                              \
        {Role::gate_w, stack ".block.{L}.layer." mlp ".DenseReluDense.wi_0.weight"},                             \
        {Role::down_w, stack ".block.{L}.layer." mlp ".DenseReluDense.wo.weight"}
constexpr RoleNames kT5Names = named({
    {Role::embed, "shared.weight"}, ATTN_T5_BLOCK("encoder", "1"),
    {Role::final_norm_w, "encoder.final_layer_norm.weight"}, {Role::dec_final_norm_w, "decoder.final_layer_norm.weight"},
    {Role::lm_head, "lm_head.weight"},
    {Role::rel_bias, "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"},
    {Role::dec_rel_bias, "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"}});
constexpr RoleNames kT5DecoderNames = named({
    ATTN_T5_BLOCK("decoder", "2"),
    {Role::norm3_w, "decoder.block.{L}.layer.1.layer_norm.weight"},
    {Role::xq_w, "decoder.block.{L}.layer.1.EncDecAttention.q.weight"},
    {Role::xk_w, "decoder.block.{L}.layer.1.EncDecAttention.k.weight"},
    {Role::xv_w, "decoder.block.{L}.layer.1.EncDecAttention.v.weight"},
    {Role::xo_w, "decoder.block.{L}.layer.1.EncDecAttention.o.weight"}});
#undef ATTN_T5_BLOCK

// BART and Marian (modeling_bart, modeling_marian; under "model."): post-norm layers, projections with
// biases; the decoder's cross-attention is encoder_attn. Marian has no layernorm_embedding.
#define ATTN_BART_LAYER(stack)                                                                                     \
    {Role::norm1_w, stack ".layers.{L}.self_attn_layer_norm.weight"},                                            \
        {Role::norm1_b, stack ".layers.{L}.self_attn_layer_norm.bias"},                                          \
        {Role::q_w, stack ".layers.{L}.self_attn.q_proj.weight"}, {Role::q_b, stack ".layers.{L}.self_attn.q_proj.bias"}, \
        {Role::k_w, stack ".layers.{L}.self_attn.k_proj.weight"}, {Role::k_b, stack ".layers.{L}.self_attn.k_proj.bias"}, \
        {Role::v_w, stack ".layers.{L}.self_attn.v_proj.weight"}, {Role::v_b, stack ".layers.{L}.self_attn.v_proj.bias"}, \
        {Role::o_w, stack ".layers.{L}.self_attn.out_proj.weight"},                                              \
        {Role::o_b, stack ".layers.{L}.self_attn.out_proj.bias"},                                                \
        {Role::norm2_w, stack ".layers.{L}.final_layer_norm.weight"},                                            \
        {Role::norm2_b, stack ".layers.{L}.final_layer_norm.bias"},                                              \
        {Role::up_w, stack ".layers.{L}.fc1.weight"}, {Role::up_b, stack ".layers.{L}.fc1.bias"},                \
        {Role::down_w, stack ".layers.{L}.fc2.weight"}, {Role::down_b, stack ".layers.{L}.fc2.bias"}
#define ATTN_BART_GLOBALS                                                                                          \
    {Role::embed, "shared.weight"}, ATTN_BART_LAYER("encoder"),                                                  \
        {Role::positions, "encoder.embed_positions.weight"}, {Role::dec_positions, "decoder.embed_positions.weight"}, \
        {Role::lm_head, "lm_head.weight"}, {Role::logits_bias, "final_logits_bias"}
constexpr RoleNames kBartNames = named({
    ATTN_BART_GLOBALS,
    {Role::embed_norm_w, "encoder.layernorm_embedding.weight"}, {Role::embed_norm_b, "encoder.layernorm_embedding.bias"},
    {Role::dec_embed_norm_w, "decoder.layernorm_embedding.weight"}, {Role::dec_embed_norm_b, "decoder.layernorm_embedding.bias"}});
constexpr RoleNames kMarianNames = named({ATTN_BART_GLOBALS});
constexpr RoleNames kBartDecoderNames = named({
    ATTN_BART_LAYER("decoder"),
    {Role::norm3_w, "decoder.layers.{L}.encoder_attn_layer_norm.weight"},
    {Role::norm3_b, "decoder.layers.{L}.encoder_attn_layer_norm.bias"},
    {Role::xq_w, "decoder.layers.{L}.encoder_attn.q_proj.weight"}, {Role::xq_b, "decoder.layers.{L}.encoder_attn.q_proj.bias"},
    {Role::xk_w, "decoder.layers.{L}.encoder_attn.k_proj.weight"}, {Role::xk_b, "decoder.layers.{L}.encoder_attn.k_proj.bias"},
    {Role::xv_w, "decoder.layers.{L}.encoder_attn.v_proj.weight"}, {Role::xv_b, "decoder.layers.{L}.encoder_attn.v_proj.bias"},
    {Role::xo_w, "decoder.layers.{L}.encoder_attn.out_proj.weight"}, {Role::xo_b, "decoder.layers.{L}.encoder_attn.out_proj.bias"}});
#undef ATTN_BART_GLOBALS
#undef ATTN_BART_LAYER
// An encoder-decoder's recipe (the MLP's activation comes from the config).
constexpr Recipe seq2seq_recipe(NormKind norm, NormPlace place, const char* eps_key, PosScheme pos, ScaleAt scale,
                                bool norm_bias, bool embed_norm) {
    return {Stack::encoder_decoder, norm, place, eps_key, pos, scale, AttnLayout::separate_linear, MlpKind::relu, norm_bias,
            embed_norm, false, false, OutputHead::lm_head};
}

// Llama's names, shared by Mistral and Qwen2 (modeling_llama, modeling_mistral, modeling_qwen2).
constexpr RoleNames kLlamaNames = {
    "model.embed_tokens.weight", nullptr,
    "model.layers.{L}.input_layernorm.weight", nullptr,
    nullptr, nullptr,
    "model.layers.{L}.self_attn.q_proj.weight", "model.layers.{L}.self_attn.q_proj.bias",
    "model.layers.{L}.self_attn.k_proj.weight", "model.layers.{L}.self_attn.k_proj.bias",
    "model.layers.{L}.self_attn.v_proj.weight", "model.layers.{L}.self_attn.v_proj.bias",
    "model.layers.{L}.self_attn.o_proj.weight", "model.layers.{L}.self_attn.o_proj.bias",
    "model.layers.{L}.post_attention_layernorm.weight", nullptr,
    "model.layers.{L}.mlp.up_proj.weight", nullptr, "model.layers.{L}.mlp.gate_proj.weight",
    "model.layers.{L}.mlp.down_proj.weight", nullptr,
    "model.norm.weight", nullptr,
    "lm_head.weight"};
constexpr Recipe kLlamaRecipe = {Stack::decoder, NormKind::rms_norm, NormPlace::pre, "rms_norm_eps", PosScheme::rotary,
                                 ScaleAt::scores, AttnLayout::separate_linear, MlpKind::swiglu, false, false, false, false,
                                 OutputHead::lm_head};

constexpr std::array<Family, kFamilyCount> kFamilies = {{
    {FamilyId::gpt2, "gpt2", "GPT-2", {"gpt2", nullptr, nullptr},
     "GPT-2 small, medium, large, xl, DistilGPT-2 and their fine-tunes", "transformer.", parse_gpt2,
     {"wte.weight", "wpe.weight",
      "h.{L}.ln_1.weight", "h.{L}.ln_1.bias",
      "h.{L}.attn.c_attn.weight", "h.{L}.attn.c_attn.bias",
      nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
      "h.{L}.attn.c_proj.weight", "h.{L}.attn.c_proj.bias",
      "h.{L}.ln_2.weight", "h.{L}.ln_2.bias",
      "h.{L}.mlp.c_fc.weight", "h.{L}.mlp.c_fc.bias", nullptr,
      "h.{L}.mlp.c_proj.weight", "h.{L}.mlp.c_proj.bias",
      "ln_f.weight", "ln_f.bias",
      "lm_head.weight"},
     {Stack::decoder, NormKind::layer_norm, NormPlace::pre, "layer_norm_epsilon", PosScheme::learned, ScaleAt::scores,
      AttnLayout::fused_conv1d, MlpKind::gelu_tanh, true, false, false, false, OutputHead::lm_head}},
    {FamilyId::llama, "llama", "Llama", {"llama", "smollm", nullptr},
     "Llama 2, Llama 3, TinyLlama, SmolLM and SmolLM2", "", parse_llama, kLlamaNames, kLlamaRecipe},
    {FamilyId::mistral, "mistral", "Mistral", {"mistral", nullptr, nullptr},
     "Mistral 7B and its fine-tunes (sliding-window attention)", "", parse_mistral, kLlamaNames, kLlamaRecipe},
    {FamilyId::qwen2, "qwen2", "Qwen2", {"qwen2", nullptr, nullptr},
     "Qwen2 and Qwen2.5 (q, k, v biases)", "", parse_qwen2, kLlamaNames, kLlamaRecipe},
    {FamilyId::bert, "bert", "BERT", {"bert", nullptr, nullptr},
     "BERT base and large, cased and uncased, multilingual BERT and their fine-tunes (encoder)", "bert.", parse_bert,
     kBertNames, encoder_recipe("layer_norm_eps", ScaleAt::scores, true)},
    {FamilyId::roberta, "roberta", "RoBERTa", {"roberta", "xlm-roberta", "camembert"},
     "RoBERTa, XLM-RoBERTa and CamemBERT (encoder; positions from pad_token_id + 1)", "roberta.", parse_roberta,
     kRobertaNames, encoder_recipe("layer_norm_eps", ScaleAt::scores, true)},
    {FamilyId::distilbert, "distilbert", "DistilBERT", {"distilbert", nullptr, nullptr},
     "DistilBERT and its fine-tunes (encoder; no token types, queries scaled before the product)", "distilbert.",
     parse_distilbert, kDistilbertNames, encoder_recipe("", ScaleAt::query, false)},
    {FamilyId::t5, "t5", "T5", {"t5", nullptr, nullptr},
     "T5, T5 v1.1 and FLAN-T5 (encoder-decoder; relative position buckets, RMSNorm before each sublayer, no score scaling)",
     "", parse_t5, kT5Names,
     seq2seq_recipe(NormKind::rms_norm, NormPlace::pre, "layer_norm_epsilon", PosScheme::relative_buckets, ScaleAt::none, false, false),
     kT5DecoderNames},
    {FamilyId::bart, "bart", "BART", {"bart", nullptr, nullptr},
     "BART base and large and their fine-tunes (encoder-decoder; learned positions at offset 2, LayerNorm after each sublayer)",
     "model.", parse_bart, kBartNames,
     seq2seq_recipe(NormKind::layer_norm, NormPlace::post, "", PosScheme::learned, ScaleAt::query, true, true), kBartDecoderNames},
    {FamilyId::marian, "marian", "Marian", {"marian", nullptr, nullptr},
     "Marian translation models, as the opus-mt folders ship them (encoder-decoder; sinusoidal positions, embeddings · √d_model)",
     "model.", parse_marian, kMarianNames,
     seq2seq_recipe(NormKind::layer_norm, NormPlace::post, "", PosScheme::learned, ScaleAt::query, true, false), kBartDecoderNames},
}};
static_assert(kFamilies.size() == kFamilyCount, "one row per FamilyId");

constexpr bool rows_in_order() {
    for (std::size_t i = 0; i < kFamilyCount; ++i)
        if (static_cast<std::size_t>(kFamilies[i].id) != i) return false;
    return true;
}
static_assert(rows_in_order(), "the rows follow FamilyId's order");

}  // namespace

bool role_per_layer(Role r) {
    const auto i = static_cast<std::size_t>(r);
    return (i >= static_cast<std::size_t>(Role::norm1_w) && i <= static_cast<std::size_t>(Role::down_b)) ||
           (i >= static_cast<std::size_t>(Role::xq_w) && i <= static_cast<std::size_t>(Role::norm3_b));
}

bool role_head(Role r) {
    return r == Role::lm_head || r == Role::logits_bias || r == Role::mlm_dense_w || r == Role::mlm_dense_b || r == Role::mlm_norm_w ||
           r == Role::mlm_norm_b || r == Role::mlm_bias;
}

bool role_norm(Role r) {
    switch (r) {
        case Role::norm1_w: case Role::norm1_b: case Role::norm2_w: case Role::norm2_b: case Role::final_norm_w:
        case Role::final_norm_b: case Role::embed_norm_w: case Role::embed_norm_b: case Role::mlm_norm_w: case Role::mlm_norm_b:
        case Role::norm3_w: case Role::norm3_b: case Role::dec_embed_norm_w: case Role::dec_embed_norm_b:
        case Role::dec_final_norm_w: case Role::dec_final_norm_b:
            return true;
        default: return false;
    }
}

std::size_t context_length(const ModelConfig& c) { return c.n_positions - c.position_offset; }

std::string context_field(const ModelConfig& c) {
    return std::string(c.context_key) + (c.position_offset ? " less its position offset" : "");
}

std::string Family::tensor_name(Role r, std::size_t layer, bool decoder, bool gated) const {
    std::string s = (decoder ? decoder_names : names)[static_cast<std::size_t>(r)];
    if (const auto at = s.find("{L}"); at != std::string::npos) s.replace(at, 3, std::to_string(layer));
    if (const auto at = s.find("{G}"); at != std::string::npos) s.replace(at, 3, gated ? "_1" : "");
    return s;
}

const std::array<Family, kFamilyCount>& families() { return kFamilies; }
const Family& family(FamilyId id) { return kFamilies.at(static_cast<std::size_t>(id)); }

const Family* find_family_by_model_type(const std::string& model_type) {
    for (const auto& f : kFamilies)
        for (const char* t : f.model_types)
            if (t != nullptr && model_type == t) return &f;
    return nullptr;
}

const Family* find_family_by_name(const std::string& name) {
    for (const auto& f : kFamilies)
        if (name == f.name) return &f;
    return nullptr;
}

std::string family_names() {
    std::string s;
    for (const auto& f : kFamilies) s += std::string(s.empty() ? "" : ", ") + f.name;
    return s;
}

std::string family_model_types() {
    std::string s;
    for (const auto& f : kFamilies)
        for (const char* t : f.model_types)
            if (t != nullptr) s += (s.empty() ? "" : ", ") + std::string(t);
    return s;
}

ParsedConfig parse_model_config(const std::string& text, const std::string& name) {
    refuse_json_bom(text, name);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
            if (depth > 16) bad(name, "nests too deeply");
            return true;
        });
    } catch (const nlohmann::json::exception&) {
        bad(name, "not JSON");
    }
    if (!j.is_object()) bad(name, "not a JSON object");
    const std::string type = j.contains("model_type") && j["model_type"].is_string() ? j["model_type"].get<std::string>() : "";
    ParsedConfig p;
    p.family = find_family_by_model_type(type);
    if (p.family == nullptr)
        bad(name, "model_type '" + (type.empty() ? std::string("(none)") : excerpt(type, 40)) + "' is not supported",
            "attn runs model_type " + family_model_types() + " (attn models lists them)");
    p.config.model_type = type;
    p.config.mlp = p.family->recipe.mlp;
    p.family->parse(j, name, p.config);
    return p;
}

std::vector<std::size_t> role_shape(const Family& f, const ModelConfig& c, Role r) {
    if (!f.has(r) && !f.decoder_has(r)) return {};
    const std::size_t C = c.n_embd, Hd = c.n_head * c.head_dim, Gd = c.n_kv_head * c.head_dim, I = c.n_inner;
    const bool fused = f.recipe.attention == AttnLayout::fused_conv1d;
    switch (r) {
        case Role::embed: return {c.vocab_size, C};
        case Role::positions: return {c.n_positions, C};
        case Role::norm1_w: case Role::norm2_w: case Role::final_norm_w: return {C};
        case Role::norm1_b: case Role::norm2_b: case Role::final_norm_b:
            return f.recipe.norm_bias ? std::vector<std::size_t>{C} : std::vector<std::size_t>{};
        case Role::qkv_w: return {C, 3 * C};
        case Role::qkv_b: return c.qkv_bias ? std::vector<std::size_t>{3 * C} : std::vector<std::size_t>{};
        case Role::q_w: return {Hd, C};
        case Role::k_w: case Role::v_w: return {Gd, C};
        case Role::q_b: return c.qkv_bias ? std::vector<std::size_t>{Hd} : std::vector<std::size_t>{};
        case Role::k_b: case Role::v_b: return c.qkv_bias ? std::vector<std::size_t>{Gd} : std::vector<std::size_t>{};
        case Role::o_w: return fused ? std::vector<std::size_t>{Hd, C} : std::vector<std::size_t>{C, Hd};
        case Role::o_b: return c.o_bias ? std::vector<std::size_t>{C} : std::vector<std::size_t>{};
        case Role::up_w: return fused ? std::vector<std::size_t>{C, I} : std::vector<std::size_t>{I, C};
        case Role::gate_w: return f.recipe.stack != Stack::encoder_decoder || c.gated_mlp ? std::vector<std::size_t>{I, C}
                                                                                          : std::vector<std::size_t>{};
        case Role::up_b: return c.mlp_bias ? std::vector<std::size_t>{I} : std::vector<std::size_t>{};
        case Role::down_w: return fused ? std::vector<std::size_t>{I, C} : std::vector<std::size_t>{C, I};
        case Role::down_b: return c.mlp_bias ? std::vector<std::size_t>{C} : std::vector<std::size_t>{};
        case Role::lm_head: return {c.vocab_size, C};
        case Role::token_types: return f.recipe.token_types ? std::vector<std::size_t>{c.type_vocab_size, C} : std::vector<std::size_t>{};
        case Role::embed_norm_w: case Role::embed_norm_b: case Role::mlm_norm_w: case Role::mlm_norm_b: case Role::mlm_dense_b:
            return {C};
        case Role::mlm_dense_w: return {C, C};
        case Role::mlm_bias: return {c.vocab_size};
        case Role::xq_w: case Role::xk_w: case Role::xv_w: return {Hd, C};
        case Role::xq_b: case Role::xk_b: case Role::xv_b: return c.qkv_bias ? std::vector<std::size_t>{Hd} : std::vector<std::size_t>{};
        case Role::xo_w: return {C, Hd};
        case Role::xo_b: return c.o_bias ? std::vector<std::size_t>{C} : std::vector<std::size_t>{};
        case Role::norm3_w: case Role::dec_embed_norm_w: case Role::dec_final_norm_w: return {C};
        case Role::norm3_b: case Role::dec_embed_norm_b: case Role::dec_final_norm_b:
            return f.recipe.norm_bias ? std::vector<std::size_t>{C} : std::vector<std::size_t>{};
        case Role::dec_positions: return {c.n_positions, C};
        case Role::logits_bias: return {1, c.vocab_size};
        case Role::rel_bias: case Role::dec_rel_bias: return {c.rel_buckets, c.n_head};
        case Role::count: break;
    }
    return {};
}

std::string recipe_summary(const Family& f) {
    const Recipe& r = f.recipe;
    if (r.stack == Stack::encoder_decoder) {
        std::string s = "encoder-decoder (bidirectional encoder; causal decoder with cross-attention over it) · ";
        s += r.norm == NormKind::layer_norm ? "LayerNorm" : "RMSNorm (no mean, no bias)";
        s += r.norm_place == NormPlace::post ? " after each sublayer · " : " before each sublayer · ";
        if (r.embed_norm) s += "LayerNorm on the embeddings · ";
        s += f.id == FamilyId::t5       ? "relative position buckets (block 0 of each stack) · scores not scaled"
             : f.id == FamilyId::marian ? "sinusoidal positions, embeddings · √d_model · queries scaled by 1/√d"
                                        : "learned positions at offset 2 · queries scaled by 1/√d";
        s += " · MLP with the config's activation · greedy generation (the first maximum)";
        return s;
    }
    std::string s = r.stack == Stack::encoder ? "encoder (bidirectional) · " : "decoder (causal) · ";
    s += r.norm == NormKind::layer_norm ? "LayerNorm" : "RMSNorm";
    s += *r.eps_key ? std::string(" (") + r.eps_key + ")" : std::string(" (eps 1e-12)");
    s += r.norm_place == NormPlace::post ? " after each sublayer · " : " before each sublayer · ";
    if (r.embed_norm) s += "LayerNorm on the embeddings · ";
    if (r.token_types) s += "token type embeddings · ";
    s += r.positions == PosScheme::learned ? "learned positions" : r.positions == PosScheme::rotary ? "rotary positions (rope_theta, rotate_half; rope_scaling linear, llama3)" : "no positions";
    s += r.scale_at == ScaleAt::query ? " · queries scaled by 1/√d" : "";
    s += " · ";
    s += r.attention == AttnLayout::fused_conv1d  ? "fused q|k|v Conv1D (x·W)"
         : r.stack == Stack::encoder              ? "q, k, v, o nn.Linear (x·Wᵀ) with biases"
                                                  : "q, k, v, o nn.Linear (x·Wᵀ), grouped-query heads (num_key_value_heads)";
    s += " · ";
    s += r.stack == Stack::encoder ? "MLP with the config's activation (gelu, gelu_new, relu)"
         : r.mlp == MlpKind::gelu_tanh ? "GELU (tanh) MLP" : r.mlp == MlpKind::gelu_erf ? "GELU (erf) MLP" : "SwiGLU MLP";
    s += r.head == OutputHead::masked_lm ? " · masked-LM head (transform, LayerNorm, tied decoder + bias) when the folder has one" : "";
    return s;
}

}  // namespace attn
