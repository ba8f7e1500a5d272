// data/text/unicode.h with utf8proc (libutf8proc-dev).
#include "data/text/unicode.h"

#include <cstdlib>
#include <memory>

#include <utf8proc.h>

#include "data/base/error.h"
#include "data/base/utf8.h"

namespace attn {
namespace {

std::string utf8proc_form(std::string_view text, utf8proc_option_t options, const char* what) {
    bool ascii = true;  // ASCII is NFC and NFD already: skip the library for the common case
    for (char c : text) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
    if (ascii) return std::string(text);
    utf8proc_uint8_t* out = nullptr;
    const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                            static_cast<utf8proc_ssize_t>(text.size()), &out, options);
    const std::unique_ptr<utf8proc_uint8_t, void (*)(void*)> owned(out, std::free);
    if (n < 0) input_error(std::string("the text cannot be ") + what + " (" + utf8proc_errmsg(n) + ")", "give valid UTF-8 text");
    return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

}  // namespace

// utf8proc_NFC is utf8proc_map with STABLE | COMPOSE on a NUL-terminated string; here with a length
std::string utf8_nfc(std::string_view text) {
    return utf8proc_form(text, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE), "normalised to NFC");
}

std::string utf8_nfd(std::string_view text) {
    return utf8proc_form(text, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE), "decomposed");
}

UnicodeCategory unicode_category(char32_t c) {
    return static_cast<UnicodeCategory>(utf8proc_category(static_cast<utf8proc_int32_t>(c)));
}

char32_t unicode_simple_lowercase(char32_t c) { return static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))); }

std::vector<std::size_t> grapheme_starts(std::string_view text) {
    std::vector<std::size_t> starts;
    utf8proc_int32_t state = 0;
    char32_t prev = 0;
    for (std::size_t i = 0; i < text.size();) {
        char32_t c = 0;
        std::size_t n = utf8_decode(text, i, c);
        if (n == 0) n = 1, c = 0xFFFD;
        if (i == 0 || utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(prev), static_cast<utf8proc_int32_t>(c), &state))
            starts.push_back(i);
        prev = c;
        i += n;
    }
    return starts;
}

}  // namespace attn
