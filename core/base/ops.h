// The building blocks every kind uses: BLAS products, masks, the masked softmax, dropout.
// Shapes: T query rows, S key rows, D widths. Matrices are row-major and contiguous.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "core/base/positions.h"
#include "core/base/trace.h"
#include "data/base/rng.h"

namespace attn {

Mat matmul(const Mat& a, const Mat& b);     // (M, K) · (K, N) -> (M, N)
Mat matmul_nt(const Mat& a, const Mat& b);  // (M, K) · (N, K)ᵀ -> (M, N)
// c (M, N) = a (M, K) · b (K, N) on raw row-major buffers with leading dimensions; b is (N, K) and
// used transposed when transpose_b. cblas_sgemm, or gemm_blocked in a build without BLAS (ATTN_NO_BLAS:
// the WebAssembly build); nothing else in the core knows which. A large product called outside the
// thread pool is split over it by rows or columns of c (the same bytes as one call); OpenBLAS itself
// runs single-threaded.
void gemm(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c, std::size_t ldc,
          std::size_t m, std::size_t n, std::size_t k, bool transpose_b);
// c (N) = b (N, K) · a (K): one row against every row of b (the last position's logits against the
// vocabulary). A matrix-vector product reads b once where sgemm with one row first copies all of it
// (GPT-2's 154 MB embedding: 15 → 8 ms); its sums round differently from gemm's row, so a path whose
// rows must equal a full product's bytes (decoding step by step) calls gemm. Split over the pool as gemm.
void matvec_t(const float* b, std::size_t ldb, const float* a, float* c, std::size_t n, std::size_t k);
// The portable product: plain loops over cache-sized blocks, float32 sums in increasing k (so a
// different rounding from OpenBLAS's: compare with a tolerance). Every build compiles it; the tests
// check it against gemm.
void gemm_blocked(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c, std::size_t ldc,
          std::size_t m, std::size_t n, std::size_t k, bool transpose_b);
Mat linear(const Mat& x, const Mat& w, const Mat* b);  // (N, in) · (in, out) + (1, out) -> (N, out)
Mat columns(const Mat& m, std::size_t first, std::size_t count);  // m[:, first:first+count]
Mat concat_columns(const std::vector<const Mat*>& parts);       // side by side

// Which keys a query sees, without a (T, S) matrix: row i's visible keys lie in [lo, hi), and
// within that range the user's mask, if any, may hide more.
struct MaskSpec {
    bool causal = false;                // j <= i (top-left aligned when T != S, as PyTorch)
    std::int64_t shift = 0;             // query row i stands at key position i + shift (bottom-right: S - T)
    std::optional<std::size_t> window;  // |i - j| <= W; with causal, i - W <= j <= i
    const Mask* user = nullptr;         // (T, S) 1 = visible
    const SharedMask* cached = nullptr; // (T, S) this spec already materialised (heads share it)

    void range(std::size_t i, std::size_t s, std::size_t& lo, std::size_t& hi) const;
    // The keys some row of [r0, r0 + n) sees lie in [lo, hi); lo >= hi when no row sees any.
    void rows_range(std::size_t r0, std::size_t n, std::size_t s, std::size_t& lo, std::size_t& hi) const;
    // Flash's tiles of (bq, bk) over (t, s) that the kind's own mask leaves a visible key in: what the
    // kernel visits and records (a user mask may hide more). Blocks are at most (t, s).
    std::size_t visited_tiles(std::size_t t, std::size_t s, std::size_t bq, std::size_t bk) const;
    SharedMask materialize(std::size_t t, std::size_t s) const;  // (T, S) for the trace; `cached` itself when it fits
};

// context (T, D) = w (T, S) · v (S, D) where w is 0 wherever `mask` hides a key: per block of rows,
// only the key columns some row of the block sees take part (half the work for a causal mask).
Mat masked_product(const Mat& w, const Mat& v, const MaskSpec& mask);
// The blocks of masked_product: rows [r0, r0 + n) of c (T, D), n ≤ kProductRows, r0 a multiple of it (the
// same blocks give the same bytes: a block's product runs over the keys its rows see, and OpenBLAS sums
// k in blocks that depend on that length).
inline constexpr std::size_t kProductRows = 256;
void masked_product_rows(const Mat& w, const Mat& v, const MaskSpec& mask, std::size_t r0, std::size_t n, Mat& c);

// Rows [row0, row0 + n) of scale * scores (n, S) -> weights (n, S), softmax over each row's visible
// keys, exactly 0 where hidden (scores and weights may be the same buffer). The row max is
// subtracted first, so scores up to ±1e30 stay finite. A row with no visible key is all 0 and its
// global index is appended to empty_rows. Throws attn::Error when a score is NaN or +inf (float32
// overflow of q·k). Runs on both cores for large blocks. With a bias (ALiBi), the softmax is of
// scale * scores + bias(i, j), the bias added in the same vectorised pass. `written`: when given, every
// row's weights outside columns [first, second) are already 0 (a zeros_matrix that only the scores'
// product wrote into, in place); of those cells only the row's visible keys are written, its hidden ones
// left as they are: a causal head's fresh pages above the diagonal's blocks are then never written.
void softmax_rows(const float* scores, float* weights, std::size_t row0, std::size_t n, std::size_t s,
                  float scale, const MaskSpec& mask, std::vector<std::size_t>& empty_rows,
                  const LinearBias* bias = nullptr, const std::pair<std::size_t, std::size_t>* written = nullptr);

// Inverted dropout: each weight kept with probability 1 - p (one draw per cell, row-major) and
// scaled by 1 / (1 - p); dropped cells are 0.
Mat dropout(const Mat& weights, float p, TorchGenerator& gen);
void dropout_rows(float* weights, std::size_t count, float p, TorchGenerator& gen);  // in place

// Vectorised row kernels (core/base/vector_kernels.h: AVX2 where the processor has it, the same bytes):
float row_max(const float* x, std::size_t n);           // max of x[0:n], -inf when n = 0
float exp_shift_sum(float* p, std::size_t n, float m);  // p = exp(p - m) in place; returns the sum

// Splits [0, n) into one chunk per core, run on attn's thread pool (data/base/threads.h), when the work is
// large enough (n · work_per_item ≥ 2^16); inline inside a pool task, so nested calls never oversubscribe.
void parallel_for(std::size_t n, std::size_t work_per_item, const std::function<void(std::size_t, std::size_t)>& fn);
// fn(i) for every i in [0, n), each pool thread taking the next undone i (for items of unequal cost, like
// heads); the same thresholds as parallel_for.
void parallel_each(std::size_t n, std::size_t work_per_item, const std::function<void(std::size_t)>& fn);

float max_abs_diff(const Mat& a, const Mat& b);

// Throws attn's runtime error naming the stage when m holds an infinite or NaN value:
// "the queries (x W_query) overflow float32 at row 0, column 3 (...)".
void check_finite(const Mat& m, const std::string& stage);

}  // namespace attn
