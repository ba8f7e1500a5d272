// The interactive page's code, render/page/page.js and page.css, embedded at build time with .incbin
// (as render/font.cpp embeds the font): the files stay real JavaScript and CSS that editors, linters and
// `node --check` read, and CMake's OBJECT_DEPENDS rebuilds this file when either changes.
#include <string>

#include "render/html.h"

#ifndef ATTN_PAGE_DIR
#error "ATTN_PAGE_DIR must name the folder holding page.js and page.css (CMakeLists.txt defines it)"
#endif

#define ATTN_EMBED(symbol, file)                 \
    ".balign 16\n"                               \
    ".globl " symbol "_begin\n"                  \
    ".hidden " symbol "_begin\n" symbol "_begin:\n" \
    ".incbin \"" ATTN_PAGE_DIR "/" file "\"\n"   \
    ".globl " symbol "_end\n"                    \
    ".hidden " symbol "_end\n" symbol "_end:\n"  \
    ".byte 0\n"

asm(".pushsection .rodata\n" ATTN_EMBED("attn_page_js", "page.js") ATTN_EMBED("attn_page_css", "page.css") ".popsection\n");

extern "C" {
extern const char attn_page_js_begin[];
extern const char attn_page_js_end[];
extern const char attn_page_css_begin[];
extern const char attn_page_css_end[];
}

namespace attn::render {

std::string page_js() { return std::string(attn_page_js_begin, attn_page_js_end); }
std::string page_css() { return std::string(attn_page_css_begin, attn_page_css_end); }

}  // namespace attn::render
