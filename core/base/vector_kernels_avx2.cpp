// The vector kernels in AVX2's 8 lanes (core/base/vector_kernels.h), the one file compiled with -mavx2 (and
// no -mfma: a fused multiply-add would round once where the baseline rounds twice). They give the
// baseline's bytes: xsimd's exponential and erf are the same polynomials lane by lane, and exp_shift_sum
// adds each 8 exponentials to the baseline's 4 running sums as two 4-lane halves, in the baseline's order.
// xsimd's exp on SSE2 took 1.9 ns a value on the project's machine, on AVX2 0.78 ns.
//
// Code compiled here must not stand in for the baseline's: an inline function that both files emit
// could be kept from this one by the linker and run on a processor without AVX2. So only templates of
// xsimd's avx2 architecture (names no other file instantiates), intrinsics (always inlined) and C's
// expf are used, and the file exports one constant table; a test checks the object's symbols.
#include "core/base/vector_kernels.h"

#if defined(ATTN_AVX2_KERNELS) && defined(__AVX2__) && !defined(__FMA__)

#include <immintrin.h>
#include <math.h>

#include <xsimd/xsimd.hpp>

#include "core/base/activation_kernels.h"

namespace attn {
namespace {

using B8 = xsimd::batch<float, xsimd::avx2>;
constexpr std::size_t kW = 8;

// The baseline's horizontal sum of 4 lanes (xsimd's SSE2 hadd): (a0 + a2) + (a1 + a3).
float hadd4(__m128 a) {
    const __m128 t = _mm_add_ps(a, _mm_movehl_ps(a, a));
    return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

// The max of 8 lanes.
float hmax8(__m256 a) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_shuffle_ps(m, m, 1)));
}

// o = s·x and its max in one pass; true when a value is NaN or ±inf (a sum of v·0 is NaN then, in any order).
bool scale_max(float* o, const float* x, std::size_t n, float s, float& max) {
    __m256 bad = _mm256_setzero_ps(), mx = _mm256_set1_ps(-HUGE_VALF);
    const __m256 sb = _mm256_set1_ps(s);
    std::size_t j = 0;
    for (; j + kW <= n; j += kW) {
        const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + j), sb);
        _mm256_storeu_ps(o + j, v);
        bad = _mm256_add_ps(bad, _mm256_mul_ps(v, _mm256_setzero_ps()));
        mx = _mm256_max_ps(mx, v);
    }
    float b = hadd4(_mm_add_ps(_mm256_castps256_ps128(bad), _mm256_extractf128_ps(bad, 1)));
    float m = hmax8(mx);
    for (; j < n; ++j) {
        const float v = o[j] = s * x[j];
        b += v * 0.0f;
        m = v > m ? v : m;
    }
    max = m + 0.0f;  // +0 for a max of -0 and +0, as the baseline
    return b != b;
}

float row_max(const float* x, std::size_t n) {
    __m256 mx = _mm256_set1_ps(-HUGE_VALF);
    std::size_t j = 0;
    for (; j + kW <= n; j += kW) mx = _mm256_max_ps(mx, _mm256_loadu_ps(x + j));
    float m = hmax8(mx);
    for (; j < n; ++j) m = x[j] > m ? x[j] : m;
    return m + 0.0f;  // +0 for a max of -0 and +0, as the baseline
}

float exp_shift_sum(float* p, std::size_t n, float m) {
    __m128 acc = _mm_setzero_ps();  // the baseline's 4 running sums
    const B8 mb(m);
    std::size_t j = 0;
    for (; j + kW <= n; j += kW) {
        const __m256 e = xsimd::exp(B8::load_unaligned(p + j) - mb);
        _mm256_storeu_ps(p + j, e);
        acc = _mm_add_ps(acc, _mm256_castps256_ps128(e));
        acc = _mm_add_ps(acc, _mm256_extractf128_ps(e, 1));
    }
    if (j + 4 <= n) {  // the baseline's last 4-lane step: 4 values through the 8-lane exponential
        alignas(32) float lanes[kW] = {p[j], p[j + 1], p[j + 2], p[j + 3], m, m, m, m};
        const __m256 e = xsimd::exp(B8::load_aligned(lanes) - mb);
        _mm_storeu_ps(p + j, _mm256_castps256_ps128(e));
        acc = _mm_add_ps(acc, _mm256_castps256_ps128(e));
        j += 4;
    }
    float sum = hadd4(acc);
    for (; j < n; ++j) sum += (p[j] = expf(p[j] - m));
    return sum;
}

void scale(float* x, std::size_t n, float s) {
    const __m256 sb = _mm256_set1_ps(s);
    std::size_t j = 0;
    for (; j + kW <= n; j += kW) _mm256_storeu_ps(x + j, _mm256_mul_ps(_mm256_loadu_ps(x + j), sb));
    for (; j < n; ++j) x[j] *= s;
}

}  // namespace

// Constant data (no code of this file runs before vector_kernels.cpp has asked the processor for AVX2).
extern const VectorKernels avx2_vector_kernel_set = {
    scale_max, row_max, exp_shift_sum, scale,
    gelu_tanh_span<B8>, gelu_erf_span<B8>, silu_span<B8>, silu_times_span<B8>};

}  // namespace attn

#elif defined(ATTN_AVX2_KERNELS)
#error "vector_kernels_avx2.cpp needs -mavx2 without -mfma (CMakeLists.txt sets both)"
#endif
