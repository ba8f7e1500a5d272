// Encoder-decoder pieces checked on their own: T5's relative position buckets against the table the
// architecture notes give (computed independently in float32), Hugging Face's logits processors on
// hand-made logits, the generation config's reads and refusals, and the config parsers' refusals.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/model/seq2seq.h"
#include "data/base/error.h"
#include "data/checkpoint/generation_config.h"
#include "data/checkpoint/model_family.h"
#include "tests/helpers.h"

using attn::test::error_of;

namespace {

attn::GenerationConfig gen(const std::string& text) {
    return attn::parse_generation_config(nlohmann::json::parse(text), "generation_config.json");
}

constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

TEST_CASE("t5 buckets: the encoder's bidirectional buckets (32 buckets, max distance 128) match the independent table") {
    // rel = key − query; negative distances take buckets 0-15, positive ones 16-31
    const std::vector<std::pair<int, std::size_t>> table = {
        {0, 0},    {-1, 1},   {-7, 7},   {-8, 8},   {-11, 8},  {-12, 9},  {-15, 9},  {-16, 10}, {-17, 10}, {-20, 10},
        {-23, 11}, {-24, 11}, {-31, 11}, {-32, 12}, {-33, 12}, {-45, 12}, {-46, 13}, {-63, 13}, {-64, 14}, {-65, 14},
        {-90, 14}, {-91, 15}, {-127, 15}, {-128, 15}, {-1000, 15}, {1, 17}, {8, 24}, {12, 25}, {16, 26}, {32, 28},
        {64, 30},  {91, 31},  {1000, 31}};
    for (const auto& [rel, bucket] : table) {
        CAPTURE(rel);
        CHECK(attn::t5_bucket(rel, true, 32, 128) == bucket);
    }
}

TEST_CASE("t5 buckets: the decoder's causal buckets give the future bucket 0 and the past's logarithmic buckets") {
    const std::vector<std::pair<int, std::size_t>> table = {
        {5, 0},     {1, 0},     {0, 0},     {-1, 1},    {-15, 15},  {-16, 16},  {-17, 16},  {-20, 17},  {-23, 18},
        {-24, 19},  {-31, 21},  {-32, 21},  {-33, 21},  {-45, 23},  {-46, 24},  {-63, 26},  {-64, 26},  {-65, 26},
        {-90, 29},  {-91, 29},  {-127, 31}, {-1000, 31}};
    for (const auto& [rel, bucket] : table) {
        CAPTURE(rel);
        CHECK(attn::t5_bucket(rel, false, 32, 128) == bucket);
    }
}

TEST_CASE("generation: forced BOS at the first step and forced EOS at the last leave one finite logit") {
    const auto g = gen(R"({"decoder_start_token_id": 0, "eos_token_id": 2, "forced_bos_token_id": 3, "forced_eos_token_id": 2})");
    std::vector<float> l = {1, 5, 2, 0, 4};
    attn::process_logits(g, {0}, 10, l.data(), l.size());
    CHECK(l == std::vector<float>{-kInf, -kInf, -kInf, 0.0f, -kInf});
    l = {1, 5, 2, 0, 4};
    attn::process_logits(g, {0, 3, 1}, 3, l.data(), l.size());  // cur_len 3 = max_length − 1 with 3 new tokens
    CHECK(l == std::vector<float>{-kInf, -kInf, 0.0f, -kInf, -kInf});
    l = {1, 5, 2, 0, 4};
    attn::process_logits(g, {0, 3}, 3, l.data(), l.size());  // a middle step: untouched
    CHECK(l == std::vector<float>{1, 5, 2, 0, 4});
}

TEST_CASE("generation: bad words, min length, repetition penalty and no-repeat n-grams as Hugging Face's processors") {
    // one-token bad words always; a two-token one only after its first token; [eos] is never banned
    auto g = gen(R"({"decoder_start_token_id": 0, "eos_token_id": 2, "bad_words_ids": [[4], [1, 3], [2]]})");
    std::vector<float> l = {1, 1, 1, 1, 1};
    attn::process_logits(g, {0, 1}, 10, l.data(), l.size());
    CHECK(l == std::vector<float>{1, 1, 1, -kInf, -kInf});
    l = {1, 1, 1, 1, 1};
    attn::process_logits(g, {0, 3}, 10, l.data(), l.size());
    CHECK(l == std::vector<float>{1, 1, 1, 1, -kInf});
    // min_length counts the decoder's input (the start token included); min_new_tokens the generated ones
    g = gen(R"({"decoder_start_token_id": 0, "eos_token_id": [2, 4], "min_length": 3})");
    l = {1, 1, 1, 1, 1};
    attn::process_logits(g, {0, 1}, 10, l.data(), l.size());
    CHECK(l == std::vector<float>{1, 1, -kInf, 1, -kInf});
    l = {1, 1, 1, 1, 1};
    attn::process_logits(g, {0, 1, 1}, 10, l.data(), l.size());
    CHECK(l == std::vector<float>{1, 1, 1, 1, 1});
    g = gen(R"({"decoder_start_token_id": 0, "eos_token_id": 2, "min_new_tokens": 2})");
    l = {1, 1, 1, 1, 1};
    attn::process_logits(g, {0, 1}, 10, l.data(), l.size());
    CHECK(l[2] == -kInf);
    // the penalty divides positive logits and multiplies negative ones of every id in the input, once
    g = gen(R"({"decoder_start_token_id": 0, "repetition_penalty": 2.0})");
    l = {4, -3, 1, 6, 8};
    attn::process_logits(g, {0, 1, 1, 3}, 10, l.data(), l.size());
    CHECK(l == std::vector<float>{2, -6, 1, 3, 8});
    // no 2-gram twice: after "... 1", the 2-gram (1, 3) exists, so 3 is banned
    g = gen(R"({"decoder_start_token_id": 0, "no_repeat_ngram_size": 2})");
    l = {1, 1, 1, 1, 1};
    attn::process_logits(g, {0, 1, 3, 4, 1}, 10, l.data(), l.size());
    CHECK(l == std::vector<float>{1, 1, 1, -kInf, 1});
}

TEST_CASE("generation config: the start falls back to bos, ids past the vocabulary and fields attn does not apply are refused by name") {
    CHECK(gen(R"({"bos_token_id": 5})").decoder_start == 5);
    CHECK(gen(R"({"decoder_start_token_id": 7, "bos_token_id": 5})").decoder_start == 7);
    const auto past = gen(R"({"decoder_start_token_id": 900, "eos_token_id": 1})");
    CHECK(error_of([&] { attn::check_generation_ids(past, 100); }).find("decoder_start_token_id 900 is past the vocabulary (100 ids)") !=
          std::string::npos);
    CHECK(error_of([&] { attn::check_generation_ids(gen(R"({"eos_token_id": 1})"), 100); }).find("names no decoder_start_token_id") !=
          std::string::npos);
    CHECK(error_of([&] { gen(R"({"decoder_start_token_id": 0, "suppress_tokens": [3]})"); }).find("\"suppress_tokens\" is set") !=
          std::string::npos);
    CHECK(error_of([&] { gen(R"({"decoder_start_token_id": 0, "encoder_no_repeat_ngram_size": 3})"); })
              .find("\"encoder_no_repeat_ngram_size\" is set") != std::string::npos);
    CHECK(error_of([&] { gen(R"({"decoder_start_token_id": -1})"); }).find("is not a token id") != std::string::npos);
    CHECK(error_of([&] { gen(R"({"decoder_start_token_id": 0, "bad_words_ids": [3]})"); }).find("not a list of 1 to 256 ids") !=
          std::string::npos);
    // beams and sampling do not stop attn's greedy run (the terminal says what Hugging Face would do)
    CHECK(gen(R"({"decoder_start_token_id": 0, "num_beams": 4, "do_sample": true})").num_beams == 4);
}

TEST_CASE("seq2seq configs: mbart, unequal encoder and decoder heads, separate Marian vocabularies and unknown T5 projections are refused by name") {
    const std::string bart = R"("d_model": 16, "encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4,
        "encoder_ffn_dim": 32, "max_position_embeddings": 64, "vocab_size": 100)";
    auto err = [](const std::string& body) { return error_of([&] { attn::parse_model_config("{" + body + "}", "config.json"); }); };
    CHECK(err(R"("model_type": "mbart", )" + bart).find("model_type 'mbart' is not supported") != std::string::npos);
    CHECK(err(R"("model_type": "bart", "decoder_attention_heads": 2, )" + bart)
              .find("decoder_attention_heads 2 differs from encoder_attention_heads 4") != std::string::npos);
    CHECK(err(R"("model_type": "marian", "decoder_vocab_size": 90, )" + bart).find("decoder_vocab_size 90 differs") != std::string::npos);
    CHECK(err(R"("model_type": "marian", "share_encoder_decoder_embeddings": false, )" + bart)
              .find("share_encoder_decoder_embeddings is false") != std::string::npos);
    const std::string t5 = R"("model_type": "t5", "d_model": 16, "d_kv": 4, "d_ff": 32, "num_heads": 4, "num_layers": 2, "vocab_size": 100)";
    CHECK(err(t5 + R"(, "feed_forward_proj": "gated-mish")").find("feed_forward_proj 'gated-mish' is not one attn runs") != std::string::npos);
    // dense_act_fn and is_gated_act, as Hugging Face sets them over feed_forward_proj's: equal or refused
    CHECK(err(t5 + R"(, "feed_forward_proj": "gated-gelu", "dense_act_fn": "relu")")
              .find("dense_act_fn \"relu\" disagrees with feed_forward_proj 'gated-gelu' (which gives gelu_new)") != std::string::npos);
    CHECK(err(t5 + R"(, "feed_forward_proj": "relu", "is_gated_act": true)").find("is_gated_act disagrees") != std::string::npos);
    CHECK(err(t5 + R"(, "feed_forward_proj": "gated-gelu", "dense_act_fn": "gelu_new", "is_gated_act": true)").empty());
    // what the rows read: BART's positions at offset 2, Marian's scaled sinusoids, T5 v1.1's gated tanh GELU
    const auto b = attn::parse_model_config("{\"model_type\": \"bart\", " + bart + "}", "config.json").config;
    CHECK(b.n_positions == 66);
    CHECK(b.position_offset == 2);
    CHECK(attn::context_length(b) == 64);
    const auto m = attn::parse_model_config("{\"model_type\": \"marian\", " + bart + "}", "config.json").config;
    CHECK(m.scale_embedding);
    CHECK(m.sinusoidal_positions);
    const auto v11 = attn::parse_model_config("{" + t5 + R"(, "feed_forward_proj": "gated-gelu", "num_decoder_layers": 3})", "config.json").config;
    CHECK(v11.gated_mlp);
    CHECK(v11.mlp == attn::MlpKind::gelu_tanh);
    CHECK(v11.n_decoder_layer == 3);
}
