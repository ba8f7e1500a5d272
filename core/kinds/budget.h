// Memory and output-size estimates of a run, from the kind's head geometry in the registry, made
// before anything large is allocated. The policy that refuses a run is cli/policy/budget.h.
#pragma once

#include <cstddef>

#include "core/kinds/kinds.h"

namespace attn {

// What a run holds at its peak, in bytes: inputs, parameters, projections, per-head matrices
// (the (T, S) ones only when weights are kept), flash's tile buffers, the output.
struct RunEstimate {
    double total = 0;
    double tiles = 0;    // flash: one (block_q, block_k) tile and its rows on each core (part of total)
    double records = 0;  // flash with a trace: the visited tiles' records (part of total)
};
RunEstimate estimate_run(const Settings& s, const RunShape& shape);
std::size_t estimate_run_bytes(const Settings& s, const RunShape& shape);

// The JSON trace's size in bytes, and what writing it takes in memory: its text, written straight from
// the matrices (render/trace_io/json_out.h). A float32 takes about 12 bytes with its comma (11 to 12.5 measured
// from 40 to 2,048 tokens), a weight of 0 (hidden or dropped) 4 ("0.0,"), a boolean 5.5 ("true," or "false,"),
// a token's text twice its length at most.
double json_text_bytes(double numbers, double zeros, double bools, double token_bytes);
double json_bytes(const Settings& s, const RunShape& shape);  // the same as a double: above 4 GiB where size_t has 32 bits
std::size_t estimate_json_bytes(const Settings& s, const RunShape& shape);
std::size_t estimate_json_memory(const Settings& s, const RunShape& shape);

// attn decode: the full causal pass and the steps' rows; its JSON ("attn-decode": the steps' rows and
// outputs, no full trace), and what writing it takes (a document tree, then its text).
RunEstimate estimate_decode_run(const Settings& s, const RunShape& shape);
std::size_t estimate_decode_json_bytes(const Settings& s, const RunShape& shape);
std::size_t estimate_decode_json_memory(const Settings& s, const RunShape& shape);

// Writing the figures and the page. PNG: the figure's layout size as render/layout/figure_panel.cpp makes it
// (a grid of about √H panels, cells, labels cut to 150 pixels, the title; text grown by text_scale),
// scale² image pixels each, RGB, once (the encoder deflates the rows in place; it was 2.2 times with a
// filtered copy and zlib, peaks measured 1.5 to 2.05), and 16 bytes per drawn cell (max-pooled to 2,048² over the grid); 12 heads of 16
// 1,000-letter tokens at --scale 4: estimate 375.8 MiB, peak 325 MiB. SVG: pooled to 256 a side, 12
// bytes per cell. HTML: 20 bytes per cell of every head (the page's 4-decimal stages), plus the document.
// text_scale: how much larger than DejaVu Sans --font's text comes out (render::check_font_file).
std::size_t estimate_png_bytes(std::size_t heads, std::size_t t, std::size_t s, int scale = 2, double text_scale = 1.0);
std::size_t estimate_svg_bytes(std::size_t heads, std::size_t t, std::size_t s);
std::size_t estimate_html_bytes(std::size_t heads, std::size_t t, std::size_t s);

}  // namespace attn
