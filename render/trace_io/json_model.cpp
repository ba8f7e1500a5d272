// A model trace's own fields in the JSON trace (docs/trace-format.md): model, token_ids, its attention
// set, aggregates, predictions; an encoder's stack, token types, segments and mask predictions; an
// encoder-decoder's stack, source, generated ids (its three sets carry their own aggregates).
#include "render/trace_io/json_out.h"

namespace attn::render {

void write_model_trace(JsonOut& j, const Trace& t) {
    const ModelInfo& m = *t.model;
    j.begin_object();
    j.key("format"), j.value("attn-trace");
    j.key("version"), j.value(kTraceVersion);
    j.key("kind"), j.value("model");
    j.key("model"), j.value({{"type", m.type},       {"dtype", m.dtype},           {"n_layer", m.n_layer},
                             {"n_head", m.n_head},   {"n_embd", m.n_embd},         {"n_positions", m.n_positions},
                             {"vocab_size", m.vocab_size}, {"n_params", m.n_params}, {"layer_norm_epsilon", m.layer_norm_epsilon}});
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
    j.key("empty_rows"), j.value(t.empty_rows);
    j.end_object();
}

}  // namespace attn::render
