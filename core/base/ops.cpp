#include "core/base/ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#ifndef ATTN_NO_BLAS
#include <cblas.h>
#include <stdlib.h>
#endif
#include <xtensor/xnoalias.hpp>
#include <xtensor/xview.hpp>

#include "core/base/simd.h"
#include "core/base/vector_kernels.h"
#include "data/base/error.h"
#include "data/base/threads.h"

namespace attn {

void gemm_blocked(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c, std::size_t ldc,
                  std::size_t m, std::size_t n, std::size_t k, bool transpose_b) {
    // Tiles of 64 rows of a × 256 of its columns keep a's tile and the rows of b it meets in cache; the
    // inner loop runs along a row of c and a row of b, which compilers vectorise (WebAssembly's SIMD in
    // the page's core). A transposed b is first copied, 256 × 256 at a time, into that order. Each
    // c[i][j] sums its k products in increasing p, in float32, one product at a time.
    constexpr std::size_t kRows = 64, kDepth = 256, kCols = 256;
    for (std::size_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    std::vector<float> tile(transpose_b ? kDepth * kCols : 0);  // (p, j) of b's tile, b transposed
    for (std::size_t i0 = 0; i0 < m; i0 += kRows)
        for (std::size_t p0 = 0; p0 < k; p0 += kDepth) {
            const std::size_t i1 = std::min(m, i0 + kRows), p1 = std::min(k, p0 + kDepth);
            if (!transpose_b) {  // c[i][:] += a[i][p] · b[p][:]
                for (std::size_t i = i0; i < i1; ++i) {
                    float* ci = c + i * ldc;
                    const float* ai = a + i * lda;
                    for (std::size_t p = p0; p < p1; ++p) {
                        const float aip = ai[p];
                        const float* bp = b + p * ldb;
                        for (std::size_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
                    }
                }
                continue;
            }
            for (std::size_t j0 = 0; j0 < n; j0 += kCols) {  // c[i][j0:j1] += a[i][p] · b[j0:j1][p]
                const std::size_t j1 = std::min(n, j0 + kCols), w = j1 - j0;
                for (std::size_t j = j0; j < j1; ++j)
                    for (std::size_t p = p0; p < p1; ++p) tile[(p - p0) * kCols + (j - j0)] = b[j * ldb + p];
                for (std::size_t i = i0; i < i1; ++i) {
                    float* ci = c + i * ldc + j0;
                    const float* ai = a + i * lda;
                    for (std::size_t p = p0; p < p1; ++p) {
                        const float aip = ai[p];
                        const float* tp = tile.data() + (p - p0) * kCols;
                        for (std::size_t j = 0; j < w; ++j) ci[j] += aip * tp[j];
                    }
                }
            }
        }
}

namespace {

// One product on this thread: cblas_sgemm (single-threaded, see blas_on_one_thread), or gemm_blocked.
void gemm_here(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c, std::size_t ldc,
               std::size_t m, std::size_t n, std::size_t k, bool transpose_b) {
#ifdef ATTN_NO_BLAS
    gemm_blocked(a, lda, b, ldb, c, ldc, m, n, k, transpose_b);
#else
    const auto bl = [](std::size_t v) { return static_cast<blasint>(v); };
    cblas_sgemm(CblasRowMajor, CblasNoTrans, transpose_b ? CblasTrans : CblasNoTrans, bl(m), bl(n), bl(k), 1.0f, a,
                bl(lda), b, bl(ldb), 0.0f, c, bl(ldc));
#endif
}

// OpenBLAS keeps its own threads, which spin (sched_yield) between calls: beside attn's pool they took
// about 15% of a model run. attn's pool owns the cores instead, and every OpenBLAS call runs on the thread
// that makes it. OpenBLAS is linked statically (loading the shared library bound about 16,000 symbols,
// 2.5-3 ms of each process's start), and its constructor reads OPENBLAS_NUM_THREADS as it starts: this
// constructor, at the first priority, runs before it, so that OpenBLAS starts no worker, which would spin
// for about 0.1 s beside the run (a 6-token run with its figures: 40 ms of CPU with it, 32 without).
#ifndef ATTN_NO_BLAS
__attribute__((constructor(101))) void blas_starts_no_threads() { ::setenv("OPENBLAS_NUM_THREADS", "1", 1); }
#endif

// Set once, before the first product (in case the environment was read before the constructor above).
void blas_on_one_thread() {
#ifndef ATTN_NO_BLAS
    static const bool once = [] {
        openblas_set_num_threads(1);
        return true;
    }();
    (void)once;
#endif
}

// Products below this many multiply-adds (m·n·k) run on one thread: about 50 µs at one core's 40
// GFLOP/s, where waking a pool thread costs 5–20 µs.
constexpr std::size_t kSplitProduct = std::size_t(1) << 20;
// Parts are whole multiples of this many rows or columns (OpenBLAS's sgemm tiles are 16 × 4 or smaller).
constexpr std::size_t kSplitAlign = 64;

// fn(lo, len) over [0, along) in parts of whole kSplitAlign multiples, one per pool thread; or fn(0, along)
// on this thread for a product of fewer than kSplitProduct multiply-adds (`work`), inside the pool, or
// on one core.
template <class Fn>
void split_over_pool(std::size_t along, std::size_t work, Fn&& fn) {
    const std::size_t parts = along < 2 * kSplitAlign ? 1 : worker_threads(along / kSplitAlign, kMaxPoolThreads);
    if (parts < 2 || ThreadPool::inside() || work < kSplitProduct) {
        fn(std::size_t{0}, along);
        return;
    }
    const std::size_t step = (along / parts + kSplitAlign - 1) / kSplitAlign * kSplitAlign;
    run_tasks((along + step - 1) / step, kMaxPoolThreads, [&](std::size_t p) {
        const std::size_t lo = p * step;
        fn(lo, std::min(along, lo + step) - lo);
    });
}

}  // namespace

void gemm(const float* a, std::size_t lda, const float* b, std::size_t ldb, float* c, std::size_t ldc,
          std::size_t m, std::size_t n, std::size_t k, bool transpose_b) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
        for (std::size_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
        return;
    }
    blas_on_one_thread();
    // Split the longer of the rows and the columns of c over the pool, never k: each c[i][j] is then summed
    // in the same order as by one call, so the parts give the bytes of one product (checked on OpenBLAS
    // 0.3.21 for the model and mha shapes).
    split_over_pool(std::max(m, n), m * n * k, [&](std::size_t lo, std::size_t len) {
        if (n >= m)  // columns [lo, lo + len) of b and c
            gemm_here(a, lda, transpose_b ? b + lo * ldb : b + lo, ldb, c + lo, ldc, m, len, k, transpose_b);
        else  // rows [lo, lo + len) of a and c
            gemm_here(a + lo * lda, lda, b, ldb, c + lo * ldc, ldc, len, n, k, transpose_b);
    });
}

void matvec_t(const float* b, std::size_t ldb, const float* a, float* c, std::size_t n, std::size_t k) {
    if (n == 0) return;
    if (k == 0) {
        std::fill(c, c + n, 0.0f);
        return;
    }
    blas_on_one_thread();
    split_over_pool(n, n * k, [&](std::size_t lo, std::size_t len) {  // c[lo, lo + len) from rows [lo, lo + len) of b
#ifdef ATTN_NO_BLAS
        gemm_blocked(a, k, b + lo * ldb, ldb, c + lo, len, 1, len, k, true);
#else
        cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<blasint>(len), static_cast<blasint>(k), 1.0f, b + lo * ldb,
                    static_cast<blasint>(ldb), a, 1, 0.0f, c + lo, 1);
#endif
    });
}

Mat matmul(const Mat& a, const Mat& b) {
    Mat c = Mat::from_shape({a.shape(0), b.shape(1)});
    gemm(a.data(), a.shape(1), b.data(), b.shape(1), c.data(), c.shape(1), a.shape(0), b.shape(1), a.shape(1), false);
    return c;
}

Mat matmul_nt(const Mat& a, const Mat& b) {
    Mat c = Mat::from_shape({a.shape(0), b.shape(0)});
    gemm(a.data(), a.shape(1), b.data(), b.shape(1), c.data(), c.shape(1), a.shape(0), b.shape(0), a.shape(1), true);
    return c;
}

Mat linear(const Mat& x, const Mat& w, const Mat* b) {
    Mat y = matmul(x, w);                              // (N, out)
    if (b != nullptr && b->size() > 0) xt::noalias(y) += *b;  // + (1, out), broadcast over the N rows
    return y;
}

Mat columns(const Mat& m, std::size_t first, std::size_t count) {
    const std::size_t rows_n = m.shape(0), cols = m.shape(1);
    Mat out = Mat::from_shape({rows_n, count});  // (rows, count): row by row (xtensor's strided view copied cell by cell)
    for (std::size_t i = 0; i < rows_n; ++i) std::copy_n(m.data() + i * cols + first, count, out.data() + i * count);
    return out;
}

Mat concat_columns(const std::vector<const Mat*>& parts) {
    const std::size_t rows_n = parts.empty() ? 0 : parts[0]->shape(0);
    std::size_t cols = 0;
    for (const Mat* p : parts) cols += p->shape(1);
    Mat out = Mat::from_shape({rows_n, cols});
    std::size_t c0 = 0;
    for (const Mat* p : parts) {  // each part into its block of columns, row by row
        const std::size_t w = p->shape(1);
        for (std::size_t i = 0; i < rows_n; ++i) std::copy_n(p->data() + i * w, w, out.data() + i * cols + c0);
        c0 += w;
    }
    return out;
}

// ---- masks ---------------------------------------------------------------------------------------

void MaskSpec::range(std::size_t i, std::size_t s, std::size_t& lo, std::size_t& hi) const {
    const std::int64_t p = static_cast<std::int64_t>(i) + shift, n = static_cast<std::int64_t>(s);  // i's key position
    auto clamp = [n](std::int64_t v) { return static_cast<std::size_t>(std::clamp<std::int64_t>(v, 0, n)); };
    lo = 0, hi = s;
    if (causal) hi = clamp(p + 1);
    if (window) {
        const auto w = static_cast<std::int64_t>(std::min<std::uint64_t>(*window, std::uint64_t(1) << 40));  // 64-bit in WebAssembly too
        lo = clamp(p - w);
        if (!causal) hi = clamp(p + w + 1);
    }
    if (lo > hi) lo = hi;
}

void MaskSpec::rows_range(std::size_t r0, std::size_t n, std::size_t s, std::size_t& lo, std::size_t& hi) const {
    lo = s, hi = 0;
    for (std::size_t i = r0; i < r0 + n; ++i) {
        std::size_t l, h;
        range(i, s, l, h);
        if (l < h) lo = std::min(lo, l), hi = std::max(hi, h);
    }
}

std::size_t MaskSpec::visited_tiles(std::size_t t, std::size_t s, std::size_t bq, std::size_t bk) const {
    bq = std::max<std::size_t>(1, std::min(bq, t)), bk = std::max<std::size_t>(1, std::min(bk, s));
    std::size_t n = 0;
    for (std::size_t q0 = 0; q0 < t; q0 += bq) {
        std::size_t lo, hi;  // the block's rows see keys in [lo, hi) at most (each row's range is an interval)
        rows_range(q0, std::min(t, q0 + bq) - q0, s, lo, hi);
        if (lo < hi) n += (hi - 1) / bk - lo / bk + 1;
    }
    return n;
}

SharedMask MaskSpec::materialize(std::size_t t, std::size_t s) const {
    if (cached != nullptr && cached->shape(0) == t && cached->shape(1) == s) return *cached;
    Mask m = Mask::from_shape({t, s});
    for (std::size_t i = 0; i < t; ++i) {
        std::uint8_t* row = m.data() + i * s;
        std::size_t lo, hi;
        range(i, s, lo, hi);
        std::fill(row, row + s, std::uint8_t(0));
        if (user != nullptr)
            for (std::size_t j = lo; j < hi; ++j) row[j] = (*user)(i, j) ? 1 : 0;
        else
            std::fill(row + lo, row + hi, std::uint8_t(1));
    }
    return m;
}


void masked_product_rows(const Mat& w, const Mat& v, const MaskSpec& mask, std::size_t r0, std::size_t n, Mat& c) {
    const std::size_t S = w.shape(1), D = v.shape(1);
    std::size_t lo, hi;  // the key columns any row of the block sees
    mask.rows_range(r0, n, S, lo, hi);
    if (lo >= hi) {
        std::fill(c.data() + r0 * D, c.data() + (r0 + n) * D, 0.0f);
        return;
    }
    gemm(w.data() + r0 * S + lo, S, v.data() + lo * D, D, c.data() + r0 * D, D, n, D, hi - lo, false);
}

Mat masked_product(const Mat& w, const Mat& v, const MaskSpec& mask) {
    const std::size_t T = w.shape(0);
    Mat c = Mat::from_shape({T, v.shape(1)});
    for (std::size_t r0 = 0; r0 < T; r0 += kProductRows) masked_product_rows(w, v, mask, r0, std::min(kProductRows, T - r0), c);
    return c;
}

// ---- softmax -------------------------------------------------------------------------------------

namespace {

using simd::Batch;
constexpr std::size_t kW = Batch::size;

// o[j] += m * d_j with d_j = d0 + j, the distance of key j from the query (a whole number, exact in
// float32 below 2^24): the same two roundings as LinearBias::at, lane by lane.
void add_linear_bias(float* o, std::size_t n, float m, float d0) {
    alignas(64) float iota[kW];
    for (std::size_t l = 0; l < kW; ++l) iota[l] = static_cast<float>(l);
    const Batch mb(m), lanes = Batch::load_unaligned(iota);
    std::size_t j = 0;
    for (; j + kW <= n; j += kW) {
        const Batch d = Batch(d0 + static_cast<float>(j)) + lanes;
        (Batch::load_unaligned(o + j) + mb * d).store_unaligned(o + j);
    }
    for (; j < n; ++j) o[j] += m * (d0 + static_cast<float>(j));
}

}  // namespace

float row_max(const float* x, std::size_t n) { return vector_kernels().row_max(x, n); }
float exp_shift_sum(float* p, std::size_t n, float m) { return vector_kernels().exp_shift_sum(p, n, m); }

namespace {

// One row: out[j] = exp(scale * in[j] - max) / sum over visible j in [lo, hi), 0 elsewhere (written in
// [wlo, whi) only: the rest of the row is 0 already).
// Returns false when the row has no visible key; throws on NaN/inf scores.
bool softmax_row(const float* in, float* out, std::size_t lo, std::size_t hi, float scale,
                 const std::uint8_t* vis, std::size_t row, const LinearBias* bias, std::size_t wlo, std::size_t whi) {
    // 0. zeros outside the visible keys, where the row is not 0 already (columns [wlo, whi) may not be)
    if (const std::size_t end = std::min(lo, whi); end > wlo) std::fill(out + wlo, out + end, 0.0f);
    if (const std::size_t first = std::max(hi, wlo); whi > first) std::fill(out + first, out + whi, 0.0f);
    const std::size_t n = hi - lo;
    float* o = out + lo;
    const VectorKernels& k = vector_kernels();
    // 1. scaled scores (all finite, or the row overflowed), -inf where the user's mask hides a key; with
    //    neither a bias nor the user's mask, their max in the same pass
    const bool plain = bias == nullptr && vis == nullptr;
    float m = 0.0f;
    if (k.scale_max(o, in + lo, n, scale, m))
        throw Error(ErrorKind::runtime,
                    "the scores of query row " + std::to_string(row) + " overflow float32 (a q·k is infinite or NaN)",
                    "use embeddings with smaller values");
    if (bias != nullptr)  // ALiBi: + m (key position − query position)
        add_linear_bias(o, n, bias->slope, static_cast<float>((bias->k0 + static_cast<std::int64_t>(lo)) -
                                                              (bias->q0 + static_cast<std::int64_t>(row))));
    bool any_visible = n > 0;
    if (vis != nullptr) {
        any_visible = false;
        for (std::size_t j = 0; j < n; ++j) {
            o[j] = vis[lo + j] ? o[j] : -std::numeric_limits<float>::infinity();
            any_visible |= vis[lo + j] != 0;
        }
    }
    if (!any_visible) {
        std::fill(o, o + n, 0.0f);
        return false;
    }
    // 2. the row max; exponentials relative to it (exactly 0 where hidden: exp(-inf) = 0), their sum
    if (!plain) m = k.row_max(o, n);
    const float sum = k.exp_shift_sum(o, n, m);
    // 3. normalise (sum >= 1: the max contributes exp(0) = 1)
    k.scale(o, n, 1.0f / sum);
    return true;
}

}  // namespace

void parallel_for(std::size_t n, std::size_t work_per_item, const std::function<void(std::size_t, std::size_t)>& fn) {
    const std::size_t parts = worker_threads(n, kMaxPoolThreads);
    if (parts < 2 || n * work_per_item < (1u << 16) || ThreadPool::inside()) {
        fn(0, n);
        return;
    }
    const std::size_t step = (n + parts - 1) / parts;
    run_tasks(parts, kMaxPoolThreads, [&](std::size_t p) {
        if (p * step < n) fn(p * step, std::min(n, (p + 1) * step));
    });
}

void parallel_each(std::size_t n, std::size_t work_per_item, const std::function<void(std::size_t)>& fn) {
    if (n < 2 || n * work_per_item < (1u << 16) || ThreadPool::inside()) {
        for (std::size_t i = 0; i < n; ++i) fn(i);
        return;
    }
    run_tasks(n, kMaxPoolThreads, fn);
}

void softmax_rows(const float* scores, float* weights, std::size_t row0, std::size_t n, std::size_t s, float scale,
                  const MaskSpec& mask, std::vector<std::size_t>& empty_rows, const LinearBias* bias,
                  const std::pair<std::size_t, std::size_t>* written) {
    const std::size_t wlo = written ? std::min(written->first, s) : 0, whi = written ? std::min(written->second, s) : s;
    std::vector<std::uint8_t> empty(n, 0);  // (n) 1 = the row saw no key
    parallel_for(n, s, [&](std::size_t r0, std::size_t r1) {
        for (std::size_t r = r0; r < r1; ++r) {
            const std::size_t i = row0 + r;
            std::size_t lo, hi;
            mask.range(i, s, lo, hi);
            const std::uint8_t* vis = mask.user ? mask.user->data() + i * s : nullptr;
            empty[r] = !softmax_row(scores + r * s, weights + r * s, lo, hi, scale, vis, i, bias, wlo, whi);
        }
    });
    for (std::size_t r = 0; r < n; ++r)
        if (empty[r]) empty_rows.push_back(row0 + r);
}

void dropout_rows(float* w, std::size_t count, float p, TorchGenerator& gen) {
    const float keep_scale = 1.0f / (1.0f - p);
    for (std::size_t i = 0; i < count; ++i) w[i] = gen.next_unit() < p ? 0.0f : w[i] * keep_scale;
}

Mat dropout(const Mat& weights, float p, TorchGenerator& gen) {
    Mat out = weights;
    dropout_rows(out.data(), out.size(), p, gen);
    return out;
}

float max_abs_diff(const Mat& a, const Mat& b) {
    float d = 0.0f;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) d = std::max(d, std::fabs(a.data()[i] - b.data()[i]));
    return d;
}

}  // namespace attn

namespace attn {

void check_finite(const Mat& m, const std::string& stage) {
    const float* p = m.data();
    if (all_finite(p, m.size())) return;  // the common case in one vectorised pass; then, which cell
    for (std::size_t k = 0; k < m.size(); ++k)
        if (!std::isfinite(p[k])) {
            const std::size_t cols = m.shape(1);
            throw Error(ErrorKind::runtime,
                        "the " + stage + " overflow float32 at row " + std::to_string(k / cols) + ", column " +
                            std::to_string(k % cols) + " (a value is infinite or NaN)",
                        "use embeddings with smaller values");
        }
}

}  // namespace attn
