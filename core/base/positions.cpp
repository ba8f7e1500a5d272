#include "core/base/positions.h"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace attn {

PosKind parse_pos(const std::string& name) {
    if (name == "none") return PosKind::none;
    if (name == "sinusoidal") return PosKind::sinusoidal;
    if (name == "rope") return PosKind::rope;
    if (name == "alibi") return PosKind::alibi;
    throw std::invalid_argument("unknown position scheme '" + name + "'");
}

RopeStyle parse_rope_style(const std::string& name) {
    if (name == "half") return RopeStyle::half;
    if (name == "interleaved") return RopeStyle::interleaved;
    throw std::invalid_argument("unknown RoPE style '" + name + "'");
}

const char* pos_formula(PosKind kind) {
    switch (kind) {
        case PosKind::none: return "no positions: scores see only the tokens' vectors";
        case PosKind::sinusoidal: return "x_p + PE_p, PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(p / 10000^(2i/D))";
        case PosKind::rope: return "q_p, k_p rotated by p·θ_i in pairs, θ_i = base^(-2i/d_k)";
        case PosKind::alibi: return "softmax(scale · q kᵀ + m_h (j - i)), m_h = 2^(-8(h+1)/H)";
    }
    return "";
}

// 1. angle = p / 10000^(2i/D) in double, 2. sin into column 2i, cos into column 2i+1.
Mat sinusoidal_table(std::size_t n, std::size_t d, std::int64_t first) {
    Mat pe = Mat::from_shape({n, d});  // (n, D)
    for (std::size_t r = 0; r < n; ++r) {
        const double p = static_cast<double>(first + static_cast<std::int64_t>(r));
        for (std::size_t c = 0; c < d; c += 2) {
            const double angle = p / std::pow(10000.0, static_cast<double>(c) / static_cast<double>(d));
            pe(r, c) = static_cast<float>(std::sin(angle));
            if (c + 1 < d) pe(r, c + 1) = static_cast<float>(std::cos(angle));
        }
    }
    return pe;
}

std::vector<double> rope_inv_freq(double base, std::size_t d) {
    std::vector<double> f(d / 2);
    for (std::size_t i = 0; i < f.size(); ++i) f[i] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d));
    return f;
}

void rope_rotate(Mat& x, std::int64_t first, double base, RopeStyle style) {
    if (x.shape(1) % 2 != 0) throw std::invalid_argument("RoPE needs an even head width");
    rope_rotate(x, first, rope_inv_freq(base, x.shape(1)), style);
}

RopeTable rope_table(std::int64_t first, std::size_t n, const std::vector<double>& inv_freq) {
    RopeTable t;
    t.first = first, t.n = n, t.half = inv_freq.size();
    t.cos.resize(n * t.half), t.sin.resize(n * t.half);
    for (std::size_t r = 0; r < n; ++r) {
        const double p = static_cast<double>(first + static_cast<std::int64_t>(r));
        for (std::size_t i = 0; i < t.half; ++i) t.cos[r * t.half + i] = std::cos(p * inv_freq[i]), t.sin[r * t.half + i] = std::sin(p * inv_freq[i]);
    }
    return t;
}

void rope_rotate(Mat& x, std::int64_t first, const std::vector<double>& inv_freq, RopeStyle style) {
    if (x.shape(1) % 2 != 0 || inv_freq.size() != x.shape(1) / 2)
        throw std::invalid_argument("RoPE needs an even head width and d/2 frequencies");
    rope_rotate(x, first, rope_table(first, x.shape(0), inv_freq), style);
}

// Per row at position p, per pair i: (a, b) -> (a cos pθ_i − b sin pθ_i, a sin pθ_i + b cos pθ_i), the
// angle, its sine and cosine and the rotation in double, rounded once to float32.
void rope_rotate(Mat& x, std::int64_t first, const RopeTable& table, RopeStyle style) {
    const std::size_t n = x.shape(0), d = x.shape(1), half = d / 2;
    if (d % 2 != 0 || table.half != half || first < table.first ||
        static_cast<std::size_t>(first - table.first) + n > table.n)
        throw std::invalid_argument("RoPE needs an even head width, d/2 frequencies and rows within the table");
    const std::size_t r0 = static_cast<std::size_t>(first - table.first);
    for (std::size_t r = 0; r < n; ++r) {
        float* row = x.data() + r * d;
        const double* cs_row = table.cos.data() + (r0 + r) * half;
        const double* sn_row = table.sin.data() + (r0 + r) * half;
        for (std::size_t i = 0; i < half; ++i) {
            const double cs = cs_row[i], sn = sn_row[i];
            const std::size_t ia = style == RopeStyle::half ? i : 2 * i;
            const std::size_t ib = style == RopeStyle::half ? i + half : 2 * i + 1;
            const double a = row[ia], b = row[ib];
            row[ia] = static_cast<float>(a * cs - b * sn);
            row[ib] = static_cast<float>(a * sn + b * cs);
        }
    }
}

namespace {

std::vector<double> power_of_two_slopes(std::size_t n) {  // 2^(−8(h+1)/n), h = 0 .. n−1
    std::vector<double> m(n);
    for (std::size_t h = 0; h < n; ++h) m[h] = std::exp2(-8.0 * static_cast<double>(h + 1) / static_cast<double>(n));
    return m;
}

}  // namespace

// H a power of two: 2^(−8(h+1)/H). Otherwise n = the largest power of two below H: n such slopes, then
// slopes 0, 2, 4, ... of the 2n-head list until H are given.
std::vector<double> alibi_slopes(std::size_t heads) {
    if (heads == 0) return {};
    std::size_t n = 1;
    while (n * 2 <= heads) n *= 2;
    std::vector<double> m = power_of_two_slopes(n);
    const std::vector<double> twice = power_of_two_slopes(2 * n);
    for (std::size_t k = 0; m.size() < heads; k += 2) m.push_back(twice[k]);
    return m;
}

Mat bias_matrix(const LinearBias& b, std::size_t t, std::size_t s) {
    Mat m = Mat::from_shape({t, s});  // (T, S)
    for (std::size_t i = 0; i < t; ++i)
        for (std::size_t j = 0; j < s; ++j) m(i, j) = b.at(i, j);
    return m;
}

PositionFrame position_frame(const Settings& c, std::size_t t, std::size_t s) {
    PositionFrame f;
    f.k0 = c.pos_offset;
    f.q0 = c.pos_offset + (c.bottom_right ? static_cast<std::int64_t>(s) - static_cast<std::int64_t>(t) : 0);
    return f;
}

HeadPositions position_head(Mat& q, Mat& k, const Settings& c, std::size_t h, std::size_t heads, PositionFrame f) {
    HeadPositions out;
    const PosKind kind = parse_pos(c.pos);
    if (kind == PosKind::rope) {
        out.queries_unrotated = q, out.keys_unrotated = k;
        rope_rotate(q, f.q0, c.rope_base, parse_rope_style(c.rope_style));  // (T, d_k)
        rope_rotate(k, f.k0, c.rope_base, parse_rope_style(c.rope_style));  // (S, d_k)
    }
    if (kind == PosKind::alibi) {
        out.has_bias = true;
        out.bias = {static_cast<float>(alibi_slopes(heads)[h]), f.q0, f.k0};
    }
    return out;
}

}  // namespace attn
