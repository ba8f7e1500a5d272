// The small readers of tokenizer.json's fields that every tokeniser file uses, and the bound on ids
// they all check: one definition (the page's core compiles data/text as one translation unit).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attn::tokenizer_json {

// Ids at or above this are refused: far above any vocabulary (GPT-2's 50,257, Llama 3's 128,256).
constexpr std::int64_t kMaxId = 1 << 24;

// o[key] when o is an object holding a string there, else "".
inline std::string str(const nlohmann::json& o, const char* key) {
    return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
}

// o[key] when o is an object holding a boolean there, else dflt.
inline bool yes(const nlohmann::json& o, const char* key, bool dflt) {
    return o.is_object() && o.contains(key) && o[key].is_boolean() ? o[key].get<bool>() : dflt;
}

// s with every `from` replaced by `to`, left to right (an empty `from` replaces nothing).
inline std::string replace_all(std::string s, std::string_view from, std::string_view to) {
    if (from.empty()) return s;
    for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
    return s;
}

}  // namespace attn::tokenizer_json
