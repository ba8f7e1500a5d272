#include "data/text/normalizer.h"

#include <cstdlib>
#include <memory>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/base/utf8.h"
#include "data/text/pre_tokenizer.h"
#include "data/text/unicode.h"

namespace attn {
namespace {

bool is_control(char32_t c) {  // bert.rs is_control: Cc, Cf, Co (and Cs) but not \t \n \r
    if (c == '\t' || c == '\n' || c == '\r') return false;
    const UnicodeCategory cat = unicode_category(c);
    return cat == UnicodeCategory::Cc || cat == UnicodeCategory::Cf || cat == UnicodeCategory::Co || cat == UnicodeCategory::Cs;
}

bool is_chinese(char32_t c) {  // bert.rs is_chinese_char
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

}  // namespace

bool rust_is_whitespace(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool bert_is_punctuation(char32_t c) {
    if (c < 0x80) return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
    const UnicodeCategory cat = unicode_category(c);
    return cat >= UnicodeCategory::Pc && cat <= UnicodeCategory::Po;
}

BertNormalizer BertNormalizer::from_json(const nlohmann::json& n, const std::string& name) {
    BertNormalizer b;
    auto flag = [&](const char* key, bool dflt) {
        if (!n.contains(key) || n[key].is_null()) return dflt;
        if (!n[key].is_boolean()) tokenizer_file_error(name, std::string("BertNormalizer's ") + key + " is not true, false or null");
        return n[key].get<bool>();
    };
    b.clean_text = flag("clean_text", true);
    b.handle_chinese_chars = flag("handle_chinese_chars", true);
    b.lowercase = flag("lowercase", true);
    b.strip_accents = flag("strip_accents", b.lowercase);
    return b;
}

std::string BertNormalizer::normalize(std::string_view text) const {
    // 1 and 2, character by character
    std::string s;
    s.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        char32_t c = 0;
        const std::size_t n = utf8_decode(text, i, c);
        if (n == 0) input_error("the text is not valid UTF-8", "save the text as UTF-8");
        i += n;
        if (clean_text) {
            if (c == 0 || c == 0xFFFD || is_control(c)) continue;
            if (c == '\t' || c == '\n' || c == '\r' || rust_is_whitespace(c)) c = ' ';
        }
        if (handle_chinese_chars && is_chinese(c)) s += ' ' + utf8_encode(c) + ' ';
        else s += utf8_encode(c);
    }
    // 3. NFD, then no nonspacing marks
    if (strip_accents) {
        const std::string d = utf8_nfd(s);
        s.clear();
        for (std::size_t i = 0; i < d.size();) {
            char32_t c = 0;
            const std::size_t n = utf8_decode(d, i, c);
            if (unicode_category(c) != UnicodeCategory::Mn) s.append(d, i, n);
            i += n;
        }
    }
    // 4. Rust's to_lowercase: the simple mapping, and the one unconditional one-to-many mapping
    // of SpecialCasing.txt, U+0130 'İ' -> "i\u0307"
    if (lowercase) {
        std::string l;
        l.reserve(s.size());
        for (std::size_t i = 0; i < s.size();) {
            char32_t c = 0;
            i += utf8_decode(s, i, c);
            if (c == 0x130) l += "i\xCC\x87";
            else l += utf8_encode(unicode_simple_lowercase(c));
        }
        s = std::move(l);
    }
    return s;
}

}  // namespace attn
