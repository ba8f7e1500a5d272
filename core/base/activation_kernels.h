// The MLP's activations over a span, written once for any batch type B (core/base/vector_kernels.h):
// vector_kernels.cpp instantiates them with simd.h's Batch, vector_kernels_avx2.cpp with AVX2's. Included by those
// two files only. Internal linkage on purpose: each instruction set's copy stays in its own object, so the
// linker can never hand the baseline an AVX2 copy.
//
// The values split as the baseline's 4 lanes split them: B's full batches, then (when B is wider) the last
// groups of 4 through B's functions in a padded batch, then fewer than 4 through C's expf and erff, the
// functions std::exp and std::erf call for a float. Each value's expression is the same in every branch.
#pragma once

#include <math.h>

#include <cstddef>

namespace attn {
namespace {

constexpr std::size_t kBaselineLanes = 4;  // SSE2's

// x[i] = f(x[i], y[i]); f is generic in its value type (B or float); a function of x alone ignores y.
template <class B, class F>
void activation_span(float* x, const float* y, std::size_t n, F f) {
    std::size_t i = 0;
    for (; i + B::size <= n; i += B::size) f(B::load_unaligned(x + i), B::load_unaligned(y + i)).store_unaligned(x + i);
    if constexpr (B::size > kBaselineLanes) {
        for (; i + kBaselineLanes <= n; i += kBaselineLanes) {  // 4 values in a batch padded with zeros
            alignas(64) float a[B::size] = {}, b[B::size] = {};
            for (std::size_t l = 0; l < kBaselineLanes; ++l) a[l] = x[i + l], b[l] = y[i + l];
            f(B::load_unaligned(a), B::load_unaligned(b)).store_unaligned(a);
            for (std::size_t l = 0; l < kBaselineLanes; ++l) x[i + l] = a[l];
        }
    }
    for (; i < n; ++i) x[i] = f(x[i], y[i]);
}

// exp and erf of a batch (found by argument-dependent lookup: xsimd's, or simd.h's one-lane stand-in) and
// of a float.
template <class V>
V exp_value(const V& v) {
    return exp(v);
}
template <class V>
V erf_value(const V& v) {
    return erf(v);
}
template <>
inline float exp_value(const float& v) {
    return ::expf(v);
}
template <>
inline float erf_value(const float& v) {
    return ::erff(v);
}

template <class B>
void gelu_tanh_span(float* x, std::size_t n, float k2) {
    activation_span<B>(x, x, n, [k2](auto v, auto) {
        using V = decltype(v);
        return v / (V(1.0f) + exp_value(V(k2) * (v + V(0.044715f) * v * v * v)));
    });
}

template <class B>
void gelu_erf_span(float* x, std::size_t n) {
    activation_span<B>(x, x, n, [](auto v, auto) {
        using V = decltype(v);
        return V(0.5f) * v * (V(1.0f) + erf_value(v * V(0.70710678118654752f)));
    });
}

template <class B>
void silu_span(float* x, std::size_t n) {
    activation_span<B>(x, x, n, [](auto v, auto) {
        using V = decltype(v);
        return v / (V(1.0f) + exp_value(V(0.0f) - v));
    });
}

template <class B>
void silu_times_span(float* gate, const float* up, std::size_t n) {
    activation_span<B>(gate, up, n, [](auto v, auto u) {
        using V = decltype(v);
        return v / (V(1.0f) + exp_value(V(0.0f) - v)) * u;
    });
}

}  // namespace
}  // namespace attn
