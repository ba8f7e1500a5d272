// Numerics at their edges and user masks, end to end: softmax of huge and hidden rows, non-finite
// values named where they are, and a user's mask combined with every kind's own.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/head.h"
#include "core/base/trace.h"
#include "core/kinds/kinds.h"
#include "core/base/ops.h"
#include "core/model/layers.h"
#include "data/base/error.h"
#include "data/base/tensor.h"
#include "data/base/threads.h"
#include "data/text/tokenize.h"
#include "tests/helpers.h"
#include "tests/model_fixtures.h"
#include "tests/ops_helpers.h"
#include "tests/validation_run.h"

using namespace attn;
using namespace attn::test;
using Json = nlohmann::json;

// ---- the matrix allocator's huge pages ------------------------------------------------------------

#ifdef MADV_HUGEPAGE
TEST_CASE("matrix allocator: a large block freed is counted, and a large block takes huge pages only out of what was freed") {
    constexpr std::size_t MiB = std::size_t(1) << 20;
    const std::size_t saved = large_bytes_freed.load();
    large_bytes_freed.store(0);
    {
        Mat a = Mat::from_shape({1024, 1024});  // 4 MiB: large; nothing freed yet, so 4 KiB pages
        a.fill(1.0f);
        CHECK(large_bytes_freed.load() == 0);
    }
    CHECK(large_bytes_freed.load() == 4 * MiB);
    { Mat small = Mat::from_shape({1023, 1024}); }  // just under 4 MiB: malloc's, not counted
    CHECK(large_bytes_freed.load() == 4 * MiB);
    {
        Mat b = Mat::from_shape({1024, 1024 + 1});  // 4 MiB and 4 KiB, rounded to 6 MiB: more than was freed
        CHECK(large_bytes_freed.load() == 4 * MiB);
        Mat c = Mat::from_shape({1024, 1024});  // 4 MiB: taken out of the 4 freed
        CHECK(large_bytes_freed.load() == 0);
        c.fill(2.0f);
        CHECK(c(1023, 1023) == 2.0f);
    }
    CHECK(large_bytes_freed.load() == 10 * MiB);  // b's 6 and c's 4
    CHECK(take_freed_large_bytes(8 * MiB));
    CHECK_FALSE(take_freed_large_bytes(4 * MiB));
    CHECK(large_bytes_freed.load() == 2 * MiB);
    large_bytes_freed.store(saved);
}
#endif

#if defined(__linux__)
namespace {
// How many of the pages of [p, p + bytes) are resident (mincore), p page-aligned.
std::size_t resident_pages(const float* p, std::size_t bytes) {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> in((bytes + page - 1) / page);
    REQUIRE(::mincore(const_cast<float*>(p), bytes, in.data()) == 0);
    return static_cast<std::size_t>(std::count_if(in.begin(), in.end(), [](unsigned char c) { return (c & 1) != 0; }));
}
// Whether the kernel gives every mapping huge pages (then one written value makes 2 MiB resident).
bool huge_pages_always() {
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    std::getline(f, line);
    return line.find("[always]") != std::string::npos;
}
}  // namespace

TEST_CASE("matrix allocator: a large zeros_matrix is the kernel's zero pages, none resident until written, and a small one is filled") {
    Mat small = zeros_matrix(3, 5);
    CHECK(std::all_of(small.begin(), small.end(), [](float v) { return v == 0.0f; }));
    if (!kMapsLarge || ::sysconf(_SC_PAGESIZE) != 4096) {
        MESSAGE("large blocks are not mapped by attn here (a sanitizer's build, or pages other than 4 KiB)");
        return;
    }
    const std::size_t saved = large_bytes_freed.exchange(0);  // no huge-page hint: 4 KiB pages
    Mat big = zeros_matrix(1024, 2048);  // 8 MiB: mapped, 2 MiB aligned
    large_bytes_freed.fetch_add(saved);
    CHECK(reinterpret_cast<std::uintptr_t>(big.data()) % (std::size_t(2) << 20) == 0);
    CHECK(resident_pages(big.data(), big.size() * sizeof(float)) == 0);
    big(1023, 2047) = 1.0f;  // one page written
    if (!huge_pages_always()) CHECK(resident_pages(big.data(), big.size() * sizeof(float)) == 1);
    CHECK(std::all_of(big.data(), big.data() + big.size() - 1, [](float v) { return v == 0.0f; }));
}

TEST_CASE("softmax rows: given the columns a product wrote, hidden cells outside them are left as they are, those inside become 0") {
    const std::size_t S = 12, row0 = 4, n = 3;  // causal rows 4-6: row i sees keys 0..i
    std::vector<float> scores(n * S);
    for (std::size_t c = 0; c < scores.size(); ++c) scores[c] = float((c * 7) % 11) * 0.3f - 1.0f;
    MaskSpec mask;
    mask.causal = true;
    std::vector<std::size_t> empty;
    std::vector<float> want(n * S), got(n * S, 7.0f);  // 7: a cell the call must not write
    softmax_rows(scores.data(), want.data(), row0, n, S, 0.5f, mask, empty);
    const std::pair<std::size_t, std::size_t> written{2, 9};
    softmax_rows(scores.data(), got.data(), row0, n, S, 0.5f, mask, empty, nullptr, &written);
    for (std::size_t r = 0; r < n; ++r)
        for (std::size_t j = 0; j < S; ++j) {
            INFO("row " << row0 + r << ", key " << j);
            if (j <= row0 + r) CHECK(got[r * S + j] == want[r * S + j]);  // visible: the softmax
            else if (j < written.second) CHECK(got[r * S + j] == 0.0f);  // hidden, written by the product: 0
            else CHECK(got[r * S + j] == 7.0f);                          // hidden, never written: left alone
        }
    CHECK(empty.empty());
}

TEST_CASE("causal head at 2,048 tokens: the weights' pages right of the diagonal's blocks are never touched, and read as 0") {
    // Rows 0-1,023 see keys 0-1,023 at most (in blocks of 256 rows, the last block's up to key 1,023): the
    // second half of each of those rows (keys 1,024-2,047, one 4 KiB page of a 8 KiB row) is neither
    // computed nor written.
    const std::size_t T = 2048, d = 8;
    Mat q = Mat::from_shape({T, d}), k = Mat::from_shape({T, d}), v = Mat::from_shape({T, d});
    for (std::size_t i = 0; i < q.size(); ++i)
        q.data()[i] = float(i % 7) * 0.1f, k.data()[i] = float(i % 5) * 0.1f, v.data()[i] = float(i % 3);
    Settings c;
    c.keep_scores = false;
    MaskSpec mask;
    mask.causal = true;
    TorchGenerator gen(0);
    Trace t;
    const std::size_t saved = large_bytes_freed.exchange(0);  // no huge-page hint: 4 KiB pages
    const HeadTrace h = attend_head(q, k, v, 0.25f, mask, c, gen, t);
    large_bytes_freed.fetch_add(saved);
    REQUIRE(h.weights.shape(0) == T);
    const float* w = h.weights.data();
    if (kMapsLarge && ::sysconf(_SC_PAGESIZE) == 4096) {
        std::size_t untouched = 0;
        for (std::size_t i = 0; i < 1024; ++i) untouched += resident_pages(w + i * T + 1024, 1024 * sizeof(float)) == 0;
        if (!huge_pages_always()) CHECK(untouched == 1024);
        CHECK(resident_pages(w + 1024 * T + 1024, sizeof(float)) == 1);  // row 1,024 sees key 1,024
    } else {
        MESSAGE("large blocks are not mapped by attn here (a sanitizer's build, or pages other than 4 KiB): values only");
    }
    // row 0 sees key 0 alone; row 767 its 768 keys and no other; the last row every key
    CHECK(w[0] == 1.0f);
    CHECK(std::all_of(w + 1, w + T, [](float x) { return x == 0.0f; }));
    double sum = 0.0;
    std::size_t hidden_nonzero = 0;
    for (std::size_t j = 0; j < T; ++j) {
        if (j <= 767) sum += w[767 * T + j];
        else hidden_nonzero += w[767 * T + j] != 0.0f;
    }
    CHECK(std::fabs(sum - 1.0) < 1e-5);
    CHECK(hidden_nonzero == 0);
    CHECK(w[(T - 1) * T + T - 1] > 0.0f);
}
#endif

// ---- the portable product (the WebAssembly build's, ATTN_NO_BLAS) ---------------------------------

TEST_CASE("gemm: the portable blocked product equals a double-precision sum and BLAS within float32 rounding") {
    // Shapes across the blocks (64 rows, 256 deep), leading dimensions wider than the matrices, both
    // orientations of b; values in [-1, 1) from a fixed stream.
    std::uint32_t state = 12345u;
    const auto next = [&] { return (state = state * 1664525u + 1013904223u) / 2147483648.0f - 1.0f; };
    for (const auto& [m, n, k] : {std::array<std::size_t, 3>{1, 1, 1}, {3, 5, 7}, {65, 17, 257}, {130, 70, 600}}) {
        for (const bool tb : {false, true}) {
            const std::size_t lda = k + 3, ldb = (tb ? k : n) + 2, ldc = n + 1;
            std::vector<float> a(m * lda), b((tb ? n : k) * ldb), c1(m * ldc, 7.0f), c2(m * ldc, 7.0f);
            for (float& v : a) v = next();
            for (float& v : b) v = next();
            gemm_blocked(a.data(), lda, b.data(), ldb, c1.data(), ldc, m, n, k, tb);
            gemm(a.data(), lda, b.data(), ldb, c2.data(), ldc, m, n, k, tb);
            double worst = 0.0, worst_blas = 0.0;
            for (std::size_t i = 0; i < m; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                    double ref = 0.0;
                    for (std::size_t p = 0; p < k; ++p)
                        ref += double(a[i * lda + p]) * double(tb ? b[j * ldb + p] : b[p * ldb + j]);
                    worst = std::max(worst, std::fabs(double(c1[i * ldc + j]) - ref));
                    worst_blas = std::max(worst_blas, std::fabs(double(c1[i * ldc + j]) - double(c2[i * ldc + j])));
                }
            INFO("m " << m << " n " << n << " k " << k << " transposed " << tb << ": largest difference "
                      << worst << " from double, " << worst_blas << " from BLAS");
            // k products of magnitude < 1 summed in float32: each of the k roundings is at most 2^-24 of a
            // partial sum below k, so the error stays below k² · 2^-24 (a loose bound, and one that a
            // wrong index or a missed block breaks by orders of magnitude).
            CHECK(worst <= double(k * k) * std::ldexp(1.0, -24));
            CHECK(worst_blas <= 2.0 * double(k * k) * std::ldexp(1.0, -24));
            CHECK(c1[n] == 7.0f);  // row 0's padding column, past n, is left alone
        }
    }
}

TEST_CASE("gemm: a product split over the thread pool has the bytes of the same product on one thread") {
    // Large enough to be split (m·n·k ≥ 2^20, 128 rows or columns and more) outside the pool; inside a
    // pool task the same call runs whole on its thread. Both orientations, both split directions (n ≥ m
    // splits columns, m > n rows), leading dimensions wider than the matrices.
    std::uint32_t state = 777u;
    const auto next = [&] { return (state = state * 1664525u + 1013904223u) / 2147483648.0f - 1.0f; };
    for (const auto& [m, n, k] : {std::array<std::size_t, 3>{256, 2304, 768}, {600, 130, 700}, {1, 49152, 64}}) {
        for (const bool tb : {false, true}) {
            const std::size_t lda = k + 1, ldb = (tb ? k : n) + 3, ldc = n + 2;
            std::vector<float> a(m * lda), b((tb ? n : k) * ldb), split(m * ldc, 7.0f), whole(m * ldc, 7.0f);
            for (float& v : a) v = next();
            for (float& v : b) v = next();
            gemm(a.data(), lda, b.data(), ldb, split.data(), ldc, m, n, k, tb);
            run_tasks(2, 2, [&](std::size_t i) {
                if (i == 0) gemm(a.data(), lda, b.data(), ldb, whole.data(), ldc, m, n, k, tb);
            });
            INFO("m " << m << " n " << n << " k " << k << " transposed " << tb);
            CHECK(split == whole);  // every cell, and the padding columns left alone
        }
    }
}

TEST_CASE("matvec_t: one row against a matrix's rows equals a double-precision sum, split or whole") {
    // n across the pool's split (≥ 128 rows and n·k ≥ 2^20), a leading dimension wider than k, and a
    // short n that runs whole; the padding past k is poisoned so that reading it shows.
    std::uint32_t state = 4242u;
    const auto next = [&] { return (state = state * 1664525u + 1013904223u) / 2147483648.0f - 1.0f; };
    for (const auto& [n, k] : {std::array<std::size_t, 2>{50000, 64}, {3000, 768}, {5, 7}}) {
        const std::size_t ldb = k + 3;
        std::vector<float> b(n * ldb, std::numeric_limits<float>::quiet_NaN()), a(k), split(n + 1, 7.0f), whole(n + 1, 7.0f);
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t p = 0; p < k; ++p) b[j * ldb + p] = next();
        for (float& v : a) v = next();
        matvec_t(b.data(), ldb, a.data(), split.data(), n, k);
        run_tasks(2, 2, [&](std::size_t i) {
            if (i == 0) matvec_t(b.data(), ldb, a.data(), whole.data(), n, k);
        });
        double worst = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            double ref = 0.0;
            for (std::size_t p = 0; p < k; ++p) ref += double(a[p]) * double(b[j * ldb + p]);
            worst = std::max(worst, std::fabs(double(split[j]) - ref));
        }
        INFO("n " << n << " k " << k << ": largest difference " << worst << " from double");
        CHECK(worst <= double(k * k) * std::ldexp(1.0, -24));
        CHECK(split == whole);    // the same bytes on one thread as split over the pool
        CHECK(split[n] == 7.0f);  // nothing written past n
    }
}

TEST_CASE("gelu_tanh: within 1e-6 of 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) in double, and right at the ends") {
    // Every 1/64 over [-12, 12] (both sides of 0, where the tanh form cancels, and the saturated tails),
    // a length that leaves a scalar tail after the vector loop, then the non-finite and huge inputs.
    layers::Buf x;
    for (int i = -768; i <= 768; ++i) x.push_back(static_cast<float>(i) / 64.0f);
    const layers::Buf in = x;
    layers::gelu_tanh(x);
    double worst = 0.0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const double v = in[i], ref = 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
        worst = std::max(worst, std::fabs(double(x[i]) - ref) / std::max(1.0, std::fabs(ref)));
    }
    INFO("largest difference " << worst);
    CHECK(worst < 1e-6);
    CHECK(x[768] == 0.0f);           // gelu(0) = 0
    CHECK(x[1536] == 12.0f);         // the positive tail is x itself
    CHECK(std::fabs(x[0]) < 1e-30f);  // the negative tail is 0
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    layers::Buf edge = {inf, -inf, nan, 1e20f, -1e20f, -30.0f, 3e38f, -3e38f, 0.0f, -0.0f};
    layers::gelu_tanh(edge);
    CHECK(edge[0] == inf);
    CHECK(std::isnan(edge[1]));  // −∞ · 0, as 0.5·x·(1 + tanh) gives
    CHECK(std::isnan(edge[2]));
    CHECK(edge[3] == 1e20f);
    CHECK(edge[4] == 0.0f);
    CHECK(edge[5] == 0.0f);
    CHECK(std::signbit(edge[5]));  // −0, as 0.5·(−30)·(1 + tanh(−∞)) gives
    CHECK(edge[6] == 3e38f);
    CHECK(edge[7] == 0.0f);
    CHECK(edge[8] == 0.0f);
    CHECK(edge[9] == 0.0f);
}

TEST_CASE("silu and silu_times: within 1e-6 of x / (1 + e^(-x)) in double, and right at the ends") {
    layers::Buf x, up;
    for (int i = -1500; i <= 1500; ++i) x.push_back(static_cast<float>(i) / 64.0f), up.push_back(1.0f + static_cast<float>(i % 7) / 8.0f);
    layers::Buf s = x, g = x;
    layers::silu(s);
    layers::silu_times(g, up);
    double worst = 0.0, worst_times = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double v = x[i], ref = v / (1.0 + std::exp(-v));
        worst = std::max(worst, std::fabs(double(s[i]) - ref) / std::max(1.0, std::fabs(ref)));
        worst_times = std::max(worst_times, std::fabs(double(g[i]) - ref * up[i]) / std::max(1.0, std::fabs(ref * up[i])));
    }
    INFO("largest differences " << worst << ", " << worst_times);
    CHECK(worst < 1e-6);
    CHECK(worst_times < 1e-6);
    const float inf = std::numeric_limits<float>::infinity();
    layers::Buf edge = {inf, -inf, 1e20f, -1e20f, -200.0f, 0.0f}, ones(edge.size(), 1.0f), edge2 = edge;
    layers::silu(edge);
    layers::silu_times(edge2, ones);
    for (const layers::Buf* e : {&edge, &edge2}) {
        CHECK((*e)[0] == inf);
        CHECK(std::isnan((*e)[1]));  // −∞ / ∞
        CHECK((*e)[2] == 1e20f);
        CHECK((*e)[3] == 0.0f);
        CHECK((*e)[4] == 0.0f);
        CHECK((*e)[5] == 0.0f);
    }
}

TEST_CASE("threads: every task runs once, nested task lists run inline, and the first exception reaches the caller") {
    std::vector<int> runs(1000, 0), inner(1000 * 7, 0);
    run_tasks(runs.size(), kMaxPoolThreads, [&](std::size_t i) {
        ++runs[i];
        run_tasks(7, kMaxPoolThreads, [&](std::size_t j) { ++inner[i * 7 + j]; });  // on this task's thread
    });
    CHECK(std::count(runs.begin(), runs.end(), 1) == 1000);
    CHECK(std::count(inner.begin(), inner.end(), 1) == 7000);
    std::vector<std::size_t> order;
    parallel_each(3, 1, [&](std::size_t i) { order.push_back(i); });  // below the threshold: here, in order
    CHECK(order == std::vector<std::size_t>{0, 1, 2});
    CHECK_THROWS_WITH(run_tasks(100, kMaxPoolThreads, [](std::size_t i) {
                          if (i == 42) throw std::runtime_error("task 42");
                      }),
                      "task 42");
    std::atomic<int> after{0};  // the pool still serves the next caller
    run_tasks(4, kMaxPoolThreads, [&](std::size_t) { ++after; });
    CHECK(after == 4);
}

// ---- numerics at the edges ------------------------------------------------------------------------

TEST_CASE("numerics: softmax of scores up to ±1e30 with different row maxima") {
    const Mat scores = {{1e30f, 0.0f, -1e30f}, {-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 5.0f}, {1.0f, 2.0f, 3.0f}};
    Mask all = Mask::from_shape({4, 3});
    all.fill(1);
    Mat w;
    std::vector<std::size_t> empty;
    masked_softmax(scores, 1.0f, all, w, empty);
    CHECK(empty.empty());
    // Independent values: e^-1e30 underflows to 0; equal maxima share; the last row is softmax(1, 2, 3).
    const double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0), z = e1 + e2 + e3;
    test::check_matrix(w, {{1.0f, 0.0f, 0.0f},
                           {1.0f / 3, 1.0f / 3, 1.0f / 3},
                           {0.5f, 0.5f, 0.0f},
                           {float(e1 / z), float(e2 / z), float(e3 / z)}},
                       1e-6);
    // The same with a scale, as attention applies 1/sqrt(d_k).
    masked_softmax(scores, 0.125f, all, w, empty);
    test::check_row(w, 0, {1.0f, 0.0f, 0.0f}, 1e-6);
    test::check_row(w, 2, {0.5f, 0.5f, 0.0f}, 1e-6);
    for (float v : w) CHECK(std::isfinite(v));
}

TEST_CASE("numerics: a row with every key hidden has weights 0 and is listed once") {
    const Mat scores = {{1e30f, 2.0f}, {3.0f, -1e30f}, {0.0f, 0.0f}};
    const Mask mask = {{1, 1}, {0, 0}, {0, 1}};
    Mat w;
    std::vector<std::size_t> empty;
    masked_softmax(scores, 1.0f, mask, w, empty);
    CHECK(empty == std::vector<std::size_t>{1});
    test::check_matrix(w, {{1.0f, 0.0f}, {0.0f, 0.0f}, {0.0f, 1.0f}}, 0.0);
}

TEST_CASE("numerics: a visible +inf or NaN score is an error naming the row and not a NaN weight") {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    for (const Mat& scores : {Mat{{0.0f, 1.0f}, {inf, 1.0f}}, Mat{{0.0f, 1.0f}, {nan, 1.0f}}}) {
        Mask all = Mask::from_shape({2, 2});
        all.fill(1);
        Mat w;
        std::vector<std::size_t> empty;
        try {
            masked_softmax(scores, 1.0f, all, w, empty);
            for (float v : w) CHECK(std::isfinite(v));  // if it does not throw, it must not make NaN
            FAIL_CHECK("expected an error for a non-finite score");
        } catch (const Error& e) {
            CHECK(e.exit_code() == 1);
            CHECK(std::string(e.what()).find("row 1") != std::string::npos);
        }
    }
}

TEST_CASE("numerics: embeddings of ±1e15 give scores of ±1e30 and exact one-hot weights end to end") {
    const std::string dir = temp_dir();
    write(dir + "/x.json", "[[1e15, 0], [0, 1e15], [-1e15, 0]]");
    RunResult r;
    const Json j = run_json({"show", "--kind", "simple", "--embeddings", dir + "/x.json", "a b c"}, &r);
    const Json& h = j["attention"][0]["layers"][0]["heads"][0];
    CHECK(h["scores"][0][0].get<double>() == doctest::Approx(1e30).epsilon(1e-6));
    CHECK(h["scores"][0][2].get<double>() == doctest::Approx(-1e30).epsilon(1e-6));
    CHECK(h["weights"] == Json::parse("[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]"));
    CHECK(h["context"][0][0].get<double>() == doctest::Approx(1e15).epsilon(1e-6));
    CHECK(j["empty_rows"].empty());
    // The terminal view prints no NaN or Inf either.
    const RunResult t = run({"show", "--kind", "simple", "--embeddings", dir + "/x.json", "a b c", "--show",
                             "scores,weights,context"});
    CHECK(t.code == 0);
    for (const char* bad : {"nan", "NaN", "inf"}) CHECK(t.out.find(bad) == std::string::npos);
}

TEST_CASE("numerics: NaN and Inf in a float32 .npy are input errors naming row and column") {
    const std::string dir = temp_dir();
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    write(dir + "/ninf.npy", npy("<f4", "(3, 2)", raw({0.5f, 1.0f, 2.0f, -inf, 1.0f, 1.0f})));
    write(dir + "/nan.npy", npy("<f4", "(3, 2)", raw({0.5f, 1.0f, 2.0f, 3.0f, 1.0f, nan})));
    const RunResult a = run({"show", "--embeddings", dir + "/ninf.npy", "a b c", "--json", dir + "/t.json"});
    CHECK(a.code == 1);
    CHECK(a.err.find("ninf.npy: row 1, column 1 is infinite") != std::string::npos);
    const RunResult b = run({"show", "--embeddings", dir + "/nan.npy", "a b c", "--json", dir + "/t.json"});
    CHECK(b.code == 1);
    CHECK(b.err.find("nan.npy: row 2, column 1 is NaN") != std::string::npos);
    CHECK(::access((dir + "/t.json").c_str(), F_OK) != 0);
}

TEST_CASE("numerics: scores that overflow float32 are an error, not NaN weights") {
    const std::string dir = temp_dir();
    write(dir + "/big.npy", npy("<f4", "(2, 2)", raw({1e30f, 1e30f, -1e30f, 1e30f})));
    for (const char* kind : {"simple", "self", "causal", "flash"}) {
        INFO(kind);
        const RunResult r = run({"show", "--kind", kind, "--embeddings", dir + "/big.npy", "a b", "--png", dir + "/png"});
        CHECK(r.code == 1);
        CHECK(r.err.find("overflow float32") != std::string::npos);
        CHECK(r.out.find("nan") == std::string::npos);
        CHECK(::access((dir + "/png").c_str(), F_OK) != 0);
    }
}

// ---- the user's mask ------------------------------------------------------------------------------

TEST_CASE("mask: combined with every kind's own mask and shown in the trace") {
    const std::string dir = temp_dir();
    // T = 4 query tokens; S = 3 source tokens for the kinds that take --source.
    const std::vector<std::vector<int>> self_mask = {{1, 1, 0, 1}, {0, 1, 1, 1}, {0, 0, 0, 0}, {1, 0, 1, 1}};
    const std::vector<std::vector<int>> src_mask = {{1, 0, 1}, {0, 1, 1}, {0, 0, 0}, {1, 1, 0}};
    write(dir + "/self.json", mask_json(self_mask));
    write(dir + "/src.json", mask_json(src_mask));
    for (const Kind& k : kinds()) {
        INFO("kind " << k.name);
        std::vector<std::string> args = {"show", "--kind", k.name, "The cat sat down"};
        const bool source = (k.options & opt_source) != 0;
        if (source) args.insert(args.end(), {"--source", "Die Katze saß"});
        const auto& user = source ? src_mask : self_mask;
        const Json plain = run_json(args);
        args.insert(args.end(), {"--mask", dir + (source ? "/src.json" : "/self.json")});
        RunResult r;
        const Json masked = run_json(args, &r);
        // The note on stderr, once.
        CHECK(r.err == "attn: note: 1 query row(s) see no key; their weights and context are 0\n");
        CHECK(masked["empty_rows"] == Json::array({2}));
        REQUIRE(masked["attention"][0]["layers"][0]["heads"].size() == plain["attention"][0]["layers"][0]["heads"].size());
        for (std::size_t h = 0; h < masked["attention"][0]["layers"][0]["heads"].size(); ++h) {
            const Json& mh = masked["attention"][0]["layers"][0]["heads"][h];
            const Json& ph = plain["attention"][0]["layers"][0]["heads"][h];
            REQUIRE(mh["mask"].size() == user.size());
            for (std::size_t i = 0; i < user.size(); ++i) {
                REQUIRE(mh["mask"][i].size() == user[i].size());
                for (std::size_t j = 0; j < user[i].size(); ++j) {
                    const bool want = ph["mask"][i][j].get<bool>() && user[i][j] == 1;
                    CHECK(mh["mask"][i][j].get<bool>() == want);
                    if (!want) CHECK(mh["weights"][i][j].get<double>() == 0.0);
                }
            }
            for (const auto& v : mh["weights"][2]) CHECK(v.get<double>() == 0.0);
            for (const auto& v : mh["context"][2]) CHECK(v.get<double>() == 0.0);
            for (std::size_t i = 0; i < user.size(); ++i) {
                if (i == 2) continue;
                double sum = 0.0;
                for (const auto& v : mh["weights"][i]) sum += v.get<double>();
                CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
            }
        }
    }
}

TEST_CASE("mask: local with --window 0 and a mask hiding the diagonal leaves every row empty") {
    const std::string dir = temp_dir();
    write(dir + "/offdiag.json", mask_json({{0, 1, 1}, {1, 0, 1}, {1, 1, 0}}));
    RunResult r;
    const Json j = run_json({"show", "--kind", "local", "--window", "0", "--mask", dir + "/offdiag.json", "a b c"}, &r);
    CHECK(j["empty_rows"] == Json::array({0, 1, 2}));
    CHECK(r.err == "attn: note: 3 query row(s) see no key; their weights and context are 0\n");
    const Json& h = j["attention"][0]["layers"][0]["heads"][0];
    CHECK(h["mask"] == Json::parse("[[false,false,false],[false,false,false],[false,false,false]]"));
    for (const auto& row : h["weights"])
        for (const auto& v : row) CHECK(v.get<double>() == 0.0);
    for (const auto& row : h["context"])
        for (const auto& v : row) CHECK(v.get<double>() == 0.0);
    // The terminal view says so and prints no NaN.
    const RunResult t = run({"show", "--kind", "local", "--window", "0", "--mask", dir + "/offdiag.json", "a b c",
                             "--show", "weights,context"});
    CHECK(t.code == 0);
    CHECK(t.out.find("nan") == std::string::npos);
}

TEST_CASE("mask: causal --renorm with a fully hidden row gives weights 0") {
    const std::string dir = temp_dir();
    write(dir + "/m.json", mask_json({{1, 1, 1}, {0, 0, 1}, {1, 1, 1}}));
    const Json j = run_json({"show", "--kind", "causal", "--renorm", "--mask", dir + "/m.json", "a b c"});
    CHECK(j["empty_rows"] == Json::array({1}));
    CHECK(j["attention"][0]["layers"][0]["heads"][0]["weights"][1] == Json::parse("[0.0, 0.0, 0.0]"));
    for (const auto& v : j["attention"][0]["layers"][0]["heads"][0]["context"][1]) CHECK(v.get<double>() == 0.0);
}

TEST_CASE("mask: the mask PNG draws the combined mask") {
    const std::string dir = temp_dir();
    write(dir + "/tril.json", mask_json({{1, 0, 0}, {1, 1, 0}, {1, 1, 1}}));
    write(dir + "/tril.npy", npy("|u1", "(3, 3)", std::string("\1\0\0\1\1\0\1\1\1", 9)));
    REQUIRE(run({"show", "--kind", "self", "--causal", "a b c", "--png", dir + "/causal"}).code == 0);
    REQUIRE(run({"show", "--kind", "self", "a b c", "--png", dir + "/none"}).code == 0);
    REQUIRE(run({"show", "--kind", "self", "--mask", dir + "/tril.json", "a b c", "--png", dir + "/json"}).code == 0);
    REQUIRE(run({"show", "--kind", "self", "--mask", dir + "/tril.npy", "a b c", "--png", dir + "/npy"}).code == 0);
    // A user mask equal to the causal mask draws the causal run's pictures, byte for byte.
    const std::string want = slurp(dir + "/causal/self-mask.png");
    REQUIRE(want.size() > 100);
    CHECK(slurp(dir + "/json/self-mask.png") == want);
    CHECK(slurp(dir + "/npy/self-mask.png") == want);
    CHECK(slurp(dir + "/json/self-weights.png") == slurp(dir + "/causal/self-weights.png"));
    CHECK(slurp(dir + "/none/self-mask.png") != want);
}

TEST_CASE("--dropout-seed re-seeds the generator before dropout: the chapter's pattern, whatever the weights' seed") {
    // independently: torch.rand's draws from std::mt19937(123), (u32 & 0xFFFFFF) · 2^-24; a cell is dropped when
    // its draw is below p, in row-major order (conventions: PyTorch compatibility facts)
    std::mt19937 mt(123);
    std::vector<bool> dropped;
    for (int k = 0; k < 36; ++k) dropped.push_back(float(mt() & 0xFFFFFFu) * (1.0f / 16777216.0f) < 0.5f);
    for (const char* seed : {"123", "7"}) {
        INFO("--seed " << seed);
        const nlohmann::json t = attn::test::run_json(
            {"show", "--kind", "self", "--seed", seed, "--dropout", "0.5", "--dropout-seed", "123", "a b c d e f"});
        CHECK(t["config"]["dropout_seed"] == 123);
        const auto& w = t["attention"][0]["layers"][0]["heads"][0]["weights"];
        const auto& d = t["attention"][0]["layers"][0]["heads"][0]["dropped_weights"];
        for (int k = 0; k < 36; ++k) {
            const float kept = w[k / 6][k % 6].get<float>() * 2.0f;
            CHECK((d[k / 6][k % 6].get<float>() == 0.0f) == dropped[std::size_t(k)]);
            if (!dropped[std::size_t(k)]) CHECK(d[k / 6][k % 6].get<float>() == doctest::Approx(kept));
        }
    }
}
