// attn decode: feed the tokens one at a time through a KV cache; print the cache growing, and write
// the JSON ("attn-decode") and the PNGs.
#include <unistd.h>

#include <iostream>
#include <optional>

#include "cli/cli.h"
#include "cli/model_source.h"
#include "cli/common_options.h"
#include "cli/decode_options.h"
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

void run_decode_cmd(const DecodeOptions& o) {
    // 1. the kind: one that decodes, and options it takes
    check_decode_kind(o);
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
    plan.scale = static_cast<int>(o.scale), plan.force = o.force;
    plan.fewer = "decode fewer tokens, or fewer heads";
    plan.big_json = "decode fewer tokens: the JSON holds every step's rows (or leave out --json, or add --force)";
    if (o.max_memory) plan.max_memory = parse_bytes(*o.max_memory, "--max-memory");
    // 2. the inputs
    Inputs in = decode_inputs(o);
    if (o.weights) in.weights = read_weights_file(*o.weights);
    // 3. the settings: the kind's defaults (the registry's), always causal, checked; 4. the run (the full
    // pass and the steps) within --max-memory
    const Settings c = decode_settings(o, in, plan);
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
    CLI::App* cmd = bind_decode_options(app, *o);
    cmd->callback([o, cmd] {
        if (o->model) {
            *o->model = model_folder(*o->model, o->offline);
            return run_decode_model_cmd(*o, *cmd);
        }
        check_seeded_decode_options(*o);
        run_decode_cmd(*o);
    });
}

}  // namespace attn::cli
