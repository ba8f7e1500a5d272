// The table of model families (data/checkpoint/model_family.h): its rows, the config parsers' fields, the shapes
// by role, and `attn models`.
#include <set>
#include <string>

#include "data/base/error.h"
#include "data/checkpoint/model_family.h"
#include "data/text/unicode.h"
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
                       attn::Role::down_w, attn::Role::lm_head})
            CHECK(f.has(r));
        // a final norm closes a pre-norm stack; a post-norm stack's last layer ends in its own norm
        CHECK(f.has(attn::Role::final_norm_w) == (f.recipe.norm_place == attn::NormPlace::pre));
        CHECK(f.has(attn::Role::token_types) == f.recipe.token_types);
        CHECK(f.has(attn::Role::embed_norm_w) == f.recipe.embed_norm);
        CHECK(f.has(attn::Role::mlm_dense_w) == (f.recipe.head == attn::OutputHead::masked_lm));
        const bool seq2seq = f.recipe.stack == attn::Stack::encoder_decoder;
        if (!seq2seq) CHECK((f.recipe.stack == attn::Stack::encoder) == (f.recipe.norm_place == attn::NormPlace::post));
        // an encoder-decoder's decoder layers name their cross-attention and its norm; the others have none
        for (auto r : {attn::Role::xq_w, attn::Role::xk_w, attn::Role::xv_w, attn::Role::xo_w, attn::Role::norm3_w,
                       attn::Role::q_w, attn::Role::norm1_w, attn::Role::norm2_w, attn::Role::up_w, attn::Role::down_w})
            CHECK(f.decoder_has(r) == seq2seq);
        const bool fused = f.recipe.attention == attn::AttnLayout::fused_conv1d;
        CHECK(f.has(attn::Role::qkv_w) == fused);
        CHECK(f.has(attn::Role::q_w) == !fused);
        // SwiGLU's gate; T5's gate (wi_0) is read only when feed_forward_proj is gated-
        CHECK(f.has(attn::Role::gate_w) == (f.recipe.mlp == attn::MlpKind::swiglu || f.id == attn::FamilyId::t5));
        CHECK(f.has(attn::Role::positions) == (f.recipe.positions == attn::PosScheme::learned));
        CHECK(attn::find_family_by_model_type(f.model_types[0]) == &f);
    }
    CHECK(attn::family(attn::FamilyId::llama).tensor_name(attn::Role::k_w, 7) == "model.layers.7.self_attn.k_proj.weight");
    CHECK(attn::family(attn::FamilyId::bert).tensor_name(attn::Role::norm1_w, 2) == "encoder.layer.2.attention.output.LayerNorm.weight");
    CHECK(attn::family(attn::FamilyId::distilbert).tensor_name(attn::Role::mlm_bias) == "vocab_projector.bias");
    const attn::Family& t5 = attn::family(attn::FamilyId::t5);
    CHECK(t5.tensor_name(attn::Role::up_w, 0) == "encoder.block.0.layer.1.DenseReluDense.wi.weight");
    CHECK(t5.tensor_name(attn::Role::up_w, 3, true, true) == "decoder.block.3.layer.2.DenseReluDense.wi_1.weight");
    CHECK(t5.tensor_name(attn::Role::xk_w, 1, true) == "decoder.block.1.layer.1.EncDecAttention.k.weight");
    CHECK(attn::family(attn::FamilyId::bart).tensor_name(attn::Role::norm3_b, 4, true) == "decoder.layers.4.encoder_attn_layer_norm.bias");
    CHECK(attn::family(attn::FamilyId::marian).tensor_name(attn::Role::dec_positions) == "decoder.embed_positions.weight");
}

TEST_CASE("encoder configs: BERT's defaults, RoBERTa's position offset from pad_token_id, DistilBERT's own names and fixed eps") {
    const std::string bert = R"({"model_type": "bert", "hidden_size": 12, "num_hidden_layers": 2, "num_attention_heads": 3,
        "intermediate_size": 20, "max_position_embeddings": 40, "vocab_size": 99)";
    auto p = attn::parse_model_config(bert + "}", "config.json");
    CHECK(p.family->id == attn::FamilyId::bert);
    CHECK(p.config.type_vocab_size == 2);  // BertConfig's default
    CHECK(p.config.norm_eps == doctest::Approx(1e-12));
    CHECK(p.config.mlp == attn::MlpKind::gelu_erf);  // hidden_act "gelu" is the erf form
    CHECK(p.config.head_dim == 4);
    CHECK(attn::context_length(p.config) == 40);
    auto r = attn::parse_model_config(R"({"model_type": "roberta", "hidden_size": 12, "num_hidden_layers": 2,
        "num_attention_heads": 3, "intermediate_size": 20, "max_position_embeddings": 514, "vocab_size": 99,
        "pad_token_id": 1, "hidden_act": "relu", "layer_norm_eps": 1e-5})", "config.json");
    CHECK(r.config.position_offset == 2);
    CHECK(attn::context_length(r.config) == 512);
    CHECK(r.config.mlp == attn::MlpKind::relu);
    CHECK(r.config.head_act == attn::MlpKind::gelu_erf);  // RoBERTa's lm_head calls gelu whatever hidden_act says
    auto d = attn::parse_model_config(R"({"model_type": "distilbert", "dim": 12, "n_layers": 2, "n_heads": 2,
        "hidden_dim": 30, "max_position_embeddings": 16, "vocab_size": 99, "sinusoidal_pos_embds": true})", "config.json");
    CHECK(d.config.n_embd == 12);
    CHECK(d.config.head_dim == 6);
    CHECK(d.config.norm_eps == doctest::Approx(1e-12));
    CHECK(d.config.sinusoidal_positions);
    CHECK(d.family->recipe.scale_at == attn::ScaleAt::query);
    for (const auto& [extra, word] : {std::pair{R"("position_embedding_type": "relative_key")", "relative_key"},
                                      std::pair{R"("is_decoder": true)", "is_decoder"},
                                      std::pair{R"("add_cross_attention": true)", "add_cross_attention"},
                                      std::pair{R"("hidden_act": "mish")", "hidden_act"}}) {
        try {
            attn::parse_model_config(bert + ", " + extra + "}", "config.json");
            FAIL("accepted " << extra);
        } catch (const attn::Error& e) {
            CHECK(std::string(e.what()).find(word) != std::string::npos);
        }
    }
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
    // dynamic NTK scaling grows the base only past max_position_embeddings, where attn does not run: refused by name
    for (const char* key : {"type", "rope_type"})
        CHECK(config_error("{" + kLlama + R"(, "rope_scaling": {")" + key + R"(": "dynamic", "factor": 2.0}})") ==
              "config.json: rope_scaling type 'dynamic' changes the positions only for a text past max_position_embeddings "
              "(64 tokens), which attn does not run");
    CHECK(config_error("{" + kLlama + R"(, "hidden_act": "gelu"})") == "config.json: hidden_act is not silu");
}

TEST_CASE("llama config: SmolLM2-135M's own config.json is read (its fields that change no number pass)") {
    // SmolLM2-135M's config.json fields as this test's author recalls the published file (not downloaded)
    const auto p = attn::parse_model_config(R"({"architectures": ["LlamaForCausalLM"], "attention_bias": false,
        "attention_dropout": 0.0, "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "silu", "hidden_size": 576,
        "initializer_range": 0.041666666666666664, "intermediate_size": 1536, "is_llama_config": true,
        "max_position_embeddings": 8192, "model_type": "llama", "num_attention_heads": 9, "num_hidden_layers": 30,
        "num_key_value_heads": 3, "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_interleaved": false,
        "rope_scaling": null, "rope_theta": 100000, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
        "transformers_version": "4.42.3", "use_cache": true, "vocab_size": 49152})", "config.json");
    CHECK(p.config.n_head == 9);
    CHECK(p.config.n_kv_head == 3);
    CHECK(p.config.head_dim == 64);
    CHECK(p.config.rope_theta == 100000.0);
    CHECK(p.config.tie_word_embeddings);
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

// ---- GPT-2's tokeniser files read as Hugging Face reads them ---------------------------------------

#include <nlohmann/json.hpp>

#include "data/checkpoint/generation_config.h"
#include "data/text/tokenizer.h"
#include "tests/model_fixtures.h"

namespace {

// A folder holding the tiny byte vocabulary (ids = bytes, <|endoftext|> 256) in the files given.
std::string tokeniser_folder(const std::vector<std::pair<std::string, std::string>>& files) {
    const std::string d = attn::test::temp_dir();
    for (const auto& [name, bytes] : files) attn::test::write_bytes(d + "/" + name, bytes);
    return d;
}

std::string tiny_tokenizer_json(const std::string& pre_tokenizer, const std::string& extra = "") {
    return R"({"model": {"type": "BPE", "vocab": )" + attn::test::tiny_gpt2_vocab() + R"(, "merges": []}, "pre_tokenizer": )" +
           pre_tokenizer + R"(, "added_tokens": [{"id": 256, "content": "<|endoftext|>", "special": true})" + extra + "]}";
}

std::string tokeniser_error(const std::string& text) {
    try {
        attn::Tokenizer::from_tokenizer_json(text, "tokenizer.json");
    } catch (const attn::Error& e) {
        return e.what();
    }
    return "";
}

using Ids = std::vector<std::int64_t>;

}  // namespace

TEST_CASE("gpt2 tokeniser: added tokens are matched first (added_tokens.json and tokenizer.json's added_tokens)") {
    const std::string d = tokeniser_folder({{"vocab.json", attn::test::tiny_gpt2_vocab()}, {"merges.txt", "#version: 0.2\n"},
                                            {"added_tokens.json", R"({"<pad>": 257})"}});
    CHECK(attn::Tokenizer::load_dir(d).ids("a <pad> b") == Ids{'a', ' ', 257, ' ', 'b'});
    const auto tj = attn::Tokenizer::from_tokenizer_json(
        tiny_tokenizer_json(R"({"type": "ByteLevel"})", R"(, {"id": 257, "content": "<pad>", "special": false})"), "tokenizer.json");
    CHECK(tj.ids("a <pad> b<|endoftext|>") == Ids{'a', ' ', 257, ' ', 'b', 256});
    CHECK(tj.label(257) == "<pad>");
}

TEST_CASE("gpt2 tokeniser: tokenizer.json wins over vocab.json + merges.txt, its add_prefix_space is honoured, a normalizer it cannot run is refused by name") {
    const std::string tj = tiny_tokenizer_json(R"({"type": "ByteLevel", "add_prefix_space": true})",
                                               R"(, {"id": 257, "content": "<x>", "special": true})");
    const std::string d = tokeniser_folder({{"vocab.json", attn::test::tiny_gpt2_vocab()}, {"merges.txt", "#version: 0.2\n"},
                                            {"tokenizer.json", tj}});
    const auto tok = attn::Tokenizer::load_dir(d);
    CHECK(tok.ids("<x>") == Ids{257});  // only tokenizer.json has <x>
    CHECK(tok.ids("hi") == Ids{' ', 'h', 'i'});  // add_prefix_space: "hi" is encoded as " hi"
    CHECK(tokeniser_error(R"({"normalizer": {"type": "Lowercase"},)" + tiny_tokenizer_json(R"({"type": "ByteLevel"})").substr(1)) ==
          "tokenizer.json: the normalizer 'Lowercase', which attn does not run");
    CHECK(tokeniser_error(tiny_tokenizer_json(R"({"type": "BertPreTokenizer"})")) ==
          "tokenizer.json: the pre_tokenizer 'BertPreTokenizer', which attn does not run");
}

TEST_CASE("utf8_nfc: composed and decomposed text give Unicode's NFC (results from Python's unicodedata.normalize)") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"e\xCC\x81", "\xC3\xA9"},                                   // e + U+0301 -> é U+00E9
        {"\xC3\xA9", "\xC3\xA9"},                                    // already composed
        {"\xE2\x84\xAB", "\xC3\x85"},                               // Angstrom sign U+212B -> Å U+00C5 (a singleton)
        {"A\xCC\x8A", "\xC3\x85"},                                   // A + ring above
        {"\xE2\x84\xA6", "\xCE\xA9"},                               // ohm sign U+2126 -> Ω U+03A9
        {"\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8", "\xEA\xB0\x81"},  // Hangul jamo -> U+AC01
        {"\xE0\xA5\x98", "\xE0\xA4\x95\xE0\xA4\xBC"},               // U+0958: excluded from composition
        {"o\xCC\x88\xCC\x84", "\xC8\xAB"},                         // o + diaeresis + macron -> U+022B
        {"a\xCC\x82\xCC\xA3", "\xE1\xBA\xAD"},                     // marks reordered, then composed: U+1EAD
        {"q\xCC\x87\xCC\xA3", "q\xCC\xA3\xCC\x87"},                // no precomposed form: only reordered
        {"\xF0\x9D\x85\x9E", "\xF0\x9D\x85\x97\xF0\x9D\x85\xA5"},  // U+1D15E stays decomposed (an exclusion)
        {"plain ASCII, kept", "plain ASCII, kept"},
        {"", ""},
    };
    for (const auto& [in, want] : cases) {
        INFO(in);
        CHECK(attn::utf8_nfc(in) == want);
    }
    try {
        attn::utf8_nfc("caf\xC3");
        FAIL("invalid UTF-8 was normalised");
    } catch (const attn::Error& e) {
        CHECK(e.exit_code() == 1);
        CHECK(std::string(e.what()).find("cannot be normalised to NFC") != std::string::npos);
    }
}

TEST_CASE("tokenizer.json's NFC normaliser: decomposed text is encoded as its composed form, before the pre-tokeniser") {
    const std::string plain = tiny_tokenizer_json(R"({"type": "ByteLevel"})");
    const std::string nfc = R"({"normalizer": {"type": "NFC"},)" + plain.substr(1);
    const auto with = attn::Tokenizer::from_tokenizer_json(nfc, "tokenizer.json");
    const auto without = attn::Tokenizer::from_tokenizer_json(plain, "tokenizer.json");
    // the tiny vocabulary's ids are the bytes: é is C3 A9 composed, e CC 81 decomposed
    CHECK(with.ids("cafe\xCC\x81") == Ids{'c', 'a', 'f', 0xC3, 0xA9});
    CHECK(with.ids("caf\xC3\xA9") == Ids{'c', 'a', 'f', 0xC3, 0xA9});
    CHECK(without.ids("cafe\xCC\x81") == Ids{'c', 'a', 'f', 'e', 0xCC, 0x81});
    // a Sequence holding NFC, and added tokens matched on the text before it is normalised
    const std::string seq = R"({"normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"}]},)" + plain.substr(1);
    CHECK(attn::Tokenizer::from_tokenizer_json(seq, "tokenizer.json").ids("A\xCC\x8A<|endoftext|>e\xCC\x81") ==
          Ids{0xC3, 0x85, 256, 0xC3, 0xA9});
}

TEST_CASE("token texts: one U+FFFD per maximal invalid UTF-8 sequence, as Python's bytes.decode(errors='replace')") {
    // the counts are Python 3's: len(b'\xe2\x82'.decode('utf-8', 'replace')) == 1, and so on
    const std::string r = "\xEF\xBF\xBD";
    CHECK(attn::utf8_replace_invalid("\xE2\x82") == r);              // a truncated 3-byte character
    CHECK(attn::utf8_replace_invalid("\xE2\x82" "A") == r + "A");
    CHECK(attn::utf8_replace_invalid("\xF0\x9F\x98") == r);          // a truncated emoji
    CHECK(attn::utf8_replace_invalid("a\xF0\x9F") == "a" + r);
    CHECK(attn::utf8_replace_invalid("\xF0\x80") == r + r);          // 80 cannot follow F0
    CHECK(attn::utf8_replace_invalid("\xC0\xAF") == r + r);          // an overlong form
    CHECK(attn::utf8_replace_invalid("\xED\xA0\x80") == r + r + r);  // a surrogate
    CHECK(attn::utf8_replace_invalid("\xF4\x90\x80\x80") == r + r + r + r);
    CHECK(attn::utf8_replace_invalid("\x80\x80") == r + r);
    CHECK(attn::utf8_replace_invalid("journey \xE2\x9C\x93") == "journey \xE2\x9C\x93");
}

TEST_CASE("tokenizer.json: a PCRE2 callout in a Split or Replace regex is refused by name, an escaped or bracketed (?C is not a callout") {
    const auto split = [](const std::string& pattern) {
        return tiny_tokenizer_json(R"({"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": )" +
                                   nlohmann::json(pattern).dump() + R"(}, "behavior": "Isolated", "invert": false}, )" +
                                   R"({"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]})");
    };
    const std::string callout = "tokenizer.json: the pre-tokeniser's regex has a PCRE2 callout ((?C...)), which Hugging Face's tokenizers do not accept";
    CHECK(tokeniser_error(split(R"((?C1)\p{L}+|\s+)")) == callout);
    CHECK(tokeniser_error(split(R"(\p{L}+(?C"x")|\s+)")) == callout);
    CHECK(tokeniser_error(split(R"(\p{L}+|(?C255)\s+)")) == callout);
    // the same letters that are no callout: an escaped parenthesis, inside a class, a literal \Q...\E
    CHECK(tokeniser_error(split(R"(\(?C1\)|\p{L}+|\s+)")) == "");
    CHECK(tokeniser_error(split(R"([(?C1)]|\p{L}+|\s+)")) == "");
    CHECK(tokeniser_error(split(R"(\Q(?C1)\E|\p{L}+|\s+)")) == "");
    const auto ok = attn::Tokenizer::from_tokenizer_json(split(R"(\Q(?C1)\E|\p{L}+|\s+)"), "tokenizer.json");
    CHECK(ok.ids("ab(?C1)") == Ids{'a', 'b', '(', '?', 'C', '1', ')'});
}

TEST_CASE("config.json, tokenizer.json and generation_config.json that start with a UTF-8 byte order mark are refused by name, as Python's json refuses them") {
    const std::string bom = "\xEF\xBB\xBF";
    const std::string why = ": starts with a UTF-8 byte order mark, which Python's json and Hugging Face refuse";
    CHECK(config_error(bom + "{" + kLlama + "}") == "config.json" + why);
    CHECK(config_error("{" + kLlama + "}") == "");
    CHECK(tokeniser_error(bom + tiny_tokenizer_json(R"({"type": "ByteLevel"})")) == "tokenizer.json" + why);
    try {
        attn::parse_model_config(bom + "{" + kLlama + "}", "config.json");
        FAIL("a BOM was read");
    } catch (const attn::Error& e) {
        CHECK(e.exit_code() == 1);
        CHECK(e.hint() == "save the file as UTF-8 without a byte order mark (BOM)");
    }
    // generation_config.json, read from a folder
    const std::string d = attn::test::temp_dir();
    attn::test::write(d + "/config.json", "{" + kLlama + "}");
    attn::test::write(d + "/generation_config.json", bom + R"({"eos_token_id": 2})");
    try {
        attn::read_generation_config(d, "llama");
        FAIL("a BOM was read");
    } catch (const attn::Error& e) {
        CHECK(std::string(e.what()) == d + "/generation_config.json" + why);
    }
    attn::test::write(d + "/generation_config.json", R"({"eos_token_id": 2})");
    CHECK(attn::read_generation_config(d, "llama").eos == std::vector<std::int64_t>{2});
}

// Found by fuzz_gpt2_tokenizer: a sentencepiece-style BPE whose '▁' token was gone still merged '▁' with
// 't', so '▁' alone came out as three <0xNN> bytes that decode as '▁', not as a space. Hugging Face's BPE
// builder refuses a merge whose part is not a token; attn does too, naming the lowest such merge.
TEST_CASE("BPE tokeniser: a merge whose part or result is not a token is refused, the first such merge named") {
    std::string vocab = attn::test::tiny_gpt2_vocab();
    vocab.back() = ',';
    auto load = [&](const std::string& extra, const std::string& merges) {
        try {
            attn::Tokenizer::from_vocab_merges(vocab + extra + "}", "#version: 0.2\n" + merges, "vocab.json", "merges.txt");
        } catch (const attn::Error& e) {
            return std::string(e.what()).substr(0, std::string(e.what()).find(" (hint"));
        }
        return std::string("loaded");
    };
    CHECK(load(R"("ab": 257, "abcd": 258)", "a b\nab cd\n") == "merges.txt: merge 2 ('ab cd') joins 'cd', a token the vocabulary lacks");
    CHECK(load(R"("cd": 257, "abcd": 258)", "ab cd\nc d\n") == "merges.txt: merge 1 ('ab cd') joins 'ab', a token the vocabulary lacks");
    CHECK(load(R"("ab": 257, "cd": 258)", "a b\nc d\nab cd\n") == "merges.txt: merge 3 ('ab cd') makes a token the vocabulary lacks");
    CHECK(load(R"("ab": 257, "cd": 258, "abcd": 259)", "a b\nc d\nab cd\n") == "loaded");
}
