// The Unicode facts the tokenisers need: normalisation forms (tokenizer.json's NFC normaliser, BERT's
// accent stripping), general categories, simple lowercase mapping and grapheme clusters. Two
// implementations behind one interface, chosen by the build: utf8proc natively (libutf8proc-dev,
// Unicode 15 tables; data/text/unicode_utf8proc.cpp) and, in the page's WebAssembly core, the
// browser's own (String.prototype.normalize, RegExp \p{gc=..}, Intl.Segmenter;
// data/text/unicode_browser.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

// The NFC form of valid UTF-8 text ("e\u0301" -> "\u00E9", "\u212B" -> "\u00C5"); text already in NFC
// (every ASCII text) comes back unchanged. Invalid UTF-8 is a one-line input error (exit 1).
std::string utf8_nfc(std::string_view text);

// The NFD form (canonical decomposition, stable), as utf8_nfc for invalid text.
std::string utf8_nfd(std::string_view text);

// The general categories, in utf8proc's order (Cn, unassigned, is 0).
enum class UnicodeCategory : unsigned char {
    Cn, Lu, Ll, Lt, Lm, Lo, Mn, Mc, Me, Nd, Nl, No, Pc, Pd, Ps, Pe, Pi, Pf, Po, Sm, Sc, Sk, So, Zs, Zl, Zp, Cc, Cf, Cs, Co
};
UnicodeCategory unicode_category(char32_t c);

// UnicodeData.txt's simple lowercase mapping of c (c itself when it has none).
char32_t unicode_simple_lowercase(char32_t c);

// The byte offsets where the extended grapheme clusters (UAX #29) of text start, 0 first (none for an
// empty text). Invalid bytes count as U+FFFD, one byte each.
std::vector<std::size_t> grapheme_starts(std::string_view text);

}  // namespace attn
