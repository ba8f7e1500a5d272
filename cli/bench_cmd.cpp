// attn bench: per-stage time, FLOPs and GFLOP/s of a kind on synthetic tokens, beside this machine's sgemm.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/cli.h"
#include "cli/model_source.h"
#include "cli/common_options.h"
#include "cli/policy/bench_png.h"
#include "cli/policy/budget.h"
#include "cli/policy/progress.h"
#include "cli/policy/files.h"
#include "cli/policy/outputs.h"
#include "cli/policy/options.h"
#include "cli/show_model.h"
#include "core/kinds/bench.h"
#include "data/base/error.h"
#include "data/base/limits.h"
#include "render/trace_io/json.h"

namespace attn::cli {
namespace {

struct BenchOptions {
    CommonOptions common;
    std::size_t tokens = 1024, repeat = 1;
    std::string json, color = "auto";
    bool no_weights = false, png = false, small_run = false;
    std::string model;  // --model DIR|NAME
    bool offline = false;  // --offline
};

// Bench's own whole-number options, checked and worded as the validation table's.
CLI::Validator whole(const OptionRule& r) {
    return CLI::Validator([&r](std::string& text) { return check_option_text(r, text); },
                          "INT in [" + std::to_string(r.min) + ", " + std::to_string(r.max) + "]");
}
const OptionRule kTokensRule{"--tokens", OptionType::whole, 1, kMaxTokensLimit, {}, false, "0"};
const OptionRule kRepeatRule{"--repeat", OptionType::whole, 1, 1000, {}, false, "0"};

void print_table(const BenchResult& r) {
    std::printf("attn bench · %s · T=%zu d_in=%zu d_out=%zu H=%zu G=%zu · seed %llu · %s%s\n", r.kind.c_str(), r.tokens,
                r.d_in, r.d_out, r.heads, r.kv_heads, static_cast<unsigned long long>(r.seed),
                r.keep_weights ? (r.keep_scores ? "weights kept" : "weights kept (raw scores not)") : "no weights", r.causal ? " · causal" : "");
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
    j["kind"] = r.kind, j["tokens"] = r.tokens, j["d_in"] = r.d_in, j["d_out"] = r.d_out, j["heads"] = r.heads;
    j["kv_heads"] = r.kv_heads, j["seed"] = r.seed;
    j["weights"] = r.keep_weights, j["scores"] = r.keep_weights && r.keep_scores, j["causal"] = r.causal;
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

void print_small_run(const policy::SmallRunTimes& r) {
    std::printf("attn bench --small-run · show --kind causal \"%s\" --json F --png D, in memory · best of %zu\n",
                r.sentence.c_str(), r.repeat);
    std::printf("%-10s %10s\n", "part", "seconds");
    std::printf("%-10s %10.4f\n", "compute", r.compute);
    std::printf("%-10s %10.4f   %s of JSON\n", "json", r.json, format_bytes(double(r.json_bytes)).c_str());
    std::printf("%-10s %10.4f   %zu figures, %.1f million pixels\n", "drawing", r.drawing, r.figures, double(r.png_pixels) / 1e6);
    std::printf("%-10s %10.4f   %s of PNG\n", "encoding", r.encoding, format_bytes(double(r.png_bytes)).c_str());
    std::printf("%-10s %10.4f   the figures as show makes them: kept once, then drawn and deflated strip by strip on every core\n", "figures", r.drawn_ahead);
    std::printf("%-10s %10.4f   (compute, json and figures in the fastest run; a process adds its start and the files' writes)\n", "total", r.total);
}

render::Json small_run_json(const policy::SmallRunTimes& r) {
    render::Json j;
    j["small_run"] = {{"sentence", r.sentence}, {"kind", "causal"}, {"repeat", r.repeat}};
    j["seconds"] = {{"compute", r.compute}, {"json", r.json}, {"drawing", r.drawing}, {"encoding", r.encoding}, {"figures", r.drawn_ahead}, {"total", r.total}};
    j["json_bytes"] = r.json_bytes, j["png_bytes"] = r.png_bytes, j["png_pixels"] = r.png_pixels, j["figures"] = r.figures;
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
        "  attn bench --model gpt2/ --tokens 256\n"
        "  attn bench --small-run\n"
        "FLOPs count a multiply-add as 2 (full, unmasked counts); the softmax is timed, not counted.");
    bind_common_options(*cmd, o->common, "mha", 768, "Embedding width (d_out defaults to it)");
    cmd->add_option("--tokens", o->tokens, "Synthetic tokens T")->check(whole(kTokensRule))->capture_default_str();
    cmd->add_option("--repeat", o->repeat, "Runs; the fastest is reported")->check(whole(kRepeatRule))->capture_default_str();
    cmd->add_flag("--no-weights", o->no_weights, "Keep only what the output needs (flash: no (T, S) matrix at all)");
    cmd->add_flag("--small-run", o->small_run, "Time the chapter's small run instead (show --kind causal \"Your journey starts with one step\" --json F --png D, in memory): compute, JSON, drawing, encoding; best of --repeat (10 unless given)");
    cmd->add_flag("--time-png", o->png, "Also time drawing and encoding the weights heatmap of head 0 as a PNG (in memory; nothing is written)");
    CLI::Option* cmd_json = cmd->add_option("--json", o->json, "Write the result as JSON to PATH ('-' = standard output only)");
    bind_color_option(*cmd, o->color);  // the table has no shaded cells; taken as every command takes it
    cmd->add_option("--model", o->model, "Time a model folder's run instead, or a repo id in the Hugging Face cache (stages: load, tokenise, forward, predictions)");
    cmd->add_flag("--offline", o->offline, "--model NAME: use the Hugging Face cache only, never the network (as HF_HUB_OFFLINE=1)");
    cmd->callback([o, cmd, cmd_json] {
        if (o->small_run) {
            for (const CLI::Option* opt : cmd->get_options())
                if (opt->count() > 0 && opt->get_name() != "--small-run" && opt->get_name() != "--repeat" && opt->get_name() != "--json" &&
                    opt->get_name() != "--color")
                    usage_error(opt->get_name() + " does not apply to --small-run", "attn bench --small-run [--repeat R] [--json PATH]");
            policy::OutputRequest outputs;
            if (cmd_json->count() > 0) outputs.json = o->json;
            policy::check_outputs(outputs);
            const policy::SmallRunTimes r = policy::time_small_run(cmd->get_option("--repeat")->count() ? o->repeat : 10);
            policy::RunOutputs out(outputs);
            if (outputs.json) out.files.push_back({o->json, small_run_json(r).dump(2) + "\n"});
            policy::write_outputs(outputs, out, render::FileSet::show);
            if (!policy::json_to_stdout(outputs)) {
                print_small_run(r);
                std::fflush(stdout);
                policy::say_written(outputs, std::cout);
            }
            return;
        }
        if (!o->model.empty()) {
            std::vector<CLI::Option*> seeded_only;
            for (const auto& k : o->common.kind_options) seeded_only.push_back(k.option);
            for (const char* name : {"--kind", "--d-in", "--seed", "--no-weights", "--time-png", "--json", "--max-memory"})
                seeded_only.push_back(cmd->get_option(name));
            for (const CLI::Option* opt : seeded_only)
                if (opt->count() > 0)
                    usage_error(opt->get_name() + " does not apply to --model", "attn bench --model DIR [--tokens N] [--repeat R]");
            return run_bench_model(model_folder(o->model, o->offline), cmd->get_option("--tokens")->count() ? o->tokens : 256, o->repeat);
        }
        // 1. the options, checked as `show` checks them; the settings the kind resolves
        check_common_options(o->common);
        policy::OutputRequest outputs;  // checked as show's: '' refused, folders too
        if (cmd_json->count() > 0) outputs.json = o->json;
        policy::check_outputs(outputs);
        const bool json_to_stdout = policy::json_to_stdout(outputs);
        BenchRequest r;
        r.tokens = o->tokens, r.repeat = o->repeat, r.keep_trace = o->png;
        SettingsRequest want = settings_request(o->common);
        want.keep_weights = !o->no_weights;
        const RunShape shape{r.tokens, r.tokens, o->common.d_in, o->common.d_in};
        r.settings = resolve_settings(want, shape);
        r.settings.keep_scores = false;  // the weights kept, each head's softmax in its scores' buffer (as need_weights returns)
        check_settings(r.settings, shape);
        // 2. the budget, then the runs
        OutputPlan plan;
        plan.max_memory = max_memory_bytes(o->common);
        plan.fewer = o->no_weights ? "use fewer --tokens or a smaller --d-in" : "add --no-weights, or use fewer --tokens";
        check_run_budget(r.settings, shape, plan);
        policy::Progress progress(::isatty(STDERR_FILENO) && !json_to_stdout);  // runs over a second, as show's
        r.progress = progress.callback();
        BenchResult res = run_bench(r);
        if (o->png) policy::time_weights_png(res);
        // the file first: a failed write (/dev/full) fails before any report is printed
        policy::RunOutputs out(outputs);
        if (outputs.json) out.files.push_back({o->json, to_json(res).dump(2) + "\n"});
        policy::write_outputs(outputs, out, render::FileSet::show);
        if (!json_to_stdout) {
            print_table(res);
            std::fflush(stdout);  // the table went through stdio
            policy::say_written(outputs, std::cout);
        }
    });
}

}  // namespace attn::cli
