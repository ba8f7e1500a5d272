// attn show: run one kind on one sentence; print, and write the JSON trace and the PNGs.
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "cli/cli.h"
#include "cli/model_source.h"
#include "cli/common_options.h"
#include "cli/show_options.h"
#include "cli/policy/budget.h"
#include "cli/policy/files.h"
#include "cli/policy/options.h"
#include "cli/policy/outputs.h"
#include "cli/policy/progress.h"
#include "cli/show_model.h"
#include "data/checkpoint/model_checkpoint.h"
#include "core/kinds/kinds.h"
#include "data/base/defaults.h"
#include "data/base/error.h"
#include "data/inputs/inputs.h"
#include "data/inputs/weights_file.h"
#include "render/page/html.h"
#include "render/trace_io/json.h"
#include "render/trace_io/npy.h"
#include "render/text/font.h"
#include "render/outputs/figures.h"
#include "render/view/colour_scale.h"
#include "render/trace_io/file_names.h"
#include "render/terminal/terminal.h"

namespace attn::cli {
namespace {

// The terminal's width: COLUMNS when set (as shells export it), else the terminal's own size, else 80.
std::size_t terminal_width() {
    if (const char* c = std::getenv("COLUMNS")) {
        char* end = nullptr;
        const long v = std::strtol(c, &end, 10);
        if (end != c && *end == '\0' && v >= 20 && v <= 10000) return static_cast<std::size_t>(v);
    }
    struct winsize ws {};
    if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

// --model: a trained model instead of a seeded kind; options that only make sense for seeded kinds are refused.
void run_model(const ShowOptions& o, const std::vector<CLI::Option*>& seeded_only, render::ColourDepth colour) {
    ModelShowOptions m = model_show_options(o, seeded_only);
    // outputs checked as for the seeded kinds: no clash, nothing over the text or the model's own files
    policy::OutputRequest outputs;
    outputs.json = o.json, outputs.png = o.png, outputs.npy = o.npy, outputs.html = o.html, outputs.svg = o.svg;
    outputs.sentence_command = "show";
    if ((o.figures || o.prefix) && !o.png && !o.svg)
        usage_error(std::string(o.prefix ? "--prefix" : "--figures") + " names images, but no --png or --svg folder is given",
                    "add --png DIR");
    if (o.prefix)
        if (const auto name = render::prefix_clash(*o.prefix))
            usage_error("--prefix '" + *o.prefix + "' gives names like " + *name + ", which attn also writes for a shorter prefix",
                        "choose a prefix that does not end in -l<N>, -h<N> or a figure's first word");
    // the figures start with --prefix or the model's family (gpt2, llama, ...): its config names it
    outputs.prefix = o.prefix.value_or(read_model_config(*o.model).family->name), outputs.npy_prefix = render::kModelArrayPrefix;
    if (o.text_file) outputs.inputs.push_back({"--file", *o.text_file});
    for (const char* name : model_folder_files())
        outputs.inputs.push_back({"--model", policy::join_path(*o.model, name)});
    policy::check_outputs(outputs);
    m.colour = colour, m.width = terminal_width(), m.outputs = outputs;
    run_show_model(m);
}

void run_show(const ShowOptions& o) {
    // 1. the kind, and options it does not take; the outputs
    const Kind& kind = check_seeded_options(o);
    for (const std::string& s : split_list(o.show))
        if (s == "mean" || s == "rollout")
            usage_error("--show " + s + ": a layer's " + (s == "mean" ? "mean over heads" : "attention rollout") + " belongs to a model run",
                        "attn show --model DIR --show " + s + " \"text\", or attn render TRACE.json --show " + s + " --png DIR");
    if (o.figures && !o.query && ("," + *o.figures + ",").find(",query,") != std::string::npos)
        usage_error("--figures query draws one query's strip, but no --query is given", "add --query I, e.g. --query 0");
    if (o.figures && ("," + *o.figures + ",").find(",products,") != std::string::npos)
        usage_error("--figures products draws a model head's query-key products, and a seeded kind has no model",
                    "attn show --model DIR --show queries,keys --query I --png DIR \"text\"");
    if ((o.figures || o.prefix) && !o.png && !o.svg)
        usage_error(std::string(o.prefix ? "--prefix" : "--figures") + " names images, but no --png folder is given",
                    "add --png DIR");
    if (o.no_live && !o.html) usage_error("--no-live leaves the live panel out of the --html page, but no --html is given", "add --html FILE");
    policy::OutputRequest outputs;
    outputs.json = o.json, outputs.png = o.png, outputs.npy = o.npy, outputs.svg = o.svg, outputs.html = o.html;
    outputs.sentence_command = "show";
    check_prefix(o.prefix);
    outputs.prefix = o.prefix.value_or(o.common.kind), outputs.npy_prefix = o.common.kind;
    if (o.text_file) outputs.inputs.push_back({"--file", *o.text_file});
    if (o.embeddings) outputs.inputs.push_back({"--embeddings", *o.embeddings});
    if (o.mask_file) outputs.inputs.push_back({"--mask", *o.mask_file});
    if (o.weights) outputs.inputs.push_back({"--weights", *o.weights});
    policy::check_outputs(outputs);
    const double text_scale = o.font ? render::check_font_file(*o.font) : 1.0;
    OutputPlan plan;
    plan.text_scale = text_scale;
    plan.json = o.json.has_value(), plan.png = o.png.has_value(), plan.npy = o.npy.has_value(), plan.force = o.force;
    plan.svg = o.svg.has_value(), plan.html = o.html.has_value(), plan.scale = static_cast<int>(o.scale);
    plan.max_memory = max_memory_bytes(o.common);
    // 2.-4. the inputs, the settings, the run's budget (cli/show_options.cpp)
    SeededRun run = prepare_seeded_run(o, plan);
    if (o.weights) run.in.weights = read_weights_file(*o.weights);
    const Settings& c = run.settings;
    const render::ColourSpec scale = colour_spec(o.scale_colours);
    const bool quiet = policy::json_to_stdout(outputs);
    policy::Progress progress(::isatty(STDERR_FILENO) && !quiet);
    RunHooks hooks;
    hooks.progress = progress.callback();
    const Trace t = run_attention(run.in, c, hooks);
    // said once the run succeeded (a failing run's one line is its error)
    if (kind.source == SourceRule::optional && !o.source)
        std::cerr << "attn: note: kind '" << kind.name << "' without --source: the sentence attends over itself\n";
    // 5. the outputs: terminal, JSON, PNGs, .npy files
    if (!t.empty_rows.empty())
        std::cerr << "attn: note: " << t.empty_rows.size()
                  << " query row(s) see no key; their weights and context are 0\n";
    policy::RunOutputs out(outputs);
    if (o.json) out.files.push_back({*o.json, render::trace_json_text(t)});
    render::FigureOptions fopt;
    fopt.query = o.query, fopt.prefix = o.prefix.value_or(""), fopt.colour = scale;
    fopt.figures = o.figures ? split_list(*o.figures) : std::vector<std::string>{};
    fopt.font_file = o.font.value_or(""), fopt.values = cell_values(o.values);
    fopt.decimals = o.precision_given ? o.precision : 2;
    fopt.scale = static_cast<int>(o.scale);
    fopt.warn = [](const std::string& msg) { std::cerr << "attn: warning: " << msg << "\n"; };
    const render::FigureFiles charts{fopt.prefix, fopt.scale, fopt.font_file};
    for (auto [folder, type] : {std::pair{&out.png, render::FileType::png}, std::pair{&out.svg, render::FileType::svg}}) {
        if (folder->dir.empty()) continue;
        progress(type == render::FileType::png ? "rendering images" : "writing SVG figures", 0, 1);
        folder->add(out.files, render::render_figures(t, fopt, type));
        folder->add(out.files, render::position_figures(t, charts, type));
        fopt.warn = nullptr;  // a missing glyph is said once
    }
    if (o.npy) out.npy.add(out.files, render::npy_files(t, {}));
    if (o.html) {
        progress("writing the page", 0, 1);
        render::HtmlOptions page{"attn show", std::nullopt, std::nullopt, std::nullopt};
        page.colour = scale;
        // the live panel reruns typed text with seeded parameters: not the file's, so it stays out
        if (!o.no_live && !o.weights) page.live = live_words(o, t.tokens, t.source_tokens);
        out.files.push_back({*o.html, render::render_html(t, page)});
    }
    progress("writing files", out.files.size(), out.files.size());
    policy::write_outputs(outputs, out, render::FileSet::show);
    if (!quiet) {
        render::TerminalOptions topt;
        topt.precision = o.precision, topt.show = split_list(o.show), topt.colour = colour_depth(o.color), topt.full = o.full;
        topt.width = terminal_width(), topt.query = o.query, topt.scale = scale;
        topt.head = o.head;
        render::write_terminal_view(std::cout, t, topt);
        policy::say_written(outputs, std::cout);
        std::cout.flush();
    }
}

}  // namespace

void setup_show(CLI::App& app) {
    auto o = std::make_shared<ShowOptions>();
    std::vector<CLI::Option*> seeded_only;
    bind_show_options(app, *o, seeded_only);
    o->cmd->callback([o, seeded_only] {
        if (o->model) {
            *o->model = model_folder(*o->model, o->offline);
            run_model(*o, seeded_only, colour_depth(o->color));
        }
        else if (o->offline) usage_error("--offline applies to --model NAME", "drop --offline");
        else run_show(*o);
    });
}

}  // namespace attn::cli
