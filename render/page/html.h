// One self-contained interactive HTML page for a trace: the page's code (the scripts of render/page/ and
// page.css, embedded at build time by render/page/page_assets.cpp) and the trace's data inline, nothing fetched, so it opens from
// file:// with no server, no network and no Python.
//
// The data: every matrix the page shows, in ten-thousandths (v × 10^4 rounded to the nearest integer,
// ties to even: exactly the digits "%.4f" prints), stored relative to the matrix's smallest visible
// value in the fewest bytes that hold its span (weights in [0, 1]: 2 bytes; raw scores spanning more
// than 6.5535: 3), as byte planes; masked scores as the small residual from scale × the stored raw
// score; cells the mask hides as 0; values beyond ±214748 as raw float32. All matrices form one
// buffer, zlib-compressed and written as base-128 text (page_buffer.h's text7: 8/7 of the bytes, where
// base64 took 4/3) in an element of its own; the page inflates it with the browser's DecompressionStream. A readout of 4 decimals therefore shows exactly the trace's value at 4 decimals.
// Measured (tests/browser/measure_page.py): 12 layers × 12 heads at 128 tokens with scores, mask,
// weights, layer means and rollouts gives a 6.75 MB page, ready 0.6-2.3 s after loading in headless
// Chromium (byte planes and masked-score residuals took it from 10.7 MB). A GPT-2-small-shaped random
// model (tests/gpt2/page_size_check.py: width 768, GPT-2's initializer range) gives larger raw scores,
// 3 bytes a cell that deflate cannot shrink: its page was 9.74 MB with base64, 8.37 MB with the base-128
// text and 8.27 MB (7.89 MiB) with layer means as residuals; ready in 0.26 s in headless Chromium.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/trace.h"
#include "core/kinds/decode.h"
#include "render/view/colour_scale.h"

namespace attn::render {

struct HtmlOptions {
    std::string source;                 // where the trace came from (shown in the header), e.g. "trace.json"
    std::optional<std::size_t> layer;   // the selection the page opens with (a URL fragment overrides it)
    std::optional<std::size_t> head;
    // The live panel (render/page/live.js): attn's core in WebAssembly runs the sentence a reader types.
    // These are the words of `attn show` it opens with (the run's own); none: no panel. Left out, too,
    // when this attn was built without the core (live_core_js() empty).
    std::optional<std::vector<std::string>> live;
    // A model run's page leads with these (empty: not known, e.g. `attn render` of a trace file): the
    // model folder's name (empty: the trace's own model.name, if any) and the text as given (a trace holds
    // only its tokens).
    std::string model_name = {};
    std::string text = {};
    // An encoder-decoder run's translation as text (the generated ids decoded); empty: the page joins the
    // generated tokens' labels (a leading '·' read as a space).
    std::string translation = {};
    // The colour rule of the run's figures (--range, --log, --colormap): the page colours every matrix by
    // it, as the PNGs and SVGs do (render/view/colour_scale.h's make_scale).
    ColourSpec colour = {};
    // A model folder the page carries (attn page --model DIR): its name and files (name, bytes), which the
    // live panel loads into the core at start (render/page/model_panel.js) and runs.
    std::string embedded_model = {};
    std::vector<std::pair<std::string, std::string>> embedded_files = {};
};

// Whether a page of this trace carries the live panel and its engine, attn's core in WebAssembly (about
// 3 MB), when HtmlOptions::live asks for it: the panel reruns typed text through a seeded kind, so only a
// seeded kind's trace (a kind of the registry, no model, no model layers) can use it. A model's page, an
// encoder-decoder's, a .npy's or a decode's never carry the core, whatever the build. The same for every
// build: the build only decides whether there is a core to carry (live_core_js()).
bool page_runs_live(const Trace& t);

// Which page: what follows start.js in the script (an encoder's segments and [MASK] predictions, an
// encoder-decoder's Encoder | Decoder | Cross tabs) and what page.css is followed by.
enum class PageStack { decoder, encoder, encoder_decoder };

// The page. A model trace's page also carries every head's `attn heads` scores on its text
// (core/analysis/head_report.h's score_trace of this very trace), and when the trace has them its logit
// lens ("lens": [{layer, ids, p, tokens}]) and ablation ("ablation": the JSON trace's, each position's top
// tokens beside as token_before and token_after); their tokens as labels (data/text's token_label: "·the"). Throws std::invalid_argument when the trace has no heads, heads of different shapes, or
// layer/head outside the trace.
//
// An encoder-decoder trace (model->stack "encoder-decoder") gives a page of three tabs, one per attention
// set, each with the overview, matrix and head views of that set; it opens on "cross", which `layer` and
// `head` then index. Its data holds "sets": [{name, tokens (T), source_tokens (S), layers, stages,
// empty_rows}] (encoder S x S, decoder T x T, cross T x S; every layer with its heads, its aggregates (the
// set's layer_mean, and rollout but for cross) and its colour scales by render/view/colour_scale.h's
// make_scale, the PNGs' rule) and "translation": {source, text, generated (T labels), teacher_forced}.
// Throws std::invalid_argument when its sets are not encoder, decoder and cross, in that order.
std::string render_html(const Trace& t, const HtmlOptions& opt);

// attn decode --model's page: the full pass's page (render_html of d.full) and, after --max-new-tokens, its
// generation as the data's "generation": the decode JSON's "generation" object (mode, sampler settings,
// prompt_tokens, stopped_at_eos, steps [{id, token, step, p, p_sample, top [{id, token, p, label}]}]: each
// alternative's label added, token_label of its text) with its "generated_ids",
// "layer" (the layer the steps record), "decode_max_abs_diff" and "rows": each fed step's {step, token,
// token_id, heads [{head, kv_head, weights (step + 1)}]} (every head, or --head's; none before the text's
// last step, which chose no token). Without generation,
// the page is render_html(d.full, opt).
std::string render_decode_html(const DecodeTrace& d, const HtmlOptions& opt);

// v in ten-thousandths, rounded to nearest, ties to even (what "%.4f" prints). Exact: a float has 24
// significant bits and 10^4 < 2^14, so v × 10^4 fits a double's 53 without rounding.
// Values beyond ±2^53 / 10^4 are not representable: callers store those as float32.
std::int64_t ten_thousandths(float v);

// ten_thousandths as the page prints it: "-0.1235", "12.0000" (never "-0.0000").
std::string format_ten_thousandths(std::int64_t k);

// The page's code as embedded (for tests: node --check runs on the source files themselves). page_js()
// is render/page/page.js, then the view scripts in order inside one function (render/page/page_assets.cpp);
// page_css() is page.css (an encoder-decoder's page adds seq2seq.css).
std::string page_js(PageStack stack = PageStack::decoder);
std::string page_css(PageStack stack = PageStack::decoder);
// attn's core compiled to WebAssembly: the script defining AttnCore (cli/web/) and its .wasm, zlib-deflated;
// both empty when this attn was built without em++ (CMake's ATTN_WASM off).
std::string live_core_js();
std::string live_core_wasm();

}  // namespace attn::render
