#include "render/view/set_view.h"

#include <stdexcept>

#include "render/view/model_title.h"

namespace attn::render {

bool is_encoder_decoder(const Trace& t) { return t.model && t.model->stack == "encoder-decoder"; }

const AttentionSet* find_set(const Trace& t, const std::string& name) {
    for (const AttentionSet& s : t.sets)
        if (s.name == name) return &s;
    return nullptr;
}

std::vector<std::string> set_names(const Trace& t) {
    std::vector<std::string> names;
    for (const AttentionSet& s : t.sets) names.push_back(s.name);
    return names;
}

Trace set_view(const Trace& t, const std::string& name) {
    const AttentionSet* set = find_set(t, name);
    if (!is_encoder_decoder(t) || set == nullptr) throw std::invalid_argument("set_view: no set \"" + name + "\" in an encoder-decoder trace");
    const bool encoder = name == "encoder", cross = name == "cross";
    Trace v;
    v.kind = t.kind, v.config = t.config;
    v.tokens = set->query_tokens, v.source_tokens = set->key_tokens;
    v.has_source = cross;
    v.sets = {*set};
    v.sets[0].layer_mean.clear(), v.sets[0].rollout.clear();
    v.layer_mean = set->layer_mean, v.rollout = set->rollout;
    v.model = t.model;
    v.model->type = name;
    if (!t.model->name.empty()) v.model->name = model_title(*t.model) + " \xC2\xB7 " + name;  // "t5-small · encoder"
    v.model->n_layer = encoder ? t.model->n_layer : t.model->n_decoder_layer;
    v.model->n_decoder_layer = 0;
    v.model->stack = encoder ? "encoder" : cross ? "cross" : "decoder";
    if (encoder) {
        v.token_ids = t.source_token_ids;
    } else {
        v.token_ids = t.token_ids, v.predictions = t.predictions;
        v.source_token_ids = cross ? t.source_token_ids : t.token_ids;
    }
    return v;
}

std::string set_file_prefix(const std::string& base, const std::string& name) { return base + "-" + name; }

}  // namespace attn::render
