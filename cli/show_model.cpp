// attn show --model DIR: read the folder, tokenise, run the model, print and write the outputs.
#include "cli/show_model.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <vector>

#include "cli/policy/budget.h"
#include "core/budget.h"
#include "core/model.h"
#include "data/error.h"
#include "data/model_checkpoint.h"
#include "data/bpe_tokenizer.h"
#include "data/npy.h"
#include "cli/policy/files.h"
#include "render/text/font.h"
#include "cli/policy/outputs.h"
#include "render/trace_io/file_names.h"
#include "render/page/html.h"
#include "render/outputs/model_figures.h"
#include "render/terminal/model_terminal.h"
#include "render/trace_io/json_out.h"
#include "render/trace_io/npy.h"
#include "cli/policy/progress.h"

namespace attn::cli {
namespace {

// The text: the argument, or --file (standard input for '-').
std::string model_text(const ModelShowOptions& o) {
    if (o.sentence && o.text_file) usage_error("give the text once: as an argument or with --file");
    if (o.text_file) {
        std::string text = *o.text_file == "-" ? read_stdin("text") : read_file(*o.text_file, "text file");
        if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // a byte order mark is not text
        return text;
    }
    if (!o.sentence) usage_error("no text given", "attn show --model DIR \"Your journey starts with one\"");
    return *o.sentence;
}

// Memory the run with its outputs needs, checked before the weights are read.
void check_model_budget(const ModelShowOptions& o, const ModelConfig& c, const TensorFiles& f, std::size_t T,
                        std::size_t kept, double text_scale) {
    const double TT = double(T) * double(T), H = double(c.n_head);
    const double weights = double(f.mapped_bytes()) + double(f.widened_bytes());  // mapped pages + widened copies
    const double run = model_run_bytes(c, T, kept);
    // per kept head the scores, the weights (the causal half 0), the mask's booleans; the layer means
    // and rollouts (causal too); the predictions
    const double half = double(T) * double(T + 1) / 2.0;
    const double numbers = double(kept) * H * (TT + half) + 2.0 * double(c.n_layer) * half + 15.0 * double(T);
    const double zeros = (double(kept) * H + 2.0 * double(c.n_layer)) * (TT - half);
    const double json_bytes = o.json ? json_text_bytes(numbers, zeros, double(kept) * H * TT, 0.0) : 0.0;
    const double json = json_bytes;  // the text itself: no document tree is built
    const double png = o.png ? double(estimate_png_bytes(1, T, T, o.scale, text_scale)) + 8e6 : 0.0;  // one head's figures, the overview
    const double svg = o.svg ? double(estimate_svg_bytes(1, T, T)) : 0.0;
    const double html = o.html ? double(estimate_html_bytes(std::max<std::size_t>(kept * c.n_head, 1), T, T)) : 0.0;
    const double npy = o.npy ? double(kept) * H * 9.0 * TT + 8.0 * double(c.n_layer) * TT : 0.0;
    const double limit = double(o.max_memory ? parse_bytes(*o.max_memory, "--max-memory") : default_max_memory());
    const double total = weights + run + json + png + svg + html + npy;
    if (total > limit)
        usage_error("this run would need about " + format_bytes(total) +
                        " of memory, more than --max-memory " + format_bytes(limit),
                    std::string(o.json ? "drop --json or keep fewer layers (--keep-layers), " : "") +
                        "use fewer tokens, or raise --max-memory");
    if (json_bytes > double(kMaxJsonBytes) && !o.force)
        usage_error("the JSON trace would be about " + format_bytes(json_bytes) + ", more than " +
                        format_bytes(double(kMaxJsonBytes)),
                    "keep fewer layers (--keep-layers 0,5), write --npy DIR instead, or add --force");
}

}  // namespace

std::vector<bool> parse_layer_list(const std::string& text, std::size_t n_layer) {
    std::vector<bool> keep(n_layer, text == "all");
    if (text == "all") return keep;
    auto bad = [&](const std::string& why) {
        usage_error("--keep-layers '" + text + "' " + why, "write layers and ranges from 0 to " + std::to_string(n_layer - 1) +
                                                             ", e.g. --keep-layers 0,5-7, or all");
    };
    auto number = [&](const std::string& s) {
        if (s.empty() || s.size() > 7 || s.find_first_not_of("0123456789") != std::string::npos) bad("is not a list of layers");
        const std::size_t n = std::stoul(s);
        if (n >= n_layer) bad("names layer " + s + "; the model has " + std::to_string(n_layer));
        return n;
    };
    std::size_t at = 0;
    while (at <= text.size()) {
        std::size_t comma = text.find(',', at);
        if (comma == std::string::npos) comma = text.size();
        const std::string item = text.substr(at, comma - at);
        const std::size_t dash = item.find('-');
        const std::size_t lo = number(item.substr(0, dash)), hi = dash == std::string::npos ? lo : number(item.substr(dash + 1));
        if (hi < lo) bad("has a range that runs backwards");
        for (std::size_t l = lo; l <= hi; ++l) keep[l] = true;
        at = comma + 1;
    }
    return keep;
}

std::vector<std::int64_t> model_token_ids(const BpeTokenizer& tok, const ModelConfig& c, const std::string& text) {
    const std::vector<std::int64_t> ids = tok.encode(text, c.n_positions);
    if (ids.empty()) usage_error("the text is empty", "give at least one word, e.g. \"Your journey starts\"");
    if (ids.size() > c.n_positions)
        usage_error("the text has more than " + std::to_string(c.n_positions) + " tokens, the model's context (n_positions)",
                    "shorten the text to at most " + std::to_string(c.n_positions) + " tokens");
    for (auto id : ids)
        if (static_cast<std::size_t>(id) >= c.vocab_size)
            input_error("token id " + std::to_string(id) + " is outside the model's vocabulary of " + std::to_string(c.vocab_size),
                        "the tokeniser files belong to another model: download them with the weights");
    return ids;
}

// --show: the stages a model run keeps per head (core/model.cpp keeps scores, mask and weights; its
// queries, keys, values and contexts are not stored). Any other stage is refused by name, never
// printed empty.
void check_model_stages(const std::vector<std::string>& show, const std::vector<std::string>& figures, bool query) {
    static const std::vector<std::string> kept = {"scores", "masked-scores", "mask", "weights"};
    for (const std::string& stage : show)
        if (std::find(kept.begin(), kept.end(), stage) == kept.end())
            usage_error("--show " + stage + ": a model run keeps each head's scores, mask and weights, not its " + stage,
                        "choose from scores, masked-scores, mask, weights; the numbers behind them: --npy DIR");
    for (const std::string& figure : figures) {
        if (figure == "query" && !query) usage_error("--figures query draws one query's strip, but no --query is given", "add --query I, e.g. --query 0");
        if (figure != "query" && std::find(kept.begin(), kept.end(), figure) == kept.end())
            usage_error("--figures " + figure + ": a model run keeps each head's scores, mask and weights, not its " + figure,
                        "choose from scores, masked-scores, mask, weights, query");
    }
}

void run_show_model(const ModelShowOptions& o) {
    check_model_stages(o.show, o.figures, o.query.has_value());
    // 1. the outputs' paths, before any work
    if (o.json) policy::check_output_file(*o.json, "--json");
    if (o.html) policy::check_output_file(*o.html, "--html");
    if (o.png) policy::check_output_dir(*o.png, "--png");
    if (o.npy) policy::check_output_dir(*o.npy, "--npy");
    if (o.svg) policy::check_output_dir(*o.svg, "--svg");
    const double text_scale = o.font ? render::check_font_file(*o.font) : 1.0;
    // 2. the folder: config, tokeniser, the weights' header
    const std::string dir = o.model;
    const ModelConfig c = read_model_config(dir).config;
    const BpeTokenizer tok = BpeTokenizer::load_dir(dir);
    // 3. the text as token ids, within the model's context
    const std::vector<std::int64_t> ids = model_token_ids(tok, c, model_text(o));
    if (o.query && *o.query >= ids.size())
        usage_error("--query " + std::to_string(*o.query) + " is past the last query (" + std::to_string(ids.size()) + " tokens)",
                    "pick a query from 0 to " + std::to_string(ids.size() - 1));
    // 4. which layers the trace keeps, the head shown, the memory it takes
    ModelRunOptions run;
    run.keep_layers = o.keep_layers ? parse_layer_list(*o.keep_layers, c.n_layer) : std::vector<bool>(c.n_layer, true);
    std::vector<std::size_t> kept;
    for (std::size_t l = 0; l < c.n_layer; ++l)
        if (run.keep_layers[l]) kept.push_back(l);
    const std::size_t layer = o.layer.value_or(kept.front());
    if (layer >= c.n_layer) usage_error("--layer " + std::to_string(layer) + " is past the model's last layer " + std::to_string(c.n_layer - 1), "layers count from 0");
    if (!run.keep_layers[layer]) usage_error("--layer " + std::to_string(layer) + " is not among --keep-layers", "keep the layer you pick");
    const std::size_t head = o.head.value_or(0);
    if (head >= c.n_head) usage_error("--head " + std::to_string(head) + " is past the model's last head " + std::to_string(c.n_head - 1), "heads count from 0");
    check_model_budget(o, c, open_tensor_files(dir, false), ids.size(), kept.size(), text_scale);
    const auto model = load_model_checkpoint(dir);
    // 5. the run
    const bool json_to_stdout = o.json && *o.json == "-";
    policy::Progress progress(::isatty(STDERR_FILENO) && !json_to_stdout);
    run.progress = progress.callback();
    const Trace t = run_model(*model, tok, ids, run);
    render::HeadChoice choice;
    choice.layer = static_cast<std::size_t>(std::find(kept.begin(), kept.end(), layer) - kept.begin()), choice.head = head;
    // 6. the outputs
    std::vector<policy::OutputFile> files;
    policy::FolderFiles png{o.png.value_or("")}, svg{o.svg.value_or("")}, npy{o.npy.value_or("")};
    if (o.json) files.push_back({*o.json, render::trace_json_text(t)});
    render::FigureOptions fopt;
    fopt.scale = o.scale, fopt.font_file = o.font.value_or("");
    fopt.colour = o.figure_colour, fopt.figures = o.figures, fopt.query = o.query, fopt.prefix = o.prefix.value_or("");
    fopt.warn = [](const std::string& msg) { std::cerr << "attn: warning: " << msg << "\n"; };
    for (auto [folder, type] : {std::pair{&png, render::FileType::png}, std::pair{&svg, render::FileType::svg}}) {
        if (folder->dir.empty()) continue;
        progress(type == render::FileType::png ? "rendering images" : "writing SVG figures", 0, 1);
        folder->add(files, render::model_figures(t, choice, fopt, type));
        fopt.warn = nullptr;  // a missing glyph is said once
    }
    if (o.npy) npy.add(files, render::model_npy_files(t));
    if (o.html) {
        progress("writing the page", 0, 1);
        files.push_back({*o.html, render::render_html(t, {"attn show --model", choice.layer, choice.head, std::nullopt})});
    }
    progress("writing files", files.size(), files.size());
    policy::write_files_atomic(files);
    // a figure folder collects heads for slides: only this head's earlier figures that this run did not
    // write go, never another head's; the arrays hold every kept head, so that folder is one consistent
    // set (layers no longer kept go)
    const std::string head_prefix = render::model_head_prefix(o.prefix.value_or(t.model->type), t.layers()[choice.layer].layer, choice.head);
    if (o.png) policy::remove_stale(*o.png, policy::Folder::png, head_prefix, png.names, render::FileSet::show);
    if (o.npy) policy::remove_stale(*o.npy, policy::Folder::npy, render::kModelArrayPrefix, npy.names, render::FileSet::show);
    if (o.svg) policy::remove_stale(*o.svg, policy::Folder::svg, head_prefix, svg.names, render::FileSet::show);
    if (!json_to_stdout) {
        render::TerminalOptions topt;
        topt.precision = o.precision, topt.show = o.show, topt.full = o.full;
        topt.colour = o.colour, topt.width = o.width, topt.scale = o.figure_colour, topt.query = o.query;
        std::cout << render::model_terminal_view(t, choice, topt);
        if (o.json) std::cout << "wrote " << *o.json << "\n";
        if (o.png) std::cout << "wrote PNGs to " << *o.png << "\n";
        if (o.svg) std::cout << "wrote SVGs to " << *o.svg << "\n";
        if (o.npy) std::cout << "wrote .npy files to " << *o.npy << "\n";
        if (o.html) std::cout << "wrote " << *o.html << "\n";
        std::cout.flush();
    }
}

}  // namespace attn::cli
