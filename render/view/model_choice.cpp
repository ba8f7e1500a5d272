#include "render/view/model_choice.h"

#include <algorithm>
#include <cstdio>

#include "render/view/model_title.h"

namespace attn::render {

Trace layer_view(const Trace& t, std::size_t layer, std::optional<std::size_t> head, const std::string& kind) {
    const AttentionSet& set = t.sets.at(0);
    const LayerTrace& chosen = set.layers.at(layer);
    Trace v;
    v.kind = kind, v.config = t.config, v.model = t.model;
    v.tokens = t.tokens, v.source_tokens = t.source_tokens, v.segments = t.segments;
    v.has_source = t.has_source, v.empty_rows = t.empty_rows;
    // The chosen heads copied once: a braced list would copy each (T, T) matrix twice more (its
    // initializer_list's elements are const), and at 10,000 tokens those copies were the run's peak.
    LayerTrace one{chosen.layer, {}};
    if (head) one.heads.push_back(chosen.heads.at(*head));
    else one.heads = chosen.heads;
    AttentionSet s{set.name, set.query_tokens, set.key_tokens, {}, false, {}, {}};
    s.layers.push_back(std::move(one));
    v.sets.clear();
    v.sets.push_back(std::move(s));
    for (Tile tile : t.tiles)
        if (!head || tile.head == *head) tile.head = head ? 0 : tile.head, v.tiles.push_back(tile);
    return v;
}

Trace chosen_head_trace(const Trace& t, const HeadChoice& c) {
    Trace one = layer_view(t, c.layer, c.head, model_title(*t.model) + " \xC2\xB7 layer " + std::to_string(t.layers().at(c.layer).layer));
    one.source_tokens = t.sets.at(0).key_tokens;  // the tokens, but the source for a cross set (render/view/set_view.h)
    one.has_source = t.has_source, one.empty_rows.clear();
    if (t.model && t.config.heads != t.model->n_head) {  // a trace read back (its JSON has no config): as the run's
        std::size_t G = 0;
        for (const HeadTrace& h : t.layers().at(c.layer).heads) G = std::max(G, h.kv_head + 1);
        one.config.heads = t.model->n_head, one.config.kv_heads = G;
    }
    if (const NeuronTrace* n = neuron_of(t, c)) {
        HeadTrace& h = one.heads().at(0);
        h.queries = n->queries, h.keys = n->keys;
    }
    return one;
}

const NeuronTrace* neuron_of(const Trace& t, const HeadChoice& c) {
    if (!t.neuron || t.neuron->queries.size() == 0 || c.layer >= t.layers().size()) return nullptr;
    return t.neuron->layer == t.layers()[c.layer].layer && t.neuron->head == c.head ? &*t.neuron : nullptr;
}

std::string neuron_note(const Trace& t, const NeuronTrace& n) {
    char scale[32];
    std::snprintf(scale, sizeof scale, "%.6g", static_cast<double>(n.scaled_by));
    const bool grouped = t.config.kv_heads > 0 && t.config.kv_heads < t.config.heads;
    std::string s = std::string("after the bias") + (n.rotary ? " and RoPE" : "") + ", before the scale (scores = q\xC2\xB7k \xC3\x97 " +
                    scale + ")";
    if (grouped) s += "; keys of kv g " + std::to_string(n.kv_head);
    return s;
}

}  // namespace attn::render
