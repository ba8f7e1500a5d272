// attn show: run one kind on one sentence; print, and write the JSON trace and the PNGs.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <optional>

#include "cli/cli.h"
#include "core/kinds.h"
#include "data/error.h"
#include "data/inputs.h"
#include "data/validation.h"
#include "render/files.h"
#include "core/budget.h"
#include "render/json.h"
#include "render/npy.h"
#include "render/png.h"
#include "render/progress.h"
#include "render/terminal.h"

namespace attn::cli {
namespace {

struct ShowOptions {
    std::optional<std::string> sentence, text_file, example, embeddings, source, mask_file;
    std::string kind = "causal";
    std::size_t d_in = 16, d_out = 0, heads = 0, kv_heads = 0, window = 2, block_q = 0, block_k = 0;
    std::size_t max_tokens = kDefaultMaxTokens;
    std::uint64_t seed = 123;
    std::string init = "torch", score = "dot", color = "auto";
    bool qkv_bias = false, renorm = false, causal = false, no_causal = false, full = false;
    float dropout = 0.0f;
    int precision = 4;
    std::vector<std::string> show = {"weights"};
    std::optional<std::string> json, png, npy, max_memory;
    bool force = false;
};

struct Flag {
    CLI::Option* opt;
    unsigned bit;
};

bool use_color(const std::string& mode) {
    if (mode == "always") return true;
    if (mode == "never") return false;
    const char* no_color = std::getenv("NO_COLOR");
    const char* term = std::getenv("TERM");
    return ::isatty(STDOUT_FILENO) && !(no_color && *no_color) && !(term && std::string(term) == "dumb");
}

std::size_t auto_block(std::size_t t) { return t <= 16 ? 2 : 64; }

// The option's accepted values, from the validation table (data/validation.h).
CLI::Validator rule(const char* option) {
    const OptionRule& r = option_rule(option);
    std::string desc;
    if (r.type == OptionType::whole) desc = "INT in [" + std::to_string(r.min) + ", " + std::to_string(r.max) + "]";
    if (r.type == OptionType::fraction) desc = "NUMBER in [0, 1)";
    return CLI::Validator([&r](std::string& text) { return check_option_text(r, text); }, desc);
}

void run_show(const ShowOptions& o, const std::vector<Flag>& flags, bool d_in_given) {
    // 1. the kind, and options it does not take
    const KindInfo* kind = find_kind(o.kind);
    if (!kind) usage_error("unknown kind '" + o.kind + "'", "choose one of: " + kind_names() + " (see 'attn kinds')");
    for (const Flag& f : flags) {
        if (f.opt->count() == 0 || (kind->options & f.bit)) continue;
        std::string takers;
        for (const auto& k : kinds())
            if (k.options & f.bit) takers += (takers.empty() ? "" : ", ") + std::string(k.name);
        usage_error(f.opt->get_name() + " does not apply to kind '" + o.kind + "'", "it applies to: " + takers);
    }
    if (o.causal && o.no_causal) usage_error("--causal and --no-causal contradict each other");
    if (o.json) render::check_output_file(*o.json, "--json");
    if (o.png) render::check_output_dir(*o.png, "--png");
    if (o.npy) render::check_output_dir(*o.npy, "--npy");
    OutputPlan plan;
    plan.json = o.json.has_value(), plan.png = o.png.has_value(), plan.npy = o.npy.has_value(), plan.force = o.force;
    if (o.max_memory) plan.max_memory = parse_bytes(*o.max_memory, "--max-memory");
    // 2. the inputs
    InputRequest req;
    req.sentence = o.sentence, req.text_file = o.text_file, req.example = o.example;
    req.embeddings = o.embeddings, req.source = o.source, req.mask_file = o.mask_file;
    if (d_in_given) req.d_in = o.d_in;
    req.default_d_in = o.d_in, req.seed = o.seed, req.max_tokens = o.max_tokens;
    const Inputs in = make_inputs(req);
    // 3. the effective settings: defaults follow the kind
    Config c;
    c.kind = o.kind, c.seed = o.seed, c.init = o.init, c.d_in = in.x.shape(1);
    c.d_out = o.d_out ? o.d_out : c.d_in;
    c.heads = o.heads ? o.heads : kind->default_heads;
    c.kv_heads = o.kv_heads ? o.kv_heads : kind->default_kv_heads;
    c.causal = o.causal ? true : o.no_causal ? false : kind->default_causal;
    c.qkv_bias = o.qkv_bias, c.dropout = o.dropout, c.score = o.score, c.renorm = o.renorm;
    if (kind->options & opt_window) c.window = o.window;
    c.block_q = o.block_q ? o.block_q : auto_block(in.tokens.size());
    c.block_k = o.block_k ? o.block_k : auto_block(in.source_tokens.size());
    if (kind->options & opt_heads && !o.d_out && c.d_out % c.heads != 0)
        c.d_out = c.heads * ((c.d_out + c.heads - 1) / c.heads);  // keep the default divisible
    // 4. the run, within --max-memory; progress on a terminal once it lasts a second
    check_show_budget(c, in.tokens.size(), in.source_tokens.size(), in.source_x.shape(1), plan);
    const bool json_to_stdout = o.json && *o.json == "-";
    render::Progress progress(::isatty(STDERR_FILENO) && !json_to_stdout);
    c.progress = progress.callback();
    const Trace t = run_attention(in, c);
    // 5. the outputs: terminal, JSON, PNGs, .npy files
    if (!t.empty_rows.empty())
        std::cerr << "attn: note: " << t.empty_rows.size()
                  << " query row(s) see no key; their weights and context are 0\n";
    std::vector<render::OutputFile> files;
    if (o.json) files.push_back({*o.json, render::trace_json_text(t)});
    if (o.png) {
        progress("rendering images", 0, 1);
        for (auto& f : render::render_pngs(t, {})) files.push_back({render::join_path(*o.png, f.name), std::move(f.bytes)});
    }
    if (o.npy)
        for (auto& f : render::npy_files(t, {})) files.push_back({render::join_path(*o.npy, f.name), std::move(f.bytes)});
    progress("writing files", files.size(), files.size());
    render::write_files_atomic(files);
    if (!json_to_stdout) {
        render::TerminalOptions topt;
        topt.precision = o.precision, topt.show = o.show, topt.color = use_color(o.color), topt.full = o.full;
        std::cout << render::terminal_view(t, topt);
        if (o.json) std::cout << "wrote " << *o.json << "\n";
        if (o.png) std::cout << "wrote PNGs to " << *o.png << "\n";
        if (o.npy) std::cout << "wrote .npy files to " << *o.npy << "\n";
        std::cout.flush();
    }
}

}  // namespace

void setup_show(CLI::App& app) {
    auto o = std::make_shared<ShowOptions>();
    auto flags = std::make_shared<std::vector<Flag>>();
    CLI::App* cmd = app.add_subcommand("show", "Run one attention kind on a sentence and show every stage");
    cmd->footer(
        "Examples:\n"
        "  attn show --kind causal \"Your journey starts\"\n"
        "  attn show --example journey --kind simple --show weights,context\n"
        "  attn show --kind cross \"Wie geht es\" --source \"How are you\" --png out/\n"
        "  attn show --kind gqa --heads 6 --kv-heads 2 --d-out 12 \"The cat sat on the mat.\"\n"
        "  attn show --kind flash --causal --block-q 2 --block-k 3 \"Your journey starts with one step\"\n"
        "  attn show --file essay.txt --kind causal --json trace.json");
    auto add = [&](CLI::Option* opt, unsigned bit) {
        flags->push_back({opt, bit});
        return opt;
    };
    cmd->add_option("sentence", o->sentence, "The sentence to attend over (UTF-8)");
    cmd->add_option("-k,--kind", o->kind, "Attention kind (see 'attn kinds')")->capture_default_str();
    cmd->add_option("--file", o->text_file, "Read the text from a file ('-' = standard input)");
    cmd->add_option("--example", o->example, "A built-in input: journey (the chapter's 6 tokens, d_in 3)");
    cmd->add_option("--embeddings", o->embeddings,
                    "Token vectors: JSON rows, {\"tokens\", \"x\"}, or a 2-D float .npy");
    add(cmd->add_option("--source", o->source, "Source text for keys and values (cross, additive, luong)"),
        opt_source);
    cmd->add_option("--mask", o->mask_file, "A (T, S) mask file: JSON booleans or 0/1, or bool/uint8 .npy");
    CLI::Option* d_in = cmd->add_option("--d-in", o->d_in, "Embedding width")->check(rule("--d-in"))->capture_default_str();
    add(cmd->add_option("--d-out", o->d_out, "Projection width (default: d_in)")->check(rule("--d-out")), opt_d_out);
    cmd->add_option("--seed", o->seed, "Seed for embeddings, weights and dropout")
        ->check(rule("--seed"))
        ->capture_default_str();
    add(cmd->add_option("--init", o->init, "Weights: torch (nn.Linear) or torch-rand (torch.rand)")
            ->check(rule("--init"))
            ->capture_default_str(),
        opt_init);
    add(cmd->add_flag("--qkv-bias", o->qkv_bias, "Give the Q/K/V projections a bias"), opt_qkv_bias);
    add(cmd->add_option("--dropout", o->dropout, "Dropout on the weights, 0 <= P < 1")->check(rule("--dropout")),
        opt_dropout);
    add(cmd->add_option("--heads", o->heads, "Query heads H")->check(rule("--heads")), opt_heads);
    add(cmd->add_option("--kv-heads", o->kv_heads, "Key/value heads G (gqa; H must divide by G)")
            ->check(rule("--kv-heads")),
        opt_kv_heads);
    add(cmd->add_option("--window", o->window, "local: query i sees keys with |i - j| <= W")
            ->check(rule("--window"))
            ->capture_default_str(),
        opt_window);
    add(cmd->add_option("--score", o->score, "luong: dot, general or concat")
            ->check(rule("--score"))
            ->capture_default_str(),
        opt_score);
    add(cmd->add_option("--block-q", o->block_q, "flash: query rows per tile (default 2 for ≤16 tokens, else 64)")
            ->check(rule("--block-q")),
        opt_blocks);
    add(cmd->add_option("--block-k", o->block_k, "flash: key columns per tile")->check(rule("--block-k")),
        opt_blocks);
    add(cmd->add_flag("--renorm", o->renorm, "causal: softmax, zero the future, renormalise"), opt_renorm);
    add(cmd->add_flag("--causal", o->causal, "Hide future keys (j > i)"), opt_causal);
    add(cmd->add_flag("--no-causal", o->no_causal, "See every key"), opt_causal);
    cmd->add_option("--max-tokens", o->max_tokens, "Refuse longer inputs")
        ->check(rule("--max-tokens"))
        ->capture_default_str();
    cmd->add_option("--show", o->show, "Matrices to print: scores,mask,weights,dropped,context,queries,keys,values,output")
        ->delimiter(',')
        ->check(rule("--show"))
        ->capture_default_str();
    cmd->add_option("--precision", o->precision, "Decimals in the terminal")->check(rule("--precision"))->capture_default_str();
    cmd->add_option("--color", o->color, "Shade cells: auto (terminal, no NO_COLOR), always, never")
        ->check(rule("--color"))
        ->capture_default_str();
    cmd->add_flag("--full", o->full, "Print every row and column of large matrices");
    cmd->add_option("--json", o->json, "Write the JSON trace to PATH ('-' = standard output only)");
    cmd->add_option("--png", o->png, "Write heatmap PNGs into folder DIR (created as needed)");
    cmd->add_option("--npy", o->npy, "Write every matrix as a NumPy .npy file into folder DIR");
    cmd->add_option("--max-memory", o->max_memory, "Refuse runs estimated above this, e.g. 8G (default: 3/4 of RAM)");
    cmd->add_flag("--force", o->force, "Write a JSON trace even above 256 MiB (--npy is the better choice)");
    cmd->callback([o, flags, d_in] { run_show(*o, *flags, d_in->count() > 0); });
}

}  // namespace attn::cli
