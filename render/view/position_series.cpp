#include "render/view/position_series.h"

#include <algorithm>

#include "core/base/positions.h"

namespace attn::render {
namespace {

Mat first_row(const Mat& m) {  // (1, D)
    Mat out = Mat::from_shape({1, m.shape(1)});
    std::copy_n(m.data(), m.shape(1), out.data());
    return out;
}

// q · R(Δ) k for Δ = 0 .. 63, the key Δ positions before the query (q and k (1, d_k)), in double.
std::vector<double> curve(const Mat& q, const Mat& k, double base, RopeStyle style) {
    std::vector<double> y;
    Mat qr = q;
    rope_rotate(qr, 0, base, style);
    for (std::size_t dist = 0; dist < kRopeDistances; ++dist) {
        Mat kr = k;
        rope_rotate(kr, -static_cast<std::int64_t>(dist), base, style);
        double s = 0;
        for (std::size_t c = 0; c < q.shape(1); ++c) s += double(qr(0, c)) * double(kr(0, c));
        y.push_back(s);
    }
    return y;
}

}  // namespace

Mat sinusoidal_rows(const Trace& t) {
    if (t.positions.size() == 0) return Mat();
    return sinusoidal_table(kSinusoidalRows, t.positions.shape(1), t.config.pos_offset);
}

std::optional<RopeCurves> rope_curves(const Trace& t) {
    if (t.sets.empty() || t.layers().empty() || t.heads().empty() || t.heads()[0].queries_unrotated.size() == 0)
        return std::nullopt;
    const HeadTrace& h0 = t.heads()[0];
    const RopeStyle style = parse_rope_style(t.config.rope_style);
    RopeCurves c;
    c.d_k = h0.queries_unrotated.shape(1);
    Mat ones = Mat::from_shape({1, c.d_k});
    std::fill(ones.begin(), ones.end(), 1.0f);
    const Mat q = h0.queries_unrotated.shape(0) ? first_row(h0.queries_unrotated) : ones;
    const Mat k = h0.keys_unrotated.shape(0) ? first_row(h0.keys_unrotated) : ones;
    c.ones = curve(ones, ones, t.config.rope_base, style);
    c.head0 = curve(q, k, t.config.rope_base, style);
    c.token = t.tokens.empty() ? std::string() : t.tokens[0];
    return c;
}

}  // namespace attn::render
