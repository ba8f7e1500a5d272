// data/text/text_regex.h in the page's WebAssembly core: the browser's RegExp with the u flag, through
// data/text/text_browser.js. The pattern is first translated from PCRE2's meaning to RegExp's (\s as
// Unicode space, \w and \d by Unicode properties, '.' and '$' as PCRE2 reads them, (?i:...) spelled
// out); what has no faithful translation (\b, possessive quantifiers, atomic groups, ...) is refused
// by name, so the page never tokenises differently from attn on the command line.
#include "data/text/text_regex.h"

#include <cstdlib>
#include <memory>

#include "data/base/error.h"
#include "data/text/browser_text.h"
#include "data/text/pre_tokenizer.h"

extern "C" {
// The pattern's bytes -> a handle (> 0), or 0 with the reason in attn_js_regex_error().
int attn_js_regex_compile(const char* pattern, std::size_t size);
// [count, begin0, end0, ...]: every non-empty match as UTF-8 byte offsets (malloc'd; the caller frees it),
// or null for a text holding a character newer than Unicode 14 (its "U+XXXX" in attn_js_regex_error()).
int* attn_js_regex_matches(int handle, const char* subject, std::size_t size);
void attn_js_regex_free(int handle);
}

namespace attn {

struct TextRegex {
    int handle = 0;
    ~TextRegex() { attn_js_regex_free(handle); }
};

CompiledRegex compile_tokenizer_regex(const std::string& pattern, const std::string& name, const std::string& what) {
    auto re = std::make_shared<TextRegex>();
    re->handle = attn_js_regex_compile(pattern.data(), pattern.size());
    if (re->handle <= 0) {
        const std::unique_ptr<char, void (*)(void*)> why(attn_js_regex_error(), std::free);
        tokenizer_file_error(name, what + " " + (why ? why.get() : "does not compile"));
    }
    return re;
}

std::vector<std::pair<std::size_t, std::size_t>> regex_matches(const TextRegex& re, std::string_view subject) {
    const std::unique_ptr<int, void (*)(void*)> m(attn_js_regex_matches(re.handle, subject.data(), subject.size()), std::free);
    if (!m) refuse_newer_character();
    std::vector<std::pair<std::size_t, std::size_t>> out(static_cast<std::size_t>(m.get()[0]));
    for (std::size_t k = 0; k < out.size(); ++k)
        out[k] = {static_cast<std::size_t>(m.get()[1 + 2 * k]), static_cast<std::size_t>(m.get()[2 + 2 * k])};
    return out;
}

}  // namespace attn
