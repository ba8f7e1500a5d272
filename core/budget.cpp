#include "core/budget.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/ops.h"
#include "core/trace.h"

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

// Flash's per-core buffers: a (bq, bk) tile of scores, a (bq, d_v) product, the running m and l.
// The kernel clamps the blocks to (T, S), and so does the estimate.
double tile_bytes(const Settings& s, const RunShape& shape, const HeadGeometry& d) {
    if (!kind_named(s.kind).defaults.tiled) return 0.0;
    const double bq = double(std::min(s.block_q, shape.T)), bk = double(std::min(s.block_k, shape.S));
    const double cores = 2.0;
    return cores * (bq * bk + bq * double(d.d_v) + 2.0 * bq) * double(sizeof(float));
}

// The kind's own mask for a run of this shape (as core/attention.cpp's make_mask builds it).
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
    n.numbers = (T + S) * double(c.d_in) + 4.0 * double(std::max(c.d_in, shape.d_src) + 1) * double(c.d_out) * H;
    n.numbers += H * (T * double(d.d_k) + S * double(d.d_k) + S * double(d.d_v) + T * double(d.d_v));
    n.numbers += T * H * double(d.d_v) + H * T * S;  // the output, the scores
    // weights, and dropout's: hidden cells are 0, and dropout zeroes a share p of the visible ones
    const double visible = visible_cells(c, shape), p = double(c.dropout);
    n.numbers += H * visible, n.zeros += H * (T * S - visible);
    if (c.dropout > 0.0f) n.numbers += H * visible * (1.0 - p), n.zeros += H * (T * S - visible * (1.0 - p));
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
    bytes += 4.0 * double(std::max(c.d_in, shape.d_src) + 1) * double(c.d_out) * double(std::max<std::size_t>(d.heads, 1)) * f;  // params
    bytes += (T * H * double(d.d_k) + 2.0 * S * double(d.kv_heads) * double(d.d_v)) * f;  // projections
    if (c.keep_weights) {
        bytes += H * (T * double(d.d_k) + S * double(d.d_k) + S * double(d.d_v)) * f;  // per-head q, k, v
        bytes += H * T * S * (2.0 * f + 1.0 + (c.dropout > 0.0f ? f : 0.0));           // scores, weights, mask
        if (kind_named(c.kind).defaults.tiled) e.records = tile_record_bytes(c, shape, H), bytes += e.records;
        bytes += positions_numbers(c, T, S, H, double(d.d_k)) * f;  // --pos: PE, unrotated q and k, ALiBi bias
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

namespace {
double drawn_cells(std::size_t heads, std::size_t t, std::size_t s) {
    return std::min(double(std::max<std::size_t>(heads, 1)) * double(t) * double(s), 2048.0 * 2048.0);
}
}  // namespace

std::size_t estimate_png_bytes(std::size_t heads, std::size_t t, std::size_t s, int scale) {
    const double side = double(scale) * (std::min<double>(double(std::max(t, s)), 2048.0) + 400.0);
    return bytes_of(20.0 * (1 << 20) + 1.5 * 3.0 * side * side + 16.0 * drawn_cells(heads, t, s));
}

std::size_t estimate_svg_bytes(std::size_t heads, std::size_t t, std::size_t s) {
    return bytes_of(16.0 * (1 << 20) + 12.0 * drawn_cells(heads, t, s));
}

std::size_t estimate_html_bytes(std::size_t heads, std::size_t t, std::size_t s) {
    return bytes_of(16.0 * (1 << 20) + 20.0 * double(std::max<std::size_t>(heads, 1)) * double(t) * double(s));
}

}  // namespace attn
