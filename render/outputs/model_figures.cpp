#include "render/outputs/model_figures.h"

#include <algorithm>

#include "render/layout/draw_figure.h"
#include "render/layout/figure.h"
#include "render/layout/model_overview.h"
#include "render/text/font.h"
#include "render/trace_io/file_names.h"

namespace attn::render {

std::vector<OutputFile> model_figures(const Trace& t, const HeadChoice& c, FigureOptions o, FileType type) {
    const std::string base = o.prefix.empty() ? t.model->type : o.prefix;  // --prefix, else the family
    o.prefix = layer_head_prefix(base, t.layers().at(c.layer).layer, c.head);
    std::vector<OutputFile> files = render_figures(chosen_head_trace(t, c), o, type);
    // The overview's maps are pixel summaries in a PNG (a 1024-token head in 72 × 72 pixels); in SVG each
    // cell is an element, so at most 24 a side.
    Font font(o.font_file);
    const int max_cells = type == FileType::svg ? 24 : 72;
    for (OutputFile& f : drawing_files({model_overview_drawing(t, font, max_cells)}, base, o.scale, type))
        files.push_back(std::move(f));
    return files;
}

std::vector<OutputFile> aggregate_figures(const Trace& t, std::size_t layer, const std::vector<LayerAggregate>& which,
                                          const FigureOptions& o, FileType type) {
    const std::string base = o.prefix.empty() ? (t.model ? t.model->type : t.kind) : o.prefix;
    Font font(o.font_file);
    const int max_side = type == FileType::svg ? kMaxSvgHeatmapSide : kMaxHeatmapSide / std::max(o.scale, 1);
    std::vector<AggregateView> views;  // the drawings point into their traces: kept until encoded
    views.reserve(which.size());
    std::vector<Drawing> drawings;
    for (LayerAggregate a : which) {
        views.push_back(aggregate_view(t, layer, a));
        const AggregateView& v = views.back();
        std::optional<FigureView> fv = figure_view(v.trace, "weights", o.colour);
        if (!fv) continue;
        fv->values = o.values, fv->decimals = o.decimals;
        const bool encoder = t.model && (t.model->stack == "encoder" || t.model->stack == "cross");  // nothing hidden: no "hatched" to explain
        fv->title_word = v.title_word, fv->subtitle = v.subtitle + (encoder ? "" : "; hatched: " + v.hidden), fv->hidden_label = v.hidden;
        if (std::optional<Figure> f = make_figure(v.trace, std::move(*fv), font, max_side))
            drawings.push_back(figure_drawing(std::move(*f), font, aggregate_word(a)));
    }
    std::vector<OutputFile> out = drawing_files(drawings, layer_head_prefix(base, layer, std::nullopt), o.scale, type);
    if (const std::string w = missing_glyph_warning(font); !w.empty() && o.warn) o.warn(w);
    return out;
}

}  // namespace attn::render
