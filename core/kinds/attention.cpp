// One function per attention kind, in numbered steps, with the shapes in comments:
// T query positions, S key positions, H query heads, G key/value heads, d_k = per-head width.
#include "core/kinds/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/head.h"
#include "core/base/ops.h"
#include "core/base/positions.h"
#include "core/base/profile.h"
#include "core/kinds/head_attention.h"
#include "core/kinds/parallel_heads.h"
#include "data/base/error.h"

namespace attn {
namespace {

const Mat& P(const Trace& t, const char* name) {
    const Param* p = t.param(name);
    if (p == nullptr) throw std::logic_error(std::string("parameter missing: ") + name);
    return p->value;
}
const Mat* bias_or_null(const Trace& t, const char* name) {
    const Param* p = t.param(name);
    return p ? &p->value : nullptr;
}

// x (N, in) · W_<name> + b_<name> -> (N, out), timed as the projections stage.
Mat project(const Trace& t, const RunHooks& hk, const Mat& x, const std::string& name) {
    Mat y;
    {
        StageTimer timer(hk.profile, ProfileStage::projections);
        y = linear(x, P(t, ("W_" + name).c_str()), bias_or_null(t, ("b_" + name).c_str()));
    }
    const std::string stage = name == "query" ? "queries" : name == "key" ? "keys" : "values";
    check_finite(y, stage + " (x W_" + name + ")");  // before tanh (additive) can hide an overflow
    return y;
}

float inv_sqrt(std::size_t d) { return 1.0f / std::sqrt(static_cast<float>(d)); }

// The kind's own mask with the user's on top; bottom-right aligned (query i at key position
// i + S − T) with c.bottom_right.
MaskSpec make_mask(const Inputs& in, const Settings& c, bool causal, std::optional<std::size_t> window = std::nullopt) {
    MaskSpec m;
    m.causal = causal, m.window = window;
    if (c.bottom_right)
        m.shift = static_cast<std::int64_t>(in.source_x.shape(0)) - static_cast<std::int64_t>(in.x.shape(0));
    m.user = in.user_mask ? &*in.user_mask : nullptr;
    return m;
}

// H query heads over G key/value heads; query head h reads kv head h / (H / G).
// q (T, H·d_k), k (S, G·d_k), v (S, G·d_v) -> concatenated contexts (T, H·d_v).
Mat multi_head(const Settings& c, const RunHooks& hk, TorchGenerator& gen, Trace& t, const Mat& q, const Mat& k, const Mat& v,
               std::size_t heads, std::size_t kv_heads, const MaskSpec& mask) {
    const std::size_t d_k = q.shape(1) / heads, d_v = v.shape(1) / kv_heads;
    MaskSpec shared = mask;  // every head's trace holds the same (T, S) mask: build it once
    const SharedMask once = c.keep_weights ? mask.materialize(q.shape(0), k.shape(0)) : SharedMask();
    if (c.keep_weights) shared.cached = &once;
    std::vector<HeadTrace>& traced = t.heads();
    auto head = [&](std::size_t h, const RunHooks& hooks, Trace& into) {
        const std::size_t g = kv_head_of(h, heads, kv_heads);
        HeadTrace out = attend_with_positions(columns(q, h * d_k, d_k), columns(k, g * d_k, d_k), columns(v, g * d_v, d_v),
                                              inv_sqrt(d_k), shared, c, hooks, gen, into, h, heads);  // (T, d_k), (S, d_k), (S, d_v)
        out.head = h, out.kv_head = g;
        return out;
    };
    if (c.dropout > 0.0f) {  // dropout draws from one generator in head order: one head after another
        for (std::size_t h = 0; h < heads; ++h) {
            traced.push_back(head(h, hk, t));
            if (hk.progress) hk.progress("heads", h + 1, heads);
        }
    } else {
        parallel_heads(heads, q.shape(0) * k.shape(0) * d_k, hk, t, head);
    }
    std::vector<const Mat*> contexts;
    for (const auto& h : traced) contexts.push_back(&h.context);
    Mat out = concat_columns(contexts);  // (T, H·d_v)
    if (!c.keep_weights)
        for (auto& h : traced) h.context = Mat();  // held once, in the output
    return out;
}

// e_ij = v · tanh(q_i + k_j): q (T, D), k (S, D), v (D, 1) -> (T, S)
Mat additive_scores(const Mat& q, const Mat& k, const Mat& v) {
    const std::size_t T = q.shape(0), S = k.shape(0), D = q.shape(1);
    Mat e = Mat::from_shape({T, S});
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < S; ++j) {
            float sum = 0.0f;
            for (std::size_t d = 0; d < D; ++d) sum += v(d, 0) * std::tanh(q(i, d) + k(j, d));
            e(i, j) = sum;
        }
    return e;
}

}  // namespace

// ---- layers: the nn.Linear modules in PyTorch construction order -------------------------------

std::vector<LayerSpec> layers_none(const Settings&, std::size_t) { return {}; }

std::vector<LayerSpec> layers_qkv(const Settings& c, std::size_t d_src) {
    const char* b = c.qkv_bias ? "b" : "";
    auto bn = [&](const char* n) { return *b ? std::string("b_") + n : std::string(); };
    return {{"W_query", bn("query"), c.d_in, c.d_out}, {"W_key", bn("key"), d_src, c.d_out},
            {"W_value", bn("value"), d_src, c.d_out}};
}

std::vector<LayerSpec> layers_wrapper(const Settings& c, std::size_t d_src) {
    std::vector<LayerSpec> layers;
    const std::size_t cols = c.heads * c.d_out;
    for (std::size_t h = 0; h < c.heads; ++h)
        for (LayerSpec l : layers_qkv(c, d_src)) {
            l.col = h * c.d_out, l.cols = cols;
            layers.push_back(l);
        }
    return layers;
}

std::vector<LayerSpec> layers_mha(const Settings& c, std::size_t d_src) {
    auto layers = layers_qkv(c, d_src);
    const std::size_t d_kv = c.kv_heads * (c.d_out / c.heads);  // G · d_k
    layers[1].out = layers[2].out = d_kv;
    layers.push_back({"W_out", "b_out", c.d_out, c.d_out});
    return layers;
}

std::vector<LayerSpec> layers_additive(const Settings& c, std::size_t d_src) {
    return {{"W_query", "", c.d_in, c.d_out}, {"W_key", "", d_src, c.d_out}, {"v", "", c.d_out, 1}};
}

std::vector<LayerSpec> layers_luong(const Settings& c, std::size_t d_src) {
    if (c.score == "general") return {{"W_key", "", d_src, c.d_in}};
    if (c.score == "concat") return layers_additive(c, d_src);
    return {};
}

// ---- kinds -------------------------------------------------------------------------------------

// simple: no weights. q = k = v = x (T, d_in); weights = softmax(x xᵀ); context = weights · x.
void run_simple(const Inputs& in, const Settings& c, const RunHooks& hk, TorchGenerator& gen, Trace& t) {
    t.heads().push_back(attend(in.x, in.x, in.x, 1.0f, make_mask(in, c, c.causal), c, hk, gen, t));
    t.output = t.heads()[0].context;  // (T, d_in)
}

namespace {

// One projected head: q = x W_q (T, d_out); k = src W_k, v = src W_v (S, d_out), src being the
// sentence itself or the source; weights = softmax(q kᵀ / sqrt(d_out)) under `mask`.
void projected_head(const Inputs& in, const Settings& c, const RunHooks& hk, TorchGenerator& gen, Trace& t, const Mat& src,
                    const MaskSpec& mask) {
    // 1. projections                                  q (T, d_out), k and v (S, d_out)
    Mat q = project(t, hk, in.x, "query");
    Mat k = project(t, hk, src, "key");
    Mat v = project(t, hk, src, "value");
    // 2. attention across key positions                                 (T, S)
    t.heads().push_back(attend_with_positions(q, k, v, inv_sqrt(c.d_out), mask, c, hk, gen, t, 0, 1));
    t.output = t.heads()[0].context;  // (T, d_out)
}

}  // namespace

// self: q, k, v all from the sentence; masked when --causal.
void run_self(const Inputs& in, const Settings& c, const RunHooks& hk, TorchGenerator& gen, Trace& t) {
    projected_head(in, c, hk, gen, t, in.x, make_mask(in, c, c.causal));
}

// causal: self with future keys hidden (-inf before the softmax). With --renorm, the chapter's first
// method instead: softmax over every key, zero the future, divide by the row sums; the largest
// difference from -inf masking is recorded.
void run_causal(const Inputs& in, const Settings& c, const RunHooks& hk, TorchGenerator& gen, Trace& t) {
    if (!c.renorm) return run_self(in, c, hk, gen, t);
    Settings plain = c;
    plain.dropout = 0.0f;         // dropout, if any, is drawn once, on the renormalised weights
    plain.keep_weights = true;    // the method needs the whole (T, S) matrices, raw scores included
    plain.keep_scores = true;
    run_self(in, plain, hk, gen, t);
    HeadTrace& h = t.heads()[0];
    const std::size_t T = h.scores.shape(0), S = h.scores.shape(1);
    // 1. softmax over every key, ignoring the mask                     (T, S)
    Mat w = Mat::from_shape({T, S});
    std::vector<std::size_t> none;
    const PositionFrame f = position_frame(c, T, S);
    const LinearBias alibi{static_cast<float>(alibi_slopes(1)[0]), f.q0, f.k0};
    softmax_rows(h.scores.data(), w.data(), 0, T, S, h.scale, MaskSpec{}, none, h.bias.size() ? &alibi : nullptr);
    // 2. zero what the mask hides (the trace keeps this stage), 3. divide each row by its sum
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < S; ++j) w(i, j) = h.mask(i, j) ? w(i, j) : 0.0f;
    h.zeroed = w;
    for (std::size_t i = 0; i < T; ++i) {
        float sum = 0.0f;
        for (std::size_t j = 0; j < S; ++j) sum += w(i, j);
        for (std::size_t j = 0; j < S; ++j) w(i, j) = sum > 0.0f ? w(i, j) / sum : 0.0f;
    }
    t.diagnostics.push_back({"renorm_max_abs_diff", max_abs_diff(w, h.weights)});
    h.weights = std::move(w);
    if (c.dropout > 0.0f) h.dropped_weights = dropout(h.weights, c.dropout, gen);
    h.context = matmul(c.dropout > 0.0f ? h.dropped_weights : h.weights, h.values);
    t.output = h.context;
    if (!c.keep_weights) {
        HeadTrace cleared;
        cleared.scale = h.scale;
        h = std::move(cleared);
    }
}

// mha-wrapper: H independent heads of width d_out, contexts side by side, no output projection.
void run_mha_wrapper(const Inputs& in, const Settings& c, const RunHooks& hk, TorchGenerator& gen, Trace& t) {
    // 1. projections for every head at once                            (T, H·d_out)
    const Mat q = project(t, hk, in.x, "query");
    const Mat k = project(t, hk, in.x, "key");
    const Mat v = project(t, hk, in.x, "value");
    // 2. each head attends on its column block; contexts concatenated  (T, H·d_out)
    t.output = multi_head(c, hk, gen, t, q, k, v, c.heads, c.heads, make_mask(in, c, c.causal));
}

// mha: one projection of width d_out split into H heads of d_k = d_out/H, then W_out.
// It is gqa with G = H: the same code, the same draws.
void run_mha(const Inputs& in, const Settings& c, const RunHooks& hk, TorchGenerator& gen, Trace& t) { run_gqa(in, c, hk, gen, t); }

// gqa / mqa: H query heads share G key/value heads (G = H: mha, G = 1: mqa).
void run_gqa(const Inputs& in, const Settings& c, const RunHooks& hk, TorchGenerator& gen, Trace& t) {
    // 1. projections                                  q (T, H·d_k), k and v (T, G·d_k)
    const Mat q = project(t, hk, in.x, "query");
    const Mat k = project(t, hk, in.x, "key");
    const Mat v = project(t, hk, in.x, "value");
    // 2. heads, contexts side by side                                   (T, d_out)
    const Mat context = multi_head(c, hk, gen, t, q, k, v, c.heads, c.kv_heads, make_mask(in, c, c.causal));
    // 3. output projection                                              (T, d_out)
    StageTimer timer(hk.profile, ProfileStage::output);
    t.output = linear(context, P(t, "W_out"), bias_or_null(t, "b_out"));
}

// cross: queries from the sentence (T), keys and values from the source (S).
void run_cross(const Inputs& in, const Settings& c, const RunHooks& hk, TorchGenerator& gen, Trace& t) {
    projected_head(in, c, hk, gen, t, in.source_x, make_mask(in, c, c.causal));
}

// additive (Bahdanau): e_ij = v · tanh(s_i W_q + h_j W_k); softmax over source positions j;
// the values are the source vectors h themselves.
void run_additive(const Inputs& in, const Settings& c, const RunHooks& hk, TorchGenerator& gen, Trace& t) {
    // 1. projections                                  q (T, d_out), k (S, d_out)
    Mat q = project(t, hk, in.x, "query");
    Mat k = project(t, hk, in.source_x, "key");
    // 2. scores                                                         (T, S)
    Mat e = additive_scores(q, k, P(t, "v"));
    // 3. softmax across j, context = Σ_j α_ij h_j                       (T, d_src)
    t.heads().push_back(attend_scores(std::move(q), std::move(k), in.source_x, std::move(e), 1.0f, make_mask(in, c, false), c,
                                      hk, gen, t));  // e moved: a (T, S) copy was the run's peak
    t.output = t.heads()[0].context;
}

// luong: dot e_ij = s_i · h_j; general e_ij = s_i · (h_j W_k); concat as additive. Scale 1;
// the values are the source vectors.
void run_luong(const Inputs& in, const Settings& c, const RunHooks& hk, TorchGenerator& gen, Trace& t) {
    if (c.score == "concat") return run_additive(in, c, hk, gen, t);
    // 1. keys: the source itself (dot) or projected into the sentence's space (general)   (S, d_in)
    Mat k = c.score == "general" ? project(t, hk, in.source_x, "key") : in.source_x;
    // 2. scores s_i · k_j, softmax across j, context over source vectors        (T, S), (T, d_src)
    t.heads().push_back(attend(in.x, k, in.source_x, 1.0f, make_mask(in, c, false), c, hk, gen, t));
    t.output = t.heads()[0].context;
}

// local: self-attention where query i sees key j when |i - j| <= W (i - W <= j <= i when causal).
void run_local(const Inputs& in, const Settings& c, const RunHooks& hk, TorchGenerator& gen, Trace& t) {
    projected_head(in, c, hk, gen, t, in.x, make_mask(in, c, c.causal, c.window));
}

namespace {

// One head of the tiled online softmax: q (T, d_k), k (S, d_k), v (S, d_v) -> (T, d_v).
// Query blocks are independent, so they are split across both cores; each block's tiles are
// recorded in order when a trace is kept.
Mat flash_head(const Mat& q, const Mat& k, const Mat& v, float scale, const MaskSpec& mask, const Settings& c,
               std::size_t head, std::vector<Tile>* tiles, std::vector<std::size_t>& empty_rows,
               const LinearBias* bias) {
    const std::size_t T = q.shape(0), S = k.shape(0), d_k = q.shape(1), D = v.shape(1);
    // a tile is at most (T, S): larger blocks give the same tiles, so no larger buffer is needed
    const std::size_t bq = std::min(c.block_q, T), bk = std::min(c.block_k, S), n_qb = (T + bq - 1) / bq;
    const float neg_inf = -std::numeric_limits<float>::infinity();
    Mat out = Mat::from_shape({T, D});
    std::vector<std::vector<Tile>> block_tiles(tiles ? n_qb : 0);
    std::vector<std::vector<std::size_t>> block_empty(n_qb);
    parallel_for(n_qb, bq * S * d_k, [&](std::size_t qb0, std::size_t qb1) {
        std::vector<float> s_blk(bq * bk), pv(bq * D), m_row(bq), l_row(bq);
        for (std::size_t qb = qb0; qb < qb1; ++qb) {
            const std::size_t q0 = qb * bq, q1 = std::min(T, q0 + bq), nq = q1 - q0;
            if (tiles) block_tiles[qb].reserve((S + bk - 1) / bk);  // at most one record per key block
            std::fill(m_row.begin(), m_row.end(), neg_inf);
            std::fill(l_row.begin(), l_row.end(), 0.0f);
            float* o = out.data() + q0 * D;
            std::fill(o, o + nq * D, 0.0f);
            for (std::size_t k0 = 0; k0 < S; k0 += bk) {
                const std::size_t k1 = std::min(S, k0 + bk), nk = k1 - k0;
                // 1. skip a tile the mask hides completely
                bool any = false;
                for (std::size_t i = q0; i < q1 && !any; ++i) {
                    std::size_t lo, hi;
                    mask.range(i, S, lo, hi);
                    for (std::size_t j = std::max(lo, k0); j < std::min(hi, k1) && !any; ++j)
                        any = mask.user == nullptr || (*mask.user)(i, j);
                }
                if (!any) continue;
                // 2. S_tile = q_blk k_blkᵀ                                  (nq, nk)
                gemm(q.data() + q0 * d_k, d_k, k.data() + k0 * d_k, d_k, s_blk.data(), nk, nq, nk, d_k, true);
                // 3. per row: m' = max(m, rowmax), P = e^(S - m'), l = e^(m - m') l + rowsum P
                for (std::size_t r = 0; r < nq; ++r) {
                    float* p = s_blk.data() + r * nk;
                    std::size_t lo, hi;
                    mask.range(q0 + r, S, lo, hi);
                    const std::uint8_t* user = mask.user ? mask.user->data() + (q0 + r) * S : nullptr;
                    for (std::size_t j = 0; j < nk; ++j) {
                        const std::size_t key = k0 + j;
                        const bool vis = key >= lo && key < hi && (user == nullptr || user[key]);
                        float x = scale * p[j];
                        if (bias != nullptr) x += bias->at(q0 + r, key);  // ALiBi, as the softmax adds it
                        p[j] = vis ? x : neg_inf;
                    }
                    const float m_new = std::max(m_row[r], row_max(p, nk));
                    if (m_new == neg_inf) {  // nothing visible to this row yet
                        std::fill(p, p + nk, 0.0f);
                        continue;
                    }
                    const float alpha = std::exp(m_row[r] - m_new);  // 0 while m was -inf
                    const float sum = exp_shift_sum(p, nk, m_new);
                    l_row[r] = alpha * l_row[r] + sum;
                    m_row[r] = m_new;
                    for (std::size_t d = 0; d < D; ++d) o[r * D + d] *= alpha;  // O = e^(m - m') O
                }
                // 4. O += P · V_blk                                          (nq, D)
                gemm(s_blk.data(), nk, v.data() + k0 * D, D, pv.data(), D, nq, D, nk, false);
                for (std::size_t x = 0; x < nq * D; ++x) o[x] += pv[x];
                if (tiles)
                    block_tiles[qb].push_back({head, qb, k0 / bk, q0, q1, k0, k1,
                                               {m_row.begin(), m_row.begin() + long(nq)},
                                               {l_row.begin(), l_row.begin() + long(nq)}});
            }
            // 5. O / l; a row that saw no key stays 0
            for (std::size_t r = 0; r < nq; ++r) {
                if (l_row[r] == 0.0f) block_empty[qb].push_back(q0 + r);
                else
                    for (std::size_t d = 0; d < D; ++d) o[r * D + d] /= l_row[r];
            }
        }
    });
    if (tiles) {  // the records moved in order, each block's freed as it goes (budget.cpp counts both)
        std::size_t n = tiles->size();
        for (const auto& bt : block_tiles) n += bt.size();
        tiles->reserve(n);
        for (auto& bt : block_tiles) {
            tiles->insert(tiles->end(), std::make_move_iterator(bt.begin()), std::make_move_iterator(bt.end()));
            std::vector<Tile>().swap(bt);
        }
    }
    for (auto& be : block_empty) empty_rows.insert(empty_rows.end(), be.begin(), be.end());
    return out;
}

}  // namespace

// flash: self/causal computed tile by tile with the online softmax (per head when H > 1: the
// projection split into H heads of d_out/H, contexts side by side). Per query block, over key
// blocks: m' = max(m, rowmax S), l = e^(m-m') l + rowsum e^(S-m'), O = e^(m-m') O + e^(S-m') V,
// and O / l at the end. Tiles that the mask hides completely are skipped. With a trace kept, the
// unblocked computation runs too, for the weights and the largest difference.
void run_flash(const Inputs& in, const Settings& c, const RunHooks& hk, TorchGenerator& gen, Trace& t) {
    // 1. projections                                                    (T, d_out)
    const Mat q = project(t, hk, in.x, "query");
    const Mat k = project(t, hk, in.x, "key");
    const Mat v = project(t, hk, in.x, "value");
    const std::size_t H = c.heads, d_k = c.d_out / H;
    MaskSpec mask = make_mask(in, c, c.causal);
    const SharedMask once = c.keep_weights ? mask.materialize(q.shape(0), k.shape(0)) : SharedMask();  // every head's
    if (c.keep_weights) {  // every head's records in one allocation (core/kinds/budget.cpp counts them so)
        mask.cached = &once;
        t.tiles.reserve(H * mask.visited_tiles(q.shape(0), k.shape(0), c.block_q, c.block_k));
    }
    std::vector<Mat> outs(H);
    float diff = 0.0f;
    for (std::size_t h = 0; h < H; ++h) {
        // 2. the tiled kernel on head h                                  (T, d_k)
        Mat qh = columns(q, h * d_k, d_k), kh = columns(k, h * d_k, d_k);
        const Mat vh = columns(v, h * d_k, d_k);
        HeadPositions pos = position_head(qh, kh, c, h, H, position_frame(c, qh.shape(0), kh.shape(0)));
        const LinearBias* bias = pos.has_bias ? &pos.bias : nullptr;  // tiles see the rotated q, k and the bias
        std::vector<std::size_t> empty;  // rows that saw no key (the unblocked run lists them with a trace)
        {
            StageTimer timer(hk.profile, ProfileStage::tiles);
            outs[h] = flash_head(qh, kh, vh, inv_sqrt(d_k), mask, c, h, c.keep_weights ? &t.tiles : nullptr, empty,
                                 bias);
        }
        // 3. with a trace: the unblocked matrices, and how far the tiles are from them
        if (c.keep_weights) {
            HeadTrace& traced = t.heads().emplace_back(attend(qh, kh, vh, inv_sqrt(d_k), mask, c, hk, gen, t, bias));
            traced.queries_unrotated = std::move(pos.queries_unrotated);
            traced.keys_unrotated = std::move(pos.keys_unrotated);
            diff = std::max(diff, max_abs_diff(outs[h], traced.context));
            traced.head = traced.kv_head = h;
            traced.context = outs[h];
        } else {
            t.empty_rows.insert(t.empty_rows.end(), empty.begin(), empty.end());
        }
        if (hk.progress) hk.progress("heads", h + 1, H);
    }
    if (c.keep_weights) t.diagnostics.push_back({"flash_max_abs_diff", diff});
    std::vector<const Mat*> parts;
    for (const auto& o : outs) parts.push_back(&o);
    t.output = concat_columns(parts);  // (T, d_out)
}

}  // namespace attn
