// Building blocks only the tests need, on top of core/base/ops.h: row slices, an all-visible mask and the
// whole-matrix masked softmax (production calls softmax_rows on blocks of rows).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/base/ops.h"

namespace attn {

inline Mat rows(const Mat& m, std::size_t first, std::size_t count) {  // m[first:first+count, :]
    Mat out = Mat::from_shape({count, m.shape(1)});
    std::copy_n(m.data() + first * m.shape(1), count * m.shape(1), out.data());
    return out;
}

inline Mask full_mask(std::size_t t, std::size_t s) { return MaskSpec{}.materialize(t, s); }  // every key visible

// weights (T, S) = softmax over visible j of scale * scores (T, S).
inline void masked_softmax(const Mat& scores, float scale, const Mask& mask, Mat& weights,
                           std::vector<std::size_t>& empty_rows) {
    const std::size_t t = scores.shape(0), s = scores.shape(1);
    if (weights.shape(0) != t || weights.shape(1) != s) weights = Mat::from_shape({t, s});
    MaskSpec spec;
    spec.user = &mask;
    softmax_rows(scores.data(), weights.data(), 0, t, s, scale, spec, empty_rows);
}

}  // namespace attn
