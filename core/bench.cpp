#include "core/bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>

#include "core/budget.h"
#include "core/kinds.h"
#include "core/ops.h"
#include "core/profile.h"
#include "data/embed.h"
#include "data/error.h"

namespace attn {
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// FLOPs of each stage (full, unmasked counts).
std::array<double, static_cast<std::size_t>(Stage::count)> stage_flops(const Trace& t, const HeadDims& d) {
    std::array<double, static_cast<std::size_t>(Stage::count)> f{};
    const double T = double(t.tokens.size()), S = double(t.source_tokens.size()), H = double(d.heads);
    for (const auto& p : t.params) {
        const double rows = p.name == "W_query" ? T : (p.name == "W_key" || p.name == "W_value") ? S : 0.0;
        f[size_t(Stage::projections)] += 2.0 * rows * double(p.value.shape(0)) * double(p.value.shape(1));
        if (p.name == "W_out") f[size_t(Stage::output)] += 2.0 * T * double(p.value.shape(0)) * double(p.value.shape(1));
    }
    f[size_t(Stage::scores)] = 2.0 * T * S * double(d.d_k) * H;
    f[size_t(Stage::context)] = 2.0 * T * S * double(d.d_v) * H;
    if (t.kind == "flash") {  // the tiles do both; with a trace kept, the unblocked pass does both again
        f[size_t(Stage::tiles)] = f[size_t(Stage::scores)] + f[size_t(Stage::context)];
        if (!t.config.keep_weights) f[size_t(Stage::scores)] = f[size_t(Stage::context)] = 0.0;
    }
    return f;
}

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
    const KindInfo* kind = find_kind(r.kind);
    if (!kind) usage_error("unknown kind '" + r.kind + "'", "choose one of: " + kind_names());
    if (r.tokens == 0 || r.d_in == 0 || r.repeat == 0) usage_error("--tokens, --d-in and --repeat must be at least 1");
    // 1. the config as `show` would build it, on T synthetic tokens
    Config c;
    c.kind = r.kind, c.seed = r.seed, c.d_in = c.d_out = r.d_in;
    c.heads = r.heads ? r.heads : kind->default_heads;
    c.kv_heads = r.kv_heads ? r.kv_heads : kind->default_kv_heads;
    if (kind->options & opt_heads && r.d_in % c.heads != 0)
        usage_error("--d-in " + std::to_string(r.d_in) + " does not divide into --heads " + std::to_string(c.heads),
                    "bench projects to d_out = d_in: pick --d-in as a multiple of --heads");
    c.causal = r.causal_given ? r.causal : kind->default_causal;
    c.keep_weights = r.keep_weights;
    c.block_q = r.tokens <= 16 ? 2 : 128, c.block_k = r.tokens <= 16 ? 2 : 128;
    const std::size_t needed = estimate_run_bytes(c, r.tokens, r.tokens, r.d_in);
    const std::size_t limit = r.max_memory ? r.max_memory : default_max_memory();
    if (needed > limit)
        usage_error("this run would need about " + format_bytes(double(needed)) + " of memory, more than --max-memory " +
                        format_bytes(double(limit)),
                    r.keep_weights ? "add --no-weights, or use fewer --tokens" : "use fewer --tokens or a smaller --d-in");
    Inputs in;
    for (std::size_t i = 0; i < r.tokens; ++i) in.tokens.push_back("tok" + std::to_string(i));
    in.x = embed_tokens(in.tokens, r.d_in, r.seed);
    in.source_tokens = in.tokens, in.source_x = in.x;
    // 2. the runs; keep the fastest
    Profile best;
    double best_total = std::numeric_limits<double>::infinity();
    HeadDims d;
    Trace kept;
    std::array<double, static_cast<std::size_t>(Stage::count)> flops{};
    for (std::size_t rep = 0; rep < r.repeat; ++rep) {
        Profile p;
        c.profile = &p;
        const double t0 = now();
        Trace t = run_attention(in, c);  // one trace alive at a time
        const double total = now() - t0 - p.seconds[static_cast<std::size_t>(Stage::init)];  // the forward pass
        if (rep == 0) d = head_dims(t.config, r.d_in), flops = stage_flops(t, d);
        if (total < best_total) {
            best_total = total, best = p;
            if (r.keep_trace) kept = std::move(t);
        }
    }
    BenchResult res;
    res.trace = std::move(kept);
    res.peak_rss_bytes = peak_rss_bytes();  // before sgemm's own buffers
    // 3. the figures
    res.kind = r.kind, res.tokens = r.tokens, res.d_in = r.d_in;
    res.heads = d.heads, res.kv_heads = d.kv_heads, res.keep_weights = r.keep_weights, res.causal = c.causal;
    res.estimated_bytes = needed;
    double counted = 0.0;
    res.init_seconds = best.seconds[static_cast<std::size_t>(Stage::init)];
    for (std::size_t s = 0; s < best.seconds.size(); ++s) {
        if ((best.seconds[s] == 0.0 && flops[s] == 0.0) || s == static_cast<std::size_t>(Stage::init)) continue;
        BenchStage st{kStageNames[s], best.seconds[s], flops[s], best.seconds[s] > 0 ? flops[s] / best.seconds[s] / 1e9 : 0};
        res.stages.push_back(st);
        counted += flops[s];
    }
    res.total = {"total", best_total, counted, counted / best_total / 1e9};
    res.kv_cache_bytes_per_token = 2 * d.kv_heads * d.d_k * sizeof(float);
    res.sgemm_gflops = sgemm_gflops(r.sgemm_size);
    res.ratio = res.total.gflops / res.sgemm_gflops;
    return res;
}

}  // namespace attn
