// The config.json parsers of the architecture table's rows (data/checkpoint/model_family.h) and the
// pieces they are built from (config_fields.cpp): typed reads that refuse a bad value by name, and the
// rule that every field is read, known harmless, or refused.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "data/checkpoint/model_family.h"

namespace attn::config {

// An input error "NAME: WHAT" with the hint.
[[noreturn]] void bad(const std::string& name, const std::string& what,
                      const std::string& hint = "use the config.json that came with the model");
// A whole number in [lo, hi] from the first of `keys` present (Hugging Face's alias names first).
std::optional<std::size_t> whole(const nlohmann::json& j, std::initializer_list<const char*> keys, std::size_t lo, std::size_t hi,
                                 const std::string& name);
std::size_t required(const nlohmann::json& j, std::initializer_list<const char*> keys, std::size_t lo, std::size_t hi,
                     const std::string& name, const char* hint);
// A number in (lo, hi); `range` says so in words ("between 0 and 1").
std::optional<double> number(const nlohmann::json& j, const char* key, double lo, double hi, const char* range,
                             const std::string& name);
std::optional<bool> flag(const nlohmann::json& j, const char* key, const std::string& name);
// Every field is either read by the parser (`read`), known not to change a number (`harmless`), or
// refused by name.
void check_fields(const nlohmann::json& j, const std::string& name, const std::set<std::string>& read,
                  const std::set<std::string>& harmless);
// hidden_act / activation as Hugging Face's ACT2FN maps it (silu and swish only where allowed).
MlpKind activation(const nlohmann::json& j, const char* key, MlpKind fallback, const std::string& name, bool allow_silu = false);

// The rows' parsers: decoders (data/checkpoint/config_decoders.cpp), encoders (config_encoders.cpp) and
// encoder-decoders (config_seq2seq.cpp). `c` arrives with the family's defaults.
void parse_gpt2(const nlohmann::json& j, const std::string& name, ModelConfig& c);
void parse_llama(const nlohmann::json& j, const std::string& name, ModelConfig& c);
void parse_mistral(const nlohmann::json& j, const std::string& name, ModelConfig& c);
void parse_qwen2(const nlohmann::json& j, const std::string& name, ModelConfig& c);
void parse_bert(const nlohmann::json& j, const std::string& name, ModelConfig& c);
void parse_roberta(const nlohmann::json& j, const std::string& name, ModelConfig& c);
void parse_distilbert(const nlohmann::json& j, const std::string& name, ModelConfig& c);
void parse_t5(const nlohmann::json& j, const std::string& name, ModelConfig& c);
void parse_bart(const nlohmann::json& j, const std::string& name, ModelConfig& c);
void parse_marian(const nlohmann::json& j, const std::string& name, ModelConfig& c);

}  // namespace attn::config
