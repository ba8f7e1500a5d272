#include "data/text/tokenize.h"

#include <algorithm>
#include <cstdio>

#include "data/base/error.h"
#include "data/base/limits.h"
#include "data/base/utf8.h"

namespace attn {
namespace {

bool in(char32_t c, char32_t lo, char32_t hi) { return c >= lo && c <= hi; }

bool is_space(char32_t c) {
    return c == ' ' || in(c, 0x09, 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 || in(c, 0x2000, 0x200B) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool is_control_char(char32_t c) {
    return c < 0x20 || c == 0x7F || in(c, 0x80, 0x9F) || in(c, 0x202A, 0x202E) || in(c, 0x2066, 0x2069);
}

// Invisible characters that join rather than separate: a word joiner and a byte order mark inside
// the text (U+FEFF). Dropped from tokens: "a\u2060b" is the token "ab".
bool is_invisible(char32_t c) { return c == 0x2060 || c == 0xFEFF; }

bool is_space_control(char32_t c) { return in(c, 0x09, 0x0D) || c == 0x85; }

bool is_punct(char32_t c) {
    if (c < 0x80) return in(c, 0x21, 0x2F) || in(c, 0x3A, 0x40) || in(c, 0x5B, 0x60) || in(c, 0x7B, 0x7E);
    return c == 0xA1 || c == 0xA7 || c == 0xAB || c == 0xB6 || c == 0xB7 || c == 0xBB || c == 0xBF ||
           in(c, 0x2010, 0x2027) || in(c, 0x2030, 0x205E) || in(c, 0x3001, 0x3003) || in(c, 0x3008, 0x3011) ||
           in(c, 0x3014, 0x301F) || in(c, 0xFF01, 0xFF0F) || in(c, 0xFF1A, 0xFF20) || in(c, 0xFF3B, 0xFF40) ||
           in(c, 0xFF5B, 0xFF65);
}

// Combining marks, variation selectors, emoji skin tones, tag characters and the zero-width joiner:
// in --split chars they stay with the character before them.
bool is_mark(char32_t c) {
    return in(c, 0x0300, 0x036F) || in(c, 0x0483, 0x0489) || in(c, 0x0591, 0x05BD) || in(c, 0x064B, 0x065F) ||
           in(c, 0x0900, 0x0903) || in(c, 0x093A, 0x094F) || in(c, 0x1AB0, 0x1AFF) || in(c, 0x1DC0, 0x1DFF) ||
           in(c, 0x20D0, 0x20FF) || in(c, 0xFE00, 0xFE0F) || in(c, 0xFE20, 0xFE2F) || in(c, 0x1F3FB, 0x1F3FF) ||
           in(c, 0xE0020, 0xE007F) || in(c, 0xE0100, 0xE01EF) || c == 0x200D || c == 0x3099 || c == 0x309A;
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

// The tokeniser's refusal of a token that grew past kMaxTokenBytes: its index and opening are known,
// its whole length is not (the rest of it is never read).
[[noreturn]] void refuse_long_token(std::size_t index, std::string_view token, Split split) {
    usage_error("token " + std::to_string(index) + " is longer than " + std::to_string(kMaxTokenBytes) +
                    " bytes, the most a token may have (\"" + token_opening(token) + "\")",
                split == Split::chars ? "a character and its combining marks make one token: remove some marks"
                                      : "break it with spaces, or use --split chars");
}

}  // namespace

std::string token_opening(std::string_view token) {
    constexpr std::size_t kOpening = 24;  // bytes: a few words' worth, enough to find the token
    std::size_t end = std::min(token.size(), kOpening);
    while (end > 0 && end < token.size() && (static_cast<unsigned char>(token[end]) & 0xC0) == 0x80) --end;
    return excerpt(token.substr(0, end)) + (end < token.size() ? "..." : "");
}

std::optional<std::string> token_length_problem(std::string_view token) {
    if (token.size() <= kMaxTokenBytes) return std::nullopt;
    return "is " + std::to_string(token.size()) + " bytes, more than the " + std::to_string(kMaxTokenBytes) +
           " a token may have (\"" + token_opening(token) + "\")";
}

std::optional<std::string> token_problem(std::string_view token) {
    if (token.empty()) return std::string("is empty");
    if (const auto problem = token_length_problem(token)) return problem;
    if (const auto problem = text_problem(token, false)) return problem;
    for (std::size_t i = 0; i < token.size();) {
        char32_t c = 0;
        const std::size_t n = utf8_decode(token, i, c);
        if (is_space(c) && c != 0x200B)
            return "has white space at byte offset " + std::to_string(i) + " (" + code_point(c) + ")";
        if (is_invisible(c) || c == 0x200B)
            return "has an invisible character at byte offset " + std::to_string(i) + " (" + code_point(c) + ")";
        i += n;
    }
    return std::nullopt;
}

bool looks_like_utf16(std::string_view bytes) {
    if (bytes.size() < 2) return false;
    if (bytes.compare(0, 2, "\xFF\xFE") == 0 || bytes.compare(0, 2, "\xFE\xFF") == 0) return true;
    // ASCII as UTF-16: every other byte NUL (little-endian: the odd ones)
    std::size_t even = 0, odd = 0;
    const std::size_t n = std::min<std::size_t>(bytes.size() & ~std::size_t(1), 512);
    for (std::size_t i = 0; i < n; ++i)
        if (bytes[i] == '\0') ++(i % 2 ? odd : even);
    const std::size_t pairs = n / 2;  // at least half the pairs hold a NUL, always on the same side
    return pairs > 0 && ((odd * 2 >= pairs && even == 0) || (even * 2 >= pairs && odd == 0));
}

std::optional<std::string> text_problem(std::string_view text, bool allow_space_controls) {
    for (std::size_t i = 0; i < text.size();) {
        char32_t c = 0;
        const std::size_t n = utf8_decode(text, i, c);
        if (n == 0)
            return "is not valid UTF-8 at byte offset " + std::to_string(i) + " (byte " +
                   hex_byte(static_cast<unsigned char>(text[i])) + ")";
        if (is_control_char(c) && !(allow_space_controls && is_space_control(c)))
            return "has a control character at byte offset " + std::to_string(i) + " (" + code_point(c) + ")";
        if (c == 0xFFFE || c == 0xFFFF)  // not characters: U+FFFE is a byte order mark read the wrong way round
            return "has a noncharacter at byte offset " + std::to_string(i) + " (" + code_point(c) + ")";
        i += n;
    }
    return std::nullopt;
}

std::size_t special_token_length(std::string_view text, std::size_t i) {
    if (i >= text.size()) return 0;
    const auto upper = [](char ch) { return ch >= 'A' && ch <= 'Z'; };
    if (text[i] == '[') {  // [A-Z][A-Z0-9_]{0,15}]
        if (i + 1 >= text.size() || !upper(text[i + 1])) return 0;
        for (std::size_t k = i + 2; k < text.size() && k - i - 1 <= kSpecialMaxBracket; ++k) {
            const char ch = text[k];
            if (ch == ']') return k - i + 1;
            if (!(upper(ch) || (ch >= '0' && ch <= '9') || ch == '_')) return 0;
        }
        return 0;
    }
    if (text[i] == '<') {  // < printable ASCII, no space, no < or >, 1..32 of them >
        for (std::size_t k = i + 1; k < text.size() && k - i - 1 <= kSpecialMaxInner; ++k) {
            const char ch = text[k];
            if (ch == '>') return k > i + 1 ? k - i + 1 : 0;
            if (ch < 0x21 || ch > 0x7E || ch == '<') return 0;
        }
    }
    return 0;
}

Split parse_split(const std::string& name) {
    if (name == "space") return Split::space;
    if (name == "chars") return Split::chars;
    return Split::words;
}

std::vector<std::string> tokenize(std::string_view text, std::size_t max_tokens, Split split) {
    if (const auto problem = text_problem(text))
        usage_error("the sentence " + *problem, problem->find("UTF-8") != std::string::npos
                                                    ? "save the text as UTF-8"
                                                    : "remove it; tabs and newlines are fine");
    // U+2060 and U+FEFF are dropped first, so the text reads as if they were not there: "[\u2060CLS]"
    // is the special token [CLS], and "a\u2060b" is one word in every mode that keeps words whole.
    // Only a text holding one is copied (their UTF-8 bytes cannot occur inside another character).
    std::string visible;
    if (text.find("\xE2\x81\xA0") != std::string_view::npos || text.find("\xEF\xBB\xBF") != std::string_view::npos) {
        visible.reserve(text.size());
        for (std::size_t i = 0; i < text.size();) {
            char32_t c = 0;
            const std::size_t n = utf8_decode(text, i, c);
            if (!is_invisible(c)) visible.append(text.substr(i, n));
            i += n;
        }
        text = visible;
    }
    std::vector<std::string> tokens;
    std::string word;
    char32_t run_punct = 0;  // the punctuation character of the token being built, if any
    bool joiner = false;     // chars: the last code point was U+200D, the next one joins it
    auto flush = [&] {
        if (!word.empty()) tokens.push_back(std::move(word));
        word.clear();
        run_punct = 0;
    };
    for (std::size_t i = 0; i < text.size() && tokens.size() <= max_tokens;) {
        // 1. a special token stands whole and alone in every mode
        if (const std::size_t sp = special_token_length(text, i)) {
            flush();
            tokens.emplace_back(text.substr(i, sp));
            i += sp;
            continue;
        }
        char32_t c = 0;
        const std::size_t n = utf8_decode(text, i, c);  // valid: text_problem found nothing
        const std::string_view bytes = text.substr(i, n);
        i += n;
        // 2. white space separates tokens in every mode
        if (is_space(c)) {
            flush();
            joiner = false;
            continue;
        }
        switch (split) {
            case Split::space: word.append(bytes); break;
            case Split::chars:  // one character each: marks, variation selectors and ZWJ sequences join it
                if (!(joiner || is_mark(c)) || word.empty()) flush();
                word.append(bytes);
                joiner = c == 0x200D;
                break;
            case Split::words:
                if (is_punct(c)) {
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
                break;
        }
        // 3. a token may have kMaxTokenBytes: refused as soon as it grows past them
        if (word.size() > kMaxTokenBytes) refuse_long_token(tokens.size(), word, split);
    }
    flush();
    if (tokens.size() > 1 && max_tokens < tokens.size() - 1) tokens.resize(max_tokens + 1);  // a step may add two
    return tokens;
}

}  // namespace attn
