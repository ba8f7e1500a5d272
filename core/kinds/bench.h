// `attn bench`: time each stage of a kind on synthetic tokens and compare with this machine's sgemm.
//
// FLOPs count a multiply-add as 2, with full (unmasked) counts: projections 2·T·d_in·width for
// each of Q, K, V (keys and values over S rows), scores 2·T·S·d_k per head, context 2·T·S·d_v per
// head, output 2·T·d_out·d_out. The softmax is timed but counted as 0 FLOPs. Flash's tiles do the
// scores and the context together. The total is the forward pass: drawing the parameters from
// PyTorch's generator is timed apart ("init"), as a PyTorch benchmark builds its module before timing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/kinds/kinds.h"

namespace attn {

// The settings are resolved and checked as `show`'s are (core/kinds/kinds.h), on `tokens` synthetic
// tokens of width settings.d_in drawn from settings.seed; the budget is the caller's (cli/policy).
struct BenchRequest {
    Settings settings;
    std::size_t tokens = 1024;
    std::size_t repeat = 1;
    std::size_t sgemm_size = 2048;
    bool keep_trace = false;  // hand the fastest run's trace back (for timing its PNG)
    // called as work proceeds (stage, done, total), as RunHooks::progress: each run's stages, then sgemm
    std::function<void(const char* stage, std::size_t done, std::size_t total)> progress;
};

struct BenchStage {
    std::string name;
    double seconds = 0, flops = 0, gflops = 0;
};

struct BenchResult {
    std::string kind;
    std::size_t tokens = 0, d_in = 0, d_out = 0, heads = 0, kv_heads = 0;
    std::uint64_t seed = 0;
    bool keep_weights = true, keep_scores = true, causal = false;
    std::vector<BenchStage> stages;
    BenchStage total;
    double sgemm_gflops = 0, ratio = 0;
    std::size_t peak_rss_bytes = 0, kv_cache_bytes_per_token = 0, estimated_bytes = 0;
    double init_seconds = 0;    // drawing the parameters: timed, not part of the total
    std::size_t png_bytes = 0;  // set by render::time_weights_png
    Trace trace;               // only with keep_trace
};

// Runs the kind `repeat` times and keeps the fastest run; then measures sgemm at sgemm_size³.
BenchResult run_bench(const BenchRequest& r);

// Best of a few cblas_sgemm runs of n x n x n, in GFLOP/s.
double sgemm_gflops(std::size_t n);

std::size_t peak_rss_bytes();

}  // namespace attn
