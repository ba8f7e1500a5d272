#include "core/ops.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <cblas.h>

namespace attn {

namespace {
blasint bl(std::size_t n) { return static_cast<blasint>(n); }
}  // namespace

Mat matmul(const Mat& a, const Mat& b) {
    const std::size_t m = a.shape(0), k = a.shape(1), n = b.shape(1);
    Mat c = Mat::from_shape({m, n});
    if (m == 0 || n == 0) return c;
    if (k == 0) {
        c.fill(0.0f);
        return c;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, bl(m), bl(n), bl(k), 1.0f, a.data(), bl(k), b.data(),
                bl(n), 0.0f, c.data(), bl(n));
    return c;
}

Mat matmul_nt(const Mat& a, const Mat& b) {
    const std::size_t m = a.shape(0), k = a.shape(1), n = b.shape(0);
    Mat c = Mat::from_shape({m, n});
    if (m == 0 || n == 0) return c;
    if (k == 0) {
        c.fill(0.0f);
        return c;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, bl(m), bl(n), bl(k), 1.0f, a.data(), bl(k), b.data(),
                bl(k), 0.0f, c.data(), bl(n));
    return c;
}

Mat linear(const Mat& x, const Mat& w, const Mat* b) {
    Mat y = matmul(x, w);  // (N, out)
    if (b != nullptr && b->size() > 0)
        for (std::size_t i = 0; i < y.shape(0); ++i)
            for (std::size_t o = 0; o < y.shape(1); ++o) y(i, o) += (*b)(0, o);
    return y;
}

Mat rows(const Mat& m, std::size_t first, std::size_t count) {
    Mat out = Mat::from_shape({count, m.shape(1)});
    std::copy_n(m.data() + first * m.shape(1), count * m.shape(1), out.data());
    return out;
}

Mat columns(const Mat& m, std::size_t first, std::size_t count) {
    Mat out = Mat::from_shape({m.shape(0), count});
    for (std::size_t i = 0; i < m.shape(0); ++i)
        std::copy_n(&m(i, first), count, &out(i, 0));
    return out;
}

Mat concat_columns(const std::vector<const Mat*>& parts) {
    std::size_t rows = parts.empty() ? 0 : parts[0]->shape(0), cols = 0;
    for (const Mat* p : parts) cols += p->shape(1);
    Mat out = Mat::from_shape({rows, cols});
    std::size_t c0 = 0;
    for (const Mat* p : parts) {
        for (std::size_t i = 0; i < rows; ++i)
            if (p->shape(1) > 0) std::copy_n(&(*p)(i, 0), p->shape(1), &out(i, c0));
        c0 += p->shape(1);
    }
    return out;
}

Mask full_mask(std::size_t t, std::size_t s) {
    Mask m = Mask::from_shape({t, s});
    m.fill(1);
    return m;
}

Mask causal_mask(std::size_t t, std::size_t s) {
    Mask m = Mask::from_shape({t, s});
    for (std::size_t i = 0; i < t; ++i)
        for (std::size_t j = 0; j < s; ++j) m(i, j) = j <= i ? 1 : 0;
    return m;
}

Mask window_mask(std::size_t t, std::size_t s, std::size_t w, bool causal) {
    Mask m = Mask::from_shape({t, s});
    for (std::size_t i = 0; i < t; ++i)
        for (std::size_t j = 0; j < s; ++j) {
            const bool behind = j <= i && i - j <= w;
            const bool ahead = j > i && j - i <= w;
            m(i, j) = (behind || (ahead && !causal)) ? 1 : 0;
        }
    return m;
}

void mask_and(Mask& m, const Mask& other) {
    for (std::size_t i = 0; i < m.size(); ++i) m.data()[i] = (m.data()[i] && other.data()[i]) ? 1 : 0;
}

void masked_softmax(const Mat& scores, float scale, const Mask& mask, Mat& weights,
                    std::vector<std::size_t>& empty_rows) {
    const std::size_t t = scores.shape(0), s = scores.shape(1);
    if (weights.shape(0) != t || weights.shape(1) != s) weights = Mat::from_shape({t, s});
    for (std::size_t i = 0; i < t; ++i) {
        const float* in = &scores.data()[i * s];
        const std::uint8_t* vis = &mask.data()[i * s];
        float* out = &weights.data()[i * s];
        // 1. the row max over visible keys
        float m = -std::numeric_limits<float>::infinity();
        for (std::size_t j = 0; j < s; ++j)
            if (vis[j]) m = std::max(m, scale * in[j]);
        if (m == -std::numeric_limits<float>::infinity()) {  // every key hidden
            std::fill(out, out + s, 0.0f);
            empty_rows.push_back(i);
            continue;
        }
        // 2. exponentials relative to the max, 0 where hidden
        float sum = 0.0f;
        for (std::size_t j = 0; j < s; ++j) {
            out[j] = vis[j] ? std::exp(scale * in[j] - m) : 0.0f;
            sum += out[j];
        }
        // 3. normalise (sum >= 1: the max contributes exp(0))
        const float inv = 1.0f / sum;
        for (std::size_t j = 0; j < s; ++j) out[j] *= inv;
    }
}

Mat dropout(const Mat& weights, float p, TorchGenerator& gen) {
    Mat out = Mat::from_shape(weights.shape());
    const float keep_scale = 1.0f / (1.0f - p);
    for (std::size_t i = 0; i < weights.size(); ++i)
        out.data()[i] = gen.next_unit() < p ? 0.0f : weights.data()[i] * keep_scale;
    return out;
}

float max_abs_diff(const Mat& a, const Mat& b) {
    float d = 0.0f;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) d = std::max(d, std::fabs(a.data()[i] - b.data()[i]));
    return d;
}

}  // namespace attn
