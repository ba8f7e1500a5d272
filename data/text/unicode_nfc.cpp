#include "data/text/unicode_nfc.h"

#include <cstdlib>
#include <memory>

#include <utf8proc.h>

#include "data/base/error.h"

namespace attn {

std::string utf8_nfc(std::string_view text) {
    // ASCII is NFC already: skip the library for the common case
    bool ascii = true;
    for (char c : text) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
    if (ascii) return std::string(text);
    // utf8proc_NFC is utf8proc_map with STABLE | COMPOSE on a NUL-terminated string; here with a length
    utf8proc_uint8_t* out = nullptr;
    const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                            static_cast<utf8proc_ssize_t>(text.size()), &out,
                                            static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
    const std::unique_ptr<utf8proc_uint8_t, void (*)(void*)> owned(out, std::free);
    if (n < 0) input_error(std::string("the text cannot be normalised to NFC (") + utf8proc_errmsg(n) + ")", "give valid UTF-8 text");
    return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

}  // namespace attn
