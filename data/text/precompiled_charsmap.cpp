#include "data/text/precompiled_charsmap.h"


#include "data/base/utf8.h"
#include "data/text/pre_tokenizer.h"
#include "data/text/unicode.h"

namespace attn {
namespace {

bool has_leaf(std::uint32_t u) { return ((u >> 8) & 1) != 0; }
std::uint32_t value(std::uint32_t u) { return u & 0x7fffffffu; }
std::uint32_t label(std::uint32_t u) { return u & 0x800000ffu; }
std::uint32_t offset(std::uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

std::uint32_t le32(std::string_view b, std::size_t at) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at])) | static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 2])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 3])) << 24;
}

}  // namespace

PrecompiledCharsmap PrecompiledCharsmap::from_blob(std::string_view blob, const std::string& name) {
    PrecompiledCharsmap m;
    if (blob.empty()) return m;
    if (blob.size() < 4) tokenizer_file_error(name, "the precompiled_charsmap is shorter than its 4-byte header");
    const std::uint32_t trie_bytes = le32(blob, 0);
    if (trie_bytes % 4 != 0 || trie_bytes > blob.size() - 4)
        tokenizer_file_error(name, "the precompiled_charsmap's trie (" + std::to_string(trie_bytes) + " bytes) does not fit its " +
                                       std::to_string(blob.size()) + " bytes");
    m.units_.resize(trie_bytes / 4);
    for (std::size_t i = 0; i < m.units_.size(); ++i) m.units_[i] = le32(blob, 4 + 4 * i);
    m.strings_ = std::string(blob.substr(4 + trie_bytes));
    for (std::size_t i = 0; i < m.strings_.size();) {  // the replacements are UTF-8 (NULs between them)
        char32_t c = 0;
        const std::size_t n = utf8_decode(m.strings_, i, c);
        if (n == 0) tokenizer_file_error(name, "the precompiled_charsmap's replacements are not UTF-8");
        i += n;
    }
    return m;
}

std::vector<std::pair<std::size_t, std::string_view>> PrecompiledCharsmap::prefixes(std::string_view text) const {
    std::vector<std::pair<std::size_t, std::string_view>> out;
    if (units_.empty()) return out;
    std::size_t node = offset(units_[0]);
    for (std::size_t i = 0; i < text.size() && text[i] != '\0'; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        node ^= c;
        if (node >= units_.size() || label(units_[node]) != c) break;  // an index outside the array: no key (never read)
        const bool leaf = has_leaf(units_[node]);
        node ^= offset(units_[node]);
        if (node >= units_.size()) break;
        if (!leaf) continue;
        const std::size_t at = value(units_[node]);
        if (at > strings_.size()) continue;
        // a replacement that starts inside a character is no key
        if (at < strings_.size() && (static_cast<unsigned char>(strings_[at]) & 0xC0) == 0x80) continue;
        const std::size_t end = strings_.find('\0', at);
        out.emplace_back(i + 1, std::string_view(strings_).substr(at, (end == std::string::npos ? strings_.size() : end) - at));
    }
    return out;
}

std::pair<std::string, std::size_t> PrecompiledCharsmap::prefix(std::string_view text) const {
    const auto keys = prefixes(text);
    if (!keys.empty()) return {std::string(keys.back().second), keys.back().first};  // the longest key
    char32_t c = 0;
    const std::size_t n = utf8_decode(text, 0, c);
    if (n == 0) return {"\xEF\xBF\xBD", 1};  // sentencepiece: a malformed byte reads as U+FFFD
    return {std::string(text.substr(0, n)), n};
}

std::string PrecompiledCharsmap::normalize_graphemes(std::string_view text) const {
    std::string out;
    out.reserve(text.size());
    auto one = [&](std::string_view g) {  // one grapheme cluster
        if (g.size() < 6) {
            const auto keys = prefixes(g);
            if (!keys.empty()) {
                out += keys.front().second;  // the shortest key's replacement stands for the whole cluster
                return;
            }
        }
        for (std::size_t i = 0; i < g.size();) {
            char32_t c = 0;
            std::size_t n = utf8_decode(g, i, c);
            if (n == 0) n = 1;
            const auto keys = prefixes(g.substr(i, n));
            if (keys.empty()) out += g.substr(i, n);
            else out += keys.front().second;
            i += n;
        }
    };
    // extended grapheme clusters (UAX #29)
    const std::vector<std::size_t> starts = grapheme_starts(text);
    for (std::size_t k = 0; k < starts.size(); ++k)
        one(text.substr(starts[k], (k + 1 < starts.size() ? starts[k + 1] : text.size()) - starts[k]));
    return out;
}

bool base64_decode(std::string_view s, std::string& out) {
    auto digit = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    out.clear();
    if (s.size() % 4 != 0) return false;
    out.reserve(s.size() / 4 * 3);
    for (std::size_t i = 0; i < s.size(); i += 4) {
        const bool last = i + 4 == s.size();
        const int pad = last ? (s[i + 3] == '=') + (s[i + 2] == '=' && s[i + 3] == '=') : 0;
        std::uint32_t v = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const int d = k >= 4 - static_cast<std::size_t>(pad) ? 0 : digit(s[i + k]);
            if (d < 0) return false;
            v = v << 6 | static_cast<std::uint32_t>(d);
        }
        out += static_cast<char>((v >> 16) & 0xFF);
        if (pad < 2) out += static_cast<char>((v >> 8) & 0xFF);
        if (pad < 1) out += static_cast<char>(v & 0xFF);
    }
    return true;
}

}  // namespace attn
