#include "render/view/model_choice.h"

namespace attn::render {

Trace chosen_head_trace(const Trace& t, const HeadChoice& c) {
    Trace one;
    one.kind = t.model->type + " \xC2\xB7 layer " + std::to_string(t.layers.at(c.layer).layer);
    one.model = t.model;
    one.config = t.config;
    one.tokens = one.source_tokens = t.tokens;
    one.heads = {t.layers.at(c.layer).heads.at(c.head)};
    return one;
}

}  // namespace attn::render
