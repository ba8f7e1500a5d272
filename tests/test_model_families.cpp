// The table of model families (data/model_family.h): its rows, the config parsers' fields, the shapes
// by role, and `attn models`.
#include <set>
#include <string>

#include "data/error.h"
#include "data/model_family.h"
#include "tests/helpers.h"

namespace {

std::string config_error(const std::string& text) {
    try {
        attn::parse_model_config(text, "config.json");
    } catch (const attn::Error& e) {
        return e.what();
    }
    return "";
}

const std::string kGpt2 = R"("model_type": "gpt2", "n_layer": 2, "n_head": 2, "n_embd": 8, "n_positions": 16, "vocab_size": 300)";
const std::string kLlama = R"("model_type": "llama", "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "intermediate_size": 24, "max_position_embeddings": 64, "vocab_size": 300)";

}  // namespace

TEST_CASE("families: one row per FamilyId in order, model_type names in one row only, every row names the roles its recipe runs") {
    std::set<std::string> types;
    for (std::size_t i = 0; i < attn::kFamilyCount; ++i) {
        const attn::Family& f = attn::families()[i];
        CHECK(static_cast<std::size_t>(f.id) == i);
        for (const char* t : f.model_types)
            if (t != nullptr) CHECK(types.insert(t).second);
        for (auto r : {attn::Role::embed, attn::Role::norm1_w, attn::Role::o_w, attn::Role::norm2_w, attn::Role::up_w,
                       attn::Role::down_w, attn::Role::final_norm_w, attn::Role::lm_head})
            CHECK(f.has(r));
        const bool fused = f.recipe.attention == attn::AttnLayout::fused_conv1d;
        CHECK(f.has(attn::Role::qkv_w) == fused);
        CHECK(f.has(attn::Role::q_w) == !fused);
        CHECK(f.has(attn::Role::gate_w) == (f.recipe.mlp == attn::MlpKind::swiglu));
        CHECK(f.has(attn::Role::positions) == (f.recipe.positions == attn::PosScheme::learned));
        CHECK(attn::find_family_by_model_type(f.model_types[0]) == &f);
    }
    CHECK(attn::family(attn::FamilyId::llama).tensor_name(attn::Role::k_w, 7) == "model.layers.7.self_attn.k_proj.weight");
}

TEST_CASE("gpt2 config: Hugging Face's alias names win, n_inner and the scaling flags are read, an unknown field is refused by name") {
    auto c = attn::parse_model_config("{" + kGpt2 + R"(, "num_attention_heads": 4, "num_hidden_layers": 3, "hidden_size": 16,
        "max_position_embeddings": 8})", "config.json").config;
    CHECK(c.n_head == 4);
    CHECK(c.n_layer == 3);
    CHECK(c.n_embd == 16);
    CHECK(c.n_positions == 8);
    CHECK(c.n_inner == 64);  // 4 · hidden_size when n_inner is absent
    c = attn::parse_model_config("{" + kGpt2 + R"(, "n_inner": 20, "scale_attn_weights": false,
        "scale_attn_by_inverse_layer_idx": true, "activation_function": "gelu"})", "config.json").config;
    CHECK(c.n_inner == 20);
    CHECK(!c.scale_attn_weights);
    CHECK(c.scale_attn_by_inverse_layer_idx);
    CHECK(c.mlp == attn::MlpKind::gelu_erf);
    CHECK(c.tie_word_embeddings);
    CHECK(config_error("{" + kGpt2 + R"(, "quantization_config": {}})") ==
          "config.json: field \"quantization_config\" is not one attn reads, and it may change the numbers");
    CHECK(config_error("{" + kGpt2 + R"(, "n_ctx": 16, "attn_pdrop": 0.1, "reorder_and_upcast_attn": true})") == "");
}

TEST_CASE("llama config: G divides H, head_dim from the config, rope_scaling types by name, biases per family") {
    auto p = attn::parse_model_config("{" + kLlama + "}", "config.json");
    CHECK(p.family->id == attn::FamilyId::llama);
    CHECK(p.config.n_kv_head == 2);
    CHECK(p.config.head_dim == 4);
    CHECK(!p.config.qkv_bias);
    CHECK(!p.config.tie_word_embeddings);
    CHECK(attn::role_shape(*p.family, p.config, attn::Role::k_w) == std::vector<std::size_t>{8, 16});
    CHECK(attn::role_shape(*p.family, p.config, attn::Role::o_w) == std::vector<std::size_t>{16, 16});
    CHECK(attn::role_shape(*p.family, p.config, attn::Role::down_w) == std::vector<std::size_t>{16, 24});
    CHECK(attn::role_shape(*p.family, p.config, attn::Role::q_b).empty());
    p = attn::parse_model_config("{" + kLlama + R"(, "head_dim": 6})", "config.json");
    CHECK(attn::role_shape(*p.family, p.config, attn::Role::q_w) == std::vector<std::size_t>{24, 16});
    std::string qwen = "{" + kLlama + "}";
    qwen.replace(qwen.find("llama"), 5, "qwen2");
    p = attn::parse_model_config(qwen, "config.json");
    CHECK(p.config.qkv_bias);
    CHECK(!p.config.o_bias);
    CHECK(config_error("{" + kLlama + R"(, "num_key_value_heads": 3})") ==
          "config.json: num_attention_heads 4 is not divisible by num_key_value_heads 3");
    CHECK(config_error("{" + kLlama + R"(, "rope_scaling": {"rope_type": "yarn", "factor": 4.0}})") ==
          "config.json: rope_scaling type 'yarn' is not supported");
    CHECK(config_error("{" + kLlama + R"(, "rope_scaling": {"type": "linear", "factor": 2.0}})") == "");
    CHECK(config_error("{" + kLlama + R"(, "hidden_act": "gelu"})") == "config.json: hidden_act is not silu");
}

TEST_CASE("attn models lists every family with its model_type names and recipe") {
    const auto r = attn::test::run_attn({"models"});
    REQUIRE(r.code == 0);
    for (const auto& f : attn::families()) {
        CHECK(r.out.find(std::string(f.name) + "\n") != std::string::npos);
        CHECK(r.out.find(attn::recipe_summary(f)) != std::string::npos);
    }
    CHECK(r.out.find("model_type: llama, smollm") != std::string::npos);
}
