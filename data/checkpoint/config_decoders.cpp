// config.json parsers of the decoder rows: GPT-2 (GPT2Config) and the Llama layout (LlamaConfig, MistralConfig,
// Qwen2Config), each field read as Hugging Face's modeling code reads it or refused by name.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include "data/base/error.h"
#include "data/checkpoint/config_parsers.h"

namespace attn::config {

void parse_gpt2(const nlohmann::json& j, const std::string& name, ModelConfig& c) {
    const char* hint = "a GPT-2 config.json names n_layer, n_head, n_embd, n_positions and vocab_size";
    check_fields(j, name,
                 {"n_layer", "num_hidden_layers", "n_head", "num_attention_heads", "n_embd", "hidden_size", "n_positions",
                  "max_position_embeddings", "vocab_size", "layer_norm_epsilon", "activation_function", "n_inner",
                  "scale_attn_weights", "scale_attn_by_inverse_layer_idx", "tie_word_embeddings", "add_cross_attention"},
                 {"n_ctx", "attn_pdrop", "embd_pdrop", "resid_pdrop", "summary_type", "summary_use_proj",
                  "summary_activation", "summary_proj_to_labels", "summary_first_dropout", "reorder_and_upcast_attn"});
    if (j.contains("activation_function")) {
        const auto& a = j["activation_function"];
        if (a == "gelu_new" || a == "gelu_pytorch_tanh") c.mlp = MlpKind::gelu_tanh;
        else if (a == "gelu") c.mlp = MlpKind::gelu_erf;
        else
            bad(name, "activation_function is not a GELU attn runs (gelu_new, gelu_pytorch_tanh, gelu)", "attn runs GPT-2's own architecture");
    }
    if (flag(j, "add_cross_attention", name).value_or(false))
        bad(name, "add_cross_attention is true: attn runs GPT-2 as a decoder on its own", "use a plain GPT-2 language model");
    // Hugging Face's names (GPT2Config.attribute_map) win over GPT-2's own when both are given.
    c.n_layer = required(j, {"num_hidden_layers", "n_layer"}, 1, 1024, name, hint);
    c.n_head = required(j, {"num_attention_heads", "n_head"}, 1, 1024, name, hint);
    c.n_embd = required(j, {"hidden_size", "n_embd"}, 1, 65536, name, hint);
    c.n_positions = required(j, {"max_position_embeddings", "n_positions"}, 1, 1 << 20, name, hint);
    c.context_key = "n_positions";  // GPT2Config's name (max_position_embeddings is its alias)
    c.vocab_size = required(j, {"vocab_size"}, 1, 1 << 24, name, hint);
    c.n_inner = whole(j, {"n_inner"}, 1, 1 << 20, name).value_or(4 * c.n_embd);
    if (const auto e = number(j, "layer_norm_epsilon", 0.0, 1.0, "between 0 and 1", name)) c.norm_eps = *e;
    c.scale_attn_weights = flag(j, "scale_attn_weights", name).value_or(true);
    c.scale_attn_by_inverse_layer_idx = flag(j, "scale_attn_by_inverse_layer_idx", name).value_or(false);
    c.tie_word_embeddings = flag(j, "tie_word_embeddings", name).value_or(true);
    if (c.n_embd % c.n_head != 0)
        bad(name, "n_head " + std::to_string(c.n_head) + " does not divide n_embd " + std::to_string(c.n_embd),
            "each head takes n_embd / n_head channels: use the config.json that came with the model");
    c.n_kv_head = c.n_head, c.head_dim = c.n_embd / c.n_head;
    c.qkv_bias = c.o_bias = c.mlp_bias = true;
}

namespace {

// Mistral's sliding_window: at most 2^40 (every context), or what a size_t holds in the page's 32-bit core.
constexpr std::size_t kMaxSlidingWindow =
    static_cast<std::size_t>(std::min<std::uint64_t>(std::uint64_t(1) << 40, std::numeric_limits<std::size_t>::max()));

// rope_scaling: null, or {"rope_type" (or "type"): default | linear | llama3, ...}. dynamic (NTK) is refused:
// Hugging Face grows the base only for a text past max_position_embeddings, which attn refuses, so
// within attn's context it would be the same as no rope_scaling, and a folder carrying it promises more.
void parse_rope_scaling(const nlohmann::json& j, const std::string& name, ModelConfig& c) {
    if (!j.contains("rope_scaling") || j["rope_scaling"].is_null()) return;
    const auto& r = j["rope_scaling"];
    if (!r.is_object()) bad(name, "rope_scaling is not an object");
    const auto& t = r.contains("rope_type") ? r["rope_type"] : r.contains("type") ? r["type"] : nlohmann::json();
    const std::string type = t.is_string() ? t.get<std::string>() : "(none)";
    auto factor = [&] {
        if (!r.contains("factor") || !r["factor"].is_number() || !(r["factor"].get<double>() >= 1.0))
            bad(name, "rope_scaling " + type + " needs a factor of at least 1");
        return r["factor"].get<double>();
    };
    if (type == "default") return;
    if (type == "linear") c.rope_scaling = RopeScaling::linear, c.rope_factor = factor();
    else if (type == "dynamic")
        bad(name, "rope_scaling type 'dynamic' changes the positions only for a text past max_position_embeddings (" +
                      std::to_string(c.n_positions) + " tokens), which attn does not run",
            "remove rope_scaling from config.json to run texts within max_position_embeddings: the numbers are the same without it");
    else if (type == "llama3") {
        c.rope_scaling = RopeScaling::llama3, c.rope_factor = factor();
        auto num = [&](const char* key) {
            if (!r.contains(key) || !r[key].is_number() || !(r[key].get<double>() > 0.0))
                bad(name, std::string("rope_scaling llama3 needs a positive ") + key);
            return r[key].get<double>();
        };
        c.rope_low_freq_factor = num("low_freq_factor"), c.rope_high_freq_factor = num("high_freq_factor");
        c.rope_original_max_positions = static_cast<std::size_t>(num("original_max_position_embeddings"));
        if (!(c.rope_high_freq_factor > c.rope_low_freq_factor))
            bad(name, "rope_scaling llama3 needs high_freq_factor above low_freq_factor");
    } else {
        bad(name, "rope_scaling type '" + excerpt(type, 32) + "' is not supported",
            "attn computes rope_scaling linear and llama3 as Hugging Face does; other types would change the numbers");
    }
    for (const auto& [key, v] : r.items())
        if (key != "rope_type" && key != "type" && key != "factor" && key != "low_freq_factor" && key != "high_freq_factor" &&
            key != "original_max_position_embeddings")
            bad(name, "rope_scaling field \"" + excerpt(key, 40) + "\" is not one attn reads", "attn computes linear and llama3 scaling as Hugging Face does");
}

// Llama and the families that share its layout (Mistral, Qwen2): the differences are biases and windows.
void parse_llama_like(const nlohmann::json& j, const std::string& name, ModelConfig& c, FamilyId id) {
    const char* hint = "a Llama-family config.json names hidden_size, num_hidden_layers, num_attention_heads, "
                       "intermediate_size, max_position_embeddings and vocab_size";
    std::set<std::string> read = {"hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
                                  "intermediate_size", "max_position_embeddings", "vocab_size", "rms_norm_eps", "rope_theta",
                                  "rope_scaling", "tie_word_embeddings", "hidden_act"};
    // rope_interleaved (SmolLM2's configs): Hugging Face's modeling_llama reads it nowhere and always pairs
    // by rotate_half; attn does the same.
    const std::set<std::string> harmless = {"attention_dropout", "pretraining_tp", "max_window_layers", "mlp_only_layers",
                                            "rope_interleaved", "is_llama_config", "transformers.js_config"};
    if (id == FamilyId::llama) read.insert({"attention_bias", "mlp_bias"});
    if (id == FamilyId::mistral || id == FamilyId::qwen2) read.insert("sliding_window");
    if (id == FamilyId::qwen2) read.insert("use_sliding_window");
    check_fields(j, name, read, harmless);
    if (j.contains("hidden_act") && j["hidden_act"] != "silu")
        bad(name, "hidden_act is not silu", "attn runs the SwiGLU MLP of Llama, Mistral and Qwen2 (silu)");
    c.n_embd = required(j, {"hidden_size"}, 1, 65536, name, hint);
    c.n_layer = required(j, {"num_hidden_layers"}, 1, 1024, name, hint);
    c.n_head = required(j, {"num_attention_heads"}, 1, 1024, name, hint);
    c.n_kv_head = whole(j, {"num_key_value_heads"}, 1, 1024, name).value_or(c.n_head);
    c.n_inner = required(j, {"intermediate_size"}, 1, 1 << 20, name, hint);
    c.n_positions = required(j, {"max_position_embeddings"}, 1, 1 << 24, name, hint);
    c.vocab_size = required(j, {"vocab_size"}, 1, 1 << 24, name, hint);
    c.norm_eps = number(j, "rms_norm_eps", 0.0, 1.0, "between 0 and 1", name).value_or(1e-6);
    c.rope_theta = number(j, "rope_theta", 1.0, 1e12, "between 1 and 1e12", name).value_or(10000.0);
    c.tie_word_embeddings = flag(j, "tie_word_embeddings", name).value_or(false);
    if (c.n_head % c.n_kv_head != 0)
        bad(name, "num_attention_heads " + std::to_string(c.n_head) + " is not divisible by num_key_value_heads " +
                      std::to_string(c.n_kv_head),
            "each key/value head serves H/G query heads: use the config.json that came with the model");
    if (const auto d = whole(j, {"head_dim"}, 1, 65536, name)) c.head_dim = *d;
    else if (c.n_embd % c.n_head != 0)
        bad(name, "num_attention_heads " + std::to_string(c.n_head) + " does not divide hidden_size " + std::to_string(c.n_embd),
            "give head_dim, or use the config.json that came with the model");
    else c.head_dim = c.n_embd / c.n_head;
    if (c.head_dim % 2 != 0) bad(name, "head_dim " + std::to_string(c.head_dim) + " is odd", "rotary positions rotate pairs of channels");
    parse_rope_scaling(j, name, c);
    if (id == FamilyId::llama) {
        c.qkv_bias = c.o_bias = flag(j, "attention_bias", name).value_or(false);
        if (flag(j, "mlp_bias", name).value_or(false))
            bad(name, "mlp_bias is true, which attn does not run", "attn runs Llama's MLP without biases");
    }
    if (id == FamilyId::qwen2) {
        c.qkv_bias = true;
        if (flag(j, "use_sliding_window", name).value_or(false))
            bad(name, "use_sliding_window is true, which attn does not run", "attn runs Qwen2 with full causal attention (use_sliding_window false)");
    }
    if (id == FamilyId::mistral) c.sliding_window = whole(j, {"sliding_window"}, 1, kMaxSlidingWindow, name);
}

}  // namespace

void parse_llama(const nlohmann::json& j, const std::string& n, ModelConfig& c) { parse_llama_like(j, n, c, FamilyId::llama); }
void parse_mistral(const nlohmann::json& j, const std::string& n, ModelConfig& c) { parse_llama_like(j, n, c, FamilyId::mistral); }
void parse_qwen2(const nlohmann::json& j, const std::string& n, ModelConfig& c) { parse_llama_like(j, n, c, FamilyId::qwen2); }

}  // namespace attn::config
