#include "core/kinds/bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>

#include "core/kinds/budget.h"
#include "core/base/ops.h"
#include "core/base/profile.h"
#include "data/inputs/embed.h"
#include "data/base/error.h"

namespace attn {
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

std::size_t peak_rss_bytes() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<std::size_t>(u.ru_maxrss) * 1024;
}

double sgemm_gflops(std::size_t n) {
    Mat a = Mat::from_shape({n, n}), b = Mat::from_shape({n, n}), c = Mat::from_shape({n, n});
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = float(i % 7) * 0.1f, b.data()[i] = float(i % 5) * 0.1f;
    double best = std::numeric_limits<double>::infinity();
    for (int rep = 0; rep < 3; ++rep) {
        const double t0 = now();
        gemm(a.data(), n, b.data(), n, c.data(), n, n, n, n, false);
        best = std::min(best, now() - t0);
    }
    return 2.0 * double(n) * double(n) * double(n) / best / 1e9;
}

BenchResult run_bench(const BenchRequest& r) {
    const Settings& c = r.settings;
    const Kind& kind = kind_named(c.kind);
    if (r.tokens == 0 || c.d_in == 0 || r.repeat == 0) usage_error("--tokens, --d-in and --repeat must be at least 1");
    // 1. T synthetic tokens; the settings checked as `show` checks them
    Inputs in;
    for (std::size_t i = 0; i < r.tokens; ++i) in.tokens.push_back("tok" + std::to_string(i));
    in.x = embed_tokens(in.tokens, c.d_in, c.seed);
    in.source_tokens = in.tokens, in.source_x = in.x;
    const RunShape shape{r.tokens, r.tokens, c.d_in, c.d_in};
    check_settings(c, shape);
    const HeadGeometry d = kind.geometry(c, shape.d_src);
    const StageFlops flops = kind.flops(c, shape, d);
    // 2. the runs; keep the fastest
    Profile best;
    double best_total = std::numeric_limits<double>::infinity();
    Trace kept;  // the last run's (every run computes the same trace): one trace alive at a time
    for (std::size_t rep = 0; rep < r.repeat; ++rep) {
        Profile p;
        RunHooks hooks;
        hooks.profile = &p;
        hooks.progress = r.progress;
        if (r.progress && r.repeat > 1) r.progress("runs", rep, r.repeat);
        const double t0 = now();
        Trace t = run_attention(in, c, hooks);
        const double total = now() - t0 - p.seconds[static_cast<std::size_t>(ProfileStage::init)];  // the forward pass
        if (total < best_total) best_total = total, best = p;
        if (r.keep_trace && rep + 1 == r.repeat) kept = std::move(t);
    }
    BenchResult res;
    res.trace = std::move(kept);
    res.peak_rss_bytes = peak_rss_bytes();  // before sgemm's own buffers
    // 3. the figures
    res.kind = c.kind, res.tokens = r.tokens, res.d_in = c.d_in, res.d_out = c.d_out, res.seed = c.seed;
    res.heads = d.heads, res.kv_heads = d.kv_heads, res.keep_weights = c.keep_weights, res.keep_scores = c.keep_scores, res.causal = c.causal;
    res.estimated_bytes = estimate_run_bytes(c, shape);
    double counted = 0.0;
    res.init_seconds = best.seconds[static_cast<std::size_t>(ProfileStage::init)];
    for (std::size_t s = 0; s < best.seconds.size(); ++s) {
        if ((best.seconds[s] == 0.0 && flops[s] == 0.0) || s == static_cast<std::size_t>(ProfileStage::init)) continue;
        BenchStage st{kStageNames[s], best.seconds[s], flops[s], best.seconds[s] > 0 ? flops[s] / best.seconds[s] / 1e9 : 0};
        res.stages.push_back(st);
        counted += flops[s];
    }
    res.total = {"total", best_total, counted, counted / best_total / 1e9};
    res.kv_cache_bytes_per_token = 2 * d.kv_heads * d.d_k * sizeof(float);
    if (r.progress) r.progress("sgemm", 0, 1);
    res.sgemm_gflops = sgemm_gflops(r.sgemm_size);
    res.ratio = res.total.gflops / res.sgemm_gflops;
    return res;
}

}  // namespace attn
