#include "core/budget.h"

#include <algorithm>

namespace attn {
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

// What --pos adds to a trace, in numbers: the sinusoidal tables, RoPE's unrotated q and k, ALiBi's bias.
double positions_numbers(const Settings& c, double T, double S, double H, double d_k) {
    if (c.pos == "sinusoidal") return (T + S) * double(c.d_in);
    if (c.pos == "rope") return H * (T + S) * d_k;
    if (c.pos == "alibi") return H * T * S;
    return 0.0;
}

double json_numbers(const Settings& c, const RunShape& shape, double& bools) {
    const HeadGeometry d = geometry(c, shape);
    const double T = double(shape.T), S = double(shape.S), H = double(d.heads);
    double n = (T + S) * double(c.d_in) + 4.0 * double(std::max(c.d_in, shape.d_src) + 1) * double(c.d_out) * H;
    n += H * (T * double(d.d_k) + S * double(d.d_k) + S * double(d.d_v) + T * double(d.d_v));
    n += H * T * S * (2.0 + (c.dropout > 0.0f ? 1.0 : 0.0)) + T * H * double(d.d_v);
    n += positions_numbers(c, T, S, H, double(d.d_k));
    bools = H * T * S;
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
        if (kind_named(c.kind).defaults.tiled)                                          // tile records
            bytes += H * T * (S / double(std::min(c.block_k, shape.S)) + 1.0) * 2.0 * f;
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
    return static_cast<std::size_t>(estimate_run(s, shape).total);
}

std::size_t estimate_json_bytes(const Settings& c, const RunShape& shape) {
    double bools = 0.0;
    const double n = json_numbers(c, shape, bools);
    return static_cast<std::size_t>(n * 11.0 + bools * 5.5 + 4096.0);
}

std::size_t estimate_json_memory(const Settings& c, const RunShape& shape) {
    double bools = 0.0;
    const double n = json_numbers(c, shape, bools);
    return static_cast<std::size_t>((n + bools) * 16.0) + estimate_json_bytes(c, shape);  // the tree, the text
}

std::size_t estimate_png_bytes(std::size_t heads, std::size_t t, std::size_t s) {
    const double side_t = std::min<double>(double(t), 8192.0), side_s = std::min<double>(double(s), 8192.0);
    return static_cast<std::size_t>(2.0 * double(std::max<std::size_t>(heads, 1)) * side_t * side_s * 3.0 + 8e6);
}

}  // namespace attn
