#include "data/tokenize.h"

#include <cstdio>

#include "data/error.h"

namespace attn {
namespace {

bool in(char32_t c, char32_t lo, char32_t hi) { return c >= lo && c <= hi; }

bool is_space(char32_t c) {
    return c == ' ' || in(c, 0x09, 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 || in(c, 0x2000, 0x200A) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool is_control(char32_t c) {
    return c < 0x20 || c == 0x7F || in(c, 0x80, 0x9F) || in(c, 0x202A, 0x202E) || in(c, 0x2066, 0x2069);
}

bool is_space_control(char32_t c) { return in(c, 0x09, 0x0D) || c == 0x85; }

bool is_punct(char32_t c) {
    if (c < 0x80) return in(c, 0x21, 0x2F) || in(c, 0x3A, 0x40) || in(c, 0x5B, 0x60) || in(c, 0x7B, 0x7E);
    return c == 0xA1 || c == 0xA7 || c == 0xAB || c == 0xB6 || c == 0xB7 || c == 0xBB || c == 0xBF ||
           in(c, 0x2010, 0x2027) || in(c, 0x2030, 0x205E) || in(c, 0x3001, 0x3003) || in(c, 0x3008, 0x3011) ||
           in(c, 0x3014, 0x301F) || in(c, 0xFF01, 0xFF0F) || in(c, 0xFF1A, 0xFF20) || in(c, 0xFF3B, 0xFF40) ||
           in(c, 0xFF5B, 0xFF65);
}

bool is_cjk_char(char32_t c) {
    return in(c, 0x3040, 0x30FF) || in(c, 0x3400, 0x4DBF) || in(c, 0x4E00, 0x9FFF) || in(c, 0xF900, 0xFAFF) ||
           in(c, 0x20000, 0x3FFFF);
}

std::string hex_byte(unsigned char b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02X", b);
    return buf;
}

std::string code_point(char32_t c) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
    return buf;
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
    if (cp < min || cp > 0x10FFFF || in(cp, 0xD800, 0xDFFF)) return 0;
    return len;
}

std::optional<std::string> text_problem(std::string_view text, bool allow_space_controls) {
    for (std::size_t i = 0; i < text.size();) {
        char32_t c = 0;
        const std::size_t n = utf8_decode(text, i, c);
        if (n == 0)
            return "is not valid UTF-8 at byte offset " + std::to_string(i) + " (byte " +
                   hex_byte(static_cast<unsigned char>(text[i])) + ")";
        if (is_control(c) && !(allow_space_controls && is_space_control(c)))
            return "has a control character at byte offset " + std::to_string(i) + " (" + code_point(c) + ")";
        i += n;
    }
    return std::nullopt;
}

std::vector<std::string> tokenize(std::string_view text, std::size_t max_tokens) {
    if (const auto problem = text_problem(text))
        usage_error("the sentence " + *problem, problem->find("UTF-8") != std::string::npos
                                                    ? "save the text as UTF-8"
                                                    : "remove it; tabs and newlines are fine");
    std::vector<std::string> tokens;
    std::string word;
    char32_t run_punct = 0;  // the punctuation character of the token being built, if any
    auto flush = [&] {
        if (!word.empty()) tokens.push_back(std::move(word));
        word.clear();
        run_punct = 0;
    };
    for (std::size_t i = 0; i < text.size() && tokens.size() <= max_tokens;) {
        char32_t c = 0;
        const std::size_t n = utf8_decode(text, i, c);  // valid: text_problem found nothing
        const std::string_view bytes = text.substr(i, n);
        if (is_space(c)) {
            flush();
        } else if (is_punct(c)) {
            if (run_punct != c) flush();
            word.append(bytes);
            run_punct = c;
        } else if (is_cjk_char(c)) {
            flush();
            tokens.emplace_back(bytes);
        } else {
            if (run_punct != 0) flush();
            word.append(bytes);
        }
        i += n;
    }
    flush();
    if (tokens.size() > 1 && max_tokens < tokens.size() - 1) tokens.resize(max_tokens + 1);  // a step may add two
    return tokens;
}

}  // namespace attn
