// attn render: draw a saved trace, or attention saved from another model as .npy, without recomputing.
#include <algorithm>
#include <functional>
#include <iostream>
#include <optional>

#include "cli/cli.h"
#include "cli/common_options.h"
#include "data/base/error.h"
#include "cli/policy/files.h"
#include "cli/policy/outputs.h"
#include "render/trace_io/file_names.h"
#include "render/page/html.h"
#include "render/text/font.h"
#include "render/outputs/figures.h"
#include "render/trace_io/trace_read.h"
#include "render/outputs/model_figures.h"
#include "render/view/model_choice.h"
#include "render/view/model_title.h"
#include "render/view/set_view.h"
#include "render/outputs/encoder_decoder_figures.h"

namespace attn::cli {
namespace {

struct RenderOptions {
    std::string input;
    std::optional<std::string> html, png, svg, tokens, font, prefix;
    ColourScaleOptions colours;  // --range, --log, --colormap
    std::string color = "auto";  // --color: render prints no cells; taken as every command takes it
    std::optional<std::size_t> layer, head;
    std::size_t scale = 2;  // --scale, as attn show's
    std::string values = "auto";  // --values, as attn show's
    std::string show = "heads";  // --show: heads, mean, rollout (the figures of each layer drawn)
    std::optional<std::string> align_at;  // --align-at output|input: an encoder-decoder's alignment figure
    bool words = false;                   // --words: its pieces merged into words
};

// --show: which figures of each layer drawn; mean and rollout only for a model's trace, over every head.
struct RenderShow {
    bool heads = false;
    std::vector<render::LayerAggregate> aggregates;
};

RenderShow render_show(const RenderOptions& o) {
    RenderShow r;
    std::size_t at = 0;
    while (at <= o.show.size()) {
        const std::size_t comma = std::min(o.show.find(',', at), o.show.size());
        const std::string item = o.show.substr(at, comma - at);
        if (item == "heads") r.heads = true;
        else if (item == "mean") r.aggregates.push_back(render::LayerAggregate::mean);
        else if (item == "rollout") r.aggregates.push_back(render::LayerAggregate::rollout);
        else usage_error("--show " + item + ": render draws each layer's heads, mean or rollout", "choose from heads, mean, rollout, e.g. --show heads,mean");
        at = comma + 1;
    }
    if (!r.aggregates.empty() && !o.png && !o.svg)
        usage_error("--show " + o.show + " names figures, but no --png or --svg folder is given", "add --png DIR");
    if (!r.aggregates.empty() && o.head)
        usage_error("--show mean and rollout draw every head of a layer together; --head picks one", "leave out --head, or --show heads");
    return r;
}

std::string base_name(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The heads one set of PNGs draws: layer `layer` of a layered trace (titled with its own number) or the
// trace's one layer, all or only --head; flash tiles follow.
Trace png_view(const Trace& t, std::optional<std::size_t> layer, std::optional<std::size_t> head) {
    const std::string title = (t.model ? render::model_title(*t.model) : t.kind) + (layer ? " · layer " + std::to_string(t.layers()[*layer].layer) : "");
    return render::layer_view(t, layer.value_or(0), head, title);
}

// --layer as an index into t.layers() (a --keep-layers trace keeps the model's numbers), or nothing
// without --layer; `required`: refused when t does not hold it (else nothing).
std::optional<std::size_t> layer_index(const Trace& t, const RenderOptions& o, bool required) {
    const std::size_t L = t.sets.at(0).model_layers ? t.layers().size() : 0;  // 0: one unnumbered layer
    if (o.layer && L == 0) usage_error("--layer applies to traces with layers; " + base_name(o.input) + " has none", "leave out --layer");
    if (!o.layer) return std::nullopt;
    std::string held;
    for (std::size_t l = 0; l < L; ++l) {
        if (t.layers()[l].layer == *o.layer) return l;
        held += (l ? ", " : "") + std::to_string(t.layers()[l].layer);
    }
    if (required)
        usage_error("--layer " + std::to_string(*o.layer) + " is not in " + base_name(o.input) + " (it holds layer" + (L == 1 ? " " : "s ") +
                        held + ")",
                    "pick one of the layers it holds");
    return std::nullopt;
}

// The PNGs and SVGs of one set's layers (all, or `index`), their names starting with `base`.
void draw_layers(const Trace& t, const std::string& base, const RenderOptions& o, const RenderShow& show, std::optional<std::size_t> index,
                 policy::RunOutputs& out, std::vector<std::string>& drawn, std::function<void(const std::string&)>& warn) {
    const std::size_t L = t.sets.at(0).model_layers ? t.layers().size() : 0;
    if (L == 0 && t.sets.at(0).model_layers) return;  // an encoder-decoder set whose layers were all dropped
    const std::size_t H = t.layers()[index.value_or(0)].heads.size();
    if (o.head && *o.head >= H)
        usage_error("--head " + std::to_string(*o.head) + " is past the last head (" + std::to_string(H - 1) + ")",
                    "heads are numbered from 0");
    const render::ColourSpec colours = colour_spec(o.colours);
    std::vector<std::optional<std::size_t>> layers;  // indexes into t.layers()
    if (index) layers.push_back(index);
    else if (L == 0) layers.push_back(std::nullopt);
    else for (std::size_t l = 0; l < L; ++l) layers.push_back(l);
    for (const auto& layer : layers) {
        const std::optional<std::size_t> number = layer ? std::optional<std::size_t>(t.layers()[*layer].layer) : std::nullopt;
        const std::string prefix = render::layer_head_prefix(base, number, o.head);
        if (show.heads && (number || o.head)) drawn.push_back(prefix);
        // a model's head is drawn as show --model draws it: the same names, the same figure
        const Trace view = t.model && layer && o.head ? render::chosen_head_trace(t, {*layer, *o.head}) : png_view(t, layer, o.head);
        render::FigureOptions p;
        p.prefix = prefix, p.scale = static_cast<int>(o.scale), p.font_file = o.font.value_or(""), p.warn = warn;
        p.colour = colours, p.values = cell_values(o.values);
        for (auto [folder, type] : {std::pair{&out.png, render::FileType::png}, std::pair{&out.svg, render::FileType::svg}}) {
            if (folder->dir.empty()) continue;
            if (show.heads) folder->add(out.files, render::render_figures(view, p, type));
            if (number && !show.aggregates.empty()) {
                std::vector<render::LayerAggregate> which;  // a cross set has no rollout (its matrices are not square)
                for (render::LayerAggregate a : show.aggregates)
                    if (a == render::LayerAggregate::mean || !t.rollout.empty()) which.push_back(a);
                render::FigureOptions a = p;
                a.prefix = base;
                if (!which.empty()) folder->add(out.files, render::aggregate_figures(t, *number, which, a, type));
            }
            p.warn = warn = nullptr;  // a missing glyph is said once
        }
    }
}

void run_render(const RenderOptions& o) {
    // 1. the outputs, checked before anything is read
    if (o.prefix && !o.png && !o.svg) usage_error("--prefix names images, but no --png folder is given", "add --png DIR");
    if (!o.html && !o.png && !o.svg)
        usage_error("nothing to write", "give --html FILE, --png DIR or --svg DIR; see 'attn render --help'");
    check_prefix(o.prefix);
    const render::ColourSpec colours = colour_spec(o.colours);
    const RenderShow show = render_show(o);
    policy::OutputRequest outputs;
    outputs.html = o.html, outputs.png = o.png, outputs.svg = o.svg;
    policy::check_output_paths(outputs);
    if (o.font) render::check_font_file(*o.font);
    // 2. the input; then the outputs as a set (the PNGs' names start with the trace's kind): no two on
    // one path, none over the input or --tokens
    const Trace t = render::read_trace_file(o.input, o.tokens);
    // the figures' names start with --prefix, else the model's type (as show --model names them), else
    // the trace's kind
    const std::string base = o.prefix.value_or(t.model ? t.model->type : t.kind);
    outputs.prefix = render::layer_head_prefix(base, std::nullopt, std::nullopt);
    if (!show.aggregates.empty() && t.layer_mean.empty() && !render::is_encoder_decoder(t))
        usage_error("--show mean and rollout need a model's trace (attn show --model --json); " + base_name(o.input) + " has no layer means",
                    "use --show heads, or render a trace written by attn show --model");
    outputs.inputs.push_back({"input", o.input});
    if (o.tokens) outputs.inputs.push_back({"--tokens", *o.tokens});
    policy::check_outputs(outputs);
    // 3. the selection and 4. the files: the page, and PNGs and SVGs per layer (all layers, or --layer);
    //    an encoder-decoder's per set (<prefix>-<set>-...), and its alignment figure
    const bool seq2seq = render::is_encoder_decoder(t);
    if ((o.align_at || o.words) && !(seq2seq && render::find_set(t, "cross")))
        usage_error(std::string(o.align_at ? "--align-at" : "--words") + " draws an encoder-decoder model's cross-attention; " + base_name(o.input) +
                        " has no \"cross\" set",
                    "leave it out, or render a trace of a translation model (attn show --model DIR TEXT --json F)");
    const std::optional<std::size_t> index = seq2seq ? std::nullopt : layer_index(t, o, true);
    std::size_t H = 0;  // the heads of the layer drawn (an encoder-decoder: of any set's first kept layer)
    for (const AttentionSet& set : t.sets)
        if (!set.layers.empty()) H = std::max(H, set.layers[seq2seq ? 0 : index.value_or(0)].heads.size());
    if (o.head && *o.head >= H)
        usage_error("--head " + std::to_string(*o.head) + " is past the last head (" + std::to_string(H - 1) + ")", "heads are numbered from 0");
    policy::RunOutputs out(outputs);
    if (o.html) {
        render::HtmlOptions h;
        h.source = base_name(o.input), h.layer = index, h.head = o.head, h.colour = colours;
        out.files.push_back({*o.html, render::render_html(t, h)});
    }
    std::function<void(const std::string&)> warn = [](const std::string& msg) { std::cerr << "attn: warning: " << msg << "\n"; };
    std::vector<std::string> drawn;  // the layer and head prefixes drawn
    if (!seq2seq) {
        draw_layers(t, base, o, show, index, out, drawn, warn);
    } else {
        bool held = !o.layer;  // some set holds --layer
        for (const AttentionSet& set : t.sets) {
            if (set.layers.empty()) continue;  // every layer of the set dropped (--keep-layers)
            const Trace view = render::set_view(t, set.name);
            const std::optional<std::size_t> set_layer = layer_index(view, o, false);
            if (o.layer && !set_layer) continue;  // a set without that layer (encoder and decoder depths differ)
            held = true;
            draw_layers(view, render::set_file_prefix(base, set.name), o, show, set_layer, out, drawn, warn);
        }
        if (!held)
            usage_error("--layer " + std::to_string(*o.layer) + " is in none of " + base_name(o.input) + "'s sets", "pick a layer the encoder or the decoder has");
        if (render::find_set(t, "cross") && (o.png || o.svg)) {
            render::AlignChoice c;
            c.layer = o.layer, c.head = o.layer ? o.head : std::nullopt, c.words = o.words;
            if (o.align_at) c.at = *render::parse_align_at(*o.align_at);
            render::FigureOptions p;
            p.prefix = base, p.scale = static_cast<int>(o.scale), p.font_file = o.font.value_or(""), p.warn = warn;
            p.colour = colours, p.values = cell_values(o.values);
            for (auto [folder, type] : {std::pair{&out.png, render::FileType::png}, std::pair{&out.svg, render::FileType::svg}})
                if (!folder->dir.empty()) folder->add(out.files, render::alignment_figures(t, c, p, type)), p.warn = nullptr;
        }
    }
    // a run removes only what it would write itself: each layer's or head's figures it drew that it
    // did not write this time (show's heads, other layers, the means stay)
    policy::write_outputs(outputs, out, render::FileSet::render, drawn);
    policy::say_written(outputs, std::cout);
}

}  // namespace

void setup_render(CLI::App& app) {
    auto o = std::make_shared<RenderOptions>();
    CLI::App* cmd = app.add_subcommand("render", "Draw a saved trace, or attention saved as .npy, without recomputing");
    cmd->footer(
        "INPUT is a trace written by 'attn show --json', or a .npy of attention weights of shape (L, H, T, S),\n"
        "(H, T, S) or (T, S), e.g. from a notebook:\n"
        "  out = model(**enc, output_attentions=True)\n"
        "  np.save('attn.npy', torch.stack(out.attentions)[:, 0].numpy())\n"
        "  json.dump(tok.convert_ids_to_tokens(enc['input_ids'][0]), open('tokens.json', 'w'))\n"
        "Examples:\n"
        "  attn render trace.json --html trace.html\n"
        "  attn render trace.json --png out/ --head 1\n"
        "  attn render trace.json --svg slides/ --scale 3\n"
        "  attn render attn.npy --tokens tokens.json --html attn.html --layer 5 --head 3\n"
        "  attn render attn.npy --tokens tokens.txt --png out/ --layer 0\n"
        "  attn render trace.json --png out/ --prefix lecture3 --colormap magma --log\n"
        "  attn render trace.json --svg slides/ --range 0,0.5\n"
        "  attn render trace.json --png slides/ --layer 0 --values never\n"
        "  attn render model-trace.json --png slides/ --layer 3 --show mean,rollout\n"
        "Figures are named <prefix>-l<L>-<figure> (a layer's heads), <prefix>-l<L>-h<H>-<figure> (one head,\n"
        "as attn show --model names it), <prefix>-l<L>-mean and -rollout; the prefix is --prefix, else the\n"
        "model's type, else the trace's kind. An encoder-decoder's trace (T5, BART, Marian) draws each set so,\n"
        "<prefix>-encoder-..., -decoder-..., -cross-... (no rollout for cross), and the alignment figure of its\n"
        "cross-attention: <prefix>-align-mean (the mean over layers), -align-l<L>-mean (--layer), -align-l<L>-h<H>\n"
        "(--layer --head), then -input (--align-at input) and -words (--words):\n"
        "  attn render t5-trace.json --png slides/ --layer 5 --show heads,mean --words");
    cmd->add_option("input", o->input, "A JSON trace (attn show --json) or a .npy of attention weights")->required();
    cmd->add_option("--html", o->html, "Write the interactive page to FILE (one self-contained HTML file)");
    cmd->add_option("--png", o->png, "Write heatmap PNGs into folder DIR (created as needed); one set per layer");
    bind_figure_options(*cmd, o->svg, o->scale, o->font);
    bind_values_option(*cmd, o->values);
    cmd->add_option("--layer", o->layer, "The layer to open (--html) or draw (--png), from 0");
    cmd->add_option("--head", o->head, "The head to open (--html) or draw alone (--png), from 0");
    bind_prefix_option(*cmd, o->prefix, "the model's type or the trace's kind; -l<N>, -h<N> follow");
    cmd->add_option("--show", o->show,
                    "Figures of each layer drawn, comma-separated: heads (every head's figures), mean (the layer's mean "
                    "over heads), rollout (the attention rollout through it); mean and rollout need a model's trace")
        ->capture_default_str();
    cmd->add_option("--align-at", o->align_at,
                    "An encoder-decoder trace's alignment figure (<prefix>-align-...): row i is generated word i at the step whose "
                    "output it is (output, the default) or whose input it is (input: Shift-Att; the last word has no row)")
        ->check(CLI::IsMember({"output", "input"}));
    cmd->add_flag("--words", o->words,
                  "The alignment figure in words, not pieces: a source word's pieces summed, a target word's rows averaged");
    bind_colour_scale_options(*cmd, o->colours);
    bind_color_option(*cmd, o->color);
    cmd->add_option("--tokens", o->tokens,
                    "Token labels for a .npy: a JSON list of strings, {\"tokens\", \"source_tokens\"}, or one per line");
    cmd->callback([o] { run_render(*o); });
}

}  // namespace attn::cli
