// attn's tensor types, the bottom of every layer: a matrix of floats and a mask of bytes, both
// row-major and contiguous, and the allocator behind them.
//
// The allocator: blocks of 4 MiB and more (the (T, S) matrices of long inputs) are aligned to 2 MiB and offered to the kernel as transparent huge pages, which cuts the
// page faults of first touching them by up to 512 times; smaller blocks come from malloc.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include <xtensor/xtensor.hpp>

namespace attn {

template <class T>
struct MatrixAllocator {
    using value_type = T;
    static constexpr std::size_t kHuge = std::size_t(2) << 20;  // 2 MiB

    MatrixAllocator() noexcept = default;
    template <class U>
    MatrixAllocator(const MatrixAllocator<U>&) noexcept {}

    T* allocate(std::size_t n) {
        if (n > std::size_t(-1) / sizeof(T)) throw std::bad_alloc();
        const std::size_t bytes = n * sizeof(T);
        void* p = nullptr;
        if (bytes >= 2 * kHuge) {
            p = std::aligned_alloc(kHuge, (bytes + kHuge - 1) / kHuge * kHuge);
#ifdef MADV_HUGEPAGE  // Linux only (macOS has no such hint)
            if (p != nullptr) ::madvise(p, bytes, MADV_HUGEPAGE);  // a hint: ignored where unsupported
#endif
        } else {
            p = std::malloc(bytes ? bytes : 1);
        }
        if (p == nullptr) throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t) noexcept { std::free(p); }

    template <class U>
    bool operator==(const MatrixAllocator<U>&) const noexcept { return true; }
    template <class U>
    bool operator!=(const MatrixAllocator<U>&) const noexcept { return false; }
};

using Mat = xt::xtensor<float, 2, xt::layout_type::row_major, MatrixAllocator<float>>;  // (rows, cols)
using Mask = xt::xtensor<std::uint8_t, 2, xt::layout_type::row_major, MatrixAllocator<std::uint8_t>>;  // (T, S): 1 = visible

}  // namespace attn
