// The vector kernels of the hot loops (a softmax row, the MLP's activations), one set per instruction set.
// The baseline set (vector_kernels.cpp) runs core/base/simd.h's batches: SSE2's 4 lanes on x86-64, one lane in the
// page's WebAssembly. On x86-64 processors that have AVX2, its 8 lanes (vector_kernels_avx2.cpp, the one
// file compiled with -mavx2, where the compiler may target it: ATTN_AVX2_KERNELS). Both sets give the same
// bytes:
//   - xsimd's exponential and erf are the same polynomials lane by lane, with no fused multiply-add;
//   - the values the baseline computes in 4 lanes go through the vector functions in AVX2 too (a last 4
//     through the 8-lane function), and only the baseline's tail of fewer than 4 through C's expf/erff;
//   - a sum keeps the baseline's 4 running sums, in its order; a NaN check does not depend on the order,
//     nor does a max of numbers, given as +0 where -0 and +0 tie (a row with a NaN has no defined max: the
//     softmax refuses it first).
#pragma once

#include <cstddef>

namespace attn {

struct VectorKernels {
    // ---- a softmax row
    // o = s·x and max = the max of o (-inf when n = 0) in one pass; true if a value is NaN or ±inf
    bool (*scale_max)(float* o, const float* x, std::size_t n, float s, float& max);
    float (*row_max)(const float* x, std::size_t n);           // max of x[0:n], -inf when n = 0
    float (*exp_shift_sum)(float* p, std::size_t n, float m);  // p = exp(p - m) in place; returns the sum
    void (*scale)(float* x, std::size_t n, float s);           // x = s·x in place
    // ---- activations, in place (core/model/layers.cpp says what each is)
    void (*gelu_tanh)(float* x, std::size_t n, float k2);  // x / (1 + exp(k2·(x + 0.044715·x³))), k2 = −2·√(2/π)
    void (*gelu_erf)(float* x, std::size_t n);             // 0.5·x·(1 + erf(x·√½))
    void (*silu)(float* x, std::size_t n);                 // x / (1 + exp(0 − x))
    void (*silu_times)(float* gate, const float* up, std::size_t n);  // silu(gate) · up
};

const VectorKernels& vector_kernels();           // the widest set this processor runs, chosen once
const VectorKernels& baseline_vector_kernels();  // simd.h's batches
const VectorKernels* avx2_vector_kernels();      // AVX2's set where it is built in and the processor has it, else null

#ifdef ATTN_AVX2_KERNELS
extern const VectorKernels avx2_vector_kernel_set;  // vector_kernels_avx2.cpp: only through avx2_vector_kernels()
#endif

}  // namespace attn
