// The table of model architectures attn runs from Hugging Face folders: one typed row per family holding
// every fact about it — its model_type names, its config.json parser, its tensors' names by role and
// the recipe its stack's forward pass (core/model/) follows: the stack (decoder or encoder), where the
// norm sits (before or after each sublayer), the positions, where the scores are scaled, the attention
// layout and biases, the MLP, token types, the embedding's own norm and scale, and the output head. The loader (data/checkpoint/model_checkpoint.cpp) resolves names through the
// roles and checks every shape against the parsed config.
//
// Adding a family: one FamilyId, one row in data/checkpoint/model_family.cpp (its constructor takes every column:
// forgetting one does not compile, and a table shorter than FamilyId::count does not either), one config
// parser, and a block function in core/model/model.cpp only if the recipe names something new.
//
// Letters: L layers, C width (hidden_size), H query heads, G key/value heads, d head_dim, I the MLP's
// inner width, V vocabulary, P learned positions.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attn {

enum class FamilyId : std::size_t { gpt2, llama, mistral, qwen2, bert, roberta, distilbert, t5, bart, marian, count };
constexpr std::size_t kFamilyCount = static_cast<std::size_t>(FamilyId::count);

// The recipe's columns.
enum class NormKind { layer_norm, rms_norm };          // LayerNorm (weight, bias) | RMSNorm (weight)
enum class PosScheme { learned, rotary, none, relative_buckets };  // P[offset + i] added to x | q, k rotated (rotate_half)
                                                       // | nothing | T5's bucketed bias on the scores
enum class AttnLayout { fused_conv1d, separate_linear };  // one (C, 3C) x·W | q, k, v, o (out, in) x·Wᵀ
enum class MlpKind { gelu_tanh, gelu_erf, relu, swiglu, silu };  // fc, act, proj | down(silu(gate x) ⊙ up x) | silu act
enum class Stack { decoder, encoder, encoder_decoder };  // causal self-attention | bidirectional (nothing hidden) |
                                                         // an encoder, and a decoder with cross-attention over it
enum class NormPlace { pre, post };                    // x + f(norm(x)) (GPT-2, Llama) | norm(x + f(x)) (BERT)
enum class ScaleAt { scores, query, none };            // (q·kᵀ)·1/√d (GPT-2, BERT) | (q/√d)·kᵀ (DistilBERT, BART) | q·kᵀ (T5)
enum class OutputHead { lm_head, masked_lm };          // logits = norm_f(x)·Wᵀ | transform, norm, ·Eᵀ + bias

// Tensors by role. A family names the roles it has ({L} stands for the layer); shapes come from
// role_shape() and the config.
enum class Role : std::size_t {
    embed, positions,                     // (V, C), (P, C)
    norm1_w, norm1_b,                     // (C)
    qkv_w, qkv_b,                         // fused: (C, 3C), (3C)
    q_w, q_b, k_w, k_b, v_w, v_b,         // separate: (H·d, C), (H·d); (G·d, C), (G·d)
    o_w, o_b,                             // fused (H·d, C) x·W; separate (C, H·d) x·Wᵀ; (C)
    norm2_w, norm2_b,                     // (C)
    up_w, up_b, gate_w,                   // fused (C, I) x·W; separate (I, C); (I)
    down_w, down_b,                       // fused (I, C) x·W; separate (C, I); (C)
    final_norm_w, final_norm_b,           // (C)
    lm_head,                              // (V, C)
    token_types,                          // (type_vocab_size, C) BERT's segment embeddings
    embed_norm_w, embed_norm_b,           // (C) the norm right after the embeddings (BERT)
    mlm_dense_w, mlm_dense_b,             // (C, C), (C) the masked-LM head's transform (nn.Linear)
    mlm_norm_w, mlm_norm_b,               // (C) its norm
    mlm_bias,                             // (V) the masked-LM head's output bias
    // encoder-decoder models: the decoder's layers read the per-layer roles above through the family's
    // decoder_names, and these (cross-attention over the encoder's output, and its norm)
    xq_w, xq_b, xk_w, xk_b, xv_w, xv_b,   // (H·d, C), (H·d) each
    xo_w, xo_b,                           // (C, H·d), (C)
    norm3_w, norm3_b,                     // (C) the cross-attention's norm
    // and these globals: the decoder's positions and norms, the logits' bias, T5's relative position bias
    dec_positions,                        // (P, C)
    dec_embed_norm_w, dec_embed_norm_b,   // (C)
    dec_final_norm_w, dec_final_norm_b,   // (C)
    logits_bias,                          // (1, V) BART's and Marian's final_logits_bias
    rel_bias, dec_rel_bias,               // (num_buckets, H) block 0's relative_attention_bias, per stack
    count
};
constexpr std::size_t kRoleCount = static_cast<std::size_t>(Role::count);
bool role_per_layer(Role r);  // the roles between norm1_w and down_b, and the cross-attention's
bool role_head(Role r);       // the output head's roles (lm_head, mlm_*): never under the family's prefix
bool role_norm(Role r);       // a LayerNorm's gain or bias (old checkpoints name them .gamma and .beta)

struct Recipe {
    Stack stack;
    NormKind norm;
    NormPlace norm_place;
    const char* eps_key;  // the config field of the norms' eps ("" when the modeling code fixes it)
    PosScheme positions;
    ScaleAt scale_at;
    AttnLayout attention;
    MlpKind mlp;          // the default; config.json's activation may choose another
    bool norm_bias;       // LayerNorm's bias
    bool embed_norm;      // a norm right after the embeddings (BERT's embeddings.LayerNorm)
    bool embed_scale;     // embeddings · √C before the positions are added
    bool token_types;     // segment embeddings added to the embeddings (BERT, RoBERTa; not DistilBERT)
    OutputHead head;
};

// rope_scaling as Hugging Face computes it (modeling_rope_utils): none, linear (inv_freq / factor),
// llama3 (wavelength bands). dynamic is refused by name (config_decoders.cpp says why).
enum class RopeScaling { none, linear, llama3 };

// A parsed config.json, one struct for every family.
struct ModelConfig {
    std::string model_type;  // as config.json gives it
    std::size_t n_layer = 0, n_head = 0, n_kv_head = 0, n_embd = 0, head_dim = 0, n_inner = 0;
    std::size_t n_positions = 0, vocab_size = 0;
    const char* context_key = "max_position_embeddings";  // the config field n_positions comes from (GPT-2's: n_positions)
    double norm_eps = 1e-5;
    // attention
    bool qkv_bias = false, o_bias = false, mlp_bias = false;
    bool scale_attn_weights = true;                // scores · 1/√d (GPT-2 may turn it off)
    bool scale_attn_by_inverse_layer_idx = false;  // GPT-2: layer l's scores also / (l + 1)
    std::optional<std::size_t> sliding_window;     // Mistral: a query sees its last W keys
    // rotary positions
    double rope_theta = 10000.0;
    RopeScaling rope_scaling = RopeScaling::none;
    double rope_factor = 1.0, rope_low_freq_factor = 1.0, rope_high_freq_factor = 4.0;
    std::size_t rope_original_max_positions = 0;
    // MLP and output head
    MlpKind mlp = MlpKind::gelu_tanh;
    MlpKind head_act = MlpKind::gelu_erf;          // the masked-LM head's transform activation
    bool tie_word_embeddings = true;
    // encoders
    std::size_t position_offset = 0;               // learned positions start at this row (RoBERTa: padding_idx + 1)
    std::size_t type_vocab_size = 0;               // rows of the segment embeddings (0: none)
    bool sinusoidal_positions = false;             // DistilBERT's sinusoidal_pos_embds (computed when not stored)
    // encoder-decoder models
    std::size_t n_decoder_layer = 0;               // the decoder's blocks (n_layer: the encoder's)
    bool gated_mlp = false;                        // T5's gated-ACT: wo(act(wi_0 x) ⊙ wi_1 x)
    bool scale_embedding = false;                  // embeddings · √C (BART's scale_embedding; Marian's is true)
    bool scale_tied_head = false;                  // T5 with a tied head: the last hidden state · C^-0.5 before it
    bool sinusoid_halves = false;                  // sinusoidal positions as Marian lays them out (sines, then
                                                   // cosines); DistilBERT's interleave them
    std::size_t rel_buckets = 32, rel_max_distance = 128;  // T5's relative_attention_num_buckets, _max_distance
};

// Reads a config.json object (`name` names the file in errors) into a ModelConfig, honouring every field
// that changes the numbers as Hugging Face does or refusing it by name.
// `c` arrives with the family's defaults (the recipe's MLP, eps 1e-5).
using ConfigParser = void (*)(const nlohmann::json& j, const std::string& name, ModelConfig& c);
using RoleNames = std::array<const char*, kRoleCount>;  // nullptr: the family has no such tensor
// T5's names hold "{G}": "_1" when the MLP is gated (wi_1 beside the gate wi_0), "" when not (wi).
constexpr std::size_t kMaxModelTypes = 3;

class Family {
public:
    constexpr Family(FamilyId id_, const char* name_, const char* title_, std::array<const char*, kMaxModelTypes> model_types_,
                     const char* description_, const char* prefix_, ConfigParser parse_, RoleNames names_, Recipe recipe_,
                     RoleNames decoder_names_ = {})
        : id(id_), name(name_), title(title_), model_types(model_types_), description(description_), prefix(prefix_), parse(parse_),
          names(names_), recipe(recipe_), decoder_names(decoder_names_) {}

    FamilyId id;
    const char* name;         // "gpt2": the trace's model type and the figures' file names
    const char* title;        // "GPT-2": in messages
    std::array<const char*, kMaxModelTypes> model_types;  // config.json's model_type values (nullptr-padded)
    const char* description;  // one line: which models
    const char* prefix;       // an optional prefix of every name but lm_head ("transformer." for GPT-2), or ""
    ConfigParser parse;
    RoleNames names;
    Recipe recipe;
    RoleNames decoder_names;  // encoder-decoder models: the decoder's per-layer tensors (names: the encoder's)

    bool has(Role r) const { return names[static_cast<std::size_t>(r)] != nullptr; }
    bool decoder_has(Role r) const { return decoder_names[static_cast<std::size_t>(r)] != nullptr; }
    // The role's tensor name for layer l ("{L}" replaced), without the optional prefix; `decoder` reads
    // decoder_names (the decoder's layers), `gated` fills T5's "{G}".
    std::string tensor_name(Role r, std::size_t layer = 0, bool decoder = false, bool gated = false) const;
};

const std::array<Family, kFamilyCount>& families();
const Family& family(FamilyId id);
const Family* find_family_by_model_type(const std::string& model_type);  // nullptr when none
const Family* find_family_by_name(const std::string& name);              // by Family::name ("gpt2"); nullptr when none
std::string family_names();  // "gpt2, llama, mistral, ..." (Family::name, a trace's model.type) for errors
std::string family_model_types();  // "gpt2, llama, smollm, ..." for errors

// Parses config.json's text: the model_type picks the row, its parser reads the rest. Returns the row too.
struct ParsedConfig {
    const Family* family = nullptr;
    ModelConfig config;
};
ParsedConfig parse_model_config(const std::string& text, const std::string& name);

// The shape a role's tensor must have under a config (empty when the config says the role is absent,
// e.g. q_b without qkv_bias).
std::vector<std::size_t> role_shape(const Family& f, const ModelConfig& c, Role r);

// The longest text the positions allow: max_position_embeddings less the offset learned positions start at.
std::size_t context_length(const ModelConfig& c);
// The config.json field behind context_length, as messages name it: "n_positions" (GPT-2),
// "max_position_embeddings" (the others), "max_position_embeddings less its position offset" (RoBERTa, BART).
std::string context_field(const ModelConfig& c);

// One line of what each family supports (attn models).
std::string recipe_summary(const Family& f);

}  // namespace attn
