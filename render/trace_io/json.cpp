#include "render/trace_io/json.h"

#include "core/kinds/decode.h"
#include "core/kinds/kinds.h"
#include "render/trace_io/json_out.h"
#include "render/view/position_series.h"

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
    if (c.weights.empty()) j["seed"] = c.seed, j["init"] = c.init;
    else j["weights"] = c.weights;  // the parameters came from this file: no seed or init drew them
    j["d_in"] = c.d_in;
    j["d_out"] = c.d_out;
    j["heads"] = c.heads;
    j["kv_heads"] = c.kv_heads;
    j["causal"] = c.causal;
    j["qkv_bias"] = c.qkv_bias;
    j["dropout"] = c.dropout;
    if (c.dropout_seed) j["dropout_seed"] = *c.dropout_seed;
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

Json score_stages_json(const ScoreStages& s) {
    return {{"scores", s.score}, {"scale", s.scale ? Json(s.scale) : Json()}};
}

namespace {

// A kind's score stages; a kind taking --score also by each score ("by_score"), the top level its default's.
Json kind_score_stages(const Kind& k) {
    Settings s;
    Json j = score_stages_json(k.score_stages(s));
    if (k.options & opt_score)
        for (const char* score : {"dot", "general", "concat"}) {
            s.score = score;
            j["by_score"][score] = score_stages_json(k.score_stages(s));
        }
    return j;
}

}  // namespace

Json kinds_json() {
    Json all = Json::array();
    for (const auto& k : kinds())
        all.push_back({{"kind", k.name},
                       {"description", k.description},
                       {"formula", k.formula},
                       {"score_stages", kind_score_stages(k)},
                       {"paper", k.paper},
                       {"options", option_flags(k.options)},
                       {"default_causal", k.defaults.causal},
                       {"positions", (k.options & opt_pos) ? std::vector<std::string>{"none", "sinusoidal", "rope", "alibi"}
                                                           : std::vector<std::string>{"none"}},
                       {"decode", kind_decodes(k)}});
    return all;
}

namespace {

// Bytes to reserve for the trace's text: every number and boolean at its longest, the tokens twice
// over (escaped), and room for the rest. Reserved pages that are never written take no memory.
std::size_t reserve_bytes(const Trace& t) {
    double numbers = 0.0, bools = 0.0, text = 0.0;
    const auto count = [&](const Mat& m) { numbers += double(m.size()); };
    count(t.x), count(t.source_x), count(t.positions), count(t.source_positions), count(t.output);
    for (const auto& p : t.params) count(p.value);
    const auto head = [&](const HeadTrace& h) {
        for (const Mat* m : {&h.queries, &h.keys, &h.values, &h.queries_unrotated, &h.keys_unrotated, &h.bias,
                             &h.scores, &h.weights, &h.zeroed, &h.dropped_weights, &h.context})
            count(*m);
        bools += double(h.mask.size());
    };
    for (const auto& set : t.sets) {
        for (const auto* list : {&set.query_tokens, &set.key_tokens})
            for (const auto& s : *list) text += 2.0 * double(s.size()) + 3.0;
        for (const auto& l : set.layers)
            for (const auto& h : l.heads) head(h);
        for (const auto& m : set.layer_mean) count(m);
        for (const auto& m : set.rollout) count(m);
    }
    numbers += 8.0 * double(t.source_token_ids.size() + t.generated_ids.size());
    for (const auto& m : t.layer_mean) count(m);
    for (const auto& m : t.rollout) count(m);
    numbers += 8.0 * double(t.tiles.size()) + 8.0 * double(t.token_ids.size());
    for (const auto& tile : t.tiles) numbers += double(tile.row_max.size() + tile.row_sum.size());
    for (const auto* list : {&t.tokens, &t.source_tokens})
        for (const auto& s : *list) text += 2.0 * double(s.size()) + 3.0;
    for (const auto& row : t.predictions)
        for (const auto& p : row) text += 2.0 * double(p.token.size()) + 48.0;
    return static_cast<std::size_t>(numbers * JsonOut::kMaxNumberBytes + bools * JsonOut::kMaxBoolBytes + text +
                                    65536.0);
}

void write_params(JsonOut& j, const Trace& t) {
    j.key("params");
    j.begin_object();
    for (const auto& p : t.params) {
        // Biases (b_*, stored (1, out)) and v (d, 1) are vectors; every weight matrix stays an array of
        // rows whatever its size (W_query of --d-in 1 is one row).
        j.key(p.name);
        if (p.name.rfind("b_", 0) == 0) {
            j.row(p.value, 0);
        } else if (p.name == "v") {
            Json v = Json::array();
            for (std::size_t i = 0; i < p.value.shape(0); ++i) v.push_back(p.value(i, 0));
            j.value(v);
        } else {
            j.matrix(p.value);
        }
    }
    j.end_object();
}

// One head: every stage it holds, in the format's order (a model's heads hold scores, mask and weights).
void write_head(JsonOut& j, const HeadTrace& h) {
    const auto optional = [&](const char* name, const Mat& m) {
        if (m.size()) j.key(name), j.matrix(m);
    };
    j.begin_object();
    j.key("head"), j.value(h.head);
    j.key("kv_head"), j.value(h.kv_head);
    optional("queries", h.queries);
    optional("keys", h.keys);
    optional("values", h.values);
    optional("queries_unrotated", h.queries_unrotated);
    optional("keys_unrotated", h.keys_unrotated);
    optional("bias", h.bias);
    optional("scores", h.scores);
    j.key("scale"), j.value(h.scale);
    if (h.mask.size()) j.key("mask"), j.bool_matrix(h.mask);
    optional("weights", h.weights);
    optional("zeroed", h.zeroed);
    optional("dropped_weights", h.dropped_weights);
    optional("context", h.context);
    j.end_object();
}

void write_tiles(JsonOut& j, const Trace& t) {
    j.key("tiles");
    j.begin_array();
    for (const auto& tile : t.tiles)
        j.value({{"head", tile.head}, {"q_block", tile.q_block}, {"k_block", tile.k_block},
                 {"rows", {tile.q_begin, tile.q_end}}, {"cols", {tile.k_begin, tile.k_end}},
                 {"row_max", tile.row_max}, {"row_sum", tile.row_sum}});
    j.end_array();
}

// What the position figures draw beyond the run's own numbers (render/view/position_series.h), only with
// --pos sinusoidal or rope: {"sinusoidal": {"first", "table" (64, D)}} or {"rope": {"d_k", "token",
// "ones" (64), "head0" (64)}}, so that the page draws a live run's figures from its trace.
void write_position_figures(JsonOut& j, const Trace& t) {
    const Mat table = sinusoidal_rows(t);
    const std::optional<RopeCurves> rope = rope_curves(t);
    if (table.size() == 0 && !rope) return;
    j.key("position_figures");
    j.begin_object();
    if (table.size()) {
        j.key("sinusoidal");
        j.begin_object();
        j.key("first"), j.value(t.config.pos_offset);
        j.key("table"), j.matrix(table);
        j.end_object();
    }
    if (rope) j.key("rope"), j.value({{"d_k", rope->d_k}, {"token", rope->token}, {"ones", rope->ones}, {"head0", rope->head0}});
    j.end_object();
}

// A seeded kind's trace (docs/trace-format.md), field by field in the format's order.
void write_trace(JsonOut& j, const Trace& t) {
    j.begin_object();
    j.key("format"), j.value("attn-trace");
    j.key("version"), j.value(kTraceVersion);
    j.key("kind"), j.value(t.kind);
    j.key("tokens"), j.value(t.tokens);
    j.key("source_tokens"), j.value(t.source_tokens);
    j.key("config"), j.value(config_json(t.config));
    j.key("inputs");
    j.begin_object();
    j.key("x"), j.matrix(t.x);
    if (t.has_source) j.key("source_x"), j.matrix(t.source_x);
    if (t.positions.size()) j.key("positions"), j.matrix(t.positions);
    if (t.source_positions.size()) j.key("source_positions"), j.matrix(t.source_positions);
    j.end_object();
    write_params(j, t);
    write_attention(j, t);
    j.key("output"), j.matrix(t.output);
    write_position_figures(j, t);
    if (!t.tiles.empty()) write_tiles(j, t);
    j.key("empty_rows"), j.value(t.empty_rows);
    if (!t.diagnostics.empty()) {
        Json d = Json::object();
        for (const auto& x : t.diagnostics) d[x.name] = x.value;
        j.key("diagnostics"), j.value(d);
    }
    j.end_object();
}

}  // namespace

void write_attention(JsonOut& j, const Trace& t) {
    j.key("attention");
    j.begin_array();
    for (const AttentionSet& set : t.sets) {
        j.begin_object();
        j.key("name"), j.value(set.name);
        j.key("query_tokens"), j.value(set.query_tokens);
        j.key("key_tokens"), j.value(set.key_tokens);
        j.key("layers");
        j.begin_array();
        for (const LayerTrace& l : set.layers) {
            j.begin_object();
            j.key("layer"), j.value(l.layer);
            j.key("heads");
            j.begin_array();
            for (const HeadTrace& h : l.heads) write_head(j, h);
            j.end_array();
            j.end_object();
        }
        j.end_array();
        // an encoder-decoder model's sets carry their own aggregates
        for (const auto& [name, list] : {std::pair{"layer_mean", &set.layer_mean}, std::pair{"rollout", &set.rollout}}) {
            if (list->empty()) continue;
            j.key(name);
            j.begin_array();
            for (const auto& a : *list) j.matrix(a);
            j.end_array();
        }
        j.end_object();
    }
    j.end_array();
}

std::string trace_json_text(const Trace& t) {
    std::string text;
    text.reserve(reserve_bytes(t));
    JsonOut j(text);
    if (t.model) write_model_trace(j, t);  // a model run's fields (render/trace_io/json_model.cpp)
    else write_trace(j, t);
    text += '\n';
    return text;
}

}  // namespace attn::render
