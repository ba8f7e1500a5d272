#include "render/trace_io/decode_json.h"

namespace attn::render {

Json decode_json(const DecodeTrace& d) {
    Json j;
    j["format"] = "attn-decode";
    j["version"] = 1;
    j["kind"] = d.full.kind;
    j["tokens"] = d.full.tokens;
    // a seeded run's settings; a model's facts are its own (below), not a seed's
    if (!d.model) j["config"] = config_json(d.full.config);
    j["mask_alignment"] = "bottom-right";
    j["cache"] = {{"layers", d.layers}, {"heads", d.heads}, {"kv_heads", d.kv_heads}, {"d_k", d.d_k}, {"d_v", d.d_v},
                  {"dtype", d.model ? d.model->dtype : "float32"}};
    if (d.model) {  // attn decode --model: the model's facts (as show --model's trace), the layer the steps record, the token ids
        j["model"] = d.full.model ? model_info_json(*d.full.model) : Json{{"dtype", d.model->dtype}, {"n_layer", d.layers}};
        j["model"]["layer"] = d.model->layer;
        j["token_ids"] = d.full.token_ids;
    }
    j["steps"] = Json::array();
    for (const DecodeStep& s : d.steps) {
        Json js;
        js["step"] = s.step;
        js["token"] = s.token;
        js["position"] = static_cast<std::int64_t>(s.step) + d.full.config.pos_offset;
        js["heads"] = Json::array();
        for (const DecodeHeadStep& h : s.heads)
            js["heads"].push_back({{"head", h.head}, {"kv_head", h.kv_head}, {"weights", h.weights}});
        if (d.model) {
            js["token_id"] = s.token_id;
            js["next"] = {{"id", s.next_id}, {"token", s.next}};
        } else {
            js["output"] = s.output;
        }
        js["cache_bytes"] = s.cache_bytes;
        j["steps"].push_back(std::move(js));
    }
    j["cache_variants"] = Json::array();
    for (const CacheVariant& v : d.variants)
        j["cache_variants"].push_back({{"name", v.name}, {"kv_heads", v.kv_heads},
                                       {"bytes_per_token", v.bytes_per_token}, {"this_run", v.this_run}});
    if (d.model && d.model->generation) {  // --max-new-tokens: the tokens chosen after the text
        const DecodeGeneration& g = *d.model->generation;
        Json gen;
        gen["mode"] = g.sample ? "sample" : "greedy";
        gen["temperature"] = g.temperature, gen["top_k"] = g.top_k, gen["top_p"] = g.top_p, gen["sample_seed"] = g.sample_seed;
        gen["max_new_tokens"] = g.max_new_tokens, gen["prompt_tokens"] = g.prompt, gen["stopped_at_eos"] = g.stopped_at_eos;
        gen["steps"] = Json::array();
        j["generated_ids"] = Json::array();
        for (const GeneratedToken& t : g.tokens) {
            Json st = {{"id", t.id}, {"token", t.token}, {"step", t.row}, {"p", t.p}};
            if (g.sample) st["p_sample"] = t.p_sample;
            st["top"] = Json::array();
            for (const Prediction& a : t.top) st["top"].push_back({{"id", a.id}, {"token", a.token}, {"p", a.p}});
            gen["steps"].push_back(std::move(st));
            j["generated_ids"].push_back(t.id);
        }
        j["generation"] = std::move(gen);
    }
    j["diagnostics"] = {{"decode_max_abs_diff", d.max_abs_diff}};
    if (d.model) j["diagnostics"]["top_changed"] = d.model->top_changed;
    return j;
}

std::string decode_json_text(const DecodeTrace& d) { return decode_json(d).dump() + "\n"; }

// 1. what runs, 2. one line per step: the token, head h's row over the cache, the cache's bytes,
// 3. the cache per token and after T tokens for MHA, GQA and MQA, 4. the comparison with the full pass.

}  // namespace attn::render
