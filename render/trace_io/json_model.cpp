// A model trace's own fields in the JSON trace (docs/trace-format.md): model, token_ids, its attention
// set, aggregates, predictions; an encoder's stack, token types, segments and mask predictions; an
// encoder-decoder's stack, source, generated ids (its three sets carry their own aggregates); the neuron
// view's head (--show queries,keys).
#include "render/trace_io/json_out.h"

#include <string>

namespace attn::render {

Json model_info_json(const ModelInfo& m) {
    Json model = {{"type", m.type}};
    if (!m.name.empty()) model["name"] = m.name;  // the checkpoint (an older trace has none)
    const Json facts = {{"dtype", m.dtype},   {"n_layer", m.n_layer},           {"n_head", m.n_head},
                        {"n_embd", m.n_embd}, {"n_positions", m.n_positions}, {"vocab_size", m.vocab_size},
                        {"n_params", m.n_params}, {"layer_norm_epsilon", m.layer_norm_epsilon}};
    for (const auto& [key, value] : facts.items()) model[key] = value;
    return model;
}

void write_model_trace(JsonOut& j, const Trace& t) {
    const ModelInfo& m = *t.model;
    j.begin_object();
    j.key("format"), j.value("attn-trace");
    j.key("version"), j.value(kTraceVersion);
    j.key("kind"), j.value("model");
    j.key("model"), j.value(model_info_json(m));
    j.key("tokens"), j.value(t.tokens);
    j.key("token_ids"), j.value(t.token_ids);
    write_attention(j, t);
    j.key("aggregates");
    j.begin_object();
    for (const auto& [name, list] : {std::pair{"layer_mean", &t.layer_mean}, std::pair{"rollout", &t.rollout}}) {
        j.key(name);
        j.begin_array();
        for (const auto& a : *list) j.matrix(a);
        j.end_array();
    }
    j.end_object();
    j.key("predictions");
    j.begin_array();
    for (const auto& row : t.predictions) {
        Json r = Json::array();
        for (const auto& p : row) r.push_back({{"id", p.id}, {"token", p.token}, {"p", p.p}});
        j.value(r);
    }
    j.end_array();
    if (m.stack == "encoder") {  // an encoder's own fields (a decoder's trace is as it was)
        j.key("stack"), j.value(m.stack);
        j.key("token_type_ids"), j.value(t.token_type_ids);
        j.key("segments"), j.value(t.segments);
        j.key("mask_predictions");
        j.begin_array();
        for (const auto& mp : t.mask_predictions) {
            Json top = Json::array();
            for (const auto& p : mp.top) top.push_back({{"id", p.id}, {"token", p.token}, {"p", p.p}});
            j.value(Json{{"position", mp.position}, {"top", top}});
        }
        j.end_array();
    }
    if (m.stack == "encoder-decoder") {  // the source, the decoder's generated ids, the decoder's depth
        j.key("stack"), j.value(m.stack);
        j.key("n_decoder_layer"), j.value(m.n_decoder_layer);
        j.key("source_tokens"), j.value(t.source_tokens);
        j.key("source_token_ids"), j.value(t.source_token_ids);
        j.key("generated_ids"), j.value(t.generated_ids);
        j.key("teacher_forced"), j.value(t.teacher_forced);
    }
    if (!t.lens.empty()) {  // --lens: per depth ("emb", then each layer), each position's top id and probability
        j.key("lens");
        j.begin_array();
        for (const LensRow& row : t.lens) {
            Json layer = row.layer == "emb" ? Json("emb") : Json(std::stoul(row.layer));
            j.value(Json{{"layer", layer}, {"ids", row.ids}, {"p", row.p}});
        }
        j.end_array();
    }
    if (t.ablation) {  // --ablate: the heads, the mode, the text's loss before and after, each position's change
        const AblationSummary& a = *t.ablation;
        Json heads = Json::array(), positions = Json::array();
        for (const auto& [l, h] : a.heads) heads.push_back({l, h});
        for (const AblationPosition& p : a.positions)
            positions.push_back({{"top_before", p.top_before}, {"p_before", p.p_before}, {"top_after", p.top_after},
                                 {"p_after", p.p_after}, {"loss_before", p.loss_before}, {"loss_after", p.loss_after}});
        j.key("ablation");
        j.value(Json{{"heads", heads}, {"mode", a.mode}, {"loss_before", a.loss_before}, {"loss_after", a.loss_after},
                     {"positions", positions}});
    }
    if (t.neuron) {  // --show queries,keys: one head's queries and keys, and query I's products with every key
        const NeuronTrace& n = *t.neuron;
        j.key("neuron");
        j.begin_object();
        j.key("layer"), j.value(n.layer);
        j.key("head"), j.value(n.head);
        j.key("kv_head"), j.value(n.kv_head);
        j.key("scaled_by"), j.value(n.scaled_by);
        j.key("rotary"), j.value(n.rotary);
        j.key("queries"), j.matrix(n.queries);
        j.key("keys"), j.matrix(n.keys);
        j.key("query"), j.value(n.query ? Json(*n.query) : Json());
        j.key("products");
        if (n.products.size()) j.matrix(n.products);
        else j.value(Json());
        j.end_object();
    }
    j.key("empty_rows"), j.value(t.empty_rows);
    j.end_object();
}

}  // namespace attn::render
