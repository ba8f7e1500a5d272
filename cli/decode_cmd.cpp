// attn decode: feed the tokens one at a time through a KV cache; print the cache growing, and write
// the JSON ("attn-decode") and the PNGs.
#include <unistd.h>

#include <iostream>
#include <optional>

#include "cli/cli.h"
#include "cli/model_source.h"
#include "cli/common_options.h"
#include "cli/policy/budget.h"
#include "core/kinds/decode.h"
#include "data/base/error.h"
#include "data/inputs/inputs.h"
#include "data/inputs/weights_file.h"
#include "cli/show_options.h"
#include "cli/policy/files.h"
#include "cli/policy/options.h"
#include "cli/policy/outputs.h"
#include "cli/policy/progress.h"
#include "cli/show_model.h"
#include "data/base/files.h"
#include "data/base/defaults.h"
#include "data/base/limits.h"
#include "data/checkpoint/model_checkpoint.h"
#include "render/outputs/figures.h"
#include "render/terminal/decode_terminal.h"
#include "render/trace_io/decode_json.h"
#include "render/text/font.h"
#include "render/page/html.h"
#include "data/text/tokenize.h"

namespace attn::cli {
namespace {

struct DecodeOptions {
    std::optional<std::string> sentence, text_file, example, embeddings;
    std::optional<std::string> weights;  // --weights FILE: the parameters from a file, as attn show's
    std::string kind = "gqa", init = "torch", pos = "none", rope_style = "half";
    std::size_t d_in = kDefaultDIn, d_out = 0, heads = 0, kv_heads = 0, window = kDefaultWindow, max_tokens = kDefaultMaxTokens;
    std::uint64_t seed = kDefaultSeed, rope_base = 10000;
    bool qkv_bias = false, force = false;
    int precision = 2;
    std::optional<std::string> json, png, svg, html, font, max_memory, prefix;
    std::string color = "auto", split = "words";
    std::size_t scale = 2;  // --scale, as attn show's
    std::optional<std::string> model;  // --model DIR|NAME: a real model instead of a seeded kind
    bool offline = false;              // --offline: --model NAME from the cache only
    std::optional<std::size_t> layer, head;  // --model: the layer (and head) whose rows the steps record
    std::optional<std::size_t> max_new_tokens;  // --model: generate up to N tokens (an encoder-decoder: 40)
    std::optional<std::size_t> top_k;            // --model: sampling (greedy without these)
    std::optional<double> temperature, top_p;
    std::optional<std::uint64_t> sample_seed;
};

struct Flag {
    CLI::Option* opt;
    unsigned bit;
};

void run_decode_cmd(const DecodeOptions& o, const std::vector<Flag>& flags, bool d_in_given) {
    // 1. the kind: one that decodes, and options it takes
    const Kind& kind = kind_named(o.kind);
    if (!kind_decodes(kind))
        usage_error("kind '" + o.kind + "' does not decode token by token",
                    "decode takes kinds whose keys come from the sentence: " + decoding_kinds());
    for (const Flag& f : flags) {
        if (f.opt->count() == 0 || (kind.options & f.bit)) continue;
        std::string takers;
        for (const auto& k : kinds())
            if ((k.options & f.bit) && kind_decodes(k)) takers += (takers.empty() ? "" : ", ") + std::string(k.name);
        usage_error(f.opt->get_name() + " does not apply to kind '" + o.kind + "'", "it applies to: " + takers);
    }
    if (o.prefix && !o.png && !o.svg) usage_error("--prefix names images, but no --png folder is given", "add --png DIR");
    check_prefix(o.prefix);
    policy::OutputRequest outputs;  // no clash, nothing over an input; the PNGs start with the kind or --prefix
    outputs.json = o.json, outputs.png = o.png, outputs.svg = o.svg, outputs.html = o.html;
    outputs.sentence_command = "decode";
    outputs.prefix = o.prefix.value_or(o.kind);
    if (o.text_file) outputs.inputs.push_back({"--file", *o.text_file});
    if (o.embeddings) outputs.inputs.push_back({"--embeddings", *o.embeddings});
    if (o.weights) outputs.inputs.push_back({"--weights", *o.weights});
    policy::check_outputs(outputs);
    const double text_scale = o.font ? render::check_font_file(*o.font) : 1.0;
    OutputPlan plan;
    plan.text_scale = text_scale;
    plan.json = o.json.has_value(), plan.png = o.png.has_value(), plan.svg = o.svg.has_value(), plan.html = o.html.has_value();
    plan.scale = static_cast<int>(o.scale), plan.decode = true, plan.force = o.force;
    plan.fewer = "decode fewer tokens, or fewer heads";
    plan.big_json = "decode fewer tokens: the JSON holds every step's rows (or leave out --json, or add --force)";
    if (o.max_memory) plan.max_memory = parse_bytes(*o.max_memory, "--max-memory");
    // 2. the inputs
    InputRequest req;
    req.sentence = o.sentence, req.text_file = o.text_file, req.example = o.example, req.embeddings = o.embeddings;
    if (d_in_given) req.d_in = o.d_in;
    req.default_d_in = o.d_in, req.seed = o.seed, req.max_tokens = o.max_tokens, req.split = parse_split(o.split);
    req.command = "decode";
    Inputs in = make_inputs(req);
    if (o.weights) in.weights = read_weights_file(*o.weights);
    // 3. the settings: the kind's defaults (the registry's), always causal, checked
    SettingsRequest r;
    r.kind = o.kind, r.seed = o.seed, r.init = o.init, r.qkv_bias = o.qkv_bias, r.causal = true;
    const auto given = [](std::size_t v) { return v ? std::optional<std::size_t>(v) : std::nullopt; };
    r.d_out = given(o.d_out), r.heads = given(o.heads), r.kv_heads = given(o.kv_heads), r.window = o.window;
    r.pos = o.pos, r.rope_style = o.rope_style, r.rope_base = static_cast<double>(o.rope_base);
    const RunShape shape{in.x.shape(0), in.source_x.shape(0), in.x.shape(1), in.source_x.shape(1)};
    const Settings c = resolve_settings(r, shape);
    check_settings(c, shape);
    // 4. the run (the full pass and the steps), within --max-memory
    check_run_budget(c, shape, plan);
    const bool quiet = policy::json_to_stdout(outputs);
    policy::Progress progress(::isatty(STDERR_FILENO) && !quiet);
    RunHooks hooks;
    hooks.progress = progress.callback();
    const DecodeTrace d = run_decode(in, c, hooks);
    // 5. outputs
    policy::RunOutputs out(outputs);
    const render::FigureFiles figures{o.prefix.value_or(""), static_cast<int>(o.scale), o.font.value_or("")};
    if (o.json) out.files.push_back({*o.json, render::decode_json_text(d)});
    if (o.png) out.png.add(out.files, render::decode_figures(d, figures, render::FileType::png));
    if (o.svg) out.svg.add(out.files, render::decode_figures(d, figures, render::FileType::svg));
    // the page of the full causal pass, which every step reproduces row by row
    if (o.html) out.files.push_back({*o.html, render::render_html(d.full, {"attn decode", std::nullopt, std::nullopt, std::nullopt})});
    // the folder holds one consistent set: the kind's figures this run did not write go
    policy::write_outputs(outputs, out, render::FileSet::decode);
    if (!quiet) {
        render::DecodeViewOptions v;
        v.precision = o.precision, v.colour = colour_depth(o.color);
        std::cout << render::decode_terminal_view(d, v);
        policy::say_written(outputs, std::cout);
        std::cout.flush();
    }
}

// attn decode --model DIR TEXT: a model brings its own tokens, weights, heads, positions and mask.
void run_decode_model_cmd(const DecodeOptions& o, const CLI::App& cmd) {
    for (const char* name : {"--kind", "--example", "--embeddings", "--d-in", "--d-out", "--seed", "--init", "--weights", "--qkv-bias",
                             "--heads", "--kv-heads", "--window", "--pos", "--rope-base", "--rope-style", "--split", "--max-tokens"})
        if (cmd.count(name) > 0)
            usage_error(std::string(name) + " does not apply to --model",
                        "a model brings its own tokens, weights, heads and positions: drop " + std::string(name));
    if (o.sentence && o.text_file) usage_error("give the text once: as an argument or with --file");
    if (o.prefix && !o.png && !o.svg) usage_error("--prefix names images, but no --png folder is given", "add --png DIR");
    check_prefix(o.prefix);
    // the outputs as a set, before the folder's weights are read: the figures start with --prefix or the family
    ModelDecodeCliOptions m;
    m.model = *o.model, m.layer = o.layer, m.head = o.head, m.precision = o.precision, m.max_new_tokens = o.max_new_tokens;
    m.temperature = o.temperature, m.top_k = o.top_k, m.top_p = o.top_p, m.sample_seed = o.sample_seed;
    m.outputs.json = o.json, m.outputs.png = o.png, m.outputs.svg = o.svg, m.outputs.html = o.html;
    m.outputs.sentence_command = "decode";
    m.outputs.prefix = o.prefix.value_or(read_model_config(*o.model).family->name);
    if (o.text_file) m.outputs.inputs.push_back({"--file", *o.text_file});
    for (const char* name : model_folder_files())
        m.outputs.inputs.push_back({"--model", policy::join_path(*o.model, name)});
    policy::check_outputs(m.outputs);
    m.force = o.force, m.max_memory = o.max_memory, m.font = o.font, m.scale = static_cast<int>(o.scale);
    m.text = o.text_file ? read_text_file(*o.text_file) : o.sentence.value_or("");
    run_decode_model(m);
}

}  // namespace

void setup_decode(CLI::App& app) {
    auto o = std::make_shared<DecodeOptions>();
    auto flags = std::make_shared<std::vector<Flag>>();
    CLI::App* cmd = app.add_subcommand(
        "decode", "Generate as a model does: tokens one at a time, each query over a growing key/value cache");
    cmd->footer(
        "Each step t appends token t's key and value to the cache and attends from its query over the\n"
        "t + 1 cached keys (mask aligned bottom-right). Every step equals row t of the full causal pass.\n\n"
        "Examples:\n"
        "  attn decode \"Your journey starts with one step\"\n"
        "  attn decode --kind mqa --heads 8 --d-out 32 \"the cat sat on the mat\"\n"
        "  attn decode --kind mha --heads 4 --pos rope --png out/ \"the cat sat on the mat\"\n"
        "  attn decode --kind causal --pos alibi --json decode.json \"one two three four\"\n"
        "  attn decode --kind local --window 2 --png out/ --prefix local-w2 --html decode.html \"one two three four\"\n"
        "  attn decode --split chars --color always \"abcdef\"\n"
        "  attn decode --model SmolLM2-135M/ \"Your journey starts with one step\"\n"
        "  attn decode --model SmolLM2-135M/ --layer 3 --png out/ --json steps.json \"Your journey starts with one step\"\n"
        "  attn decode --model SmolLM2-135M/ --max-new-tokens 20 \"Your journey starts with\"\n"
        "  attn decode --model SmolLM2-135M/ --max-new-tokens 20 --temperature 0.7 --top-p 0.9 --sample-seed 3 \"Once upon a time\"");
    auto add = [&](CLI::Option* opt, unsigned bit) {
        flags->push_back({opt, bit});
        return opt;
    };
    cmd->add_option("sentence", o->sentence, "The tokens to feed, in order (UTF-8)");
    cmd->add_option("-k,--kind", o->kind, "Attention kind: " + decoding_kinds())->capture_default_str();
    cmd->add_option("--file", o->text_file, "Read the text from a file ('-' = standard input)");
    cmd->add_option("--example", o->example, "A built-in input: journey (the chapter's 6 tokens, d_in 3)");
    cmd->add_option("--embeddings", o->embeddings, "Token vectors: JSON rows, {\"tokens\", \"x\"}, or a 2-D float .npy");
    CLI::Option* d_in = cmd->add_option("--d-in", o->d_in, "Embedding width")->check(rule("--d-in"))->capture_default_str();
    add(cmd->add_option("--d-out", o->d_out, "Projection width (default: d_in)")->check(rule("--d-out")), opt_d_out);
    cmd->add_option("--seed", o->seed, "Seed for embeddings and weights")->check(rule("--seed"))->capture_default_str();
    add(cmd->add_option("--init", o->init, "Weights: torch (nn.Linear) or torch-rand (torch.rand)")
            ->check(rule("--init"))
            ->capture_default_str(),
        opt_init);
    add(cmd->add_option("--weights", o->weights,
                        "The kind's parameters from FILE instead of --seed (.safetensors, .npz or a trace from attn show --json)"),
        opt_init);
    add(cmd->add_flag("--qkv-bias", o->qkv_bias, "Give the Q/K/V projections a bias"), opt_qkv_bias);
    add(cmd->add_option("--heads", o->heads, "Query heads H")->check(rule("--heads")), opt_heads);
    add(cmd->add_option("--kv-heads", o->kv_heads, "Key/value heads G (gqa; H must divide by G)")->check(rule("--kv-heads")),
        opt_kv_heads);
    add(cmd->add_option("--window", o->window, "local: step t sees keys t - W .. t")->check(rule("--window"))->capture_default_str(),
        opt_window);
    add(cmd->add_option("--pos", o->pos, "Positions: none, sinusoidal, rope, alibi")->check(rule("--pos"))->capture_default_str(),
        opt_pos);
    add(cmd->add_option("--rope-base", o->rope_base, "rope: theta_i = base^(-2i/d_k)")->check(rule("--rope-base"))->capture_default_str(),
        opt_pos);
    add(cmd->add_option("--rope-style", o->rope_style, "rope: half (rotate_half) or interleaved (pairs 2i, 2i+1)")
            ->check(rule("--rope-style"))
            ->capture_default_str(),
        opt_pos);
    cmd->add_option("--max-tokens", o->max_tokens, "Refuse longer inputs")->check(rule("--max-tokens"))->capture_default_str();
    cmd->add_option("--precision", o->precision, "Decimals in the terminal")->check(rule("--precision"))->capture_default_str();
    cmd->add_option("--json", o->json, "Write the steps as JSON to PATH ('-' = standard output only)");
    cmd->add_flag("--force", o->force, "Write a JSON file even above 256 MiB");
    cmd->add_option("--png", o->png, "Write the staircase and cache PNGs into folder DIR (created as needed)");
    bind_prefix_option(*cmd, o->prefix, "the kind");
    bind_figure_options(*cmd, o->svg, o->scale, o->font);
    cmd->add_option("--html", o->html, "Write the interactive page of the full causal pass (one self-contained HTML file) to FILE");
    bind_split_option(*cmd, o->split);
    bind_color_option(*cmd, o->color);
    cmd->add_option("--max-memory", o->max_memory, "Refuse runs estimated above this, e.g. 8G (default: 3/4 of RAM)");
    cmd->add_option("--model", o->model, "A model folder, or a repo id in the Hugging Face cache (gpt2; pulled when missing): its key/value cache per token");
    cmd->add_flag("--offline", o->offline, "--model NAME: use the Hugging Face cache only, never the network (as HF_HUB_OFFLINE=1)");
    cmd->add_option("--layer", o->layer, "--model: the layer whose rows the steps record (default 0)");
    cmd->add_option("--head", o->head, "--model: record only this query head (default: every head of the layer)");
    cmd->add_option("--max-new-tokens", o->max_new_tokens,
                    "--model: generate at most N tokens after the text, stopping at an end token (an encoder-decoder, "
                    "T5, BART, Marian: the text is the source; 40 when not given)");
    cmd->add_option("--temperature", o->temperature, "--model --max-new-tokens: sample, the logits divided by T > 0 (greedy without sampling options)");
    cmd->add_option("--top-k", o->top_k, "--model --max-new-tokens: sample among the K most likely tokens");
    cmd->add_option("--top-p", o->top_p, "--model --max-new-tokens: sample among the fewest most likely tokens whose probability reaches P, in (0, 1]");
    cmd->add_option("--sample-seed", o->sample_seed, "--model: seeds the draws of sampling (default 0; --seed seeds a seeded kind's weights)");
    cmd->callback([o, flags, d_in, cmd] {
        if (o->model) {
            *o->model = model_folder(*o->model, o->offline);
            return run_decode_model_cmd(*o, *cmd);
        }
        if (o->offline) usage_error("--offline applies to --model NAME", "drop --offline");
        for (const char* name : {"--layer", "--head"})
            if (cmd->count(name) > 0)
                usage_error(std::string(name) + " applies to --model", "a seeded decode records every head: drop " + std::string(name));
        for (const char* name : {"--max-new-tokens", "--temperature", "--top-k", "--top-p", "--sample-seed"})
            if (cmd->count(name) > 0)
                usage_error(std::string(name) + " applies to --model: a seeded kind has no vocabulary to generate from",
                            "give a model folder (--model DIR), or drop " + std::string(name));
        if (o->weights) check_weights_options(*cmd, *o->weights);
        run_decode_cmd(*o, *flags, d_in->count() > 0);
    });
}

}  // namespace attn::cli
