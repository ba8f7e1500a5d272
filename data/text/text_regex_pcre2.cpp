// data/text/text_regex.h with PCRE2 (libpcre2-dev): UTF and Unicode properties (\p{L}, \s as Unicode
// space), JIT when available.
#include "data/text/text_regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "data/base/error.h"
#include "data/text/pre_tokenizer.h"

namespace attn {

struct TextRegex {
    pcre2_code* code = nullptr;
    ~TextRegex() { pcre2_code_free(code); }
};

CompiledRegex compile_tokenizer_regex(const std::string& pattern, const std::string& name, const std::string& what) {
    int err = 0;
    PCRE2_SIZE off = 0;
    auto re = std::make_shared<TextRegex>();
    re->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP, &err, &off, nullptr);
    if (re->code == nullptr) tokenizer_file_error(name, what + " does not compile (PCRE2 error " + std::to_string(err) + ")");
    // A callout ((?C1), (?C"x")) is PCRE2's own: Hugging Face's regex engines (Oniguruma, Rust's regex)
    // have none and refuse the pattern. PCRE2 lists the callouts it compiled, escapes and classes understood.
    int callouts = 0;
    const auto count = [](pcre2_callout_enumerate_block*, void* n) {
        ++*static_cast<int*>(n);
        return 0;  // go on
    };
    pcre2_callout_enumerate(re->code, count, &callouts);
    if (callouts > 0)
        tokenizer_file_error(name, what + " has a PCRE2 callout ((?C...)), which Hugging Face's tokenizers do not accept");
    pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);  // faster when available; the interpreter otherwise
    return re;
}

std::vector<std::pair<std::size_t, std::size_t>> regex_matches(const TextRegex& re, std::string_view subject) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> md(pcre2_match_data_create_from_pattern(re.code, nullptr),
                                                                     pcre2_match_data_free);
    const auto* s = reinterpret_cast<PCRE2_SPTR>(subject.data());
    PCRE2_SIZE at = 0;
    while (at < subject.size()) {
        const int rc = pcre2_match(re.code, s, subject.size(), at, PCRE2_NO_UTF_CHECK, md.get(), nullptr);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0)  // PCRE2's match or depth limit: a pattern that backtracks without end
            input_error("the tokeniser's regex gave up on the text (PCRE2 error " + std::to_string(rc) + ")",
                        "use the model's own tokenizer.json; its patterns should not backtrack without end");
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
        if (ov[1] == ov[0]) {  // an empty match: one character on
            at = ov[0] + 1;
            while (at < subject.size() && (static_cast<unsigned char>(subject[at]) & 0xC0) == 0x80) ++at;
            continue;
        }
        out.emplace_back(ov[0], ov[1]);
        at = ov[1];
    }
    return out;
}

}  // namespace attn
