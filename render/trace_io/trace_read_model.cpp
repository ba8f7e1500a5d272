// Reading a model run's own fields of a JSON trace (docs/trace-format.md, "Model runs"): the model
// object, the token ids, the aggregates and predictions; an encoder's token types, segments and mask
// predictions; an encoder-decoder's source, generated ids and its three attention sets.
#include <algorithm>
#include <cmath>

#include "data/base/error.h"
#include "data/checkpoint/model_family.h"
#include "render/trace_io/trace_fields.h"

namespace attn::render::trace_fields {
namespace {

// One of a set's aggregates: one (R, C) matrix per model layer (`depth` of them), or none (`may_be_empty`).
std::vector<Mat> read_set_aggregate(const Reader& r, const Json& js, const char* key, const std::string& w, std::size_t R,
                                    std::size_t C, std::size_t depth, bool may_be_empty) {
    std::vector<Mat> out;
    const std::string wk = w + "." + key;
    const Json* a = r.find(js, key);
    if (!a) {
        if (!may_be_empty) r.fail(w, std::string("\"") + key + "\" is missing");
        return out;
    }
    r.expect(a->is_array(), wk, "one matrix per layer");
    if (a->empty() && may_be_empty) return out;
    if (a->size() != depth)
        r.fail(wk, "holds " + std::to_string(a->size()) + " matrices but the stack has " + std::to_string(depth) + " layers");
    for (std::size_t l = 0; l < a->size(); ++l) {
        const std::string wl = wk + "[" + std::to_string(l) + "]";
        out.push_back(r.mat((*a)[l], wl));
        if (out.back().shape(0) != R || out.back().shape(1) != C)
            r.fail(wl, "is (" + std::to_string(out.back().shape(0)) + ", " + std::to_string(out.back().shape(1)) + ") but the set is (" +
                           std::to_string(R) + ", " + std::to_string(C) + ")");
    }
    return out;
}

}  // namespace

// An encoder-decoder model's "attention": "encoder" (source × source), "decoder" (tokens × tokens) and
// "cross" (tokens × source), in that order, each at most once, each with its own layer_mean (every layer)
// and rollout (every layer; none for "cross"). Another name is refused by name.
std::vector<AttentionSet> read_encoder_decoder_sets(const Reader& r, const Json& v, const Trace& t) {
    static const char* const kNames[] = {"encoder", "decoder", "cross"};
    r.expect(v.is_array(), "attention", "an array of attention sets");
    std::vector<AttentionSet> sets;
    std::size_t next = 0;  // the first of kNames still allowed
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string w = "attention[" + std::to_string(i) + "]";
        const Json& js = v[i];
        r.expect(js.is_object(), w, "an object");
        AttentionSet set;
        set.name = r.text(r.need(js, "name", w), w + ".name");
        std::size_t k = 0;
        while (k < 3 && set.name != kNames[k]) ++k;
        if (k == 3)
            input_error(r.name + ": " + w + ".name: \"" + excerpt(set.name) + "\" is not an attention set of an encoder-decoder model",
                        "its sets are \"encoder\", \"decoder\" and \"cross\", in that order; write the trace again with attn show --model");
        if (k < next) r.fail(w + ".name", "\"" + set.name + "\" comes after a set that follows it (the order is encoder, decoder, cross) or twice");
        next = k + 1;
        const bool encoder = k == 0, cross = k == 2;
        const std::vector<std::string>& queries = encoder ? t.source_tokens : t.tokens;
        const std::vector<std::string>& keys = encoder || cross ? t.source_tokens : t.tokens;
        set.query_tokens = r.texts(r.need(js, "query_tokens", w), w + ".query_tokens");
        set.key_tokens = r.texts(r.need(js, "key_tokens", w), w + ".key_tokens");
        if (set.query_tokens != queries)
            r.fail(w + ".query_tokens", encoder ? "are not the trace's \"source_tokens\"" : "are not the trace's \"tokens\"");
        if (set.key_tokens != keys)
            r.fail(w + ".key_tokens", encoder || cross ? "are not the trace's \"source_tokens\"" : "are not the trace's \"tokens\"");
        const std::size_t R = queries.size(), C = keys.size();
        const std::size_t depth = encoder ? t.model->n_layer : t.model->n_decoder_layer;
        set.layers = read_layers(r, r.need(js, "layers", w), w + ".layers", t, R, C, depth);
        set.model_layers = true;
        set.layer_mean = read_set_aggregate(r, js, "layer_mean", w, R, C, depth, false);
        set.rollout = read_set_aggregate(r, js, "rollout", w, R, C, depth, cross);
        if (cross && !set.rollout.empty()) r.fail(w + ".rollout", "a cross set has no rollout (its matrices are not square)");
        if (!cross && set.rollout.empty()) r.fail(w, "\"rollout\" is missing");
        sets.push_back(std::move(set));
    }
    if (sets.empty()) r.fail("attention", "holds no attention sets");
    return sets;
}

namespace {

// An encoder-decoder's own fields: n_decoder_layer, source_token_ids (S, or none), generated_ids (T, or
// none), teacher_forced; the source is "source_tokens" (read with the tokens).
void read_encoder_decoder(const Reader& r, const Json& j, Trace& t) {
    if (!t.model) r.fail("stack", "an encoder-decoder trace needs its \"model\"");
    const std::size_t T = t.tokens.size(), S = t.source_tokens.size();
    if (!r.find(j, "source_tokens")) r.fail("", "an encoder-decoder trace needs its \"source_tokens\" (the encoder's input)");
    t.model->n_decoder_layer = r.size(r.need(j, "n_decoder_layer", ""), "n_decoder_layer");
    const std::pair<const char*, std::pair<std::vector<std::int64_t>*, std::size_t>> ids[] = {
        {"source_token_ids", {&t.source_token_ids, S}}, {"generated_ids", {&t.generated_ids, T}}};
    for (const auto& [key, list] : ids) {
        const Json* v = r.find(j, key);
        if (!v) continue;
        r.expect(v->is_array() && (v->empty() || v->size() == list.second), key,
                 std::string("one id per ") + (list.second == S ? "source token" : "decoder token"));
        for (const Json& x : *v) list.first->push_back(r.integer(x, key));
    }
    if (auto* v = r.find(j, "teacher_forced")) t.teacher_forced = r.flag(*v, "teacher_forced");
}

// An encoder's own fields: "stack": "encoder", token_type_ids and segments (one per token, or none),
// mask_predictions [{position, top: [{id, token, p}]}].
void read_encoder(const Reader& r, const Json& j, Trace& t) {
    const std::size_t T = t.tokens.size();
    const Json* stack = r.find(j, "stack");
    if (!stack) return;
    const std::string s = r.text(*stack, "stack");
    if (s != "encoder" && s != "decoder" && s != "encoder-decoder")
        r.fail("stack", "is not \"encoder\", \"decoder\" or \"encoder-decoder\"");
    if (t.model) t.model->stack = s;
    if (s == "encoder-decoder") read_encoder_decoder(r, j, t);
    if (auto* v = r.find(j, "token_type_ids")) {
        r.expect(v->is_array() && (v->empty() || v->size() == T), "token_type_ids", "one id per token");
        for (const Json& x : *v) t.token_type_ids.push_back(r.integer(x, "token_type_ids"));
    }
    if (auto* v = r.find(j, "segments")) {
        r.expect(v->is_array() && (v->empty() || v->size() == T), "segments", "one segment (0 or 1) per token");
        for (const Json& x : *v) {
            const std::int64_t seg = r.integer(x, "segments");
            if (seg != 0 && seg != 1) r.fail("segments", "holds a value that is not 0 or 1");
            t.segments.push_back(static_cast<std::uint8_t>(seg));
        }
    }
    if (auto* v = r.find(j, "mask_predictions")) {
        r.expect(v->is_array(), "mask_predictions", "an array of {position, top}");
        for (std::size_t i = 0; i < v->size(); ++i) {
            const std::string w = "mask_predictions[" + std::to_string(i) + "]";
            const Json& e = (*v)[i];
            r.expect(e.is_object(), w, "an object {\"position\", \"top\"}");
            MaskPrediction mp;
            mp.position = r.size(r.need(e, "position", w), w + ".position");
            if (mp.position >= T) r.fail(w + ".position", "is past the last token");
            const Json& top = r.need(e, "top", w);
            r.expect(top.is_array(), w + ".top", "an array");
            for (const Json& p : top) {
                r.expect(p.is_object(), w + ".top", "objects {\"id\", \"token\", \"p\"}");
                mp.top.push_back({r.integer(r.need(p, "id", w), w + ".id"), r.text(r.need(p, "token", w), w + ".token"),
                                  r.number(r.need(p, "p", w), w + ".p")});
            }
            t.mask_predictions.push_back(std::move(mp));
        }
    }
}

// The neuron view (--show queries,keys): one head's queries (T, d) and keys (S, d), query I or null, and
// I's products with every key (S, d) or null; the layer and head among the model's.
void read_neuron(const Reader& r, const Json& j, Trace& t) {
    const Json* v = r.find(j, "neuron");
    if (!v) return;
    r.expect(v->is_object(), "neuron", "an object");
    NeuronTrace n;
    n.layer = r.size(r.need(*v, "layer", "neuron"), "neuron.layer");
    n.head = r.size(r.need(*v, "head", "neuron"), "neuron.head");
    n.kv_head = r.size(r.need(*v, "kv_head", "neuron"), "neuron.kv_head");
    n.scaled_by = r.number(r.need(*v, "scaled_by", "neuron"), "neuron.scaled_by");
    n.rotary = r.flag(r.need(*v, "rotary", "neuron"), "neuron.rotary");
    if (t.model && (n.layer >= t.model->n_layer || n.head >= t.model->n_head || n.kv_head > n.head))
        r.fail("neuron", "layer " + std::to_string(n.layer) + " head " + std::to_string(n.head) + " kv_head " +
                             std::to_string(n.kv_head) + " is not a head of the model");
    const std::size_t T = t.tokens.size(), S = t.source_tokens.empty() ? T : t.source_tokens.size();
    n.queries = r.mat(r.need(*v, "queries", "neuron"), "neuron.queries");
    n.keys = r.mat(r.need(*v, "keys", "neuron"), "neuron.keys");
    const std::size_t d = n.queries.size() ? n.queries.shape(1) : 0;
    auto shaped = [&](const Mat& m, std::size_t rows, const std::string& w, const char* what) {
        if (m.shape(0) != rows || m.shape(1) != d || d == 0)
            r.fail(w, "is (" + std::to_string(m.shape(0)) + ", " + std::to_string(m.shape(1)) + ") but " + what + " = (" +
                          std::to_string(rows) + ", " + std::to_string(d) + ")");
    };
    shaped(n.queries, T, "neuron.queries", "(T, d)");
    shaped(n.keys, S, "neuron.keys", "(S, d)");
    const Json& q = r.need(*v, "query", "neuron");
    if (!q.is_null()) {
        n.query = r.size(q, "neuron.query");
        r.expect(*n.query < T, "neuron.query", "a query below " + std::to_string(T) + " or null");
        n.products = r.mat(r.need(*v, "products", "neuron"), "neuron.products");
        shaped(n.products, S, "neuron.products", "(S, d)");
    }
    t.neuron = std::move(n);
}

}  // namespace

void read_model(const Reader& r, const Json& j, Trace& t) {
    const std::size_t T = t.tokens.size();
    if (auto* v = r.find(j, "model")) {
        r.expect(v->is_object(), "model", "an object");
        ModelInfo m;
        if (auto* x = r.find(*v, "type")) m.type = r.text(*x, "model.type");
        // the type names the figures' files: a family of the table, nothing else (not "..", not a path)
        if (!find_family_by_name(m.type))
            r.fail("model.type", "\"" + excerpt(m.type) + "\" is not a model family attn runs (" + family_names() + ")");
        // the checkpoint's name (a folder's base name: at most 255 bytes; a repo id: at most 96); titles
        // make it printable (render/view/model_title.h) and nothing names a file by it
        if (auto* x = r.find(*v, "name")) m.name = r.text(*x, "model.name");
        if (m.name.size() > kMaxModelNameBytes)
            r.fail("model.name", "is " + std::to_string(m.name.size()) + " bytes, more than the " + std::to_string(kMaxModelNameBytes) +
                                     " a checkpoint's name may have (\"" + excerpt(m.name, 24) + "\")");
        if (auto* x = r.find(*v, "dtype")) m.dtype = r.text(*x, "model.dtype");
        const std::pair<const char*, std::size_t*> sizes[] = {{"n_layer", &m.n_layer},         {"n_head", &m.n_head},
                                                             {"n_embd", &m.n_embd},           {"n_positions", &m.n_positions},
                                                             {"vocab_size", &m.vocab_size}};
        for (const auto& [key, out] : sizes)
            if (auto* x = r.find(*v, key)) *out = r.size(*x, std::string("model.") + key);
        if (auto* x = r.find(*v, "n_params")) m.n_params = r.whole(*x, "model.n_params");
        if (auto* x = r.find(*v, "layer_norm_epsilon")) m.layer_norm_epsilon = r.number(*x, "model.layer_norm_epsilon");
        t.model = m;
    }
    if (auto* v = r.find(j, "token_ids")) {
        // one id per token, or none (a trace read without ids is written with an empty list)
        r.expect(v->is_array() && (v->empty() || v->size() == T), "token_ids", "one id per token");
        for (std::size_t i = 0; i < v->size(); ++i) t.token_ids.push_back(r.integer((*v)[i], "token_ids"));
    }
    if (auto* v = r.find(j, "aggregates")) {
        r.expect(v->is_object(), "aggregates", "an object");
        const std::pair<const char*, std::vector<Mat>*> aggs[] = {{"layer_mean", &t.layer_mean}, {"rollout", &t.rollout}};
        for (const auto& [key, out] : aggs) {
            const Json* a = r.find(*v, key);
            if (!a) continue;
            const std::string w = std::string("aggregates.") + key;
            r.expect(a->is_array(), w, "one matrix per layer");
            for (std::size_t l = 0; l < a->size(); ++l) {
                out->push_back(r.mat((*a)[l], w + "[" + std::to_string(l) + "]"));
                r.shape(out->back(), T, T, w + "[" + std::to_string(l) + "]");
            }
        }
    }
    if (auto* v = r.find(j, "predictions")) {
        r.expect(v->is_array() && (v->empty() || v->size() == T), "predictions", "one list per token");
        for (std::size_t i = 0; i < v->size(); ++i) {
            const std::string w = "predictions[" + std::to_string(i) + "]";
            r.expect((*v)[i].is_array(), w, "an array");
            std::vector<Prediction> row;
            for (const Json& p : (*v)[i]) {
                r.expect(p.is_object(), w, "objects {\"id\", \"token\", \"p\"}");
                row.push_back({r.integer(r.need(p, "id", w), w + ".id"), r.text(r.need(p, "token", w), w + ".token"),
                               r.number(r.need(p, "p", w), w + ".p")});
            }
            t.predictions.push_back(std::move(row));
        }
    }
    read_encoder(r, j, t);
    read_neuron(r, j, t);
}

}  // namespace attn::render::trace_fields
