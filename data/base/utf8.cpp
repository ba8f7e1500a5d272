#include "data/base/utf8.h"

namespace attn {
namespace {

// The length a lead byte announces: 1 to 4, or 0 for a byte that cannot start a sequence.
std::size_t announced_length(unsigned char b0) {
    if (b0 < 0x80) return 1;
    if ((b0 & 0xE0) == 0xC0) return 2;
    if ((b0 & 0xF0) == 0xE0) return 3;
    if ((b0 & 0xF8) == 0xF0) return 4;
    return 0;
}

// The bytes one invalid sequence at s[i] spans: its lead byte and the continuation bytes it took.
std::size_t invalid_length(std::string_view s, std::size_t i) {
    const std::size_t len = announced_length(static_cast<unsigned char>(s[i]));
    std::size_t k = 1;
    while (k < len && i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80) ++k;
    return k;
}

}  // namespace

std::size_t utf8_decode(std::string_view s, std::size_t i, char32_t& cp) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
        cp = b0;
        return 1;
    }
    std::size_t len = 0;
    char32_t min = 0;
    if ((b0 & 0xE0) == 0xC0) {
        len = 2, cp = b0 & 0x1Fu, min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3, cp = b0 & 0x0Fu, min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        len = 4, cp = b0 & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    if (i + len > s.size()) return 0;
    for (std::size_t k = 1; k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

std::u32string decode_utf8(std::string_view s) {
    std::u32string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp = 0;
        const std::size_t n = utf8_decode(s, i, cp);
        out.push_back(n ? cp : kInvalidUtf8);
        i += n ? n : invalid_length(s, i);
    }
    return out;
}

std::string_view utf8_prefix(std::string_view s, std::size_t max_chars) {
    std::size_t i = 0;
    for (std::size_t n = 0; n < max_chars && i < s.size(); ++n) {
        char32_t cp = 0;
        const std::size_t len = utf8_decode(s, i, cp);
        i += len ? len : invalid_length(s, i);
    }
    return s.substr(0, i);
}

std::string utf8_encode(char32_t c) {
    std::string s;
    if (c < 0x80) s += static_cast<char>(c);
    else if (c < 0x800) s += static_cast<char>(0xC0 | c >> 6), s += static_cast<char>(0x80 | (c & 0x3F));
    else if (c < 0x10000)
        s += static_cast<char>(0xE0 | c >> 12), s += static_cast<char>(0x80 | (c >> 6 & 0x3F)), s += static_cast<char>(0x80 | (c & 0x3F));
    else
        s += static_cast<char>(0xF0 | c >> 18), s += static_cast<char>(0x80 | (c >> 12 & 0x3F)),
            s += static_cast<char>(0x80 | (c >> 6 & 0x3F)), s += static_cast<char>(0x80 | (c & 0x3F));
    return s;
}

}  // namespace attn
