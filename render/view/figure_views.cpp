#include "render/view/figure_views.h"
#include "render/view/numbers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace attn::render {
namespace {

struct FigureEntry {
    const char* name;  // also the file word
    Stage stage;
    const char* title_word;
    const char* bar_caption;
};
constexpr FigureEntry kFigures[] = {
    {"scores", Stage::scores, "scores", "score"},
    {"masked-scores", Stage::masked_scores, "masked scores", "scaled score"},
    {"mask", Stage::mask, "mask", ""},
    {"weights", Stage::weights, "weights", "weight"},
    {"zeroed", Stage::zeroed, "softmax over every key, hidden zeroed", "weight"},
    {"dropped-weights", Stage::dropped, "dropped weights", "dropped weight"},
    {"tiles", Stage::weights, "weights and tiles", "weight"},
    {"queries", Stage::queries, "queries", "value"},
    {"keys", Stage::keys, "keys", "value"},
    {"values", Stage::values, "values", "value"},
    {"context", Stage::context, "context", "value"},
    {"output", Stage::output, "output", "value"},
};

const FigureEntry* find_figure(const std::string& name) {
    for (const FigureEntry& e : kFigures)
        if (name == e.name) return &e;
    return nullptr;
}

std::vector<std::string> dims(std::size_t n) {
    std::vector<std::string> d;
    for (std::size_t i = 0; i < n; ++i) d.push_back("d" + std::to_string(i));
    return d;
}


// The matrix of a stage for one head; derived ones are stored in v.owned. nullptr when absent.
const Mat* stage_values(const Trace& t, const HeadTrace& h, Stage s, FigureView& v) {
    const auto keep = [&](Mat m) -> const Mat* {
        if (m.size() == 0) return nullptr;
        v.owned.push_back(std::move(m));
        return &v.owned.back();
    };
    const auto some = [](const Mat& m) { return m.size() ? &m : nullptr; };
    switch (s) {
        case Stage::scores: return some(h.scores);
        case Stage::masked_scores: return keep(masked_scores(h));
        case Stage::weights: return some(h.weights);
        case Stage::zeroed: return keep(zeroed_weights(h));
        case Stage::dropped: return some(h.dropped_weights);
        case Stage::queries: return some(h.queries);
        case Stage::keys: return some(h.keys);
        case Stage::values: return some(h.values);
        case Stage::context: return some(h.context);
        case Stage::output: return some(t.output);
        case Stage::mask: return nullptr;
    }
    return nullptr;
}

const Mask* all_visible(FigureView& v, std::size_t r, std::size_t c) {
    v.owned_masks.push_back(Mask::from_shape({r, c}));
    std::fill(v.owned_masks.back().begin(), v.owned_masks.back().end(), std::uint8_t{1});
    return &v.owned_masks.back();
}

}  // namespace

const std::vector<std::string>& figure_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const FigureEntry& e : kFigures) n.emplace_back(e.name);
        n.emplace_back("query");     // query_view: one query's strip
        n.emplace_back("products");  // a model's neuron view: query I's products with every key (render/outputs/model_figures.h)
        return n;
    }();
    return names;
}

std::vector<std::string> default_figures(const Trace& t) {
    std::vector<std::string> f = {"scores", "mask", "weights", "dropped-weights"};
    if (!t.tiles.empty()) f.emplace_back("tiles");
    return f;
}

std::optional<FigureView> figure_view(const Trace& t, const std::string& name, const ColourSpec& spec) {
    const FigureEntry* e = find_figure(name);
    if (e == nullptr) throw std::invalid_argument("figure_view: no figure called '" + name + "'");
    if (t.heads().empty()) return std::nullopt;
    if (name == "tiles" && t.tiles.empty()) return std::nullopt;
    FigureView v;
    v.name = name, v.stage = e->stage, v.title_word = e->title_word, v.bar_caption = e->bar_caption;
    v.subtitle = stage_subtitle(t, e->stage);
    if (const auto at = v.subtitle.find("(marked \xC3\x97)"); at != std::string::npos)
        v.subtitle.replace(at, 11, "(red cross-hatch)");
    const bool vectors = e->stage == Stage::queries || e->stage == Stage::keys || e->stage == Stage::values ||
                         e->stage == Stage::context || e->stage == Stage::output;
    const bool key_rows = e->stage == Stage::keys || e->stage == Stage::values;
    // 1. every head's matrix, the same shape
    const std::size_t n = e->stage == Stage::output ? 1 : t.heads().size();
    for (std::size_t k = 0; k < n; ++k) {
        const HeadTrace& h = t.heads()[k];
        FigurePanel p;
        p.head = h.head, p.kv_head = h.kv_head;
        if (e->stage == Stage::mask) {
            if (h.mask.size() == 0) return std::nullopt;
            p.visible = &h.mask.get();
        } else {
            p.values = stage_values(t, h, e->stage, v);
            if (p.values == nullptr) {
                if (k == 0) return std::nullopt;
                throw std::invalid_argument("render: head " + std::to_string(k) + " has no " + v.title_word +
                                            " but head 0 has: every head of a trace must have the same matrices");
            }
        }
        const std::size_t r = p.values ? p.values->shape(0) : p.visible->shape(0);
        const std::size_t c = p.values ? p.values->shape(1) : p.visible->shape(1);
        if (k == 0) v.rows = r, v.cols = c;
        else if (r != v.rows || c != v.cols)
            throw std::invalid_argument("render: head " + std::to_string(k) + " " + v.title_word + " are " +
                                        shape_str(r, c) + " but head 0 " + v.title_word + " are " +
                                        shape_str(v.rows, v.cols) + ": every head of a trace must have the same shape");
        // 2. visible cells: the mask after it is applied (weights, masked scores); raw scores and vectors
        //    show every cell
        const bool masked_stage = e->stage == Stage::masked_scores || e->stage == Stage::weights ||
                                  e->stage == Stage::zeroed || e->stage == Stage::dropped;
        if (p.visible == nullptr) {
            if (masked_stage && h.mask.size() != 0) {
                if (h.mask.shape(0) != r || h.mask.shape(1) != c)
                    throw std::invalid_argument("render: head " + std::to_string(k) + " mask is " +
                                                shape_str(h.mask.shape(0), h.mask.shape(1)) + " but its " +
                                                v.title_word + " are " + shape_str(r, c) + ": the mask must be (T, S)");
                p.visible = &h.mask.get();
            } else {
                p.visible = all_visible(v, r, c);
            }
        }
        // 3. cells the dropout removed
        if (e->stage == Stage::dropped) {
            v.owned_masks.push_back(Mask::from_shape({r, c}));
            Mask& d = v.owned_masks.back();
            for (std::size_t i = 0; i < r; ++i)
                for (std::size_t j = 0; j < c; ++j) d(i, j) = dropped_cell(h, i, j) ? 1 : 0;
            p.dropped = &d;
        }
        v.panels.push_back(p);
    }
    // 4. axes and labels
    if (vectors) {
        v.row_labels = key_rows ? t.source_tokens : t.tokens;
        v.col_labels = dims(v.cols);
        v.row_axis = key_rows ? col_axis(t) : row_axis(t);
        v.col_axis = "dimension";
    } else {
        v.row_labels = t.tokens;
        v.col_labels = t.source_tokens.size() == v.cols ? t.source_tokens : t.tokens;
        v.row_axis = row_axis(t), v.col_axis = col_axis(t);
    }
    // 5. the colour scale over every panel's visible, kept values
    v.signed_values = stage_value_kind(e->stage) == ValueKind::signed_value;
    if (e->stage != Stage::mask) {
        ValueRange r;
        for (const FigurePanel& p : v.panels) {
            if (p.dropped == nullptr) {
                r.add_visible(p.values->data(), p.visible->data(), p.values->size(), spec.log);
                continue;
            }
            for (std::size_t i = 0; i < p.values->size(); ++i)  // kept cells only
                if (p.visible->data()[i] && !p.dropped->data()[i]) r.add(p.values->data()[i]);
        }
        v.scale = make_scale(stage_value_kind(e->stage), r, spec, v.bar_caption);
    }
    return v;
}

std::optional<FigureView> query_view(const Trace& t, std::size_t i, const ColourSpec& spec) {
    if (t.heads().empty() || t.heads()[0].scores.size() == 0) return std::nullopt;
    if (i >= t.heads()[0].scores.shape(0))
        throw std::invalid_argument("render: query " + std::to_string(i) + " is past the last query");
    FigureView v;
    v.name = "query", v.stage = Stage::masked_scores;  // hidden cells of the masked row read −∞
    const std::string token = i < t.tokens.size() ? t.tokens[i] : std::to_string(i);
    v.title_word = "query " + std::to_string(i) + " \xE2\x80\x9C" + token + "\xE2\x80\x9D, stage by stage";
    const float scale = t.heads()[0].scale;
    const bool values = t.heads()[0].context.size() > 0;  // a model run keeps no values: no context
    v.subtitle = score_formula(t) + " \xE2\x86\x92 \xC3\x97" + short_number(scale) +
                 " \xE2\x86\x92 mask (\xE2\x88\x92\xE2\x88\x9E) \xE2\x86\x92 softmax" +
                 (values ? " \xE2\x86\x92 context = \xCE\xA3_j w_ij v_j" : "");
    v.row_labels = {"1 " + score_formula(t), "2 \xC3\x97" + short_number(scale), "3 masked", "4 softmax"};
    v.row_axis = "stage", v.col_axis = col_axis(t), v.bar_caption = "score";
    const std::size_t S = t.heads()[0].scores.shape(1);
    v.rows = 4, v.cols = S;
    v.col_labels = t.source_tokens.size() == S ? t.source_tokens : t.tokens;
    ValueRange scores, weights;
    for (const HeadTrace& h : t.heads()) {
        // 1. the strip: raw, scaled, masked, softmax                      (4, S)
        Mat m = Mat::from_shape({4, S});
        Mask vis = Mask::from_shape({4, S});
        for (std::size_t j = 0; j < S; ++j) {
            const bool seen = h.mask.size() == 0 || h.mask(i, j) != 0;
            m(0, j) = h.scores(i, j), m(1, j) = h.scale * h.scores(i, j);
            m(2, j) = seen ? m(1, j) : -std::numeric_limits<float>::infinity();
            m(3, j) = h.weights(i, j);
            vis(0, j) = vis(1, j) = vis(3, j) = 1, vis(2, j) = seen ? 1 : 0;
            scores.add(m(0, j)), scores.add(m(1, j)), weights.add(m(3, j));
        }
        v.owned.push_back(std::move(m));
        v.owned_masks.push_back(std::move(vis));
        FigurePanel p;
        p.head = h.head, p.kv_head = h.kv_head, p.values = &v.owned.back(), p.visible = &v.owned_masks.back();
        v.panels.push_back(p);
        // 2. its context row (a model run keeps no values: none)
        if (h.context.size() == 0 || i >= h.context.shape(0)) continue;
        std::string ctx = (t.heads().size() > 1 ? "head " + std::to_string(h.head) + ": " : std::string()) +
                          "context = \xCE\xA3_j w_ij v_j = (";
        const std::size_t D = h.context.shape(1);
        for (std::size_t d = 0; d < D && d < 8; ++d) ctx += (d ? ", " : "") + fixed(h.context(i, d), 3);  // one precision
        v.notes.push_back(ctx + (D > 8 ? ", \xE2\x80\xA6 " + std::to_string(D) + " values)" : ")"));
    }
    // 3. two scales: scores diverging around 0, the softmax row as the weights figure colours it
    v.signed_values = true;
    v.scale = make_scale(ValueKind::signed_value, scores, spec, "score");
    v.last_row_scale = make_scale(ValueKind::probability, weights, spec, "weight");
    v.notes.insert(v.notes.begin(), "row 4 (softmax) on the weights' scale: " + v.last_row_scale->caption + ", " +
                                        v.last_row_scale->cmap_name + " " + v.last_row_scale->low_label() + " to " +
                                        v.last_row_scale->high_label());
    return v;
}

}  // namespace attn::render
