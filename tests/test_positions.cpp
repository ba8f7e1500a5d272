// Positions against the papers' formulas, written out here in plain double loops (nothing from
// core/positions is called): the sinusoidal table (Vaswani et al. 2017), RoPE in both pairings and
// two bases (Su et al. 2021; Hugging Face's rotate_half written out), ALiBi's slopes and biases
// (Press et al. 2022, including the rule for H not a power of two), and the properties each
// scheme promises. Every comparison reports its largest difference.
#include <array>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/kinds/kinds.h"
#include "data/inputs/embed.h"
#include "tests/helpers.h"

using namespace attn;

namespace {

using Rows = std::vector<std::vector<double>>;  // (rows, cols)

Rows plain(const Mat& m) {
    Rows r(m.shape(0), std::vector<double>(m.shape(1)));
    for (std::size_t i = 0; i < m.shape(0); ++i)
        for (std::size_t j = 0; j < m.shape(1); ++j) r[i][j] = m(i, j);
    return r;
}

double max_diff(const Mat& got, const Rows& want) {
    REQUIRE(got.shape(0) == want.size());
    double d = 0.0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        REQUIRE(got.shape(1) == want[i].size());
        for (std::size_t j = 0; j < want[i].size(); ++j) d = std::max(d, std::fabs(double(got(i, j)) - want[i][j]));
    }
    return d;
}

// x (N, in) · W (in, out) + b, columns [c0, c0 + n) only.
Rows project(const Rows& x, const Trace& t, const std::string& name, std::size_t c0, std::size_t n) {
    const Rows w = plain(t.param("W_" + name)->value);
    const Param* b = t.param("b_" + name);
    Rows y(x.size(), std::vector<double>(n, 0.0));
    for (std::size_t i = 0; i < x.size(); ++i)
        for (std::size_t o = 0; o < n; ++o) {
            double s = b ? double(b->value(0, c0 + o)) : 0.0;
            for (std::size_t k = 0; k < x[i].size(); ++k) s += x[i][k] * w[k][c0 + o];
            y[i][o] = s;
        }
    return y;
}

// RoFormer eq. (34), the paper's pairs: (x_2i, x_2i+1) rotated by p·θ_i, θ_i = base^(−2(i−1)/d), i from 1.
Rows rope_paper(const Rows& x, long long p0, double base) {
    Rows y = x;
    for (std::size_t r = 0; r < x.size(); ++r) {
        const double p = double(p0 + static_cast<long long>(r));
        const std::size_t d = x[r].size();
        for (std::size_t i = 1; i <= d / 2; ++i) {
            const double theta = std::pow(base, -2.0 * double(i - 1) / double(d));
            const double a = x[r][2 * i - 2], b = x[r][2 * i - 1];
            y[r][2 * i - 2] = a * std::cos(p * theta) - b * std::sin(p * theta);
            y[r][2 * i - 1] = b * std::cos(p * theta) + a * std::sin(p * theta);
        }
    }
    return y;
}

// Hugging Face's apply_rotary_pos_emb written out: inv_freq = 1 / base^(arange(0, d, 2) / d);
// emb = cat(freqs, freqs); q * cos(emb) + rotate_half(q) * sin(emb), rotate_half(q) = cat(−q2, q1).
Rows rope_rotate_half(const Rows& x, long long p0, double base) {
    Rows y = x;
    for (std::size_t r = 0; r < x.size(); ++r) {
        const double p = double(p0 + static_cast<long long>(r));
        const std::size_t d = x[r].size(), h = d / 2;
        std::vector<double> emb(d), rot(d);
        for (std::size_t c = 0; c < h; ++c) emb[c] = emb[c + h] = p * (1.0 / std::pow(base, double(2 * c) / double(d)));
        for (std::size_t c = 0; c < h; ++c) rot[c] = -x[r][c + h], rot[c + h] = x[r][c];
        for (std::size_t c = 0; c < d; ++c) y[r][c] = x[r][c] * std::cos(emb[c]) + rot[c] * std::sin(emb[c]);
    }
    return y;
}

// ALiBi's get_slopes from the paper's reference code, recursively as written there.
std::vector<double> slopes_power_of_2(std::size_t n) {
    const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(double(n)) - 3.0)));
    std::vector<double> m;
    for (std::size_t i = 0; i < n; ++i) m.push_back(start * std::pow(start, double(i)));
    return m;
}
std::vector<double> get_slopes(std::size_t n) {
    if (std::floor(std::log2(double(n))) == std::log2(double(n))) return slopes_power_of_2(n);
    const std::size_t closest = std::size_t(1) << std::size_t(std::floor(std::log2(double(n))));
    std::vector<double> m = slopes_power_of_2(closest);
    const std::vector<double> more = get_slopes(2 * closest);
    for (std::size_t k = 0; k < more.size() && m.size() < n; k += 2) m.push_back(more[k]);
    return m;
}

struct Run {
    std::string kind = "causal";
    std::size_t T = 7, S = 0, d_in = 8, d_out = 8, H = 1, G = 1;
    bool causal = true, keep = true, bottom_right = false;
    std::string pos = "rope", style = "half";
    double base = 10000.0;
    long long offset = 0;
};

Inputs inputs(const Run& r) {
    static const std::vector<std::string> words = {"the", "cat", "sat", "on", "the", "mat", "and", "the", "dog", "sat"};
    Inputs in;
    for (std::size_t i = 0; i < r.T; ++i) in.tokens.push_back(words[i % words.size()]);
    in.x = embed_tokens(in.tokens, r.d_in, 7);
    if (r.S) {
        in.has_source = true;
        for (std::size_t j = 0; j < r.S; ++j) in.source_tokens.push_back("s" + std::to_string(j));
        in.source_x = embed_tokens(in.source_tokens, r.d_in, 8);
    } else {
        in.source_tokens = in.tokens, in.source_x = in.x;
    }
    return in;
}

Trace run(const Run& r) {
    Settings c;
    c.kind = r.kind, c.d_in = r.d_in, c.d_out = r.d_out, c.heads = r.H, c.kv_heads = r.G, c.causal = r.causal;
    c.pos = r.pos, c.rope_style = r.style, c.rope_base = r.base, c.pos_offset = r.offset;
    c.keep_weights = r.keep, c.bottom_right = r.bottom_right, c.block_q = 2, c.block_k = 3;
    return run_attention(inputs(r), c);
}

// One head's weights from the formulas: softmax over visible j of scale·q_i·k_j + bias_ij, with
// j visible when j ≤ i + shift (causal) — shift = S − T bottom-right, 0 top-left.
Rows weights(const Rows& q, const Rows& k, double scale, bool causal, long long shift, const Rows* bias) {
    Rows w(q.size(), std::vector<double>(k.size(), 0.0));
    for (std::size_t i = 0; i < q.size(); ++i) {
        std::vector<double> z(k.size(), -INFINITY);
        double m = -INFINITY;
        for (std::size_t j = 0; j < k.size(); ++j) {
            if (causal && static_cast<long long>(j) > static_cast<long long>(i) + shift) continue;
            double s = 0.0;
            for (std::size_t d = 0; d < q[i].size(); ++d) s += q[i][d] * k[j][d];
            z[j] = scale * s + (bias ? (*bias)[i][j] : 0.0);
            m = std::max(m, z[j]);
        }
        if (m == -INFINITY) continue;
        double sum = 0.0;
        for (double v : z) sum += v == -INFINITY ? 0.0 : std::exp(v - m);
        for (std::size_t j = 0; j < k.size(); ++j) w[i][j] = z[j] == -INFINITY ? 0.0 : std::exp(z[j] - m) / sum;
    }
    return w;
}

// Every head of a run against RoPE as written out: q, k from x and the parameters, rotated, then
// the weights. Returns the largest difference of the rotated q and k and of the weights.
double check_rope(const Run& r) {
    const Trace t = run(r);
    const Rows x = plain(t.x), src = r.S ? plain(t.source_x) : x;
    const bool split = r.kind != "causal" && r.kind != "self" && r.kind != "cross";
    const std::size_t d_k = split ? r.d_out / r.H : r.d_out;
    const long long shift = r.bottom_right ? static_cast<long long>(src.size()) - static_cast<long long>(x.size()) : 0;
    double worst = 0.0;
    REQUIRE(t.heads().size() == r.H);
    for (const HeadTrace& h : t.heads()) {
        const Rows q0 = project(x, t, "query", h.head * d_k, d_k), k0 = project(src, t, "key", h.kv_head * d_k, d_k);
        const Rows q = r.style == "half" ? rope_rotate_half(q0, r.offset + shift, r.base) : rope_paper(q0, r.offset + shift, r.base);
        const Rows k = r.style == "half" ? rope_rotate_half(k0, r.offset, r.base) : rope_paper(k0, r.offset, r.base);
        worst = std::max({worst, max_diff(h.queries, q), max_diff(h.keys, k), max_diff(h.queries_unrotated, q0),
                          max_diff(h.keys_unrotated, k0)});
        worst = std::max(worst, max_diff(h.weights, weights(q, k, 1.0 / std::sqrt(double(d_k)), r.causal, shift, nullptr)));
    }
    return worst;
}

}  // namespace

TEST_CASE("positions: the sinusoidal table is sin(p / 10000^(2i/D)), cos(...) in the even and odd columns") {
    for (std::size_t d : {6u, 5u, 16u}) {
        Run r;
        r.pos = "sinusoidal", r.d_in = d, r.d_out = 4, r.T = 9;
        const Trace t = run(r);
        Rows pe(r.T, std::vector<double>(d));
        for (std::size_t p = 0; p < r.T; ++p)
            for (std::size_t i = 0; 2 * i < d; ++i) {
                pe[p][2 * i] = std::sin(double(p) / std::pow(10000.0, double(2 * i) / double(d)));
                if (2 * i + 1 < d) pe[p][2 * i + 1] = std::cos(double(p) / std::pow(10000.0, double(2 * i) / double(d)));
            }
        const double diff = max_diff(t.positions, pe);
        MESSAGE("sinusoidal D=" << d << ": largest difference " << diff);
        CHECK(diff <= 1e-7);
        // x stays the token embeddings; the projections read x + PE
        const Rows xpe = [&] {
            Rows s = plain(t.x);
            for (std::size_t p = 0; p < r.T; ++p)
                for (std::size_t c = 0; c < d; ++c) s[p][c] += double(t.positions(p, c));
            return s;
        }();
        CHECK(max_diff(t.x, plain(embed_tokens(t.tokens, d, 7))) == 0.0);
        const Rows q = project(xpe, t, "query", 0, 4), k = project(xpe, t, "key", 0, 4);
        const double dw = max_diff(t.heads()[0].weights, weights(q, k, 0.5, true, 0, nullptr));
        MESSAGE("sinusoidal weights: largest difference " << dw);
        CHECK(dw <= 1e-6);
    }
}

TEST_CASE("positions: RoPE in both pairings and two bases equals the formulas, on every head") {
    double worst = 0.0;
    for (const char* style : {"half", "interleaved"})
        for (double base : {10000.0, 500000.0}) {
            Run one;
            one.style = style, one.base = base;
            Run mha = one;
            mha.kind = "mha", mha.H = 4, mha.G = 4, mha.d_out = 16;
            Run gqa = mha;
            gqa.kind = "gqa", gqa.G = 2;
            Run flash = one;
            flash.kind = "flash", flash.H = 2, flash.G = 2, flash.d_out = 8;
            Run wrapper = one;
            wrapper.kind = "mha-wrapper", wrapper.H = 2, wrapper.G = 2, wrapper.d_out = 6;
            Run cross = one;
            cross.kind = "cross", cross.S = 10, cross.causal = true, cross.bottom_right = true;
            for (const Run& r : {one, mha, gqa, flash, cross}) {
                const double d = check_rope(r);
                INFO(r.kind << " " << style << " base " << base);
                CHECK(d <= 2e-6);
                worst = std::max(worst, d);
            }
            // mha-wrapper: each head is d_out wide, its columns h·d_out of the projections
            const Trace t = run(wrapper);
            const Rows x = plain(t.x);
            for (const HeadTrace& h : t.heads()) {
                const Rows q0 = project(x, t, "query", h.head * 6, 6);
                const Rows q = std::string(style) == "half" ? rope_rotate_half(q0, 0, base) : rope_paper(q0, 0, base);
                CHECK(max_diff(h.queries, q) <= 1e-6);
            }
        }
    MESSAGE("RoPE (q, k, weights over causal, mha, gqa, flash, cross): largest difference " << worst);
}

TEST_CASE("positions: the two RoPE pairings differ, and rotate_half is the interleaved one with permuted columns") {
    Run a;
    a.style = "half";
    Run b = a;
    b.style = "interleaved";
    const Trace ta = run(a), tb = run(b);
    CHECK(max_diff(ta.heads()[0].queries, plain(tb.heads()[0].queries)) > 1e-3);
    // The same rotation angles pair column i with i + d/2 instead of 2i with 2i+1: permuting the
    // unrotated columns into interleaved order and back gives rotate_half's result.
    const Rows q0 = plain(ta.heads()[0].queries_unrotated);
    Rows perm = q0;
    const std::size_t d = q0[0].size();
    for (auto& row : perm)
        for (std::size_t i = 0; i < d / 2; ++i) row[2 * i] = q0[&row - &perm[0]][i], row[2 * i + 1] = q0[&row - &perm[0]][i + d / 2];
    const Rows rot = rope_paper(perm, 0, 10000.0);
    Rows back = rot;
    for (std::size_t r = 0; r < rot.size(); ++r)
        for (std::size_t i = 0; i < d / 2; ++i) back[r][i] = rot[r][2 * i], back[r][i + d / 2] = rot[r][2 * i + 1];
    CHECK(max_diff(ta.heads()[0].queries, back) <= 1e-6);
}

TEST_CASE("positions: shifting every position by a constant leaves RoPE's scores unchanged (relative positions)") {
    double worst = 0.0;
    for (const char* style : {"half", "interleaved"})
        for (long long offset : {1LL, 37LL, 1000LL}) {
            Run r;
            r.kind = "mha", r.H = 2, r.G = 2, r.d_out = 8, r.style = style;
            Run moved = r;
            moved.offset = offset;
            const Trace a = run(r), b = run(moved);
            for (std::size_t h = 0; h < a.heads().size(); ++h) {
                CHECK(max_diff(a.heads()[h].queries, plain(b.heads()[h].queries)) > 1e-3);  // the vectors did move
                const double ds = max_diff(b.heads()[h].scores, plain(a.heads()[h].scores));
                const double dw = max_diff(b.heads()[h].weights, plain(a.heads()[h].weights));
                worst = std::max({worst, ds, dw});
                CHECK(ds <= 2e-6);
                CHECK(dw <= 1e-6);
            }
        }
    MESSAGE("RoPE scores under a position offset: largest change " << worst);
}

TEST_CASE("positions: ALiBi slopes are 2^(-8(h+1)/H), and the paper's rule for H not a power of two") {
    const std::vector<std::size_t> counts = {1, 2, 6, 8, 12, 16};
    for (std::size_t H : counts) {
        Run r;
        r.kind = "mha", r.pos = "alibi", r.H = r.G = H, r.d_out = 2 * H, r.T = 5;
        const Trace t = run(r);
        const std::vector<double> want = get_slopes(H);
        for (std::size_t h = 0; h < H; ++h) {
            INFO("H = " << H << ", head " << h);
            // the bias matrix of the trace holds m_h (j − i); read m_h from a distance of −1
            CHECK(std::fabs(double(t.heads()[h].bias(1, 0)) + want[h]) <= 1e-7 * want[h]);
        }
    }
    // Written out: H = 8 halves the slope per head; H = 12 takes 8's, then every other of 16's.
    const std::vector<double> h8 = get_slopes(8), h12 = get_slopes(12);
    for (std::size_t h = 0; h < 8; ++h) CHECK(h8[h] == std::pow(2.0, -double(h + 1)));
    const double want12[] = {0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625,
                             std::pow(2.0, -0.5), std::pow(2.0, -1.5), std::pow(2.0, -2.5), std::pow(2.0, -3.5)};
    for (std::size_t h = 0; h < 12; ++h) CHECK(std::fabs(h12[h] - want12[h]) <= 1e-15);
}

TEST_CASE("positions: ALiBi weights are softmax(scale·q·k + m_h (j − i)) at H = 8, 12 and 6, on every path") {
    double worst = 0.0;
    for (std::size_t H : {8u, 12u, 6u})
        for (const char* kind : {"mha", "gqa", "flash"})
            for (bool causal : {true, false}) {
                Run r;
                r.kind = kind, r.pos = "alibi", r.H = H, r.G = std::string(kind) == "gqa" ? H / 2 : H;
                r.d_out = 2 * H, r.T = 9, r.causal = causal;
                const Trace t = run(r);
                const std::vector<double> m = get_slopes(H);
                const Rows x = plain(t.x);
                for (const HeadTrace& h : t.heads()) {
                    Rows bias(r.T, std::vector<double>(r.T));
                    for (std::size_t i = 0; i < r.T; ++i)
                        for (std::size_t j = 0; j < r.T; ++j) bias[i][j] = m[h.head] * (double(j) - double(i));
                    const Rows q = project(x, t, "query", h.head * 2, 2), k = project(x, t, "key", h.kv_head * 2, 2);
                    const double db = max_diff(h.bias, bias);
                    const double dw = max_diff(h.weights, weights(q, k, 1.0 / std::sqrt(2.0), causal, 0, &bias));
                    INFO(kind << " H=" << H << " head " << h.head << (causal ? " causal" : ""));
                    CHECK(db <= 1e-6);
                    CHECK(dw <= 1e-6);
                    CHECK(max_diff(h.scores, [&] {  // scores stay the raw q·k
                        Rows s(r.T, std::vector<double>(r.T));
                        for (std::size_t i = 0; i < r.T; ++i)
                            for (std::size_t j = 0; j < r.T; ++j) s[i][j] = q[i][0] * k[j][0] + q[i][1] * k[j][1];
                        return s;
                    }()) <= 1e-6);
                    worst = std::max({worst, db, dw});
                }
                for (const auto& d : t.diagnostics)
                    if (d.name == "flash_max_abs_diff") CHECK(d.value <= 1e-6);
            }
    MESSAGE("ALiBi bias and weights: largest difference " << worst);
}

TEST_CASE("positions: ALiBi's bias depends only on j − i") {
    Run r;
    r.kind = "mha", r.pos = "alibi", r.H = r.G = 4, r.T = 8;
    const Trace t = run(r);
    for (const HeadTrace& h : t.heads())
        for (std::size_t i = 0; i + 1 < r.T; ++i)
            for (std::size_t j = 0; j + 1 < r.T; ++j) CHECK(h.bias(i, j) == h.bias(i + 1, j + 1));
}

TEST_CASE("positions: without the (T, S) matrices the output is the same, for rope and alibi") {
    for (const char* pos : {"rope", "alibi", "sinusoidal"})
        for (const char* kind : {"causal", "gqa", "flash"}) {
            Run r;
            r.kind = kind, r.pos = pos, r.H = std::string(kind) == "causal" ? 1 : 4, r.G = r.H / (std::string(kind) == "gqa" ? 2 : 1);
            r.d_out = 16, r.T = 11;
            Run lean = r;
            lean.keep = false;
            INFO(kind << " " << pos);
            CHECK(max_diff(run(lean).output, plain(run(r).output)) <= 1e-6);
        }
}

TEST_CASE("positions: bottom-right alignment puts the last query on the last key") {
    Run r;
    r.kind = "cross", r.S = 5, r.T = 2, r.causal = true, r.pos = "none", r.bottom_right = true;
    const Trace t = run(r);
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 5; ++j) CHECK((t.heads()[0].mask(i, j) != 0) == (j <= i + 3));
    r.bottom_right = false;
    const Trace top = run(r);
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 5; ++j) CHECK((top.heads()[0].mask(i, j) != 0) == (j <= i));
}

#include "render/outputs/figures.h"

TEST_CASE("positions: each scheme draws its figure, with the same bytes on every run") {
    for (const char* pos : {"sinusoidal", "rope", "alibi"}) {
        Run r;
        r.kind = "mha", r.H = r.G = 4, r.d_out = 16, r.pos = pos;
        const Trace t = run(r);
        const auto a = render::position_figures(t, {}, render::FileType::png), b = render::position_figures(t, {}, render::FileType::png);
        REQUIRE(a.size() == 1);
        CHECK(a[0].name == std::string("mha-") + (std::string(pos) == "sinusoidal" ? "positions" : std::string(pos == std::string("rope") ? "rope" : "alibi")) + ".png");
        CHECK(a[0].bytes.substr(1, 3) == "PNG");
        CHECK(a[0].bytes == b[0].bytes);
    }
    Run none;
    none.pos = "none";
    CHECK(render::position_figures(run(none), {}, render::FileType::png).empty());
}

namespace {
// A PNG's (width, height) from its IHDR chunk.
std::pair<unsigned, unsigned> png_dims(const std::string& b) {
    const auto at = [&](std::size_t i) {
        unsigned v = 0;
        for (std::size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(b[i + k]);
        return v;
    };
    return {at(16), at(20)};
}
std::size_t overlapping_count(const std::string& s, const std::string& what) {
    std::size_t n = 0;
    for (auto k = s.find(what); k != std::string::npos; k = s.find(what, k + 1)) ++n;
    return n;
}
}  // namespace

TEST_CASE("positions and decode: figures at --scale as PNG, and the same drawings as SVG with real lines and text") {
    for (const char* pos : {"sinusoidal", "rope", "alibi"}) {
        INFO(pos);
        Run r;
        r.kind = "mha", r.H = r.G = 4, r.d_out = 16, r.pos = pos;
        const Trace t = run(r);
        const auto one = render::position_figures(t, {"lec", 1, ""}, render::FileType::png), three = render::position_figures(t, {"lec", 3, ""}, render::FileType::png);
        REQUIRE(one.size() == 1);
        REQUIRE(three.size() == 1);
        CHECK(one[0].name.rfind("lec-", 0) == 0);
        CHECK(png_dims(three[0].bytes).first == 3 * png_dims(one[0].bytes).first);  // text drawn at 3x, not enlarged
        CHECK(png_dims(three[0].bytes).second == 3 * png_dims(one[0].bytes).second);
        const auto svg = render::position_figures(t, {"lec", 2, ""}, render::FileType::svg);
        REQUIRE(svg.size() == 1);
        CHECK(svg[0].name == one[0].name.substr(0, one[0].name.size() - 4) + ".svg");
        const std::string& doc = svg[0].bytes;
        CHECK(doc.find("width=\"" + std::to_string(2 * png_dims(one[0].bytes).first) + "\"") != std::string::npos);
        CHECK(doc.find("<text class=\"title\"") != std::string::npos);
        if (std::string(pos) == "rope") CHECK(overlapping_count(doc, "<line") >= 2 * 63);  // two curves of 64 points
        else CHECK(overlapping_count(doc, "<rect") > 16);                                // the cells
        CHECK(doc == render::position_figures(t, {"lec", 2, ""}, render::FileType::svg)[0].bytes);     // the same bytes every run
    }
    // attn decode --svg beside --png, at the default --scale 2
    const std::string dir = test::temp_dir();
    test::RunOptions o;
    o.cwd = dir;
    const test::RunResult d = test::run_attn({"decode", "--kind", "gqa", "--heads", "4", "--kv-heads", "2", "a b c d e",
                                              "--png", "out", "--svg", "out"}, o);
    REQUIRE(d.code == 0);
    const std::string cache = test::slurp(dir + "/out/gqa-decode-cache.svg");
    CHECK(cache.find("viewBox=\"0 0 900 ") != std::string::npos);
    CHECK(cache.find("width=\"1800\"") != std::string::npos);
    CHECK(overlapping_count(cache, "<rect") > 5 * 3);  // each of the three cache series a bar per step
    CHECK(png_dims(test::slurp(dir + "/out/gqa-decode-cache.png")).first == 1800);
    CHECK(test::slurp(dir + "/out/gqa-decode-steps.svg").find("</svg>") != std::string::npos);
}

#include "render/layout/position_charts.h"

namespace {
// A Surface that keeps what a chart draws: its lines, the legend's grey frames and every text.
struct Recorder : render::Surface {
    std::vector<std::array<double, 4>> lines;
    std::vector<std::array<int, 4>> legend_frames;
    std::vector<std::string> texts;
    void fill(int, int, int, int, render::Rgb) override {}
    void blend(int, int, int, int, render::Rgb, int) override {}
    void hatch(int, int, int, int, render::Rgb, int, bool) override {}
    void frame(int x, int y, int w, int h, int, render::Rgb c) override {
        if (c.r == 200 && c.g == 200 && c.b == 200) legend_frames.push_back({x, y, w, h});
    }
    void line(double x0, double y0, double x1, double y1, render::Rgb) override { lines.push_back({x0, y0, x1, y1}); }
    void text(render::Font&, std::string_view utf8, float, int, int, render::Align, render::Align, render::Rgb,
              render::TextRole, bool) override {
        texts.emplace_back(utf8);
    }
    void cells(const render::CellGrid&) override {}
};
}  // namespace

TEST_CASE("positions: the RoPE chart's legend sits where no curve passes, and the ALiBi title states the slopes of its H") {
    render::Font font;
    for (const std::size_t T : {6, 2}) {  // the curve's peak is at distance 0: the top left corner
        Run r;
        r.kind = "causal", r.pos = "rope", r.T = T;
        const Trace t = run(r);
        const auto drawings = render::position_drawings(t, font);
        REQUIRE(drawings.size() == 1);
        Recorder rec;
        drawings[0].draw(rec);
        REQUIRE(rec.legend_frames.size() == 1);
        const auto [x, y, w, h] = rec.legend_frames[0];
        REQUIRE(rec.lines.size() > 10);
        for (const auto& l : rec.lines)  // no segment's end or middle inside the legend's box
            for (const double f : {0.0, 0.5, 1.0}) {
                const double px = l[0] + f * (l[2] - l[0]), py = l[1] + f * (l[3] - l[1]);
                CHECK_FALSE((px > x && px < x + w && py > y && py < y + h));
            }
    }
    const auto alibi_title = [&](std::size_t H) {
        Run r;
        r.kind = "mha", r.pos = "alibi", r.H = r.G = H, r.d_out = 2 * H, r.T = 4;
        Recorder rec;
        render::position_drawings(run(r), font)[0].draw(rec);
        REQUIRE(!rec.texts.empty());
        return rec.texts[0];
    };
    CHECK(alibi_title(4).find("m_h = 2^(\xE2\x88\x92" "8(h+1)/H)") != std::string::npos);
    CHECK(alibi_title(8).find("m_h = 2^(\xE2\x88\x92" "8(h+1)/H)") != std::string::npos);
    // H = 6: the slopes of 4 (2^-2, 2^-4, 2^-6, 2^-8), then every other slope of 8 (2^-1, 2^-3), as get_slopes gives
    const std::string six = alibi_title(6);
    CHECK(six.find("m_h = 2^(\xE2\x88\x92" "8(h+1)/4) for h < 4, then 2^(\xE2\x88\x92" "4(2(h\xE2\x88\x92" "4)+1)/4)") != std::string::npos);
    CHECK(six.find("/H)") == std::string::npos);
}

#include "render/trace_io/json.h"

TEST_CASE("positions: the JSON trace's position_figures are PE of 64 positions from the offset and RoPE's q·k against the distance, as written out here") {
    // 1. sinusoidal, from position 3: the table's row r is PE of position 3 + r
    Run s;
    s.pos = "sinusoidal", s.d_in = 6, s.d_out = 4, s.offset = 3;
    const auto js = nlohmann::json::parse(render::trace_json_text(run(s)));
    REQUIRE(js.contains("position_figures"));
    const auto& sin_fig = js["position_figures"]["sinusoidal"];
    CHECK(sin_fig["first"] == 3);
    REQUIRE(sin_fig["table"].size() == 64);
    double ds = 0.0;
    for (std::size_t r = 0; r < 64; ++r)
        for (std::size_t i = 0; 2 * i < 6; ++i) {
            const double a = double(3 + r) / std::pow(10000.0, double(2 * i) / 6.0);
            ds = std::max({ds, std::fabs(sin_fig["table"][r][2 * i].get<double>() - std::sin(a)),
                           std::fabs(sin_fig["table"][r][2 * i + 1].get<double>() - std::cos(a))});
        }
    MESSAGE("position_figures.sinusoidal.table: largest difference " << ds);
    CHECK(ds <= 1e-7);
    CHECK_FALSE(js["position_figures"].contains("rope"));
    // 2. rope, both pairings: q = k = 1 gives Σ_i 2 cos(d θ_i); head 0's curve is q_0 · R(−d) k_0 of its unrotated rows
    for (const char* style : {"half", "interleaved"}) {
        Run r;
        r.kind = "mha", r.H = r.G = 2, r.d_out = 8, r.style = style, r.base = 100.0;
        const Trace t = run(r);
        const auto j = nlohmann::json::parse(render::trace_json_text(t));
        const auto& rope = j["position_figures"]["rope"];
        REQUIRE(rope["ones"].size() == 64);
        CHECK(rope["d_k"] == 4);
        CHECK(rope["token"] == t.tokens[0]);
        const auto rotate = [&](const Rows& x, long long p) {
            return std::string(style) == "half" ? rope_rotate_half(x, p, 100.0) : rope_paper(x, p, 100.0);
        };
        const Rows ones = {std::vector<double>(4, 1.0)};
        const Rows q = {plain(t.heads()[0].queries_unrotated)[0]}, k = {plain(t.heads()[0].keys_unrotated)[0]};
        double dr = 0.0;
        for (long long d = 0; d < 64; ++d) {
            double want_ones = 0.0, want_head = 0.0;
            for (std::size_t i = 0; i < 2; ++i) want_ones += 2.0 * std::cos(double(d) * std::pow(100.0, -2.0 * double(i) / 4.0));
            const Rows qr = rotate(q, 0), kr = rotate(k, -d);
            for (std::size_t c = 0; c < 4; ++c) want_head += qr[0][c] * kr[0][c];
            dr = std::max({dr, std::fabs(rope["ones"][d].get<double>() - want_ones), std::fabs(rope["head0"][d].get<double>() - want_head)});
        }
        MESSAGE("position_figures.rope (" << std::string(style) << "): largest difference " << dr);
        CHECK(dr <= 1e-5);
    }
    // 3. none and alibi: the trace holds all ALiBi's figure needs (every head's bias), so no position_figures
    for (const char* pos : {"none", "alibi"}) {
        Run r;
        r.kind = "mha", r.H = r.G = 2, r.d_out = 8, r.pos = pos;
        CHECK_FALSE(nlohmann::json::parse(render::trace_json_text(run(r))).contains("position_figures"));
    }
}

#include "render/page/html.h"
#include "tests/page_helpers.h"

TEST_CASE("positions: a seeded page's data holds inputs, q, k, v, context and output in the lecture's order, each on ±its largest |value| over every head, and the figures of its --pos") {
    for (const char* pos : {"none", "sinusoidal", "rope", "alibi"}) {
        Run r;
        r.kind = "mha", r.H = r.G = 2, r.d_out = 8, r.pos = pos;
        const Trace t = run(r);
        const auto d = test::page_data(render::render_html(t, {}));
        CHECK(d.json["vector_stages"] == nlohmann::json::parse(R"(["inputs", "queries", "keys", "values", "context", "output"])"));
        const auto largest = [&](const std::vector<const Mat*>& ms) {
            double m = 0.0;
            for (const Mat* x : ms)
                for (float v : *x) m = std::max(m, std::fabs(double(v)));
            return m;
        };
        const auto& scales = d.json["layers"][0]["scales"];
        const std::vector<std::pair<const char*, std::vector<const Mat*>>> stages = {
            {"inputs", {&t.x}}, {"queries", {&t.heads()[0].queries, &t.heads()[1].queries}},
            {"keys", {&t.heads()[0].keys, &t.heads()[1].keys}}, {"values", {&t.heads()[0].values, &t.heads()[1].values}},
            {"context", {&t.heads()[0].context, &t.heads()[1].context}}, {"output", {&t.output}}};
        for (const auto& [stage, mats] : stages) {
            INFO(pos << " " << stage);
            const auto& sc = scales[stage];
            CHECK(sc[0].get<double>() == doctest::Approx(-largest(mats)).epsilon(1e-7));
            CHECK(sc[1].get<double>() == doctest::Approx(largest(mats)).epsilon(1e-7));
            CHECK(sc[2] == "RdBu_r");
        }
        CHECK(d.json["run_vectors"]["inputs"][1][2].get<float>() == t.x(1, 2));  // the float, written shortest
        CHECK(d.json["run_vectors"]["output"][2][3].get<float>() == t.output(2, 3));
        const auto& f = d.json["position_figures"];
        CHECK(f.contains("sinusoidal") == (std::string(pos) == "sinusoidal"));
        CHECK(f.contains("rope") == (std::string(pos) == "rope"));
        CHECK(f.contains("alibi") == (std::string(pos) == "alibi"));
        if (f.contains("sinusoidal")) {
            CHECK(f["sinusoidal"]["run"].size() == t.tokens.size());
            CHECK(f["sinusoidal"]["table"].size() == 64);
        }
        if (f.contains("rope")) CHECK(f["rope"]["head0"].size() == 64);
    }
}
