#include "render/outputs/model_figures.h"

#include <algorithm>

#include "render/layout/draw_figure.h"
#include "render/layout/figure.h"
#include "render/layout/model_overview.h"
#include "render/text/font.h"
#include "render/trace_io/file_names.h"
#include "render/view/numbers.h"

namespace attn::render {

namespace {

bool named(const std::vector<std::string>& v, const char* s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// The products figure: query I's elementwise products with every key (S, d), each row labelled with its
// sum (the raw score q_I·k_j); keys the query may not see hatched (a causal mask).
FigureView products_view(const Trace& head, const NeuronTrace& n, const ColourSpec& spec) {
    const std::size_t I = *n.query, S = n.products.shape(0), d = n.products.shape(1);
    const HeadTrace& h = head.heads().at(0);
    FigureView v;
    v.name = "products", v.stage = Stage::queries;
    const std::string token = I < head.tokens.size() ? head.tokens[I] : std::to_string(I);
    v.title_word = "products q_I \xE2\x8A\x99 k_j, query " + std::to_string(I) + " \xE2\x80\x9C" + token + "\xE2\x80\x9D";
    v.subtitle = "row j: q_I[c]\xC2\xB7k_j[c], its sum \xCE\xA3 the raw score q_I\xC2\xB7k_j; q, k " + neuron_note(head, n);
    v.row_axis = "key", v.col_axis = "dimension", v.bar_caption = "product";
    v.rows = S, v.cols = d;
    v.hidden_label = "keys query " + std::to_string(I) + " may not see";
    v.owned_masks.push_back(Mask::from_shape({S, d}));
    Mask& visible = v.owned_masks.back();
    for (std::size_t j = 0; j < S; ++j) {
        const bool seen = h.mask.size() == 0 || (I < h.mask.shape(0) && j < h.mask.shape(1) && h.mask(I, j));
        double sum = 0.0;
        for (std::size_t c = 0; c < d; ++c) visible(j, c) = seen ? 1 : 0, sum += static_cast<double>(n.products(j, c));
        const std::string key = j < head.source_tokens.size() ? head.source_tokens[j] : std::to_string(j);
        v.row_labels.push_back(key + "  \xCE\xA3 " + short_number(sum));
    }
    for (std::size_t c = 0; c < d; ++c) v.col_labels.push_back("d" + std::to_string(c));
    v.panels.push_back(FigurePanel{h.head, h.kv_head, &n.products, &visible, nullptr});
    v.signed_values = true;
    ValueRange r;
    r.add_visible(n.products.data(), visible.data(), n.products.size(), spec.log);
    v.scale = make_scale(ValueKind::signed_value, r, spec, v.bar_caption);
    return v;
}

// The neuron view's figures (<prefix>-queries, -keys, -products): those --figures names, or all three
// (products only with --query) when --figures is not given. The views point into `head` and `n`.
std::vector<Drawing> neuron_drawings(const Trace& head, const NeuronTrace& n, const FigureOptions& o, Font& font, int max_side) {
    std::vector<Drawing> out;
    for (const char* name : {"queries", "keys"}) {
        if (!o.figures.empty() && !named(o.figures, name)) continue;
        std::optional<FigureView> v = figure_view(head, name, o.colour);
        if (!v) continue;
        v->values = o.values;
        v->subtitle = std::string(name) + " " + neuron_note(head, n);
        if (std::optional<Figure> f = make_figure(head, std::move(*v), font, max_side)) out.push_back(figure_drawing(std::move(*f), font, name));
    }
    if (n.query && n.products.size() && (o.figures.empty() || named(o.figures, "products"))) {
        FigureView v = products_view(head, n, o.colour);
        v.values = o.values;
        if (std::optional<Figure> f = make_figure(head, std::move(v), font, max_side)) out.push_back(figure_drawing(std::move(*f), font, "products"));
    }
    return out;
}

}  // namespace

std::vector<OutputFile> model_figures(const Trace& t, const HeadChoice& c, FigureOptions o, FileType type) {
    const std::string base = o.prefix.empty() ? t.model->type : o.prefix;  // --prefix, else the family
    o.prefix = layer_head_prefix(base, t.layers().at(c.layer).layer, c.head);
    const Trace head = chosen_head_trace(t, c);
    FigureOptions stages = o;  // the trace's own figures; the neuron view's are drawn below
    stages.figures.erase(std::remove_if(stages.figures.begin(), stages.figures.end(),
                                        [](const std::string& f) { return f == "queries" || f == "keys" || f == "products"; }),
                         stages.figures.end());
    std::vector<OutputFile> files;
    if (o.figures.empty() || !stages.figures.empty()) files = render_figures(head, stages, type);
    if (const NeuronTrace* n = neuron_of(t, c)) {
        Font font(o.font_file);
        const int max_side = type == FileType::svg ? kMaxSvgHeatmapSide : kMaxHeatmapSide / std::max(o.scale, 1);
        for (OutputFile& f : drawing_files(neuron_drawings(head, *n, o, font, max_side), o.prefix, o.scale, type))
            files.push_back(std::move(f));
    }
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
