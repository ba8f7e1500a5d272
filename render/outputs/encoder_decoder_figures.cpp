#include "render/outputs/encoder_decoder_figures.h"

#include <algorithm>

#include "render/layout/draw_figure.h"
#include "render/layout/figure.h"
#include "render/layout/model_overview.h"
#include "render/outputs/model_figures.h"
#include "render/text/font.h"
#include "render/trace_io/file_names.h"
#include "render/view/figure_views.h"
#include "render/view/model_choice.h"
#include "render/view/model_title.h"
#include "render/view/set_view.h"

namespace attn::render {

std::vector<OutputFile> alignment_figures(const Trace& t, const AlignChoice& c, const FigureOptions& o, FileType type) {
    const Alignment a = alignment(t, c);
    // the matrix as a one-head trace of a cross set, drawn as a head's weights are
    Trace one;
    one.kind = model_title(*t.model) + " \xC2\xB7 cross-attention";
    one.model = t.model, one.model->type = one.kind;  // stack "encoder-decoder": no line about hidden keys
    one.model->name.clear();                          // titled by the kind above
    one.tokens = a.rows, one.source_tokens = a.cols, one.has_source = true;
    one.config.heads = 1, one.config.kv_heads = 1;
    HeadTrace h;
    h.weights = a.weights;
    Mask every = Mask::from_shape({a.weights.shape(0), a.weights.shape(1)});
    std::fill(every.begin(), every.end(), std::uint8_t{1});
    h.mask = std::move(every);
    one.sets = {AttentionSet{"cross", one.tokens, one.source_tokens, {LayerTrace{0, {std::move(h)}}}, true, {}, {}}};
    Font font(o.font_file);
    const int max_side = type == FileType::svg ? kMaxSvgHeatmapSide : kMaxHeatmapSide / std::max(o.scale, 1);
    std::optional<FigureView> fv = figure_view(one, "weights", o.colour);
    if (!fv) return {};
    fv->values = o.values, fv->decimals = o.decimals;
    const std::string unit = c.words ? "word" : "token";
    fv->row_axis = "target " + unit + " (generated)", fv->col_axis = "source " + unit;
    fv->title_word = a.title_word, fv->subtitle = a.caption_lines.back();
    fv->notes.insert(fv->notes.begin(), a.caption_lines.begin(), a.caption_lines.end() - 1);  // below the grid: rows, columns
    std::vector<Drawing> drawings;
    if (std::optional<Figure> f = make_figure(one, std::move(*fv), font, max_side))
        drawings.push_back(figure_drawing(std::move(*f), font, a.file_word));
    const std::string base = o.prefix.empty() ? t.model->type : o.prefix;
    std::vector<OutputFile> out = drawing_files(drawings, base, o.scale, type);
    if (const std::string w = missing_glyph_warning(font); !w.empty() && o.warn) o.warn(w);
    return out;
}

std::vector<OutputFile> encoder_decoder_figures(const Trace& t, const SetFigures& s, FigureOptions o, FileType type) {
    const std::string base = o.prefix.empty() ? t.model->type : o.prefix;
    std::vector<OutputFile> files;
    const auto add = [&files](std::vector<OutputFile> more) {
        for (OutputFile& f : more) files.push_back(std::move(f));
    };
    for (const AttentionSet& set : t.sets) {
        const Trace v = set_view(t, set.name);
        FigureOptions p = o;
        p.prefix = set_file_prefix(base, set.name);
        std::optional<std::size_t> index;  // the layer's index in the set's kept layers
        for (std::size_t l = 0; l < set.layers.size(); ++l)
            if (set.layers[l].layer == s.layer) index = l;
        if (s.heads && index && s.head < set.layers[*index].heads.size()) {
            FigureOptions h = p;
            h.prefix = layer_head_prefix(p.prefix, s.layer, s.head);
            add(render_figures(chosen_head_trace(v, {*index, s.head}), h, type));
        }
        if (s.overview && !set.layers.empty()) {
            Font font(o.font_file);
            const int max_cells = type == FileType::svg ? 24 : 72;
            add(drawing_files({model_overview_drawing(v, font, max_cells)}, p.prefix, o.scale, type));
        }
        std::vector<LayerAggregate> which;
        for (LayerAggregate a : s.aggregates)
            if (a == LayerAggregate::mean || !v.rollout.empty()) which.push_back(a);  // no rollout for "cross"
        if (!which.empty() && s.layer < v.layer_mean.size()) add(aggregate_figures(v, s.layer, which, p, type));
        o.warn = nullptr;  // a missing glyph is said once
    }
    if (find_set(t, "cross")) add(alignment_figures(t, s.align, o, type));
    return files;
}

}  // namespace attn::render
