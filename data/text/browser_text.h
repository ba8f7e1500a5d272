// What the page's two text twins (data/text/text_regex_browser.cpp, data/text/unicode_browser.cpp) share:
// the refusal of a character newer than the command line's Unicode tables (data/text/text_browser.js
// finds it; data/text/unicode_assigned.js lists what Unicode 14.0 assigns).
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "data/base/error.h"

extern "C" char* attn_js_regex_error();  // the last refusal's text (malloc'd): here "U+XXXX"

namespace attn {

// An input error naming the character text_browser.js found (its "U+XXXX" in attn_js_regex_error()).
[[noreturn]] inline void refuse_newer_character() {
    const std::unique_ptr<char, void (*)(void*)> cp(attn_js_regex_error(), std::free);
    input_error("the text holds " + std::string(cp ? cp.get() : "a character") +
                    ", newer than the Unicode 14 tables attn's tokenisers use on the command line",
                "the page refuses it rather than tokenise it differently: leave it out, or run attn show --model on your machine");
}

}  // namespace attn
