// UTF-8, decoded strictly (RFC 3629) in one place: the tokeniser, the terminal's column widths and
// the PNG labels' font all read text through these.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace attn {

// Decodes one code point at s[i]; returns its length in bytes, or 0 when the bytes there are not
// valid UTF-8 (a stray continuation byte, a truncated sequence, an overlong form, a surrogate or a
// value above U+10FFFF).
std::size_t utf8_decode(std::string_view s, std::size_t i, char32_t& cp);
// The UTF-8 bytes of one code point (1 to 4 bytes).
std::string utf8_encode(char32_t c);

// Stands for one invalid UTF-8 sequence in decode_utf8's output (not a Unicode scalar value).
inline constexpr char32_t kInvalidUtf8 = 0xFFFFFFFFu;

// The whole string as code points: each invalid sequence (its lead byte and the continuation bytes
// it took) becomes one kInvalidUtf8, and decoding resumes after it.
std::u32string decode_utf8(std::string_view s);

// The first max_chars characters of s as decode_utf8 counts them (an invalid sequence is one), a view
// of s; reads at most 4 x max_chars bytes, so cutting a 100 MB string costs what cutting a short one does.
std::string_view utf8_prefix(std::string_view s, std::size_t max_chars);

}  // namespace attn
