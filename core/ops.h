// The building blocks every kind uses: BLAS products, masks, the masked softmax, dropout.
// Shapes: T query rows, S key rows, D widths.
#pragma once

#include <cstddef>
#include <vector>

#include "core/trace.h"
#include "data/rng.h"

namespace attn {

Mat matmul(const Mat& a, const Mat& b);     // (M, K) · (K, N) -> (M, N)
Mat matmul_nt(const Mat& a, const Mat& b);  // (M, K) · (N, K)ᵀ -> (M, N)
Mat linear(const Mat& x, const Mat& w, const Mat* b);  // (N, in) · (in, out) + (1, out) -> (N, out)
Mat rows(const Mat& m, std::size_t first, std::size_t count);     // m[first:first+count, :]
Mat columns(const Mat& m, std::size_t first, std::size_t count);  // m[:, first:first+count]
Mat concat_columns(const std::vector<const Mat*>& parts);       // side by side

Mask full_mask(std::size_t t, std::size_t s);                   // every key visible
Mask causal_mask(std::size_t t, std::size_t s);                 // j <= i (top-left aligned when T != S)
Mask window_mask(std::size_t t, std::size_t s, std::size_t w, bool causal);  // |i-j| <= w, or i-w <= j <= i
void mask_and(Mask& m, const Mask& other);                      // cell visible only where both allow

// weights[i, j] = softmax over visible j of scale * scores[i, j]; exactly 0 where hidden.
// A row with no visible key is all 0 (never NaN); its index is appended to empty_rows.
// The row max is subtracted first, so scores up to ±1e30 stay finite.
void masked_softmax(const Mat& scores, float scale, const Mask& mask, Mat& weights,
                    std::vector<std::size_t>& empty_rows);

// Inverted dropout: each weight kept with probability 1 - p (one draw per cell, row-major) and
// scaled by 1 / (1 - p); dropped cells are 0.
Mat dropout(const Mat& weights, float p, TorchGenerator& gen);

float max_abs_diff(const Mat& a, const Mat& b);

}  // namespace attn
