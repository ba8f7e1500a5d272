#include "render/json.h"

#include "core/kinds.h"
#include "render/model_view.h"

namespace attn::render {

Json matrix(const Mat& m) {
    Json rows = Json::array();
    for (std::size_t i = 0; i < m.shape(0); ++i) {
        Json row = Json::array();
        for (std::size_t j = 0; j < m.shape(1); ++j) row.push_back(m(i, j));
        rows.push_back(std::move(row));
    }
    return rows;
}

Json bool_matrix(const Mask& m) {
    Json rows = Json::array();
    for (std::size_t i = 0; i < m.shape(0); ++i) {
        Json row = Json::array();
        for (std::size_t j = 0; j < m.shape(1); ++j) row.push_back(m(i, j) != 0);
        rows.push_back(std::move(row));
    }
    return rows;
}

Json config_json(const Settings& c) {
    Json j;
    j["seed"] = c.seed;
    j["init"] = c.init;
    j["d_in"] = c.d_in;
    j["d_out"] = c.d_out;
    j["heads"] = c.heads;
    j["kv_heads"] = c.kv_heads;
    j["causal"] = c.causal;
    j["qkv_bias"] = c.qkv_bias;
    j["dropout"] = c.dropout;
    if (c.window) j["window"] = *c.window;
    // the settings only some kinds take, when the kind takes them (the registry says which)
    const Kind* k = find_kind(c.kind);
    const unsigned takes = k ? k->options : 0u;
    if (takes & opt_score) j["score"] = c.score;
    if (takes & opt_blocks) j["block_q"] = c.block_q, j["block_k"] = c.block_k;
    if (takes & opt_renorm) j["renorm"] = c.renorm;
    if (c.pos != "none") j["pos"] = c.pos;
    if (c.pos == "rope") j["rope_base"] = c.rope_base, j["rope_style"] = c.rope_style;
    if (c.pos_offset != 0) j["pos_offset"] = c.pos_offset;
    if (takes & opt_align) j["align"] = c.bottom_right ? "bottom-right" : "top-left";
    return j;
}

Json trace_json(const Trace& t) {
    if (t.model) return model_trace_json(t);  // a model run's fields (render/model_view.cpp)
    Json j;
    j["format"] = "attn-trace";
    j["version"] = 1;
    j["kind"] = t.kind;
    j["tokens"] = t.tokens;
    j["source_tokens"] = t.source_tokens;
    j["config"] = config_json(t.config);
    j["inputs"]["x"] = matrix(t.x);
    if (t.has_source) j["inputs"]["source_x"] = matrix(t.source_x);
    if (t.positions.size()) j["inputs"]["positions"] = matrix(t.positions);
    if (t.source_positions.size()) j["inputs"]["source_positions"] = matrix(t.source_positions);
    j["params"] = Json::object();
    for (const auto& p : t.params) {
        // Biases (b_*, stored (1, out)) and v (d, 1) are vectors; every weight matrix stays an array of
        // rows whatever its size (W_query of --d-in 1 is one row).
        if (p.name.rfind("b_", 0) == 0) j["params"][p.name] = matrix(p.value)[0];
        else if (p.name == "v") {
            Json v = Json::array();
            for (std::size_t i = 0; i < p.value.shape(0); ++i) v.push_back(p.value(i, 0));
            j["params"][p.name] = v;
        } else j["params"][p.name] = matrix(p.value);
    }
    j["heads"] = Json::array();
    for (const auto& h : t.heads) {
        Json jh;
        jh["head"] = h.head;
        jh["kv_head"] = h.kv_head;
        jh["queries"] = matrix(h.queries);
        jh["keys"] = matrix(h.keys);
        jh["values"] = matrix(h.values);
        if (h.queries_unrotated.size()) jh["queries_unrotated"] = matrix(h.queries_unrotated);
        if (h.keys_unrotated.size()) jh["keys_unrotated"] = matrix(h.keys_unrotated);
        if (h.bias.size()) jh["bias"] = matrix(h.bias);
        if (h.scores.size()) jh["scores"] = matrix(h.scores);
        jh["scale"] = h.scale;
        if (h.mask.size()) jh["mask"] = bool_matrix(h.mask);
        if (h.weights.size()) jh["weights"] = matrix(h.weights);
        if (h.dropped_weights.size()) jh["dropped_weights"] = matrix(h.dropped_weights);
        jh["context"] = matrix(h.context);
        j["heads"].push_back(std::move(jh));
    }
    j["output"] = matrix(t.output);
    if (!t.tiles.empty()) {
        Json tiles = Json::array();
        for (const auto& tile : t.tiles)
            tiles.push_back({{"head", tile.head}, {"q_block", tile.q_block}, {"k_block", tile.k_block},
                             {"rows", {tile.q_begin, tile.q_end}}, {"cols", {tile.k_begin, tile.k_end}},
                             {"row_max", tile.row_max}, {"row_sum", tile.row_sum}});
        j["tiles"] = std::move(tiles);
    }
    j["empty_rows"] = t.empty_rows;
    if (!t.diagnostics.empty()) {
        Json d = Json::object();
        for (const auto& x : t.diagnostics) d[x.name] = x.value;
        j["diagnostics"] = std::move(d);
    }
    return j;
}

std::string trace_json_text(const Trace& t) { return trace_json(t).dump() + "\n"; }

}  // namespace attn::render
