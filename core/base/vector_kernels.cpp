// The baseline set of vector kernels (core/base/vector_kernels.h) in simd.h's batches, and the choice of
// the set a run uses: AVX2's (vector_kernels_avx2.cpp) where it is built in and the processor has it.
#include "core/base/vector_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "core/base/activation_kernels.h"
#include "core/base/simd.h"

namespace attn {
namespace {

using simd::Batch;
constexpr std::size_t kBatchLanes = Batch::size;

// The max of a batch's lanes.
float lanes_max(const Batch& v) {
    alignas(64) float lanes[kBatchLanes];
    v.store_unaligned(lanes);
    return *std::max_element(lanes, lanes + kBatchLanes);
}

// o = s * x and the max of o in one pass; returns true when a value is NaN or infinite (v * 0 is 0
// only for finite v).
bool scale_max(float* o, const float* x, std::size_t n, float s, float& max) {
    Batch bad(0.0f), mx(-std::numeric_limits<float>::infinity());
    const Batch sb(s);
    std::size_t j = 0;
    for (; j + kBatchLanes <= n; j += kBatchLanes) {
        const Batch v = Batch::load_unaligned(x + j) * sb;
        v.store_unaligned(o + j);
        bad += v * Batch(0.0f);
        mx = simd::max(mx, v);
    }
    float b = simd::hadd(bad), m = lanes_max(mx);
    for (; j < n; ++j) {
        const float v = o[j] = s * x[j];
        b += v * 0.0f;
        m = std::max(m, v);
    }
    max = m + 0.0f;  // +0 for a max of -0 and +0, whichever lane held which
    return b != b;
}

float base_row_max(const float* x, std::size_t n) {
    float m = -std::numeric_limits<float>::infinity();
    std::size_t j = 0;
    if (n >= kBatchLanes) {
        Batch acc = Batch::load_unaligned(x);
        for (j = kBatchLanes; j + kBatchLanes <= n; j += kBatchLanes) acc = simd::max(acc, Batch::load_unaligned(x + j));
        m = lanes_max(acc);
    }
    for (; j < n; ++j) m = std::max(m, x[j]);
    return m + 0.0f;  // +0 for a max of -0 and +0, whichever lane held which
}

float base_exp_shift_sum(float* p, std::size_t n, float m) {
    Batch acc(0.0f);
    const Batch mb(m);
    std::size_t j = 0;
    for (; j + kBatchLanes <= n; j += kBatchLanes) {
        const Batch e = simd::exp(Batch::load_unaligned(p + j) - mb);
        e.store_unaligned(p + j);
        acc += e;
    }
    float sum = simd::hadd(acc);
    for (; j < n; ++j) sum += (p[j] = std::exp(p[j] - m));
    return sum;
}

void scale(float* x, std::size_t n, float s) {
    for (std::size_t j = 0; j < n; ++j) x[j] *= s;
}

const VectorKernels kBaseline{scale_max,         base_row_max,          base_exp_shift_sum,
                              scale,             gelu_tanh_span<Batch>, gelu_erf_span<Batch>,
                              silu_span<Batch>,  silu_times_span<Batch>};

}  // namespace

const VectorKernels& baseline_vector_kernels() { return kBaseline; }

const VectorKernels* avx2_vector_kernels() {
#ifdef ATTN_AVX2_KERNELS
    if (__builtin_cpu_supports("avx2")) return &avx2_vector_kernel_set;
#endif
    return nullptr;
}

const VectorKernels& vector_kernels() {
    static const VectorKernels& chosen = avx2_vector_kernels() != nullptr ? *avx2_vector_kernels() : kBaseline;
    return chosen;
}

}  // namespace attn
