#include "render/view/layer_aggregates.h"

#include <algorithm>

#include "render/view/model_title.h"

namespace attn::render {
namespace {

const char* const kTitleDot = " \xC2\xB7 ";
const char* const kDash = "\xE2\x80\x93";  // –

// (T, T) visible cells of model layer `layer`: where any head of the layer sees the key (its mask when
// the trace keeps the layer, else where the layer's mean is not 0).
Mask layer_visible(const Trace& t, std::size_t layer) {
    const Mat& mean = t.layer_mean.at(layer);
    Mask v = Mask::from_shape({mean.shape(0), mean.shape(1)});
    std::fill(v.begin(), v.end(), std::uint8_t{0});
    for (const LayerTrace& l : t.layers())
        if (l.layer == layer && !l.heads.empty() && l.heads[0].mask.size() == v.size()) {
            for (const HeadTrace& h : l.heads)
                for (std::size_t c = 0; c < v.size(); ++c)
                    if (h.mask.data()[c]) v.data()[c] = 1;
            return v;
        }
    for (std::size_t c = 0; c < v.size(); ++c) v.data()[c] = mean.data()[c] != 0.0f ? 1 : 0;
    return v;
}

// (T, T) cells the rollout through `layer` reaches: reach_l = (visible_l ∪ I) ∘ reach_{l-1}, as booleans.
Mask rollout_visible(const Trace& t, std::size_t layer) {
    Mask reach;
    for (std::size_t l = 0; l <= layer; ++l) {
        Mask a = layer_visible(t, l);
        const std::size_t T = a.shape(0);
        for (std::size_t i = 0; i < T; ++i) a(i, i) = 1;
        if (l == 0) {
            reach = std::move(a);
            continue;
        }
        Mask next = Mask::from_shape({T, T});
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t j = 0; j < T; ++j) {
                std::uint8_t any = 0;
                for (std::size_t k = 0; k < T && !any; ++k) any = a(i, k) && reach(k, j);
                next(i, j) = any;
            }
        reach = std::move(next);
    }
    return reach;
}

}  // namespace

const char* aggregate_word(LayerAggregate a) { return a == LayerAggregate::mean ? "mean" : "rollout"; }

AggregateView aggregate_view(const Trace& t, std::size_t layer, LayerAggregate a) {
    const std::string type = t.model ? model_title(*t.model) : t.kind;
    const std::size_t H = t.model ? t.model->n_head : t.config.heads;
    AggregateView v;
    Trace& one = v.trace;
    one.model = t.model, one.tokens = t.tokens, one.source_tokens = t.source_tokens, one.segments = t.segments;
    one.has_source = t.has_source;  // an encoder-decoder's cross set (render/view/set_view.h): target × source
    one.config.heads = 1, one.config.kv_heads = 1;  // one matrix: no "head 0" in titles
    HeadTrace h;
    h.weights = a == LayerAggregate::mean ? t.layer_mean.at(layer) : t.rollout.at(layer);
    h.mask = a == LayerAggregate::mean ? layer_visible(t, layer) : rollout_visible(t, layer);
    one.sets = {AttentionSet{t.sets.empty() ? std::string("self") : t.sets[0].name, t.tokens, t.source_tokens, {LayerTrace{layer, {std::move(h)}}}, true, {}, {}}};
    if (a == LayerAggregate::mean) {
        one.kind = type + kTitleDot + "layer " + std::to_string(layer);
        v.title_word = "mean of " + std::to_string(H) + " heads";
        v.subtitle = "the " + std::to_string(H) + " heads' weights averaged cell by cell: each row sums to 1";
        v.hidden = "keys every head hides";
    } else {
        one.kind = type;
        v.title_word = layer == 0 ? std::string("rollout through layer 0") : "rollout through layers 0" + std::string(kDash) + std::to_string(layer);
        // core/model/model.cpp attention_rollout (Abnar & Zuidema 2020): rollout_l = Ã_l · rollout_{l-1}
        std::string product;
        for (std::size_t l = layer + 1; l-- > 0;) {
            if (layer > 3 && l == layer - 1) product += "\xC2\xB7\xE2\x80\xA6", l = 0;  // Ã_9·…·Ã_0
            product += std::string(l == layer ? "" : "\xC2\xB7") + "A\xCC\x83_" + std::to_string(l);
        }
        v.subtitle = "A\xCC\x83_l = \xC2\xBD(mean_l + I), rows renormalised; rollout = " + product + ": each row sums to 1";
        v.hidden = "keys no path reaches";
    }
    return v;
}

}  // namespace attn::render
