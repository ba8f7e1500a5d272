// Sentence to tokens: UTF-8 words, punctuation as separate tokens (--split words, the default), or
// pieces between white space (--split space), or characters (--split chars).
//
// Special tokens stand whole and alone in every mode (so "[CLS] The cat<pad>" is [CLS] | The | cat | <pad>):
//   - "[" an uppercase letter A-Z, then up to 15 of A-Z, 0-9, "_", then "]":  [CLS] [SEP] [MASK] [PAD] [UNK]
//   - "<" 1 to 32 printable ASCII characters without spaces, "<" or ">", then ">":
//     <pad> <s> </s> <unk> <|endoftext|> <|im_start|> <extra_id_0>
// "[cls]", "[ CLS ]", "< pad >" and "<>" are ordinary text.
//
// Rules of --split words (docs/validation.md):
//   - White space (ASCII and Unicode spaces, and the zero width space U+200B) separates tokens and is
//     dropped; the invisible joiners U+2060 (word joiner) and U+FEFF (a byte order mark inside the
//     text) are dropped without separating (in every mode). U+FFFE and U+FFFF (noncharacters) are refused.
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

// The first problem of a text, as the end of a sentence: "is not valid UTF-8 at byte offset 2
// (byte 0xFF)" or "has a control character at byte offset 4 (U+0007)"; nothing when it is fine.
// With allow_space_controls, tab, newline, vertical tab, form feed, carriage return and U+0085 are
// white space (a sentence); without, they are control characters too (a single token).
std::optional<std::string> text_problem(std::string_view text, bool allow_space_controls = true);

//
// --split space: every run of characters between white space is a token (punctuation stays attached).
// --split chars: every character is a token; combining marks, variation selectors, emoji skin tones
// and zero-width-joiner sequences stay with the character they modify. White space is dropped.
enum class Split { words, space, chars };
Split parse_split(const std::string& name);  // "words", "space", "chars" (anything else: words)

// Bytes of the special token starting at text[i], or 0 when none starts there.
std::size_t special_token_length(std::string_view text, std::size_t i);
constexpr std::size_t kSpecialMaxInner = 32;    // the most characters inside <...>
constexpr std::size_t kSpecialMaxBracket = 16;  // the most characters inside [...]

// A token given by a file (an embeddings file's "tokens") must be one the tokeniser could make:
// "is empty", "has white space at byte offset 1 (U+0020)", "has an invisible character at byte
// offset 0 (U+200B)", or a text_problem (control characters, with tabs and newlines); else nothing.
std::optional<std::string> token_problem(std::string_view token);

// A token longer than kMaxTokenBytes (data/base/limits.h), as the end of a sentence: "is 2000 bytes, more
// than the 1024 a token may have (\"abcabcabcabcabcabcabcabc...\")"; nothing when it is short enough.
std::optional<std::string> token_length_problem(std::string_view token);

// The first few characters of a token for an error message, escaped as excerpt() (data/base/error.h) does,
// with "..." when cut: what a refusal quotes of a 100 MB token.
std::string token_opening(std::string_view token);

// True for a byte order mark of UTF-16 (FF FE, FE FF), or text whose every other byte is NUL (ASCII
// saved as UTF-16 without a byte order mark).
bool looks_like_utf16(std::string_view bytes);

// Splits text into tokens; throws a usage error naming the sentence for a text_problem. Stops once it
// has more than max_tokens tokens (the caller refuses the text without tokenising the rest), and
// throws a usage error as soon as a token grows past kMaxTokenBytes (naming its index and opening),
// without reading the rest of it.
std::vector<std::string> tokenize(std::string_view text,
                                  std::size_t max_tokens = std::numeric_limits<std::size_t>::max(),
                                  Split split = Split::words);

}  // namespace attn
