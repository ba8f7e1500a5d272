// data/text/unicode.h in the page's WebAssembly core: the browser's own Unicode (ICU's tables) through
// data/text/text_browser.js: String.prototype.normalize for NFC and NFD, RegExp's \p{gc=..} for the
// general category, toLowerCase on one code point for the simple mapping, Intl.Segmenter for grapheme
// clusters. Invalid UTF-8 is refused here first, with the native build's words.
#include "data/text/unicode.h"

#include <cstdlib>
#include <memory>

#include "data/base/error.h"
#include "data/base/utf8.h"
#include "data/text/browser_text.h"

extern "C" {
// text's normal form (form 0: NFC, 1: NFD), malloc'd; its length in *size.
char* attn_js_normalize(const char* text, std::size_t size, int form, std::size_t* out_size);
int attn_js_category(int c);
int attn_js_lowercase(int c);
// [count, start0, start1, ...] in UTF-8 bytes, malloc'd.
int* attn_js_graphemes(const char* text, std::size_t size);
}

namespace attn {
namespace {

bool ascii(std::string_view text) {
    for (char c : text)
        if (static_cast<unsigned char>(c) >= 0x80) return false;
    return true;
}

void check_utf8(std::string_view text, const char* what) {
    for (std::size_t i = 0; i < text.size();) {
        char32_t c = 0;
        const std::size_t n = utf8_decode(text, i, c);
        if (n == 0) input_error(std::string("the text cannot be ") + what + " (Invalid UTF-8 string)", "give valid UTF-8 text");
        i += n;
    }
}

std::string browser_form(std::string_view text, int form, const char* what) {
    if (ascii(text)) return std::string(text);
    check_utf8(text, what);
    std::size_t n = 0;
    const std::unique_ptr<char, void (*)(void*)> out(attn_js_normalize(text.data(), text.size(), form, &n), std::free);
    if (!out) refuse_newer_character();
    return std::string(out.get(), n);
}

}  // namespace

std::string utf8_nfc(std::string_view text) { return browser_form(text, 0, "normalised to NFC"); }

std::string utf8_nfd(std::string_view text) { return browser_form(text, 1, "decomposed"); }

UnicodeCategory unicode_category(char32_t c) {
    const int k = attn_js_category(static_cast<int>(c));
    if (k < 0) refuse_newer_character();
    return static_cast<UnicodeCategory>(k);
}

char32_t unicode_simple_lowercase(char32_t c) {
    if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
    const int l = attn_js_lowercase(static_cast<int>(c));
    if (l < 0) refuse_newer_character();
    return static_cast<char32_t>(l);
}

std::vector<std::size_t> grapheme_starts(std::string_view text) {
    std::vector<std::size_t> starts;
    if (text.empty()) return starts;
    // invalid bytes are U+FFFD, one byte each, as the native build counts them: the browser sees the same
    std::string valid;
    std::vector<std::size_t> at;  // valid's byte -> text's
    for (std::size_t i = 0; i < text.size();) {
        char32_t c = 0;
        std::size_t n = utf8_decode(text, i, c);
        const std::string piece = n == 0 ? std::string("\xEF\xBF\xBD") : std::string(text.substr(i, n));
        if (n == 0) n = 1;
        for (std::size_t k = 0; k < piece.size(); ++k) at.push_back(i);
        valid += piece;
        i += n;
    }
    const std::unique_ptr<int, void (*)(void*)> g(attn_js_graphemes(valid.data(), valid.size()), std::free);
    if (!g) refuse_newer_character();
    for (int k = 0; k < g.get()[0]; ++k) starts.push_back(at.at(static_cast<std::size_t>(g.get()[1 + k])));
    return starts;
}

}  // namespace attn
