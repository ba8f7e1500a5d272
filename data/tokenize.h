// Sentence to tokens: UTF-8 words, punctuation as separate tokens.
//
// Rules (docs/validation.md):
//   - White space (ASCII and Unicode spaces) separates tokens and is dropped.
//   - A punctuation character is a token of its own; a run of the same one ("...", "--", "!!") is one token.
//   - Each Han ideograph, hiragana and katakana character is a token of its own (those scripts use no spaces).
//   - Everything else (letters, digits, symbols, emoji) joins into words.
//   - Invalid UTF-8 and control characters are usage errors naming the byte offset.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

// Decodes one code point at s[i]; returns its length in bytes, or 0 when the bytes there are not
// valid UTF-8 (overlong forms, surrogates and values past U+10FFFF are invalid).
std::size_t utf8_decode(std::string_view s, std::size_t i, char32_t& cp);

std::vector<std::string> tokenize(std::string_view text);

}  // namespace attn
