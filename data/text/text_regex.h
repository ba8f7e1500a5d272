// The regexes of tokenizer.json (a Split pre-tokeniser's, a Replace normaliser's), compiled once and
// matched left to right. Two engines behind one interface, chosen by the build, never by #ifdef:
// PCRE2 with UTF and Unicode properties natively (data/text/text_regex_pcre2.cpp), the browser's own
// RegExp with the u flag in the page's WebAssembly core (data/text/text_regex_browser.cpp, which
// translates PCRE2's classes to their Unicode-property spelling and refuses what it cannot say).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attn {

struct TextRegex;  // the engine's compiled pattern
using CompiledRegex = std::shared_ptr<const TextRegex>;

// pattern compiled; errors name the tokeniser file `name` and `what` ("the pre-tokeniser's regex"):
// a pattern that does not compile, or one that asks for what Hugging Face's engines do not have.
CompiledRegex compile_tokenizer_regex(const std::string& pattern, const std::string& name, const std::string& what);

// Every non-empty match of re in the valid UTF-8 subject, left to right, as [begin, end) byte offsets;
// after an empty match the search goes on one character later. An input error if the engine gives up
// (a pattern that backtracks without end).
std::vector<std::pair<std::size_t, std::size_t>> regex_matches(const TextRegex& re, std::string_view subject);

}  // namespace attn
