// attn show --model DIR: read the folder, tokenise, run the model, print and write the outputs.
#include "cli/show_model.h"
#include "cli/model_source.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <vector>

#include "cli/policy/budget.h"
#include "core/kinds/budget.h"
#include "core/model/model.h"
#include "data/base/error.h"
#include "data/checkpoint/model_checkpoint.h"
#include "data/inputs/inputs.h"
#include "data/text/tokenizer.h"
#include "data/base/files.h"
#include "cli/policy/files.h"
#include "render/text/font.h"
#include "cli/policy/outputs.h"
#include "render/trace_io/file_names.h"
#include "render/page/html.h"
#include "render/outputs/encoder_decoder_figures.h"
#include "render/outputs/model_figures.h"
#include "render/terminal/model_terminal.h"
#include "render/trace_io/json_out.h"
#include "render/trace_io/npy.h"
#include "cli/policy/progress.h"

namespace attn::cli {

namespace {

// The generated ids as text: every token but the special ones (start, end, pad), joined.
std::string generated_text(const Trace& t, const Tokenizer& tok, const GenerationConfig& g) {
    std::vector<std::int64_t> ids;
    for (auto id : t.generated_ids)
        if (std::find(g.eos.begin(), g.eos.end(), id) == g.eos.end() && id != g.pad && id != g.decoder_start) ids.push_back(id);
    return tok.decode_text(ids);
}

}  // namespace

void run_show_model(const ModelShowOptions& o) {
    const policy::OutputRequest& r = o.outputs;  // checked as a set by the caller, before the folder is read
    // 1. the outputs' paths, before any work
    policy::check_output_paths(r);
    const double text_scale = o.font ? render::check_font_file(*o.font) : 1.0;
    // 2.-5. the folder, the text, the run
    const bool quiet = policy::json_to_stdout(r);
    policy::Progress progress(::isatty(STDERR_FILENO) && !quiet);
    ModelShowRun run = compute_show_model(o, load_model, text_scale, progress.callback());
    const std::string& dir = o.model;
    const Tokenizer& tok = run.tok;
    const std::string& text = run.text;
    const GenerationConfig& generation = run.generation;
    const std::size_t layer = run.layer, head = run.head;
    const bool seq2seq = run.seq2seq;
    Trace& t = run.trace;
    t.model->name = model_display_name(dir);  // the checkpoint, in the trace and every title
    // an encoder-decoder's alignment: --layer/--head as given (a head, a layer's mean), else the mean over layers
    render::AlignChoice align;
    align.layer = o.layer, align.head = o.layer ? o.head : std::nullopt, align.words = o.words;
    if (o.align_at) align.at = *render::parse_align_at(*o.align_at);
    render::HeadChoice choice;
    // the chosen layer's place among the layers the trace holds (all of --keep-layers, or the chosen one
    // alone when only the terminal shows the run)
    const auto& held = t.layers();
    choice.layer = static_cast<std::size_t>(std::find_if(held.begin(), held.end(), [&](const LayerTrace& l) { return l.layer == layer; }) - held.begin());
    choice.head = head;
    // 6. the outputs
    policy::RunOutputs out(r);
    if (r.json) out.files.push_back({*r.json, render::trace_json_text(t)});
    std::vector<render::LayerAggregate> aggregates;  // --show mean, rollout: also as figures
    for (const std::string& s : o.show)
        if (s == "mean" || s == "rollout") aggregates.push_back(s == "mean" ? render::LayerAggregate::mean : render::LayerAggregate::rollout);
    render::FigureOptions fopt;
    fopt.scale = o.scale, fopt.font_file = o.font.value_or(""), fopt.values = o.values, fopt.decimals = o.figure_decimals;
    fopt.colour = o.figure_colour, fopt.figures = o.figures, fopt.query = o.query, fopt.prefix = o.prefix.value_or("");
    fopt.warn = [](const std::string& msg) { std::cerr << "attn: warning: " << msg << "\n"; };
    for (auto [folder, type] : {std::pair{&out.png, render::FileType::png}, std::pair{&out.svg, render::FileType::svg}}) {
        if (folder->dir.empty()) continue;
        progress(type == render::FileType::png ? "rendering images" : "writing SVG figures", 0, 1);
        if (seq2seq) {  // every set's figures (<type>-<set>-...) and the alignment figure (<type>-align-...)
            render::SetFigures sf;
            sf.layer = layer, sf.head = head, sf.aggregates = aggregates, sf.align = align;
            folder->add(out.files, render::encoder_decoder_figures(t, sf, fopt, type));
        } else {
            folder->add(out.files, render::model_figures(t, choice, fopt, type));
            folder->add(out.files, render::aggregate_figures(t, layer, aggregates, fopt, type));
        }
        fopt.warn = nullptr;  // a missing glyph is said once
    }
    if (r.npy) out.npy.add(out.files, render::model_npy_files(t));
    if (r.html) {
        progress("writing the page", 0, 1);
        render::HtmlOptions page{"attn show --model", choice.layer, choice.head, std::nullopt};
        page.model_name = t.model->name, page.text = text, page.colour = o.figure_colour;
        if (seq2seq) {  // the page opens on the cross set: the chosen layer's place there (none: the first)
            page.translation = generated_text(t, tok, generation);
            const std::vector<LayerTrace>& cross = t.sets.back().layers;
            const auto at = std::find_if(cross.begin(), cross.end(), [&](const LayerTrace& x) { return x.layer == layer; });
            page.layer = at == cross.end() ? std::nullopt : std::optional<std::size_t>(static_cast<std::size_t>(at - cross.begin()));
        }
        out.files.push_back({*r.html, render::render_html(t, page)});
    }
    progress("writing files", out.files.size(), out.files.size());
    // a figure folder collects heads for slides: only this head's earlier figures that this run did not
    // write go, never another head's; the arrays hold every kept head, so that folder is one consistent
    // set (layers no longer kept go)
    policy::OutputRequest written = r;
    written.prefix = render::layer_head_prefix(o.prefix.value_or(t.model->type), layer, choice.head);
    written.npy_prefix = render::kModelArrayPrefix;
    policy::write_outputs(written, out, render::FileSet::show);
    if (!quiet && seq2seq && !t.teacher_forced)
        std::cout << "translation: " << generated_text(t, tok, generation)
                  << (generation.num_beams > 1 ? "   (greedy; the model's own settings search " + std::to_string(generation.num_beams) +
                                                     " beams, which may choose other words)"
                      : generation.do_sample ? std::string("   (greedy; the model's own settings sample, which may choose other words)")
                                             : std::string("   (greedy)"))
                  << "\n";
    if (!quiet) {
        render::TerminalOptions topt;
        topt.precision = o.precision, topt.show = o.show, topt.full = o.full;
        topt.colour = o.colour, topt.width = o.width, topt.scale = o.figure_colour, topt.query = o.query;
        if (seq2seq) std::cout << render::encoder_decoder_terminal_view(t, align, topt);  // after the translation's line
        else std::cout << render::model_terminal_view(t, choice, topt, run.distances.empty() ? nullptr : &run.distances)
                       << render::lens_terminal_view(t, topt)
                       << render::ablation_terminal_view(t, topt);
        policy::say_written(r, std::cout);
        std::cout.flush();
    }
}

}  // namespace attn::cli
