// An independent reference for every attention kind in the registry, written from the formulas
// (the papers and the chapter), not from core/: plain nested loops in double precision over
// std::vector rows. No xtensor, no BLAS, nothing from core/. The parameters come in from a run's
// trace (their bits are checked by the golden tests); everything else is recomputed here.
//
// Letters: T query positions, S key positions, H query heads, G key/value heads, D widths.
// Parameters are in x @ W orientation: weights (in, out), biases (1, out), "v" (d_out, 1).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn::ref {

using M = std::vector<std::vector<double>>;  // (rows, cols)
using Bits = std::vector<std::vector<int>>;  // (T, S) 1 = key j visible to query i
using Params = std::map<std::string, M>;     // by name, as the trace stores them

// ---- matrices ----------------------------------------------------------------------------------

inline std::size_t n_rows(const M& a) { return a.size(); }
inline std::size_t n_cols(const M& a) { return a.empty() ? 0 : a[0].size(); }

inline M zeros(std::size_t r, std::size_t c) { return M(r, std::vector<double>(c, 0.0)); }

inline void need(bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("reference: " + what);
}

// (N, K) · (K, P) -> (N, P)
inline M matmul(const M& a, const M& b) {
    need(n_cols(a) == n_rows(b), "matmul: inner sizes differ");
    M c = zeros(n_rows(a), n_cols(b));
    for (std::size_t i = 0; i < n_rows(a); ++i)
        for (std::size_t j = 0; j < n_cols(b); ++j) {
            double sum = 0.0;
            for (std::size_t k = 0; k < n_cols(a); ++k) sum += a[i][k] * b[k][j];
            c[i][j] = sum;
        }
    return c;
}

// (N, K) · (P, K)ᵀ -> (N, P): row i of a dotted with row j of b
inline M dot_rows(const M& a, const M& b) {
    need(n_cols(a) == n_cols(b), "dot_rows: widths differ");
    M c = zeros(n_rows(a), n_rows(b));
    for (std::size_t i = 0; i < n_rows(a); ++i)
        for (std::size_t j = 0; j < n_rows(b); ++j) {
            double sum = 0.0;
            for (std::size_t k = 0; k < n_cols(a); ++k) sum += a[i][k] * b[j][k];
            c[i][j] = sum;
        }
    return c;
}

// x W + b: (N, in) · (in, out) + (1, out); no bias when b is null
inline M linear(const M& x, const M& w, const M* b) {
    M y = matmul(x, w);
    if (b == nullptr) return y;
    need(n_rows(*b) == 1 && n_cols(*b) == n_cols(w), "linear: bias is not (1, out)");
    for (auto& row : y)
        for (std::size_t o = 0; o < row.size(); ++o) row[o] += (*b)[0][o];
    return y;
}

// m[:, first:first+count]
inline M columns(const M& m, std::size_t first, std::size_t count) {
    need(first + count <= n_cols(m), "columns: out of range");
    M out = zeros(n_rows(m), count);
    for (std::size_t i = 0; i < n_rows(m); ++i)
        for (std::size_t c = 0; c < count; ++c) out[i][c] = m[i][first + c];
    return out;
}

// side by side: (N, a) | (N, b) | ... -> (N, a + b + ...)
inline M side_by_side(const std::vector<M>& parts) {
    M out(parts.empty() ? 0 : n_rows(parts[0]));
    for (const M& p : parts) {
        need(n_rows(p) == out.size(), "side_by_side: row counts differ");
        for (std::size_t i = 0; i < out.size(); ++i) out[i].insert(out[i].end(), p[i].begin(), p[i].end());
    }
    return out;
}

// ---- masks -------------------------------------------------------------------------------------

inline Bits all_visible(std::size_t T, std::size_t S) { return Bits(T, std::vector<int>(S, 1)); }

// key j visible to query i when j <= i (top-left aligned when T != S, as ones(T, S).tril())
inline Bits causal_bits(std::size_t T, std::size_t S) {
    Bits b = all_visible(T, S);
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < S; ++j) b[i][j] = j <= i;
    return b;
}

// |i - j| <= w; causal: i - w <= j <= i. Signed arithmetic, written as the formula reads.
inline Bits window_bits(std::size_t T, std::size_t S, std::size_t w, bool causal) {
    Bits b = all_visible(T, S);
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < S; ++j) {
            const long long d = static_cast<long long>(i) - static_cast<long long>(j);
            const long long W = static_cast<long long>(w);
            b[i][j] = causal ? (d >= 0 && d <= W) : (d >= -W && d <= W);
        }
    return b;
}

// visible only where both allow; an empty `user` means no user mask
inline Bits both(Bits b, const Bits& user) {
    if (user.empty()) return b;
    need(user.size() == b.size() && (b.empty() || user[0].size() == b[0].size()), "user mask shape");
    for (std::size_t i = 0; i < b.size(); ++i)
        for (std::size_t j = 0; j < b[i].size(); ++j) b[i][j] = b[i][j] && user[i][j];
    return b;
}

// ---- softmax -----------------------------------------------------------------------------------

// Row i: softmax over visible j of scale * scores[i][j] (−inf where hidden), computed as
// exp(z − max z) / Σ exp(z − max z) in double; hidden cells 0; a row with nothing visible all 0.
inline M masked_softmax(const M& scores, double scale, const Bits& mask) {
    M w = zeros(n_rows(scores), n_cols(scores));
    for (std::size_t i = 0; i < n_rows(scores); ++i) {
        double top = -std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < n_cols(scores); ++j)
            if (mask[i][j]) top = std::max(top, scale * scores[i][j]);
        if (top == -std::numeric_limits<double>::infinity()) continue;  // every key hidden: weights 0
        double sum = 0.0;
        for (std::size_t j = 0; j < n_cols(scores); ++j)
            if (mask[i][j]) sum += std::exp(scale * scores[i][j] - top);
        for (std::size_t j = 0; j < n_cols(scores); ++j)
            w[i][j] = mask[i][j] ? std::exp(scale * scores[i][j] - top) / sum : 0.0;
    }
    return w;
}

// The chapter's first causal method: softmax over every key, zero the hidden cells, divide each row
// by its new sum (a row with nothing left stays 0).
inline M renormalised_softmax(const M& scores, double scale, const Bits& mask) {
    M w = masked_softmax(scores, scale, all_visible(n_rows(scores), n_cols(scores)));
    for (std::size_t i = 0; i < n_rows(w); ++i) {
        double sum = 0.0;
        for (std::size_t j = 0; j < n_cols(w); ++j) {
            if (!mask[i][j]) w[i][j] = 0.0;
            sum += w[i][j];
        }
        for (std::size_t j = 0; j < n_cols(w); ++j) w[i][j] = sum > 0.0 ? w[i][j] / sum : 0.0;
    }
    return w;
}

// ---- one run -----------------------------------------------------------------------------------

// What a run needs besides the inputs and the parameters.
struct Settings {
    std::size_t d_out = 0;     // projection width (all heads together for mha / gqa / mqa)
    std::size_t heads = 1;     // H (mha-wrapper, mha / gqa / mqa, flash)
    std::size_t kv_heads = 1;  // G (gqa only; mha uses H, mqa 1)
    bool causal = false;
    bool renorm = false;       // causal only
    std::size_t window = 0;    // local only
    std::string score = "dot";  // luong only
    double dropout = 0.0;      // p
    std::vector<Bits> kept;    // per head (T, S): 1 where dropout kept the cell (read from the trace)
    Bits user_mask;            // (T, S), empty for none
};

struct Head {
    std::size_t kv_head = 0;
    M queries, keys, values;  // (T, d_k), (S, d_k), (S, d_v)
    M scores;                 // (T, S) before scaling
    double scale = 1.0;
    Bits mask;                // (T, S)
    M weights;                // (T, S)
    M dropped;                // (T, S) when p > 0: kept cells weights / (1 − p), others 0
    M context;                // (T, d_v)
};

struct Result {
    std::vector<Head> heads;
    M output;
    std::vector<std::size_t> empty_rows;  // sorted, once each
};

inline const M& param(const Params& p, const std::string& name) {
    const auto it = p.find(name);
    need(it != p.end(), "parameter missing: " + name);
    return it->second;
}
inline const M* param_or_null(const Params& p, const std::string& name) {
    const auto it = p.find(name);
    return it == p.end() ? nullptr : &it->second;
}

// weights from the scores, dropout, context = Σ_j weights_ij values_j; records the empty rows.
inline Head attend(M q, M k, M v, M scores, double scale, Bits mask, const Settings& s, std::size_t head,
                   Result& r) {
    Head h;
    h.scale = scale;
    h.weights = s.renorm ? renormalised_softmax(scores, scale, mask) : masked_softmax(scores, scale, mask);
    for (std::size_t i = 0; i < mask.size(); ++i) {
        bool any = false;
        for (int b : mask[i]) any = any || b;
        if (!any && std::find(r.empty_rows.begin(), r.empty_rows.end(), i) == r.empty_rows.end())
            r.empty_rows.push_back(i);
    }
    const M* used = &h.weights;
    if (s.dropout > 0.0) {
        need(head < s.kept.size(), "dropout: no kept cells for this head");
        h.dropped = zeros(n_rows(h.weights), n_cols(h.weights));
        for (std::size_t i = 0; i < n_rows(h.weights); ++i)
            for (std::size_t j = 0; j < n_cols(h.weights); ++j)
                h.dropped[i][j] = s.kept[head][i][j] ? h.weights[i][j] / (1.0 - s.dropout) : 0.0;
        used = &h.dropped;
    }
    h.context = matmul(*used, v);
    h.queries = std::move(q), h.keys = std::move(k), h.values = std::move(v);
    h.scores = std::move(scores), h.mask = std::move(mask);
    return h;
}

inline double inv_sqrt(std::size_t d) { return 1.0 / std::sqrt(static_cast<double>(d)); }

// e_ij = Σ_d v_d · tanh(q_id + k_jd): q (T, D), k (S, D), v (D, 1) -> (T, S)
inline M additive_scores(const M& q, const M& k, const M& v) {
    need(n_cols(q) == n_cols(k) && n_rows(v) == n_cols(q) && n_cols(v) == 1, "additive: widths differ");
    M e = zeros(n_rows(q), n_rows(k));
    for (std::size_t i = 0; i < n_rows(q); ++i)
        for (std::size_t j = 0; j < n_rows(k); ++j)
            for (std::size_t d = 0; d < n_cols(q); ++d) e[i][j] += v[d][0] * std::tanh(q[i][d] + k[j][d]);
    return e;
}

// x (T, d_in), src (S, d_src): the source, or x itself for kinds without one.
inline Result run(const std::string& kind, const M& x, const M& src, const Params& p, const Settings& settings) {
    Settings s = settings;
    s.renorm = s.renorm && kind == "causal";  // only causal takes --renorm
    Result r;
    const std::size_t T = n_rows(x), S = n_rows(src);
    auto P = [&](const char* name) -> const M& { return param(p, name); };
    auto B = [&](const char* name) { return param_or_null(p, name); };
    if (kind == "simple") {
        // q = k = v = x, scores x_i · x_j, scale 1
        const Bits mask = both(s.causal ? causal_bits(T, T) : all_visible(T, T), s.user_mask);
        r.heads.push_back(attend(x, x, x, dot_rows(x, x), 1.0, mask, s, 0, r));
        r.output = r.heads[0].context;
    } else if (kind == "self" || kind == "causal" || kind == "local" || kind == "cross") {
        // q = x W_q + b_q; k, v from the source (cross) or from x; scale 1 / sqrt(d_out)
        const M& kv_in = kind == "cross" ? src : x;
        const std::size_t Skv = n_rows(kv_in);
        M q = linear(x, P("W_query"), B("b_query"));
        M k = linear(kv_in, P("W_key"), B("b_key"));
        M v = linear(kv_in, P("W_value"), B("b_value"));
        need(n_cols(q) == s.d_out, "W_query is not (d_in, d_out)");
        const Bits own = kind == "local" ? window_bits(T, Skv, s.window, s.causal)
                                         : (s.causal ? causal_bits(T, Skv) : all_visible(T, Skv));
        M scores = dot_rows(q, k);
        r.heads.push_back(attend(q, k, v, scores, inv_sqrt(s.d_out), both(own, s.user_mask), s, 0, r));
        r.output = r.heads[0].context;
    } else if (kind == "flash") {
        // the same numbers as self / causal; as a library call it also takes H heads of
        // d_k = d_out / H (columns h·d_k.. of each projection, scale 1 / sqrt(d_k)), side by side
        const std::size_t H = s.heads, d_k = s.d_out / H;
        need(s.d_out % H == 0, "flash: heads do not divide d_out");
        const M q = linear(x, P("W_query"), B("b_query"));
        const M k = linear(x, P("W_key"), B("b_key"));
        const M v = linear(x, P("W_value"), B("b_value"));
        need(n_cols(q) == s.d_out, "W_query is not (d_in, d_out)");
        const Bits mask = both(s.causal ? causal_bits(T, T) : all_visible(T, T), s.user_mask);
        std::vector<M> contexts;
        for (std::size_t h = 0; h < H; ++h) {
            M qh = columns(q, h * d_k, d_k), kh = columns(k, h * d_k, d_k);
            M scores = dot_rows(qh, kh);
            r.heads.push_back(attend(qh, kh, columns(v, h * d_k, d_k), scores, inv_sqrt(d_k), mask, s, h, r));
            r.heads.back().kv_head = h;
            contexts.push_back(r.heads.back().context);
        }
        r.output = side_by_side(contexts);
    } else if (kind == "mha-wrapper") {
        // head h: columns [h·d_out, (h+1)·d_out) of every projection; contexts side by side
        const M q = linear(x, P("W_query"), B("b_query"));
        const M k = linear(x, P("W_key"), B("b_key"));
        const M v = linear(x, P("W_value"), B("b_value"));
        need(n_cols(q) == s.heads * s.d_out, "W_query is not (d_in, H·d_out)");
        const Bits mask = both(s.causal ? causal_bits(T, T) : all_visible(T, T), s.user_mask);
        std::vector<M> contexts;
        for (std::size_t h = 0; h < s.heads; ++h) {
            M qh = columns(q, h * s.d_out, s.d_out), kh = columns(k, h * s.d_out, s.d_out);
            M scores = dot_rows(qh, kh);
            r.heads.push_back(attend(qh, kh, columns(v, h * s.d_out, s.d_out), scores, inv_sqrt(s.d_out), mask,
                                     s, h, r));
            r.heads.back().kv_head = h;
            contexts.push_back(r.heads.back().context);
        }
        r.output = side_by_side(contexts);
    } else if (kind == "mha" || kind == "gqa" || kind == "mqa") {
        // H query heads of d_k = d_out / H over G kv heads; head h reads kv head floor(h / (H / G))
        const std::size_t H = s.heads, G = kind == "mha" ? H : kind == "mqa" ? 1 : s.kv_heads;
        need(s.d_out % H == 0 && H % G == 0, "heads do not divide");
        const std::size_t d_k = s.d_out / H;
        const M q = linear(x, P("W_query"), B("b_query"));  // (T, H·d_k)
        const M k = linear(x, P("W_key"), B("b_key"));      // (T, G·d_k)
        const M v = linear(x, P("W_value"), B("b_value"));  // (T, G·d_k)
        need(n_cols(q) == H * d_k && n_cols(k) == G * d_k && n_cols(v) == G * d_k, "projection widths");
        const Bits mask = both(s.causal ? causal_bits(T, T) : all_visible(T, T), s.user_mask);
        std::vector<M> contexts;
        for (std::size_t h = 0; h < H; ++h) {
            const std::size_t g = h / (H / G);
            M qh = columns(q, h * d_k, d_k), kh = columns(k, g * d_k, d_k);
            M scores = dot_rows(qh, kh);
            r.heads.push_back(attend(qh, kh, columns(v, g * d_k, d_k), scores, inv_sqrt(d_k), mask, s, h, r));
            r.heads.back().kv_head = g;
            contexts.push_back(r.heads.back().context);
        }
        r.output = linear(side_by_side(contexts), P("W_out"), B("b_out"));
    } else if (kind == "additive" || (kind == "luong" && s.score == "concat")) {
        // e_ij = vᵀ tanh(x_i W_q + src_j W_k), scale 1, values = the source vectors
        M q = linear(x, P("W_query"), nullptr), k = linear(src, P("W_key"), nullptr);
        M e = additive_scores(q, k, P("v"));
        r.heads.push_back(attend(q, k, src, e, 1.0, both(all_visible(T, S), s.user_mask), s, 0, r));
        r.output = r.heads[0].context;
    } else if (kind == "luong") {
        // dot: e_ij = x_i · src_j; general: e_ij = x_i · (src_j W_k); scale 1; values = the source
        need(s.score == "dot" || s.score == "general", "luong score");
        M k = s.score == "general" ? matmul(src, P("W_key")) : src;
        M e = dot_rows(x, k);
        r.heads.push_back(attend(x, k, src, e, 1.0, both(all_visible(T, S), s.user_mask), s, 0, r));
        r.output = r.heads[0].context;
    } else {
        throw std::invalid_argument("reference: no reference for kind '" + kind + "'");
    }
    std::sort(r.empty_rows.begin(), r.empty_rows.end());
    return r;
}

// The tiled online softmax's running state (kind flash), recomputed from its definition: after the
// tile (query block, key block), row i has seen every visible key j < k_end, so
//   m_i = max over those j of scale · s_ij,   l_i = Σ over those j of exp(scale · s_ij − m_i)
// (m = −inf, l = 0 while nothing is visible). Tiles with no visible cell are skipped.
struct Tile {
    std::size_t head = 0;
    std::size_t q_block = 0, k_block = 0, q_begin = 0, q_end = 0, k_begin = 0, k_end = 0;
    std::vector<double> row_max, row_sum;  // one per query row of the block
};

inline std::vector<Tile> flash_tiles(const Head& h, std::size_t head, std::size_t block_q, std::size_t block_k) {
    const std::size_t T = n_rows(h.scores), S = n_cols(h.scores);
    std::vector<Tile> tiles;
    for (std::size_t qb = 0; qb * block_q < T; ++qb)
        for (std::size_t kb = 0; kb * block_k < S; ++kb) {
            Tile t{head, qb, kb, qb * block_q, std::min(T, (qb + 1) * block_q), kb * block_k,
                   std::min(S, (kb + 1) * block_k), {}, {}};
            bool any = false;
            for (std::size_t i = t.q_begin; i < t.q_end; ++i)
                for (std::size_t j = t.k_begin; j < t.k_end; ++j) any = any || h.mask[i][j];
            if (!any) continue;
            for (std::size_t i = t.q_begin; i < t.q_end; ++i) {
                double m = -std::numeric_limits<double>::infinity(), l = 0.0;
                for (std::size_t j = 0; j < t.k_end; ++j)
                    if (h.mask[i][j]) m = std::max(m, h.scale * h.scores[i][j]);
                for (std::size_t j = 0; j < t.k_end; ++j)
                    if (h.mask[i][j]) l += std::exp(h.scale * h.scores[i][j] - m);
                t.row_max.push_back(m), t.row_sum.push_back(l);
            }
            tiles.push_back(t);
        }
    return tiles;
}

}  // namespace attn::ref
