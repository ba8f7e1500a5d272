// Printable checkpoint names for titles (render/view/model_title.h).
#include "render/view/model_title.h"

#include "data/base/utf8.h"

namespace attn::render {
namespace {

bool control(char32_t c) {
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

}  // namespace

std::string printable_name(std::string_view text) {
    const std::string replacement = "\xEF\xBF\xBD";  // U+FFFD
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        char32_t c = 0;
        const std::size_t n = utf8_decode(text, i, c);
        if (n == 0 || control(c)) out += replacement;
        else out.append(text.substr(i, n));
        i += n == 0 ? 1 : n;
    }
    return out;
}

std::string model_title(const ModelInfo& m) { return m.name.empty() ? m.type : printable_name(m.name); }

std::string model_title_with_family(const ModelInfo& m) {
    const std::string title = model_title(m);
    return m.name.empty() || title == m.type ? title : title + " (" + m.type + ")";
}

}  // namespace attn::render
