#include "core/kinds/budget.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/base/ops.h"
#include "core/base/trace.h"

namespace attn {

namespace {
// An estimate in bytes as a size_t, saturating: a 32-bit size_t (WebAssembly) holds under 4 GiB, and
// a run estimated above that must still read as too large, never wrap to a small number.
std::size_t bytes_of(double bytes) {
    const double most = static_cast<double>(std::numeric_limits<std::size_t>::max());
    return bytes >= most ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(bytes);
}
}  // namespace

namespace {

HeadGeometry geometry(const Settings& s, const RunShape& shape) { return kind_named(s.kind).geometry(s, shape.d_src); }

// The parameters' numbers: each of the kind's layers (core/kinds/attention.cpp layers_*), its weight (in, out)
// and its bias. mha, gqa and mqa split one d_out-wide projection into heads (and give k and v G·d_k
// columns); only mha-wrapper has H full d_out-wide sets.
double param_numbers(const Settings& s, const RunShape& shape) {
    double n = 0.0;
    for (const LayerSpec& l : kind_named(s.kind).layers(s, shape.d_src))
        n += double(l.in) * double(l.out) + (l.bias.empty() ? 0.0 : double(l.out));
    return n;
}

// Flash's per-core buffers: a (bq, bk) tile of scores, a (bq, d_v) product, the running m and l.
// The kernel clamps the blocks to (T, S), and so does the estimate.
double tile_bytes(const Settings& s, const RunShape& shape, const HeadGeometry& d) {
    if (!kind_named(s.kind).defaults.tiled) return 0.0;
    const double bq = double(std::min(s.block_q, shape.T)), bk = double(std::min(s.block_k, shape.S));
    const double cores = 2.0;
    return cores * (bq * bk + bq * double(d.d_v) + 2.0 * bq) * double(sizeof(float));
}

// The kind's own mask for a run of this shape (as core/kinds/attention.cpp's make_mask builds it).
MaskSpec own_mask(const Settings& c, const RunShape& shape) {
    MaskSpec m;
    m.causal = c.causal, m.window = c.window;
    if (c.bottom_right) m.shift = std::int64_t(shape.S) - std::int64_t(shape.T);
    return m;
}

// Flash's trace: one Tile per visited (head, query block, key block), with its rows' running max and
// sum (two heap blocks of bq floats, 32 bytes at the least). With --block-q 1 --block-k 1 this
// dwarfs everything else: 168 bytes per visible score.
double tile_record_bytes(const Settings& c, const RunShape& shape, double H) {
    const std::size_t bq = std::min(c.block_q, shape.T);
    const double tiles = H * double(own_mask(c, shape).visited_tiles(shape.T, shape.S, c.block_q, c.block_k));
    const double rows = std::max(32.0, std::ceil((4.0 * double(bq) + 16.0) / 16.0) * 16.0);
    // + one head's records twice while its query blocks' lists are gathered into the trace
    return tiles * (double(sizeof(Tile)) + 2.0 * rows) + tiles / std::max(H, 1.0) * double(sizeof(Tile));
}

// What --pos adds to a trace, in numbers: the sinusoidal tables, RoPE's unrotated q and k, ALiBi's bias.
double positions_numbers(const Settings& c, double T, double S, double H, double d_k) {
    if (c.pos == "sinusoidal") return (T + S) * double(c.d_in);
    if (c.pos == "rope") return H * (T + S) * d_k;
    if (c.pos == "alibi") return H * T * S;
    return 0.0;
}

// Cells of a (T, S) matrix the kind's own mask leaves visible (a user's --mask may hide more).
double visible_cells(const Settings& c, const RunShape& shape) {
    const MaskSpec m = own_mask(c, shape);
    double n = 0.0;
    for (std::size_t i = 0, lo = 0, hi = 0; i < shape.T; ++i) {
        m.range(i, shape.S, lo, hi);
        n += double(hi - lo);
    }
    return n;
}

// Numbers in the trace: `numbers` written in full, `zeros` the weights of hidden or dropped cells
// (written "0.0"), `bools` the mask.
struct JsonCount {
    double numbers = 0, zeros = 0, bools = 0;
};

JsonCount json_numbers(const Settings& c, const RunShape& shape) {
    const HeadGeometry d = geometry(c, shape);
    const double T = double(shape.T), S = double(shape.S), H = double(d.heads);
    JsonCount n;
    n.numbers = (T + S) * double(c.d_in) + param_numbers(c, shape);
    n.numbers += H * (T * double(d.d_k) + S * double(d.d_k) + S * double(d.d_v) + T * double(d.d_v));
    n.numbers += T * H * double(d.d_v) + H * T * S;  // the output, the scores
    // weights, and dropout's: hidden cells are 0, and dropout zeroes a share p of the visible ones
    const double visible = visible_cells(c, shape), p = double(c.dropout);
    n.numbers += H * visible, n.zeros += H * (T * S - visible);
    if (c.dropout > 0.0f) n.numbers += H * visible * (1.0 - p), n.zeros += H * (T * S - visible * (1.0 - p));
    if (c.renorm) n.numbers += H * visible, n.zeros += H * (T * S - visible);  // the zeroed stage
    n.numbers += positions_numbers(c, T, S, H, double(d.d_k));
    if (kind_named(c.kind).defaults.tiled) {  // per tile: its place (8 numbers), each row's max and sum
        const double bq = double(std::min(c.block_q, shape.T));
        n.numbers += H * double(own_mask(c, shape).visited_tiles(shape.T, shape.S, c.block_q, c.block_k)) * (8.0 + 2.0 * bq);
    }
    n.bools = H * T * S;
    return n;
}

}  // namespace

RunEstimate estimate_run(const Settings& c, const RunShape& shape) {
    const HeadGeometry d = geometry(c, shape);
    const double f = sizeof(float), T = double(shape.T), S = double(shape.S), H = double(d.heads);
    RunEstimate e;
    double bytes = 16.0 * 1024 * 1024;                                  // the program itself
    bytes += (T + S) * double(c.d_in) * f;                              // inputs
    bytes += param_numbers(c, shape) * f;                               // params
    bytes += (T * H * double(d.d_k) + 2.0 * S * double(d.kv_heads) * double(d.d_v)) * f;  // projections
    if (c.keep_weights) {
        bytes += H * (T * double(d.d_k) + S * double(d.d_k) + S * double(d.d_v)) * f;  // per-head q, k, v
        const double scores = c.keep_scores || c.renorm ? f : 0.0;  // else each head's softmax runs in its scores' buffer
        bytes += H * T * S * (scores + f + (c.dropout > 0.0f ? f : 0.0) + (c.renorm ? f : 0.0));  // scores, weights, dropped, zeroed
        bytes += T * S;  // the mask, one that every head shares
        if (kind_named(c.kind).defaults.tiled) e.records = tile_record_bytes(c, shape, H), bytes += e.records;
        bytes += positions_numbers(c, T, S, H, double(d.d_k)) * f;  // --pos: PE, unrotated q and k, ALiBi bias
    } else if (c.kind == "additive" || (c.kind == "luong" && c.score == "concat")) {
        bytes += T * S * f;  // v · tanh(...) scores are computed whole, then softmaxed in their buffer
    } else {
        bytes += 2.0 * 512.0 * S * f;  // one row block of scores on each core
    }
    bytes += 3.0 * T * H * double(d.d_v) * f;  // contexts, their concatenation, the output
    e.tiles = tile_bytes(c, shape, d);
    e.total = bytes + e.tiles;
    return e;
}

std::size_t estimate_run_bytes(const Settings& s, const RunShape& shape) {
    return bytes_of(estimate_run(s, shape).total);
}

double json_text_bytes(double numbers, double zeros, double bools, double token_bytes) {
    return numbers * 12.0 + zeros * 4.0 + bools * 5.5 + 2.0 * token_bytes + 4096.0;
}

double json_bytes(const Settings& c, const RunShape& shape) {
    const JsonCount n = json_numbers(c, shape);
    return json_text_bytes(n.numbers, n.zeros, n.bools, double(shape.token_bytes));
}

std::size_t estimate_json_bytes(const Settings& c, const RunShape& shape) { return bytes_of(json_bytes(c, shape)); }

std::size_t estimate_json_memory(const Settings& c, const RunShape& shape) {
    return estimate_json_bytes(c, shape);  // the text; no document tree is built
}

// attn decode (core/kinds/decode.h): the full causal pass, then each step's H rows over its t + 1 cached keys
// and its output row. The JSON ("attn-decode", render/decode_view.cpp) holds the steps only, built as a
// document tree (16 bytes a number, 32 with the allocator and the copies its initializer lists make, as
// measured with local's zeros; about 200 bytes an object with its keys) and then dumped. Measured
// at 2,048 tokens (gqa, 4 heads): 107 MiB of text, estimated 111 MiB; peak 575 MiB, estimated 744 MiB.
namespace {
struct DecodeCount {
    double numbers = 0, zeros = 0, objects = 0;  // weights and outputs; keys a window hides ("0.0"); objects
};
DecodeCount decode_count(const Settings& c, const RunShape& shape) {
    const HeadGeometry d = geometry(c, shape);
    const double T = double(shape.T), H = double(d.heads), cached = T * (T + 1.0) / 2.0;
    double visible = cached;  // step t sees keys t − W .. t of its t + 1
    if (c.window) {
        const double w = double(*c.window) + 1.0;
        visible = T <= w ? cached : w * (w + 1.0) / 2.0 + (T - w) * w;
    }
    return {H * visible + T * H * double(d.d_v), H * (cached - visible), T * (H + 1.0)};
}
}  // namespace

RunEstimate estimate_decode_run(const Settings& c, const RunShape& shape) {
    Settings full = c;
    full.causal = true, full.keep_weights = true, full.dropout = 0.0f;
    RunEstimate e = estimate_run(full, shape);
    const DecodeCount n = decode_count(c, shape);
    e.total += (n.numbers + n.zeros) * double(sizeof(float)) + n.objects * 64.0;  // the steps' rows, in vectors
    return e;
}

std::size_t estimate_decode_json_bytes(const Settings& c, const RunShape& shape) {
    const DecodeCount n = decode_count(c, shape);
    // a number about 11.5 bytes with its comma; a head's object 36 bytes around its row, a step's 90
    return bytes_of(12.0 * n.numbers + 4.0 * n.zeros + 40.0 * n.objects + 60.0 * double(shape.T) +
                    2.0 * double(shape.token_bytes) + 4096.0);
}

std::size_t estimate_decode_json_memory(const Settings& c, const RunShape& shape) {
    const DecodeCount n = decode_count(c, shape);
    // the text three times at the most: dump()'s string as it doubles, then its copy with the newline
    return bytes_of(3.0 * double(estimate_decode_json_bytes(c, shape)) + 32.0 * (n.numbers + n.zeros) + 200.0 * n.objects);
}

namespace {
double drawn_cells(std::size_t heads, std::size_t t, std::size_t s) {
    return std::min(double(std::max<std::size_t>(heads, 1)) * double(t) * double(s), 2048.0 * 2048.0);
}

// The layout size of a figure of `heads` (T, S) panels, in layout pixels, as render/layout/figure_panel.cpp
// lays it out: cells about `target` pixels a side (at most 64, 48 in a grid; 96 pixels at least), the
// matrix max-pooled to 2,048 over the grid, labels cut to 150 pixels (3/4 of that in a grid, 125 with
// the gap: 130), a grid of about √H columns (the wider of the two shapes render/layout/figure.cpp tries), the colour
// bar, title and margins. Measured: 12 heads of 16 tokens with 1,000-letter labels, 2,061 × 1,589;
// with 3-letter labels 20% smaller.
// The title (about 900 pixels at most), labels, captions and margins grow with the font's text_scale.
double figure_area(std::size_t heads, std::size_t t, std::size_t s, double f) {
    const double H = double(std::max<std::size_t>(heads, 1));
    const auto area = [&](double cols) {
        const bool grid = H > 1;
        const double rows = std::ceil(H / cols);
        const double cap = grid ? std::max(32.0, std::floor(2048.0 / cols)) : 2048.0;
        const double target = grid ? std::clamp(std::floor(1280.0 / cols), 120.0, 320.0) : 640.0;
        const double max_cell = grid ? 48.0 : 64.0, labels = (grid ? 130.0 : 170.0) * f;
        const auto side_of = [&](double n) {
            n = std::min(n, cap);
            return std::max(96.0, n * std::clamp(std::floor(target / n), 1.0, max_cell));
        };
        const double pw = side_of(double(s)) + labels;
        const double ph = side_of(double(t)) + labels + (grid ? 25.0 * f : 0.0);
        const double w = std::max(cols * (pw + 30.0) + 110.0 * f, 900.0 * f) + 40.0, h = rows * (ph + 18.0) + 150.0 * f;
        return w * h;
    };
    const double lo = std::ceil(std::sqrt(H)), hi = std::min(H, std::ceil(std::sqrt(H * 16.0 / 9.0)) + 1.0);
    return std::max(area(lo), area(hi));
}
}  // namespace

std::size_t estimate_png_bytes(std::size_t heads, std::size_t t, std::size_t s, int scale, double text_scale) {
    // No canvas is held: a figure's calls are kept (render/backends/display_list.h), then drawn a strip of
    // about a megabyte per core at a time (within the 12 MiB) and deflated as drawn. What is held: the
    // kept text's masks (a byte per pixel they cover, the figure's area at most), each heatmap's values
    // and mask copied (5 bytes a cell), and the deflated data twice (the parts, then the file): a noise-like
    // heatmap of 1-pixel cells deflates to most of its 3 bytes a cell, which the 12 bytes per drawn cell
    // cover with the copies. Measured (tests/model_peak_check.py, GPT-2 shape, 1 head, 1,500 words,
    // --png): estimate 171 MiB, peak 134 MiB (the whole 6-token run with its three figures peaks at 15
    // MiB); `show --kind causal` on 2,048 words --png: 41 MiB above the run without figures, estimated
    // at 82 MiB.
    const double pixels = double(scale) * double(scale) * figure_area(heads, t, s, std::max(1.0, text_scale));
    return bytes_of(12.0 * (1 << 20) + pixels + 12.0 * drawn_cells(heads, t, s));
}

std::size_t estimate_svg_bytes(std::size_t heads, std::size_t t, std::size_t s) {
    return bytes_of(16.0 * (1 << 20) + 12.0 * drawn_cells(heads, t, s));
}

std::size_t estimate_html_bytes(std::size_t heads, std::size_t t, std::size_t s) {
    return bytes_of(16.0 * (1 << 20) + 20.0 * double(std::max<std::size_t>(heads, 1)) * double(t) * double(s));
}

}  // namespace attn
