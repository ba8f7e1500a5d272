// The one error type of attn: a message, a hint, and the exit code it maps to.
#pragma once

#include <stdexcept>
#include <algorithm>
#include <string>
#include <string_view>

namespace attn {

enum class ErrorKind {
    usage = 2,    // the command line is wrong: an option out of range, a bad sentence
    runtime = 1,  // the world is wrong: a missing or malformed file, a failed write
};

// what() is a C string: a NUL inside a message (a byte quoted from a file) would end it there, so it
// is written \x00, as print_error writes the other control characters.
inline std::string without_nul(std::string text) {
    for (std::size_t i = text.find('\0'); i != std::string::npos; i = text.find('\0', i + 4)) text.replace(i, 1, "\\x00");
    return text;
}

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message, std::string hint = {})
        : std::runtime_error(without_nul(message)), kind_(kind), hint_(without_nul(std::move(hint))) {}
    ErrorKind kind() const { return kind_; }
    int exit_code() const { return static_cast<int>(kind_); }
    const std::string& hint() const { return hint_; }

private:
    ErrorKind kind_;
    std::string hint_;
};

// At most max_bytes of text (cut at a UTF-8 character), for an error message that quotes its input:
// bytes below 0x20, 0x7F and bytes that are not UTF-8 written \xHH, the bidirectional controls that would
// reorder the rest of the line (U+202A-U+202E, U+2066-U+2069) written \u202e, and "... (N bytes)" after a cut.
inline std::string excerpt(std::string_view text, std::size_t max_bytes = 40) {
    std::size_t end = std::min(text.size(), max_bytes);
    while (end < text.size() && end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    std::string out;
    for (std::size_t i = 0; i < end; ++i) {
        const auto b = static_cast<unsigned char>(text[i]);
        std::size_t len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
        for (std::size_t k = 1; k < len; ++k)
            if (i + k >= end || (static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) len = 0;
        if (len == 1 && b >= 0x20 && b != 0x7F) {
            out += static_cast<char>(b);
        } else if (len == 3 && b == 0xE2 && ((static_cast<unsigned char>(text[i + 1]) == 0x80 &&
                                               static_cast<unsigned char>(text[i + 2]) >= 0xAA &&
                                               static_cast<unsigned char>(text[i + 2]) <= 0xAE) ||
                                              (static_cast<unsigned char>(text[i + 1]) == 0x81 &&
                                               static_cast<unsigned char>(text[i + 2]) >= 0xA6 &&
                                               static_cast<unsigned char>(text[i + 2]) <= 0xA9))) {
            const unsigned cp = 0x2000u + ((static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 6) +
                                (static_cast<unsigned char>(text[i + 2]) & 0x3Fu);
            const char* hex = "0123456789abcdef";
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4) out += hex[(cp >> shift) & 15];
            i += 2;
        } else if (len > 1) {
            out.append(text.substr(i, len));
            i += len - 1;
        } else {
            const char* hex = "0123456789abcdef";
            out += "\\x";
            out += hex[b >> 4];
            out += hex[b & 15];
        }
    }
    if (end < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
    return out;
}

[[noreturn]] inline void usage_error(const std::string& message, std::string hint = {}) {
    throw Error(ErrorKind::usage, message, std::move(hint));
}
[[noreturn]] inline void input_error(const std::string& message, std::string hint = {}) {
    throw Error(ErrorKind::runtime, message, std::move(hint));
}

}  // namespace attn
