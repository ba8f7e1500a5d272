// SentencePiece's precompiled character map (normalizer_spec.precompiled_charsmap of an .spm, the
// Precompiled normaliser of tokenizer.json, base64 there): the rules of a normalisation such as
// nmt_nfkc ("ﬁ" -> "fi", "½" -> "1⁄2", U+00A0 -> ' ') compiled into a darts-clone double array.
//
// Blob layout (little-endian): u32 trie_bytes | trie_bytes / 4 units (u32) | replacement strings, each
// ending in NUL. A unit u: has_leaf = (u >> 8) & 1, value = u & 0x7fffffff, label = u & 0x800000ff,
// offset = (u >> 10) << ((u & 0x200) >> 6). Walk: node ^= offset(a[0]); for each byte c (not NUL):
// node ^= c; stop unless label(a[node]) == c; node ^= offset(a[node]); if has_leaf, a key ends here and
// value(a[node]) is the byte offset of its replacement.
//
// Two ways to apply it, because the two libraries differ:
//   sentencepiece (an .spm): at each position the LONGEST key wins; no key: copy one UTF-8 character
//     (a byte that is not UTF-8 becomes U+FFFD) — prefix() gives one step;
//   Hugging Face tokenizers (tokenizer.json, normalizers/precompiled.rs): per extended grapheme cluster
//     (UAX #29); a cluster under 6 bytes that has a key as its prefix is replaced whole by the SHORTEST
//     such key's replacement (so "¹\uFE0F" -> "1"); otherwise each character by its own key, or kept.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn {

class PrecompiledCharsmap {
public:
    PrecompiledCharsmap() = default;
    // From the blob; name only names the file in errors (a one-line error for a truncated blob or
    // replacements that are not UTF-8). An empty blob is no normalisation.
    static PrecompiledCharsmap from_blob(std::string_view blob, const std::string& name);

    bool empty() const { return units_.empty(); }
    // The keys that are prefixes of text (up to its first NUL), shortest first: (key bytes, replacement).
    std::vector<std::pair<std::size_t, std::string_view>> prefixes(std::string_view text) const;
    // sentencepiece's step: the replacement and the bytes consumed at the start of text (not empty).
    std::pair<std::string, std::size_t> prefix(std::string_view text) const;
    // Hugging Face's Precompiled normaliser on valid UTF-8.
    std::string normalize_graphemes(std::string_view text) const;

private:
    std::vector<std::uint32_t> units_;
    std::string strings_;
};

// Standard base64 (RFC 4648, '=' padding) as tokenizer.json stores the blob; false when s is not base64.
bool base64_decode(std::string_view s, std::string& out);

}  // namespace attn
