// The vector width of the few hand-vectorised loops (softmax rows, both GELUs), chosen by one switch.
//
// Natively these are xsimd batches (SSE/AVX/NEON, whatever the compiler targets). Debian 12's xsimd 8.1
// has no WebAssembly architecture (`xsimd::batch<float>` does not compile under em++, with or without
// -msimd128), so a build that defines ATTN_SCALAR_SIMD gets `Batch`, a one-lane stand-in with the same
// interface: the kernels are written once and their vector loops run one element at a time.
#pragma once

#include <cmath>

#ifndef ATTN_SCALAR_SIMD
#include <xsimd/xsimd.hpp>
#endif

namespace attn::simd {

#ifndef ATTN_SCALAR_SIMD

using Batch = xsimd::batch<float>;
using xsimd::erf;
using xsimd::exp;
using xsimd::hadd;
using xsimd::max;

#else

// One float with xsimd::batch<float>'s operations that attn uses.
struct Batch {
    static constexpr std::size_t size = 1;
    float v;
    Batch(float x) : v(x) {}  // NOLINT: implicit, as xsimd's broadcast constructor
    static Batch load_unaligned(const float* p) { return Batch(*p); }
    void store_unaligned(float* p) const { *p = v; }
    Batch& operator+=(const Batch& o) { return v += o.v, *this; }
    friend Batch operator+(Batch a, Batch b) { return Batch(a.v + b.v); }
    friend Batch operator-(Batch a, Batch b) { return Batch(a.v - b.v); }
    friend Batch operator*(Batch a, Batch b) { return Batch(a.v * b.v); }
    friend Batch operator/(Batch a, Batch b) { return Batch(a.v / b.v); }
};
inline Batch erf(Batch a) { return Batch(std::erf(a.v)); }
inline Batch exp(Batch a) { return Batch(std::exp(a.v)); }
inline Batch max(Batch a, Batch b) { return Batch(a.v < b.v ? b.v : a.v); }
inline float hadd(Batch a) { return a.v; }

#endif

}  // namespace attn::simd
