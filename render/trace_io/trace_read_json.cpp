// Reading a saved JSON trace (format "attn-trace", version 1; docs/trace-format.md) back into a Trace
// (render/trace_io/trace_read.h). Strict: every field is checked for its type and shape, errors name the field.
#include "render/trace_io/trace_read.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include "core/base/head.h"
#include "core/kinds/kinds.h"
#include "data/base/error.h"
#include "data/base/json_strict.h"
#include "data/text/tokenize.h"
#include "render/trace_io/json.h"
#include "render/trace_io/trace_fields.h"

namespace attn::render {
using namespace trace_fields;
namespace {

Json parse(const std::string& text, const std::string& name) {
    const Reader r{name};
    return parse_json_strict<Json>(text, kMaxTraceDepth, [&](const std::string& where, const std::string& why) { r.fail(where, why); });
}

std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

void read_config(const Reader& r, const Json& j, Settings& c) {
    const std::string w = "config";
    r.expect(j.is_object(), w, "an object");
    if (auto* v = r.find(j, "seed")) c.seed = r.whole(*v, w + ".seed");
    if (auto* v = r.find(j, "init")) c.init = r.text(*v, w + ".init");
    if (auto* v = r.find(j, "weights")) c.weights = r.text(*v, w + ".weights");
    if (auto* v = r.find(j, "d_in")) c.d_in = r.size(*v, w + ".d_in");
    if (auto* v = r.find(j, "d_out")) c.d_out = r.size(*v, w + ".d_out");
    if (auto* v = r.find(j, "heads")) c.heads = r.size(*v, w + ".heads");
    if (c.heads == 0) r.fail(w + ".heads", "is 0, but a run has at least one head");
    if (auto* v = r.find(j, "kv_heads")) c.kv_heads = r.size(*v, w + ".kv_heads");
    if (auto* v = r.find(j, "causal")) c.causal = r.flag(*v, w + ".causal");
    if (auto* v = r.find(j, "qkv_bias")) c.qkv_bias = r.flag(*v, w + ".qkv_bias");
    if (auto* v = r.find(j, "dropout")) c.dropout = r.number(*v, w + ".dropout");
    if (!(c.dropout >= 0.0f && c.dropout < 1.0f)) r.fail(w + ".dropout", "is " + number_text(c.dropout) + ", not a probability in [0, 1)");
    if (auto* v = r.find(j, "dropout_seed")) c.dropout_seed = r.whole(*v, w + ".dropout_seed");
    if (auto* v = r.find(j, "window")) c.window = r.size(*v, w + ".window");
    if (auto* v = r.find(j, "score")) c.score = r.text(*v, w + ".score");
    if (auto* v = r.find(j, "block_q")) c.block_q = r.size(*v, w + ".block_q");
    if (auto* v = r.find(j, "block_k")) c.block_k = r.size(*v, w + ".block_k");
    if (auto* v = r.find(j, "renorm")) c.renorm = r.flag(*v, w + ".renorm");
    // positions and alignment: the page and the figures' titles say them, and the trace writes them back
    if (auto* v = r.find(j, "pos")) c.pos = r.text(*v, w + ".pos");
    if (c.pos != "none" && c.pos != "sinusoidal" && c.pos != "rope" && c.pos != "alibi")
        r.fail(w + ".pos", "is \"" + excerpt(c.pos) + "\", not none, sinusoidal, rope or alibi");
    if (auto* v = r.find(j, "rope_base")) c.rope_base = r.number(*v, w + ".rope_base");
    if (auto* v = r.find(j, "rope_style")) c.rope_style = r.text(*v, w + ".rope_style");
    if (c.rope_style != "half" && c.rope_style != "interleaved")
        r.fail(w + ".rope_style", "is \"" + excerpt(c.rope_style) + "\", not half or interleaved");
    if (auto* v = r.find(j, "pos_offset")) c.pos_offset = r.integer(*v, w + ".pos_offset");
    if (auto* v = r.find(j, "align")) {
        const std::string align = r.text(*v, w + ".align");
        if (align != "top-left" && align != "bottom-right") r.fail(w + ".align", "is not top-left or bottom-right");
        c.bottom_right = align == "bottom-right";
    }
}

// The stages' own rules (docs/trace-format.md): weights, zeroed and dropped_weights are 0 where the mask
// hides a key; weights and zeroed lie in [0, 1]; a weights row sums to 1 within kRowSumTolerance, or is
// all 0 when it sees no key; a zeroed row sums to at most 1 (the softmax over every key, hidden ones
// then set to 0); a dropped weight is 0 or its weight / (1 − dropout), as the run scaled the kept ones.
void check_stages(const Reader& r, const HeadTrace& h, const std::string& w) {
    const std::size_t T = h.weights.size() ? h.weights.shape(0) : h.scores.shape(0);
    const std::size_t S = h.weights.size() ? h.weights.shape(1) : h.scores.shape(1);
    const auto at = [&](const char* stage, std::size_t i, std::size_t j) {
        return w + "." + stage + "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
    };
    const double keep_scale = 1.0 / (1.0 - double(r.facts.dropout));
    for (std::size_t i = 0; i < T; ++i) {
        std::size_t visible = 0;
        double sum = 0.0, zeroed_sum = 0.0;
        for (std::size_t j = 0; j < S; ++j) {
            const bool hidden = h.mask.size() && !h.mask(i, j);
            visible += !hidden;
            for (const auto& [m, stage] : {std::pair{&h.weights, "weights"}, std::pair{&h.zeroed, "zeroed"},
                                           std::pair{&h.dropped_weights, "dropped_weights"}}) {
                if (!m->size()) continue;
                const float v = (*m)(i, j);
                if (hidden && v != 0.0f)
                    r.fail(at(stage, i, j), "is " + number_text(v) + " but the mask hides this key (a hidden key's weight is 0)");
                if (m != &h.dropped_weights && !(v >= 0.0f && v <= 1.0f)) r.fail(at(stage, i, j), "is " + number_text(v) + ", not a weight in [0, 1]");
            }
            if (h.weights.size()) sum += double(h.weights(i, j));
            if (h.zeroed.size()) zeroed_sum += double(h.zeroed(i, j));
            if (h.dropped_weights.size()) {
                const double v = h.dropped_weights(i, j), kept = h.weights.size() ? double(h.weights(i, j)) * keep_scale : v;
                if (v < 0.0) r.fail(at("dropped_weights", i, j), "is " + number_text(v) + ", a negative weight");
                if (v != 0.0 && std::fabs(v - kept) > 1e-5 * std::max(1.0, kept))
                    r.fail(at("dropped_weights", i, j), "is " + number_text(v) + ", neither 0 nor weights[" + std::to_string(i) + "][" +
                                                            std::to_string(j) + "] / (1 - config.dropout) = " + number_text(kept));
            }
        }
        const std::string row = "[" + std::to_string(i) + "]";
        // a row that sees no key is all 0 (the hidden cells above); without a mask, a row of zeros is one
        if (h.weights.size() && visible > 0 && !(sum == 0.0 && !h.mask.size()) && std::fabs(sum - 1.0) > kRowSumTolerance)
            r.fail(w + ".weights" + row, "sums to " + number_text(sum) + ", not 1 (a softmax row, within " + number_text(kRowSumTolerance) + ")");
        if (h.zeroed.size() && zeroed_sum > 1.0 + kRowSumTolerance)
            r.fail(w + ".zeroed" + row, "sums to " + number_text(zeroed_sum) + ", more than 1 (a softmax row with hidden keys set to 0)");
    }
}

// One head: the stages present, each (T, S).
HeadTrace read_head(const Reader& r, const Json& j, const std::string& w, std::size_t T, std::size_t S) {
    r.expect(j.is_object(), w, "an object");
    HeadTrace h;
    h.head = r.size(r.need(j, "head", w), w + ".head");
    if (auto* v = r.find(j, "kv_head")) h.kv_head = r.size(*v, w + ".kv_head");
    h.queries = r.optional_mat(j, "queries", w);
    h.keys = r.optional_mat(j, "keys", w);
    h.values = r.optional_mat(j, "values", w);
    h.queries_unrotated = r.optional_mat(j, "queries_unrotated", w);
    h.keys_unrotated = r.optional_mat(j, "keys_unrotated", w);
    h.bias = r.optional_mat(j, "bias", w);
    h.scores = r.optional_mat(j, "scores", w);
    if (auto* v = r.find(j, "scale")) h.scale = r.number(*v, w + ".scale");
    if (auto* v = r.find(j, "mask")) h.mask = r.mask(*v, w + ".mask");
    h.weights = r.optional_mat(j, "weights", w);
    h.zeroed = r.optional_mat(j, "zeroed", w);
    h.dropped_weights = r.optional_mat(j, "dropped_weights", w);
    h.context = r.optional_mat(j, "context", w);
    r.shape(h.scores, T, S, w + ".scores");
    r.shape(h.weights, T, S, w + ".weights");
    r.shape(h.bias, T, S, w + ".bias");
    for (const auto& [m, like, name] : {std::tuple{&h.queries_unrotated, &h.queries, "queries"}, std::tuple{&h.keys_unrotated, &h.keys, "keys"}})
        if (m->size() && (m->shape(0) != like->shape(0) || m->shape(1) != like->shape(1)))
            r.fail(w + "." + name + "_unrotated", std::string("is not the shape of \"") + name + "\"");
    r.shape(h.zeroed, T, S, w + ".zeroed");
    r.shape(h.dropped_weights, T, S, w + ".dropped_weights");
    if (h.mask.size() && (h.mask.shape(0) != T || h.mask.shape(1) != S))
        r.fail(w + ".mask", "is not (T, S) = (" + std::to_string(T) + ", " + std::to_string(S) + ")");
    if (!h.weights.size() && !h.scores.size()) r.fail(w, "has neither \"weights\" nor \"scores\"");
    check_stages(r, h, w);
    return h;
}

}  // namespace

namespace trace_fields {

std::vector<HeadTrace> read_heads(const Reader& r, const Json& j, const std::string& w, std::size_t T, std::size_t S) {
    r.expect(j.is_array(), w, "an array of heads");
    std::vector<HeadTrace> heads;
    for (std::size_t i = 0; i < j.size(); ++i) heads.push_back(read_head(r, j[i], w + "[" + std::to_string(i) + "]", T, S));
    // Each head numbered once, within the heads the config or the model states, and all of them there.
    const std::size_t H = r.facts.heads ? r.facts.heads : heads.size();
    for (std::size_t i = 0; i < heads.size(); ++i) {
        const std::string wh = w + "[" + std::to_string(i) + "].head";
        if (heads[i].head >= H)
            r.fail(wh, std::to_string(heads[i].head) + " is past the last head (" + std::to_string(H - 1) + (r.facts.heads ? ", " + r.facts.heads_field + " " + std::to_string(H) : std::string()) + ")");
        for (std::size_t k = 0; k < i; ++k)
            if (heads[k].head == heads[i].head) r.fail(wh, "head " + std::to_string(heads[i].head) + " appears twice");
    }
    if (r.facts.heads && !heads.empty() && heads.size() != r.facts.heads)
        r.fail(r.facts.heads_field, "is " + std::to_string(r.facts.heads) + " but " + w + " holds " + std::to_string(heads.size()) +
                                       (heads.size() == 1 ? " head" : " heads"));
    for (std::size_t i = 0; i < heads.size(); ++i) {
        // a query head reads the key/value head of its group: kv_head = head / (H / KV) <= head
        // the groups: config.kv_heads when stated, else as many as the heads name (as the trace is written back)
        std::size_t named = 0;
        for (const HeadTrace& x : heads) named = std::max(named, x.kv_head + 1);
        const std::size_t kv = heads[i].kv_head;
        const std::string wk = w + "[" + std::to_string(i) + "].kv_head";
        if (kv > heads[i].head)
            r.fail(wk, std::to_string(kv) + " is not the key/value head of query head " + std::to_string(heads[i].head) +
                           " (a group's key/value head is numbered at most as its query heads)");
        if (r.facts.kv_heads && (r.facts.kv_heads > H || H % r.facts.kv_heads != 0))
            r.fail("config.kv_heads", "is " + std::to_string(r.facts.kv_heads) + ", which does not split " + std::to_string(H) +
                                          " heads into equal groups");
        const std::size_t KV = r.facts.kv_heads ? r.facts.kv_heads : named;
        if (!r.facts.kv_heads && (KV > H || H % KV != 0))
            r.fail(wk, "the heads name " + std::to_string(KV) + " key/value heads, which do not split " + std::to_string(H) +
                           " heads into equal groups");
        const std::size_t want = kv_head_of(heads[i].head, H, KV);
        if (kv != want)
            r.fail(wk, std::to_string(kv) + " is not the key/value head of query head " + std::to_string(heads[i].head) + " (" +
                           std::to_string(want) + ", with " + std::to_string(H) + " heads in " + std::to_string(KV) +
                           (KV == 1 ? " group)" : " groups)"));
    }
    // Every head has the same stages as the first (the renderers draw them side by side).
    const auto stages = [](const HeadTrace& h) {
        return std::vector<bool>{h.scores.size() != 0, h.mask.size() != 0, h.weights.size() != 0,
                                 h.dropped_weights.size() != 0};
    };
    for (std::size_t i = 1; i < heads.size(); ++i)
        if (stages(heads[i]) != stages(heads[0]))
            r.fail(w + "[" + std::to_string(i) + "]", "has other stages than " + w + "[0] (scores, mask, weights, dropped_weights)");
    return heads;
}

}  // namespace trace_fields

namespace {

void read_params(const Reader& r, const Json& j, Trace& t) {
    r.expect(j.is_object(), "params", "an object");
    for (const auto& [key, value] : j.items()) {
        const std::string w = "params." + key;
        Param p{key, {}};
        // Written as vectors: biases (1, out) and v (d, 1) (render/trace_io/json.cpp).
        if (value.is_array() && (value.empty() || !value[0].is_array())) {
            const std::vector<float> v = r.numbers(value, w);
            p.value = key == "v" ? Mat::from_shape({v.size(), 1}) : Mat::from_shape({1, v.size()});
            std::copy(v.begin(), v.end(), p.value.begin());
        } else {
            p.value = r.mat(value, w);
        }
        t.params.push_back(std::move(p));
    }
}

void read_tiles(const Reader& r, const Json& j, Trace& t) {
    r.expect(j.is_array(), "tiles", "an array");
    for (std::size_t i = 0; i < j.size(); ++i) {
        const std::string w = "tiles[" + std::to_string(i) + "]";
        const Json& jt = j[i];
        r.expect(jt.is_object(), w, "an object");
        Tile tile;
        tile.head = r.size(r.need(jt, "head", w), w + ".head");
        tile.q_block = r.size(r.need(jt, "q_block", w), w + ".q_block");
        tile.k_block = r.size(r.need(jt, "k_block", w), w + ".k_block");
        const Json& rows = r.need(jt, "rows", w);
        const Json& cols = r.need(jt, "cols", w);
        r.expect(rows.is_array() && rows.size() == 2, w + ".rows", "[begin, end)");
        r.expect(cols.is_array() && cols.size() == 2, w + ".cols", "[begin, end)");
        tile.q_begin = r.size(rows[0], w + ".rows"), tile.q_end = r.size(rows[1], w + ".rows");
        tile.k_begin = r.size(cols[0], w + ".cols"), tile.k_end = r.size(cols[1], w + ".cols");
        if (tile.q_begin >= tile.q_end || tile.q_end > t.tokens.size()) r.fail(w + ".rows", "is outside the queries");
        if (tile.k_begin >= tile.k_end || tile.k_end > t.source_tokens.size()) r.fail(w + ".cols", "is outside the keys");
        tile.row_max = r.numbers(r.need(jt, "row_max", w), w + ".row_max", true);
        tile.row_sum = r.numbers(r.need(jt, "row_sum", w), w + ".row_sum");
        if (tile.row_max.size() != tile.q_end - tile.q_begin || tile.row_sum.size() != tile.row_max.size())
            r.fail(w, "row_max and row_sum need one value per row");
        t.tiles.push_back(std::move(tile));
    }
}

}  // namespace

namespace trace_fields {

// Layers of heads (a version 2 set's, or a version 1 model's "layers"): each numbered once, within the
// model's layers when there is a model (`depth`: the set's stack's blocks), every one with the stages of
// the first; each head (T, S).
std::vector<LayerTrace> read_layers(const Reader& r, const Json& v, const std::string& where, const Trace& t, std::size_t T,
                                    std::size_t S, std::size_t depth) {
    r.expect(v.is_array(), where, "an array of layers");
    std::vector<LayerTrace> layers;
    for (std::size_t l = 0; l < v.size(); ++l) {
        const std::string w = where + "[" + std::to_string(l) + "]";
        const Json& jl = v[l];
        r.expect(jl.is_object(), w, "an object");
        LayerTrace layer;
        layer.layer = r.size(r.need(jl, "layer", w), w + ".layer");
        // the writer numbers kept layers as the model does (--keep-layers): each once, within n_layer
        if (t.model && layer.layer >= depth)
            r.fail(w + ".layer", std::to_string(layer.layer) + " is past the model's last layer (" +
                                     (depth ? std::to_string(depth - 1) : std::string("it has none")) + ")");
        for (const LayerTrace& seen : layers)
            if (seen.layer == layer.layer) r.fail(w + ".layer", "layer " + std::to_string(layer.layer) + " appears twice");
        layer.heads = read_heads(r, r.need(jl, "heads", w), w + ".heads", T, S);
        if (layer.heads.empty()) r.fail(w + ".heads", "there are no heads");
        // the same stages as the first layer's (the page and the PNGs draw layers alike)
        const HeadTrace& a = layer.heads[0];
        const HeadTrace& b = layers.empty() ? a : layers[0].heads[0];
        if ((a.scores.size() == 0) != (b.scores.size() == 0) || (a.mask.size() == 0) != (b.mask.size() == 0) ||
            (a.weights.size() == 0) != (b.weights.size() == 0) ||
            (a.dropped_weights.size() == 0) != (b.dropped_weights.size() == 0))
            r.fail(w, "has other stages than " + where + "[0]");
        layers.push_back(std::move(layer));
    }
    return layers;
}

std::vector<LayerTrace> read_layers(const Reader& r, const Json& v, const std::string& where, const Trace& t) {
    return read_layers(r, v, where, t, t.tokens.size(), t.source_tokens.size(), t.model ? t.model->n_layer : 0);
}

}  // namespace trace_fields

namespace {

// Version 2's "attention": one set (what attn writes for a seeded kind, a decoder or an encoder), its
// tokens the trace's own.
AttentionSet read_set(const Reader& r, const Json& v, const Trace& t) {
    r.expect(v.is_array(), "attention", "an array of attention sets");
    if (v.size() != 1)
        r.fail("attention", "holds " + std::to_string(v.size()) + " attention sets; attn draws traces of one set");
    const std::string w = "attention[0]";
    const Json& js = v[0];
    r.expect(js.is_object(), w, "an object");
    AttentionSet set;
    set.name = r.text(r.need(js, "name", w), w + ".name");
    if (set.name != "self" && set.name != "cross") r.fail(w + ".name", "is \"" + excerpt(set.name) + "\", not \"self\" or \"cross\"");
    set.query_tokens = r.texts(r.need(js, "query_tokens", w), w + ".query_tokens");
    set.key_tokens = r.texts(r.need(js, "key_tokens", w), w + ".key_tokens");
    if (set.query_tokens != t.tokens) r.fail(w + ".query_tokens", "are not the trace's \"tokens\"");
    if (set.key_tokens != t.source_tokens) r.fail(w + ".key_tokens", "are not the trace's keys (\"source_tokens\", or \"tokens\")");
    set.layers = read_layers(r, r.need(js, "layers", w), w + ".layers", t);
    return set;
}

}  // namespace

Trace read_trace_json(const std::string& text, const std::string& name) {
    Reader r{name};
    const Json j = parse(text, name);
    // 1. what the file is
    if (!j.is_object() || !j.contains("format") || j["format"] != "attn-trace")
        r.fail("", "not an attn trace (no \"format\": \"attn-trace\")");
    const Json& version = r.need(j, "version", "");
    // a whole number, written 2 or 2.0 (JSON does not tell them apart; Python's json writes 2.0 for a float)
    const auto version_is = [&](int n) { return version.is_number() && version.get<double>() == double(n); };
    const bool v1 = version_is(1);
    if (!v1 && !version_is(kTraceVersion)) {
        const std::string v = version.is_number() || version.is_string() ? version.dump() : "of another kind";
        input_error(name + ": trace version " + v + " is not supported (this attn reads versions 1 and 2)",
                    "write the trace again with this attn, or use the attn that wrote it");
    }
    // one version's keys: a trace holding both versions' heads says two things (version 1 with
    // "attention": below, where an encoder-decoder's is named first)
    for (const char* key : {"heads", "layers"})
        if (!v1 && r.find(j, key))
            r.fail(key, "is version 1's field, but the trace says version 2 (whose heads are in \"attention\")");
    // 2. the tokens and the settings
    Trace t;
    t.kind = r.text(r.need(j, "kind", ""), "kind");
    if (t.kind != "model" && find_kind(t.kind) == nullptr)  // the kind names the figures' files
        r.fail("kind", "\"" + excerpt(t.kind) + "\" is not a kind attn writes (attn kinds lists them; a model's is \"model\")");
    t.tokens = r.texts(r.need(j, "tokens", ""), "tokens");
    if (auto* v = r.find(j, "source_tokens")) t.source_tokens = r.texts(*v, "source_tokens");
    if (t.tokens.empty()) r.fail("tokens", "there are no tokens");
    for (const auto& [list, field] : {std::pair{&t.tokens, "tokens"}, std::pair{&t.source_tokens, "source_tokens"}})
        for (std::size_t i = 0; i < list->size(); ++i)  // as every token attn takes (data/base/limits.h)
            if (const auto problem = token_length_problem((*list)[i])) r.fail(std::string(field) + "[" + std::to_string(i) + "]", *problem);
    if (t.source_tokens.empty()) t.source_tokens = t.tokens;
    const std::size_t T = t.tokens.size(), S = t.source_tokens.size();
    t.config.kind = t.kind;
    if (auto* v = r.find(j, "config")) read_config(r, *v, t.config);
    // 3. the inputs and the parameters
    if (auto* v = r.find(j, "inputs")) {
        r.expect(v->is_object(), "inputs", "an object");
        t.x = r.optional_mat(*v, "x", "inputs");
        if (auto* sx = r.find(*v, "source_x")) t.source_x = r.mat(*sx, "inputs.source_x"), t.has_source = true;
    }
    if (auto* v = r.find(j, "params")) read_params(r, *v, t);
    // 4. the model's fields, then the attention: version 2's one set, or version 1's seeded "heads" or
    //    model "layers" (numbered as the model's)
    //    (a seeded kind's trace has no model fields: a "model" object there is ignored, as the writer would
    //    otherwise write it back as a model's trace without its source tokens)
    const bool model = t.kind == "model";
    if (model) read_model(r, j, t);
    // what the heads must agree with: the model's head count, or the config's when it states one
    if (t.model && t.model->n_head) r.facts.heads = t.model->n_head, r.facts.heads_field = "model.n_head";
    const Json* config = r.find(j, "config");
    if (!model && config && config->is_object() && config->contains("heads")) r.facts.heads = t.config.heads, r.facts.heads_field = "config.heads";
    if (!model && config && config->is_object() && config->contains("kv_heads")) r.facts.kv_heads = t.config.kv_heads;
    r.facts.dropout = t.config.dropout;
    AttentionSet set{has_source_axes(t) ? "cross" : "self", t.tokens, t.source_tokens, {}, model, {}, {}};
    const bool encoder_decoder = model && t.model && t.model->stack == "encoder-decoder";
    if (encoder_decoder) {
        if (v1) r.fail("version", "an encoder-decoder trace is version 2 (its three sets are in \"attention\")");
        t.sets = read_encoder_decoder_sets(r, r.need(j, "attention", ""), t);
    } else if (!v1) {
        set = read_set(r, r.need(j, "attention", ""), t);
        set.model_layers = model;
        if (!model && !set.layers.empty() && !(set.layers.size() == 1 && set.layers[0].layer == 0))
            r.fail("attention[0].layers", "a seeded kind's trace has one layer, numbered 0");
    } else if (r.find(j, "attention")) {
        r.fail("attention", "is version 2's field, but the trace says version 1 (whose heads are in \"heads\" or \"layers\")");
    } else if (model) {
        if (r.find(j, "heads")) r.fail("heads", "a model's trace keeps its heads in \"layers\", not \"heads\"");
        if (auto* v = r.find(j, "layers")) set.layers = read_layers(r, *v, "layers", t);
    } else if (auto* v = r.find(j, "heads")) {
        if (r.find(j, "layers")) r.fail("layers", "is a model's field, but this seeded kind's trace keeps its heads in \"heads\"");
        std::vector<HeadTrace> heads = read_heads(r, *v, "heads", T, S);
        if (!heads.empty()) set.layers.push_back({0, std::move(heads)});
    }
    if (!encoder_decoder) {
        if (set.layers.empty()) r.fail("", "there are no heads and no layers to show");
        // a seeded trace whose config does not state its heads has the heads it holds (as it is written back)
        if (!model && !r.facts.heads) t.config.heads = set.layers[0].heads.size();
        if (!model && !r.facts.kv_heads) {  // and the key/value heads its heads name
            std::size_t named = 0;
            for (const HeadTrace& h : set.layers[0].heads) named = std::max(named, h.kv_head + 1);
            t.config.kv_heads = named;
        }
        t.sets = {std::move(set)};
    } else if (std::all_of(t.sets.begin(), t.sets.end(), [](const AttentionSet& s) { return s.layers.empty(); })) {
        r.fail("", "there are no heads and no layers to show");
    }
    if (auto* v = r.find(j, "output")) t.output = r.mat(*v, "output");
    if (auto* v = r.find(j, "tiles")) read_tiles(r, *v, t);
    if (auto* v = r.find(j, "empty_rows")) {
        r.expect(v->is_array(), "empty_rows", "an array of query rows");
        for (const Json& e : *v) {
            t.empty_rows.push_back(r.size(e, "empty_rows"));
            if (t.empty_rows.back() >= T) r.fail("empty_rows", "names a row past the last query");
        }
    }
    if (auto* v = r.find(j, "diagnostics")) {
        r.expect(v->is_object(), "diagnostics", "an object");
        for (const auto& [key, value] : v->items()) t.diagnostics.push_back({key, r.number(value, "diagnostics." + key)});
    }
    // 5. model runs: every layer's mean and rollout
    if (encoder_decoder && (!t.layer_mean.empty() || !t.rollout.empty()))
        r.fail("aggregates", "an encoder-decoder trace keeps its aggregates in its sets; the trace's own are empty");
    if (model && !encoder_decoder) {
        if (t.rollout.empty() || t.layer_mean.size() != t.rollout.size())
            r.fail("aggregates", "a model's trace needs \"layer_mean\" and \"rollout\", one matrix per layer");
        for (const LayerTrace& l : t.layers())
            if (l.layer >= t.rollout.size())
                r.fail("aggregates.rollout", "has no matrix for layer " + std::to_string(l.layer));
    }
    for (const Tile& tile : t.tiles)
        if (tile.head >= t.heads().size()) r.fail("tiles", "a tile names head " + std::to_string(tile.head) + ", which is not there");
    return t;
}

}  // namespace attn::render
