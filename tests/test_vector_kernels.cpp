// The vector kernels in AVX2 give the baseline's bytes (core/base/vector_kernels.h): a softmax row's every
// output value and every returned sum, max and NaN check, and every activation's values, on spans of every
// length up to 80 and around the 2,048 keys of a long run, on ordinary values, huge ones, hidden keys
// (-inf), zeros of both signs, subnormals and non-finite values.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/base/ops.h"
#include "core/base/vector_kernels.h"

using namespace attn;

namespace {

// The bits of a float, so that -0 and +0, and NaN, compare as bytes.
std::uint32_t row_kernel_bits(float v) {
    std::uint32_t u;
    std::memcpy(&u, &v, sizeof u);
    return u;
}

bool same_bytes(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// A row of n scores drawn by seed: kind 0 ordinary (N(0, 3), every fifth a zero of either sign or a
// subnormal), 1 huge (±1e30), 2 with hidden keys (-inf at random, the first key visible), 3 with one
// non-finite value (NaN or +inf) somewhere, 4 zeros of both signs (the max a tie of -0 and +0).
std::vector<float> kernel_row(std::size_t n, unsigned seed, int kind) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    std::vector<float> row(n);
    for (auto& v : row) v = kind == 1 ? normal(gen) * 3e29f : normal(gen);
    const float small[] = {0.0f, -0.0f, 1e-40f, -1e-40f};
    if (kind == 0)
        for (std::size_t j = 0; j < n; j += 5) row[j] = small[(j / 5 + seed) % 4];
    if (kind == 4)
        for (std::size_t j = 0; j < n; ++j) row[j] = (j + seed) % 2 ? 0.0f : -0.0f;
    if (kind == 2)  // the first key stays visible
        for (std::size_t j = 1; j < n; ++j)
            if (gen() % 3 == 0) row[j] = -std::numeric_limits<float>::infinity();
    if (kind == 3 && n > 0)
        row[gen() % n] = gen() % 2 ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    return row;
}

// Every length up to 80 and around 2,048.
std::vector<std::size_t> kernel_lengths() {
    std::vector<std::size_t> lengths;
    for (std::size_t n = 0; n <= 80; ++n) lengths.push_back(n);
    for (std::size_t n = 2040; n <= 2056; ++n) lengths.push_back(n);
    return lengths;
}

}  // namespace

TEST_CASE("vector kernels: AVX2's scale, max, exponentials and sums are the baseline's bytes, row lengths 0 to 80 and 2,040 to 2,056") {
    const VectorKernels* wide = avx2_vector_kernels();
    if (wide == nullptr) {
        MESSAGE("this build or processor has no AVX2 kernels: the baseline runs alone");
        CHECK(&vector_kernels() == &baseline_vector_kernels());
        return;
    }
    CHECK(&vector_kernels() == wide);  // chosen where the processor has it
    const VectorKernels& base = baseline_vector_kernels();
    const std::vector<std::size_t> lengths = kernel_lengths();
    std::size_t rows = 0;
    for (std::size_t n : lengths)
        for (int kind = 0; kind < 5; ++kind)
            for (unsigned seed = 0; seed < 6; ++seed) {
                INFO("n = " << n << ", kind " << kind << ", seed " << seed);
                const std::vector<float> x = kernel_row(n, seed * 131u + unsigned(n), kind);
                const float s = 0.125f + 0.01f * float(seed);
                // scale_max: the same scaled row, the same verdict and the same max
                std::vector<float> oa(n), ob(n);
                float ma = 0.0f, mb = 0.0f;
                const bool bad = base.scale_max(oa.data(), x.data(), n, s, ma);
                CHECK(wide->scale_max(ob.data(), x.data(), n, s, mb) == bad);
                CHECK(same_bytes(oa, ob));
                for (std::size_t j = 0; j < n; ++j) CHECK(row_kernel_bits(oa[j]) == row_kernel_bits(s * x[j]));
                bool finite = true;
                for (float v : x) finite = finite && std::isfinite(v);
                CHECK(bad == !finite);
                if (kind == 3) continue;  // a hidden key's -inf (kind 2) is scaled and read on, as softmax_rows does
                CHECK(row_kernel_bits(ma) == row_kernel_bits(mb));
                const float m = base.row_max(oa.data(), n);
                CHECK(row_kernel_bits(wide->row_max(oa.data(), n)) == row_kernel_bits(m));
                CHECK(row_kernel_bits(m) == row_kernel_bits(ma));  // the fused max is the max
                if (kind == 4 && n > 0) CHECK(row_kernel_bits(m) == row_kernel_bits(0.0f));  // +0, not -0
                if (n == 0) {
                    CHECK(m == -std::numeric_limits<float>::infinity());
                    continue;
                }
                // exp_shift_sum: the same exponentials and the same float sum, then the same normalised row
                std::vector<float> ea = oa, eb = oa;
                const float sa = base.exp_shift_sum(ea.data(), n, m), sb = wide->exp_shift_sum(eb.data(), n, m);
                CHECK(row_kernel_bits(sa) == row_kernel_bits(sb));
                CHECK(same_bytes(ea, eb));
                CHECK(sa >= 1.0f);  // the max contributes exp(0) = 1
                base.scale(ea.data(), n, 1.0f / sa), wide->scale(eb.data(), n, 1.0f / sb);
                CHECK(same_bytes(ea, eb));
                ++rows;
            }
    CHECK(rows == lengths.size() * 4 * 6 - 4 * 6);  // every row without NaN or +inf, of length > 0, compared
}

TEST_CASE("vector kernels: AVX2's GELU (tanh and erf), SiLU and SiLU times up are the baseline's bytes, spans 0 to 80 and 2,040 to 2,056") {
    const VectorKernels* wide = avx2_vector_kernels();
    if (wide == nullptr) {
        MESSAGE("this build or processor has no AVX2 kernels: the baseline runs alone");
        return;
    }
    const VectorKernels& base = baseline_vector_kernels();
    const float k2 = -2.0f * std::sqrt(2.0f / 3.14159265358979323846f);
    const float specials[] = {0.0f, -0.0f, 1e-40f, -1e-40f, 88.0f, -88.0f, 1e30f, -1e30f,
                              std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN(), 10.5f, -10.5f, 3.0f, -3.0f};
    std::size_t spans = 0;
    for (std::size_t n : kernel_lengths())
        for (unsigned seed = 0; seed < 4; ++seed) {
            INFO("n = " << n << ", seed " << seed);
            std::vector<float> x = kernel_row(n, seed * 977u + unsigned(n), seed % 2), up = kernel_row(n, seed + 5u, 0);
            for (std::size_t j = 0; j < n; j += 3) x[j] = specials[(j / 3 + seed) % std::size(specials)];
            auto both = [&](const char* what, auto run) {
                INFO(what);
                std::vector<float> a = x, b = x;
                run(base, a.data()), run(*wide, b.data());
                CHECK(same_bytes(a, b));
            };
            both("gelu_tanh", [&](const VectorKernels& k, float* p) { k.gelu_tanh(p, n, k2); });
            both("gelu_erf", [&](const VectorKernels& k, float* p) { k.gelu_erf(p, n); });
            both("silu", [&](const VectorKernels& k, float* p) { k.silu(p, n); });
            both("silu_times", [&](const VectorKernels& k, float* p) { k.silu_times(p, up.data(), n); });
            ++spans;
        }
    CHECK(spans == kernel_lengths().size() * 4);
}

TEST_CASE("vector kernels: a softmax row through the chosen kernels sums to 1 and equals a double-precision softmax to 1e-5 relative") {
    // The dispatch end to end: softmax_rows (vector_kernels() inside) against a plain double evaluation.
    const std::size_t S = 2051;
    const std::vector<float> x = kernel_row(S, 7u, 0);
    std::vector<float> w(S);
    std::vector<std::size_t> empty;
    softmax_rows(x.data(), w.data(), S - 1, 1, S, 0.5f, MaskSpec{}, empty);
    double mx = -1e300, sum = 0.0, total = 0.0;
    for (float v : x) mx = std::max(mx, 0.5 * double(v));
    for (float v : x) sum += std::exp(0.5 * double(v) - mx);
    double worst = 0.0;
    for (std::size_t j = 0; j < S; ++j) {
        const double want = std::exp(0.5 * double(x[j]) - mx) / sum;
        worst = std::max(worst, std::fabs(double(w[j]) - want) / std::max(want, 1e-30));
        total += double(w[j]);
    }
    CHECK(empty.empty());
    CHECK(worst < 1e-5);
    CHECK(std::fabs(total - 1.0) < 1e-5);
}
