// attn's tensor types, the bottom of every layer: a matrix of floats and a mask of bytes, both
// row-major and contiguous, and the allocator behind them.
//
// The allocator: blocks of 4 MiB and more (the (T, S) matrices of long inputs) are aligned to 2 MiB;
// smaller blocks come from malloc. On Linux a large block is the kernel's own mapping (mmap), given back
// when freed (but under AddressSanitizer, whose heap checks every block): its pages are zero until written and cost nothing until touched, so a matrix that a run
// leaves mostly zero (a causal head's weights above the diagonal) need not be written there
// (zeros_matrix, fresh_zero_blocks). A large block is offered to the kernel as transparent huge pages
// (a 512th of the page faults, and fewer TLB misses) only when the process has already freed as many
// bytes of large blocks: huge pages the kernel has not handed out lately may first have to be backed by
// the hypervisor (on the project's virtual machine touching a fresh 192 MiB took 0.3-0.6 s in huge
// pages, 0.12 s in 4 KiB pages), while memory just given back returns at once. So a first run takes 4 KiB
// pages and the next runs in the same process huge ones (`bench --kind mha --tokens 2048`: a first run
// 0.20-0.31 s where it took 0.25-0.53 s after other work, 0.35-0.56 s after a pause; see docs/speed.md).
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include <xtensor/xtensor.hpp>

namespace attn {

// Bytes of large blocks freed and not yet taken back as huge pages, over every MatrixAllocator.
inline std::atomic<std::size_t> large_bytes_freed{0};

// Whether a large block of `bytes` may take huge pages: true while enough freed bytes are left.
inline bool take_freed_large_bytes(std::size_t bytes) {
    std::size_t have = large_bytes_freed.load(std::memory_order_relaxed);
    while (have >= bytes)
        if (large_bytes_freed.compare_exchange_weak(have, have - bytes, std::memory_order_relaxed)) return true;
    return false;
}

#if defined(__SANITIZE_ADDRESS__)
#define ATTN_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATTN_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(__linux__) && !defined(__EMSCRIPTEN__) && !defined(ATTN_ADDRESS_SANITIZER)
inline constexpr bool kMapsLarge = true;  // large blocks are mmap's, given back by munmap
#else
// aligned_alloc's: the page's WebAssembly, other systems, and AddressSanitizer's builds (whose heap
// checks every block)
inline constexpr bool kMapsLarge = false;
#endif

// Bytes of large blocks mapped and not yet given back (heap measures add them: malloc does not see them).
inline std::atomic<std::size_t> large_bytes_live{0};

template <class T>
struct MatrixAllocator {
    using value_type = T;
    static constexpr std::size_t kHuge = std::size_t(2) << 20;  // 2 MiB
    static constexpr std::size_t kLarge = 2 * kHuge;
    static constexpr std::size_t rounded(std::size_t bytes) { return (bytes + kHuge - 1) / kHuge * kHuge; }

    // `bytes` (a multiple of 2 MiB) aligned to 2 MiB: a mapping of 2 MiB more, its ends given back.
    static void* allocate_large(std::size_t bytes) {
        if constexpr (kMapsLarge) {
            void* m = ::mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED) return nullptr;
            const auto at = reinterpret_cast<std::uintptr_t>(m);
            const std::uintptr_t start = (at + kHuge - 1) / kHuge * kHuge;
            if (start > at) ::munmap(m, start - at);
            if (const std::size_t tail = at + kHuge - start; tail > 0) ::munmap(reinterpret_cast<void*>(start + bytes), tail);
            return reinterpret_cast<void*>(start);
        } else {
            return std::aligned_alloc(kHuge, bytes);
        }
    }

    MatrixAllocator() noexcept = default;
    template <class U>
    MatrixAllocator(const MatrixAllocator<U>&) noexcept {}

    // Whether a block of `bytes` comes from the kernel's zero pages (Linux's large blocks).
    static constexpr bool fresh_zeros(std::size_t bytes) { return kMapsLarge && bytes >= kLarge; }

    T* allocate(std::size_t n) {
        if (n > std::size_t(-1) / sizeof(T)) throw std::bad_alloc();
        const std::size_t bytes = n * sizeof(T);
        void* p = nullptr;
        if (bytes >= kLarge) {
            if (bytes > std::size_t(-1) - 2 * kHuge) throw std::bad_alloc();  // rounded() and the mapping's 2 MiB more
            p = allocate_large(rounded(bytes));
            if (p != nullptr && kMapsLarge) large_bytes_live.fetch_add(rounded(bytes), std::memory_order_relaxed);
#ifdef MADV_HUGEPAGE  // Linux only (macOS has no such hint)
            if (p != nullptr && take_freed_large_bytes(rounded(bytes))) ::madvise(p, bytes, MADV_HUGEPAGE);  // a hint
#endif
        } else {
            p = std::malloc(bytes ? bytes : 1);
        }
        if (p == nullptr) throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t n) noexcept {
        const std::size_t bytes = n * sizeof(T);
        if (bytes < kLarge) return std::free(p);
#ifdef MADV_HUGEPAGE
        large_bytes_freed.fetch_add(rounded(bytes), std::memory_order_relaxed);
#endif
        if constexpr (kMapsLarge) {
            large_bytes_live.fetch_sub(rounded(bytes), std::memory_order_relaxed);
            ::munmap(p, rounded(bytes));
        } else {
            std::free(p);
        }
    }

    template <class U>
    bool operator==(const MatrixAllocator<U>&) const noexcept { return true; }
    template <class U>
    bool operator!=(const MatrixAllocator<U>&) const noexcept { return false; }
};

using Mat = xt::xtensor<float, 2, xt::layout_type::row_major, MatrixAllocator<float>>;  // (rows, cols)

// A (rows, cols) matrix of zeros: a large block is the kernel's zero pages, untouched until written (no
// byte of it written here); a smaller one is filled.
inline Mat zeros_matrix(std::size_t rows, std::size_t cols) {
    Mat m = Mat::from_shape({rows, cols});
    if (!MatrixAllocator<float>::fresh_zeros(m.size() * sizeof(float))) std::fill(m.data(), m.data() + m.size(), 0.0f);
    return m;
}
using Mask = xt::xtensor<std::uint8_t, 2, xt::layout_type::row_major, MatrixAllocator<std::uint8_t>>;  // (T, S): 1 = visible

// A mask that many heads' traces hold at once, read-only once made: copies share one buffer (every
// head of a layer has the same (T, S) mask; at 2,048 tokens each is 4 MiB, and 12 copies of it were a
// sixth of the pages `bench --kind mha` had the kernel zero). Reads as a Mask.
class SharedMask {
public:
    SharedMask() = default;
    SharedMask(Mask m) : m_(std::make_shared<Mask>(std::move(m))) {}  // NOLINT: implicit, as a Mask is assigned
    const Mask& get() const { return m_ ? *m_ : empty(); }
    // The holder's own mask to change: copied first when another holder shares it.
    Mask& edit() {
        if (!m_) m_ = std::make_shared<Mask>();
        else if (m_.use_count() > 1) m_ = std::make_shared<Mask>(*m_);
        return *m_;
    }
    operator const Mask&() const { return get(); }  // NOLINT: implicit, for functions that read a Mask
    std::size_t size() const { return get().size(); }
    const auto& shape() const { return get().shape(); }
    std::size_t shape(std::size_t axis) const { return get().shape(axis); }
    const std::uint8_t* data() const { return get().data(); }
    std::uint8_t operator()(std::size_t i, std::size_t j) const { return get()(i, j); }
    auto begin() const { return get().begin(); }
    auto end() const { return get().end(); }
    // The same cells (the same buffer first: no comparison of a shared mask with itself)
    friend bool operator==(const SharedMask& a, const SharedMask& b) { return a.m_ == b.m_ || a.get() == b.get(); }
    friend bool operator!=(const SharedMask& a, const SharedMask& b) { return !(a == b); }

private:
    static const Mask& empty() {
        static const Mask none;
        return none;
    }
    std::shared_ptr<Mask> m_;  // changed only through edit(), which first makes it the holder's own
};

// Whether v[0, n) holds no inf or NaN: is any exponent all ones? Four lanes at a time in the compiler's
// generic vectors (SSE2 natively, simd128 in the page), 16 values an iteration. It reads a checkpoint's
// every weight and a run's every stage: one value at a time it took 9% of a SmolLM2-sized run's CPU,
// and 5% of `bench --kind mha` at 2,048 tokens.
inline bool all_finite(const float* v, std::size_t n) {
    using U4 = std::uint32_t __attribute__((vector_size(16)));
    using I4 = std::int32_t __attribute__((vector_size(16)));
    const U4 e = {0x7F800000u, 0x7F800000u, 0x7F800000u, 0x7F800000u};
    I4 any = {0, 0, 0, 0};
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        U4 a, b, c, d;
        std::memcpy(&a, v + i, 16), std::memcpy(&b, v + i + 4, 16);  // the bit patterns, without breaking aliasing rules
        std::memcpy(&c, v + i + 8, 16), std::memcpy(&d, v + i + 12, 16);
        any |= ((a & e) == e) | ((b & e) == e) | ((c & e) == e) | ((d & e) == e);
    }
    std::uint32_t rest = 0;
    for (; i < n; ++i) {
        std::uint32_t u;
        std::memcpy(&u, v + i, 4);
        rest |= static_cast<std::uint32_t>((u & 0x7F800000u) == 0x7F800000u);
    }
    return (any[0] | any[1] | any[2] | any[3]) == 0 && rest == 0;
}

}  // namespace attn
