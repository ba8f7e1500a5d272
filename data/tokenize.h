// Sentence to tokens: UTF-8 words, punctuation as separate tokens.
//
// Rules (docs/validation.md):
//   - White space (ASCII and Unicode spaces) separates tokens and is dropped.
//   - A punctuation character is a token of its own; a run of the same one ("...", "--", "!!") is one token.
//   - Each Han ideograph, hiragana and katakana character is a token of its own (those scripts use no spaces).
//   - Everything else (letters, digits, symbols, emoji) joins into words.
//   - Invalid UTF-8 and control characters (C0, DEL, C1, and the bidirectional embedding, override
//     and isolate controls U+202A-U+202E, U+2066-U+2069, which reorder what a terminal shows) are
//     usage errors naming the byte offset. Tabs, newlines and other white space separate words.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

// Decodes one code point at s[i]; returns its length in bytes, or 0 when the bytes there are not
// valid UTF-8 (overlong forms, surrogates and values past U+10FFFF are invalid).
std::size_t utf8_decode(std::string_view s, std::size_t i, char32_t& cp);

// The first problem of a text, as the end of a sentence: "is not valid UTF-8 at byte offset 2
// (byte 0xFF)" or "has a control character at byte offset 4 (U+0007)"; nothing when it is fine.
// With allow_space_controls, tab, newline, vertical tab, form feed, carriage return and U+0085 are
// white space (a sentence); without, they are control characters too (a single token).
std::optional<std::string> text_problem(std::string_view text, bool allow_space_controls = true);

// Splits text into tokens; throws a usage error naming the sentence for a text_problem. Stops once it
// has more than max_tokens tokens (the caller refuses the text without tokenising the rest).
std::vector<std::string> tokenize(std::string_view text,
                                  std::size_t max_tokens = std::numeric_limits<std::size_t>::max());

}  // namespace attn
