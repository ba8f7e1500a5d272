// attn bench: per-stage time, FLOPs and GFLOP/s of a kind on synthetic tokens, beside this machine's sgemm.
#include <cstdio>
#include <iostream>

#include "cli/cli.h"
#include "core/bench.h"
#include "core/budget.h"
#include "data/error.h"
#include "render/files.h"
#include "render/json.h"
#include "render/bench_png.h"

namespace attn::cli {
namespace {

struct BenchOptions {
    BenchRequest req;
    std::string json, max_memory;
    bool causal = false, no_causal = false, no_weights = false, png = false;
};

void print_table(const BenchResult& r) {
    std::printf("attn bench · %s · T=%zu d_in=%zu H=%zu G=%zu · %s%s\n", r.kind.c_str(), r.tokens, r.d_in, r.heads,
                r.kv_heads, r.keep_weights ? "weights kept" : "no weights", r.causal ? " · causal" : "");
    std::printf("%-12s %10s %10s %10s\n", "stage", "seconds", "GFLOP", "GFLOP/s");
    for (const auto& s : r.stages)
        if (s.name != "png")
            std::printf("%-12s %10.4f %10.3f %10s\n", s.name.c_str(), s.seconds, s.flops / 1e9,
                        s.flops > 0 ? std::to_string(int(s.gflops + 0.5)).c_str() : "-");
    std::printf("%-12s %10.4f %10.3f %10.1f\n", "total", r.total.seconds, r.total.flops / 1e9, r.total.gflops);
    std::printf("(drawing the parameters took %.4f s more; not part of the forward pass)\n", r.init_seconds);
    for (const auto& s : r.stages)
        if (s.name == "png")
            std::printf("png: head 0's %zu×%zu weights heatmap rendered and encoded in %.3f s (%s)\n", r.tokens,
                        r.tokens, s.seconds, format_bytes(double(r.png_bytes)).c_str());
    std::printf("sgemm 2048³ on this machine: %.1f GFLOP/s; attention runs at %.0f%% of it\n", r.sgemm_gflops,
                100.0 * r.ratio);
    std::printf("peak resident memory: %s (estimated %s); key/value cache: %zu bytes per token\n",
                format_bytes(double(r.peak_rss_bytes)).c_str(), format_bytes(double(r.estimated_bytes)).c_str(),
                r.kv_cache_bytes_per_token);
}

render::Json to_json(const BenchResult& r) {
    render::Json j;
    j["kind"] = r.kind, j["tokens"] = r.tokens, j["d_in"] = r.d_in, j["heads"] = r.heads, j["kv_heads"] = r.kv_heads;
    j["weights"] = r.keep_weights, j["causal"] = r.causal;
    j["stages"] = render::Json::array();
    for (const auto& s : r.stages)
        j["stages"].push_back({{"name", s.name}, {"seconds", s.seconds}, {"flops", s.flops}, {"gflops", s.gflops}});
    j["total"] = {{"seconds", r.total.seconds}, {"flops", r.total.flops}, {"gflops", r.total.gflops}};
    j["sgemm_gflops"] = r.sgemm_gflops, j["ratio"] = r.ratio;
    j["peak_rss_bytes"] = r.peak_rss_bytes, j["kv_cache_bytes_per_token"] = r.kv_cache_bytes_per_token;
    j["estimated_bytes"] = r.estimated_bytes;
    j["init_seconds"] = r.init_seconds;
    if (r.png_bytes) j["png_bytes"] = r.png_bytes;
    return j;
}

}  // namespace

void setup_bench(CLI::App& app) {
    auto o = std::make_shared<BenchOptions>();
    CLI::App* cmd = app.add_subcommand("bench", "Time each stage of a kind on synthetic tokens, beside sgemm");
    cmd->footer(
        "Examples:\n"
        "  attn bench --kind mha --tokens 2048 --d-in 768 --heads 12\n"
        "  attn bench --kind gqa --tokens 4096 --d-in 768 --heads 12 --kv-heads 4 --json -\n"
        "  attn bench --kind flash --tokens 16384 --d-in 768 --heads 12 --no-weights\n"
        "FLOPs count a multiply-add as 2 (full, unmasked counts); the softmax is timed, not counted.");
    cmd->add_option("-k,--kind", o->req.kind, "Attention kind (see 'attn kinds')")->capture_default_str();
    cmd->add_option("--tokens", o->req.tokens, "Synthetic tokens T")->check(CLI::Range(1, 1 << 20))->capture_default_str();
    cmd->add_option("--d-in", o->req.d_in, "Embedding width (the projections keep it)")
        ->check(CLI::Range(1, 65536))
        ->capture_default_str();
    cmd->add_option("--heads", o->req.heads, "Query heads H (default: the kind's)")->check(CLI::Range(1, 1024));
    cmd->add_option("--kv-heads", o->req.kv_heads, "Key/value heads G (gqa)")->check(CLI::Range(1, 1024));
    cmd->add_option("--repeat", o->req.repeat, "Runs; the fastest is reported")->check(CLI::Range(1, 1000))->capture_default_str();
    cmd->add_flag("--no-weights", o->no_weights, "Keep only what the output needs (flash: no (T, S) matrix at all)");
    cmd->add_flag("--png", o->png, "Also time the weights heatmap of head 0 as a PNG (rendered in memory)");
    cmd->add_flag("--causal", o->causal, "Hide future keys");
    cmd->add_flag("--no-causal", o->no_causal, "See every key");
    cmd->add_option("--seed", o->req.seed, "Seed")->capture_default_str();
    cmd->add_option("--max-memory", o->max_memory, "Refuse runs estimated above this (default: 3/4 of RAM), e.g. 8G");
    cmd->add_option("--json", o->json, "Print the result as JSON ('-' = standard output)");
    cmd->callback([o] {
        BenchRequest r = o->req;
        if (o->causal && o->no_causal) usage_error("--causal and --no-causal contradict each other");
        r.causal_given = o->causal || o->no_causal, r.causal = o->causal;
        r.keep_weights = !o->no_weights;
        r.keep_trace = o->png;
        if (!o->max_memory.empty()) r.max_memory = parse_bytes(o->max_memory, "--max-memory");
        BenchResult res = run_bench(r);
        if (o->png) render::time_weights_png(res);
        if (o->json.empty() || o->json != "-") print_table(res);
        if (!o->json.empty()) render::write_file_atomic(o->json, to_json(res).dump(2) + "\n");
    });
}

}  // namespace attn::cli
