// The interactive page's code, the .js files of render/page/ and page.css, embedded at build time with
// .incbin (as render/text/font.cpp embeds the font): the files stay real JavaScript and CSS that editors,
// linters and `node --check` read, and CMake's OBJECT_DEPENDS rebuilds this file when one changes.
//
// The script is page.js (what the page is, 'use strict'), then the views inside one function, so that
// their names stay out of the page's global scope:
//     page.js  "\n(function () {\n"  shared.js  "\n"  frame.js  "\n"  ...  start.js  "})();\n"
// Each view file is a run of declarations (indented as the function's body) and uses what the files
// before it declare; start.js builds the page. An encoder's page adds encoder_view.js after it, which wraps
// the header and the matrix view before start() builds them (a decoder's page stays as it was).
#include <cstddef>
#include <iterator>
#include <string>

#include "render/page/html.h"

#ifndef ATTN_PAGE_DIR
#error "ATTN_PAGE_DIR must name the folder holding the page's .js files and page.css (CMakeLists.txt defines it)"
#endif

#define ATTN_EMBED(symbol, file)                 \
    ".balign 16\n"                               \
    ".globl " symbol "_begin\n"                  \
    ".hidden " symbol "_begin\n" symbol "_begin:\n" \
    ".incbin \"" ATTN_PAGE_DIR "/" file "\"\n"   \
    ".globl " symbol "_end\n"                    \
    ".hidden " symbol "_end\n" symbol "_end:\n"  \
    ".byte 0\n"

asm(".pushsection .rodata\n"
    ATTN_EMBED("attn_page_js", "page.js")
    ATTN_EMBED("attn_page_shared", "shared.js")
    ATTN_EMBED("attn_page_frame", "frame.js")
    ATTN_EMBED("attn_page_matrix_view", "matrix_view.js")
    ATTN_EMBED("attn_page_head_view", "head_view.js")
    ATTN_EMBED("attn_page_heads_table", "heads_table.js")
    ATTN_EMBED("attn_page_model_overview", "model_overview.js")
    ATTN_EMBED("attn_page_flash_steps", "flash_steps.js")
    ATTN_EMBED("attn_page_generation_view", "generation_view.js")
    ATTN_EMBED("attn_page_interventions_view", "interventions_view.js")
    ATTN_EMBED("attn_page_steps_view", "steps_view.js")
    ATTN_EMBED("attn_page_vector_stages", "vector_stages.js")
    ATTN_EMBED("attn_page_position_view", "position_view.js")
    ATTN_EMBED("attn_page_core_worker", "core_worker.js")
    ATTN_EMBED("attn_page_live_payload", "live_payload.js")
    ATTN_EMBED("attn_page_live", "live.js")
    ATTN_EMBED("attn_page_model_panel", "model_panel.js")
    ATTN_EMBED("attn_page_decode_view", "decode_view.js")
    ATTN_EMBED("attn_page_start", "start.js")
    ATTN_EMBED("attn_page_encoder_view", "encoder_view.js")
    ATTN_EMBED("attn_page_seq2seq_view", "seq2seq_view.js")
    ATTN_EMBED("attn_page_css", "page.css")
    ATTN_EMBED("attn_page_seq2seq_css", "seq2seq.css")
    ".popsection\n");

#define ATTN_EMBEDDED(symbol)                \
    extern "C" const char symbol##_begin[]; \
    extern "C" const char symbol##_end[];
ATTN_EMBEDDED(attn_page_js)
ATTN_EMBEDDED(attn_page_shared)
ATTN_EMBEDDED(attn_page_frame)
ATTN_EMBEDDED(attn_page_matrix_view)
ATTN_EMBEDDED(attn_page_head_view)
ATTN_EMBEDDED(attn_page_heads_table)
ATTN_EMBEDDED(attn_page_model_overview)
ATTN_EMBEDDED(attn_page_flash_steps)
ATTN_EMBEDDED(attn_page_generation_view)
ATTN_EMBEDDED(attn_page_interventions_view)
ATTN_EMBEDDED(attn_page_steps_view)
ATTN_EMBEDDED(attn_page_vector_stages)
ATTN_EMBEDDED(attn_page_position_view)
ATTN_EMBEDDED(attn_page_core_worker)
ATTN_EMBEDDED(attn_page_live_payload)
ATTN_EMBEDDED(attn_page_live)
ATTN_EMBEDDED(attn_page_model_panel)
ATTN_EMBEDDED(attn_page_decode_view)
ATTN_EMBEDDED(attn_page_start)
ATTN_EMBEDDED(attn_page_encoder_view)
ATTN_EMBEDDED(attn_page_seq2seq_view)
ATTN_EMBEDDED(attn_page_css)
ATTN_EMBEDDED(attn_page_seq2seq_css)

// attn's core compiled to WebAssembly (its JavaScript, cli/web/, and its .wasm deflated by the build), when
// the build made it (CMake's ATTN_WASM defines their paths): the live panel's engine.
#ifdef ATTN_LIVE_CORE_JS
asm(".pushsection .rodata\n"
    ".balign 16\n"
    ".globl attn_live_core_begin\n"
    ".hidden attn_live_core_begin\nattn_live_core_begin:\n"
    ".incbin \"" ATTN_LIVE_CORE_JS "\"\n"
    ".globl attn_live_core_end\n"
    ".hidden attn_live_core_end\nattn_live_core_end:\n"
    ".byte 0\n"
    ".balign 16\n"
    ".globl attn_live_wasm_begin\n"
    ".hidden attn_live_wasm_begin\nattn_live_wasm_begin:\n"
    ".incbin \"" ATTN_LIVE_CORE_WASM "\"\n"
    ".globl attn_live_wasm_end\n"
    ".hidden attn_live_wasm_end\nattn_live_wasm_end:\n"
    ".popsection\n");
ATTN_EMBEDDED(attn_live_core)
ATTN_EMBEDDED(attn_live_wasm)
#endif

namespace attn::render {
namespace {

struct Embedded {
    const char* begin;
    const char* end;
};

// The views in the order the script runs them: each uses what the ones before it declare.
const Embedded kViews[] = {
    {attn_page_shared_begin, attn_page_shared_end},
    {attn_page_frame_begin, attn_page_frame_end},
    {attn_page_matrix_view_begin, attn_page_matrix_view_end},
    {attn_page_head_view_begin, attn_page_head_view_end},
    {attn_page_heads_table_begin, attn_page_heads_table_end},
    {attn_page_model_overview_begin, attn_page_model_overview_end},
    {attn_page_flash_steps_begin, attn_page_flash_steps_end},
    {attn_page_generation_view_begin, attn_page_generation_view_end},
    {attn_page_interventions_view_begin, attn_page_interventions_view_end},
    {attn_page_steps_view_begin, attn_page_steps_view_end},
    {attn_page_vector_stages_begin, attn_page_vector_stages_end},
    {attn_page_position_view_begin, attn_page_position_view_end},
    {attn_page_core_worker_begin, attn_page_core_worker_end},
    {attn_page_live_payload_begin, attn_page_live_payload_end},
    {attn_page_live_begin, attn_page_live_end},
    {attn_page_model_panel_begin, attn_page_model_panel_end},
    {attn_page_decode_view_begin, attn_page_decode_view_end},
    {attn_page_start_begin, attn_page_start_end},
};

}  // namespace

std::string page_js(PageStack stack) {
    std::string js(attn_page_js_begin, attn_page_js_end);
    js += "\n(function () {\n";
    for (std::size_t k = 0; k < std::size(kViews); ++k) {
        if (k > 0) js += "\n";
        js.append(kViews[k].begin, kViews[k].end);
    }
    if (stack == PageStack::encoder)  // after start.js
        js += "\n" + std::string(attn_page_encoder_view_begin, attn_page_encoder_view_end);
    if (stack == PageStack::encoder_decoder)
        js += "\n" + std::string(attn_page_seq2seq_view_begin, attn_page_seq2seq_view_end);
    return js + "})();\n";
}

std::string live_core_js() {
#ifdef ATTN_LIVE_CORE_JS
    return std::string(attn_live_core_begin, attn_live_core_end);
#else
    return {};
#endif
}

std::string live_core_wasm() {
#ifdef ATTN_LIVE_CORE_JS
    return std::string(attn_live_wasm_begin, attn_live_wasm_end);
#else
    return {};
#endif
}

std::string page_css(PageStack stack) {
    std::string css(attn_page_css_begin, attn_page_css_end);
    if (stack == PageStack::encoder_decoder) css.append(attn_page_seq2seq_css_begin, attn_page_seq2seq_css_end);
    return css;
}

}  // namespace attn::render
