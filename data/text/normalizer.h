// Step 1 of data/text/tokenizer.h for WordPiece files: tokenizer.json's BertNormalizer, as Hugging Face's
// tokenizers library (normalizers/bert.rs) runs it, in this order:
//   1. clean_text: drop U+0000, U+FFFD and control characters (categories Cc, Cf, Co; tab, newline and
//      carriage return are whitespace), and turn every whitespace character (Rust's char::is_whitespace)
//      into ' ';
//   2. handle_chinese_chars: a space on each side of a CJK ideograph (the blocks BERT lists);
//   3. strip_accents (null: the same as lowercase): NFD (utf8proc), then drop nonspacing marks (Mn);
//   4. lowercase: Rust's char::to_lowercase, the full mapping ('İ' -> "i\u0307", two code points), which
//      utf8proc's one-to-one utf8proc_tolower is not.
// The other normalisers of tokenizer.json (NFC, sentencepiece's Prepend and Replace) belong to the BPE
// files and live in data/text/pre_tokenizer.h.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace attn {

struct BertNormalizer {
    bool clean_text = true, handle_chinese_chars = true, strip_accents = true, lowercase = true;

    // From tokenizer.json's {"type": "BertNormalizer", ...} (strip_accents null follows lowercase).
    static BertNormalizer from_json(const nlohmann::json& n, const std::string& name);
    // Valid UTF-8 in, normalised UTF-8 out.
    std::string normalize(std::string_view text) const;
};

// Character classes as Hugging Face's Rust code tests them (utf8proc's Unicode 15 tables).
bool rust_is_whitespace(char32_t c);  // char::is_whitespace (White_Space)
bool bert_is_punctuation(char32_t c); // BertPreTokenizer: ASCII punctuation or a P* category

}  // namespace attn
