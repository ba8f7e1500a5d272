// The data of attn's page for a trace (render/page/page_payload.h): the JSON object the views read and the
// cells' buffer, for the page attn writes (render/page/html.cpp) and for a model run in the page's own
// WebAssembly core (cli/web/attn_web.cpp).
#include "render/page/page_payload.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/analysis/head_report.h"
#include "core/kinds/kinds.h"
#include "data/text/bpe_tokenizer.h"
#include "render/page/lecture_payload.h"
#include "render/page/page_buffer.h"
#include "render/view/colormaps.h"
#include "render/view/model_title.h"
#include "render/view/colour_scale.h"
#include "render/view/model_choice.h"
#include "render/view/stages.h"
#include "render/trace_io/json.h"

namespace attn::render {
namespace {

// ---- the payload ----------------------------------------------------------------------------------

// The full softmax's m* and l* of every row of a head (what the tiles' running values converge to).
// Each query row's final running max m* and sum l* of the tiled softmax: the last tile its query
// block visited holds them (the kernel's own values, core/kinds/attention.cpp); a row whose block visited no
// tile keeps m* = -inf (null) and l* = 0.
Json flash_final(const Trace& t, std::size_t head, std::size_t T) {
    std::vector<const Tile*> last(T, nullptr);
    for (const Tile& tile : t.tiles)
        if (tile.head == head)
            for (std::size_t i = tile.q_begin; i < tile.q_end && i < T; ++i) last[i] = &tile;
    Json m = Json::array(), l = Json::array();
    for (std::size_t i = 0; i < T; ++i) {
        const Tile* tile = last[i];
        const float mx = tile ? tile->row_max[i - tile->q_begin] : -std::numeric_limits<float>::infinity();
        m.push_back(std::isfinite(mx) ? Json(mx) : Json());
        l.push_back(tile ? tile->row_sum[i - tile->q_begin] : 0.0f);
    }
    return {{"m", m}, {"l", l}};
}

Json settings(const Trace& t, const std::string& source) {
    Json s = Json::object();
    if (find_kind(t.kind)) s = config_json(t.config);
    if (!source.empty()) s["input"] = source;
    return s;
}

Json model_json(const Trace& t, const std::string& name) {
    if (!t.model) return nullptr;
    const ModelInfo& m = *t.model;
    Json j = {{"type", m.type},       {"dtype", m.dtype},   {"n_layer", m.n_layer},
              {"n_head", m.n_head},   {"n_embd", m.n_embd}, {"n_positions", m.n_positions},
              {"vocab_size", m.vocab_size}, {"n_params", m.n_params}};
    if (!name.empty() || !m.name.empty()) j["name"] = printable_name(name.empty() ? m.name : name);  // the checkpoint
    return j;
}

// A model run's head scores, as `attn heads` computes them for its one text (score_trace), or null when
// the trace is not a model's causal self-attention with its token ids. {"patterns": [[name, definition]
// ...] (P, every pattern but induction, which needs its own run), "scores": (L, H, P) numbers or null
// where undefined, "sinks": (L, H) [position, token, weight] or null}; L counts the trace's layers.
Json head_scores_json(const Trace& t, const std::string& text) {
    const std::size_t T = t.tokens.size();
    if (!t.model || !t.sets.at(0).model_layers || t.token_ids.size() != T || (!t.source_tokens.empty() && t.source_tokens.size() != T))
        return nullptr;
    for (const auto& layer : t.layers())
        for (const HeadTrace& h : layer.heads)
            if (h.weights.shape(0) != T || h.weights.shape(1) != T) return nullptr;
    const HeadReport r = score_trace(t, text);
    Json patterns = Json::array();
    std::vector<HeadPattern> shown;
    for (const auto& info : head_patterns())
        if (info.pattern != HeadPattern::induction && r.shows(info.pattern))
            patterns.push_back({info.name, r.definition(info.pattern)}), shown.push_back(info.pattern);
    Json scores = Json::array(), sinks = Json::array();
    const HeadText& ht = r.texts.at(0);
    for (std::size_t l = 0; l < r.n_layer; ++l) {
        Json srow = Json::array(), krow = Json::array();
        for (std::size_t h = 0; h < r.n_head; ++h) {
            Json cell = Json::array();
            for (HeadPattern p : shown) {
                const auto& s = r.score(p, l, h);
                cell.push_back(s ? Json(*s) : Json());
            }
            srow.push_back(std::move(cell));
            const auto& k = ht.sinks.at(l).at(h);
            krow.push_back(k ? Json::array({k->key, ht.tokens.at(k->key), k->weight}) : Json());
        }
        scores.push_back(std::move(srow)), sinks.push_back(std::move(krow));
    }
    return {{"patterns", patterns}, {"scores", scores}, {"sinks", sinks}};
}

// The colour scale of one stage over a layer's heads, by the rule the figures use (render/view/colour_scale.h's
// make_scale with the run's --range, --log and --colormap). The values it spans are the ones a figure
// colours: raw scores every cell, the other stages the cells the mask shows.
Json stage_scale(const std::vector<HeadTrace>& heads, PageMatrix s, const ColourSpec& colour) {
    const Stage stage = s == PageMatrix::Weights ? Stage::weights : s == PageMatrix::Scores ? Stage::scores
                      : s == PageMatrix::MaskedScores ? Stage::masked_scores : Stage::dropped;
    ValueRange r;
    for (const HeadTrace& h : heads) {
        const Mat& m = s == PageMatrix::Weights ? h.weights : s == PageMatrix::Dropped ? h.dropped_weights : h.scores;
        for (std::size_t i = 0; i < m.shape(0); ++i)
            for (std::size_t j = 0; j < m.shape(1); ++j)
                if (s == PageMatrix::Scores || h.mask.size() == 0 || h.mask(i, j) != 0) r.add(stage_value(h, s, i, j));
    }
    return page_scale_json(make_scale(stage_value_kind(stage), r, colour, stage_name(s)));
}

// The scale of a layer's aggregates (its mean over the heads, the rollout through it): shares of a
// query's attention, so probabilities, over the cells the mask shows.
Json aggregates_scale(const std::vector<const Mat*>& mats, const Mask& mask, const ColourSpec& colour) {
    ValueRange r;
    for (const Mat* m : mats)
        for (std::size_t i = 0; i < m->shape(0); ++i)
            for (std::size_t j = 0; j < m->shape(1); ++j)
                if (mask.size() == 0 || mask(i, j) != 0) r.add((*m)(i, j));
    return page_scale_json(make_scale(ValueKind::probability, r, colour, "weight"));
}

// One attention set's layers for the page: every head's stages, and a layer's aggregates (its mean over
// the heads and the rollout through it, (T, S) each, found by the layer's own number: --keep-layers keeps
// some layers, the aggregates hold all) into the buffer; `stages` are the set's. A one-set trace's layers
// carry both aggregates or neither, only when T = S; an encoder-decoder's sets (`scaled`) carry the ones
// they have and each layer's colour scales.
struct PageLayers {
    const std::vector<LayerTrace>& layers;
    bool layered;                  // a model's blocks (numbered)
    std::size_t T, S;
    const std::vector<Mat>& layer_mean;
    const std::vector<Mat>& rollout;
    bool scaled;
    const ColourSpec& colour;  // the run's --range, --log, --colormap: every layer's colour scales
};

Json layers_json(const PageLayers& p, std::vector<PageMatrix>& stages, bool with_flash, const Trace& t, std::string& blob) {
    // 1. the stages the first head has
    const std::vector<HeadTrace>& first = p.layers.at(0).heads;
    if (first.empty()) throw std::invalid_argument("render_html: the trace has no heads");
    const std::size_t T = p.T, S = p.S;
    stages.clear();
    for (PageMatrix s : kStages)
        if (has_stage(first[0], s)) stages.push_back(s);
    // 2. every head's stages into the buffer; a mask equal to the previous one is stored once
    Json jlayers = Json::array();
    const SharedMask* last_mask = nullptr;
    Json last_mask_desc;
    for (const LayerTrace& layer : p.layers) {
        const std::size_t l = p.layered ? layer.layer : 0;  // a model's block number (a seeded layer has none)
        const std::vector<HeadTrace>* heads = &layer.heads;
        Json jheads = Json::array();
        for (const HeadTrace& h : *heads) {
            Json jh = {{"head", h.head}, {"kv_head", h.kv_head}, {"scale", h.scale}};
            Json js = Json::object();
            for (PageMatrix s : stages) {
                const Mat* m = s == PageMatrix::Weights ? &h.weights : s == PageMatrix::Dropped ? &h.dropped_weights
                                                                                  : &h.scores;
                if (!has_stage(h, s) || (s != PageMatrix::Mask && (m->shape(0) != T || m->shape(1) != S)))
                    throw std::invalid_argument("render_html: every head needs the same (T, S) stages");
                if (s == PageMatrix::Mask && last_mask && *last_mask == h.mask) {
                    js[stage_name(s)] = last_mask_desc;
                    continue;
                }
                js[stage_name(s)] = encode_stage(h, s, T, S, blob);
                if (s == PageMatrix::Mask) last_mask = &h.mask, last_mask_desc = js[stage_name(s)];
            }
            jh["stages"] = js;
            jh["hidden"] = h.mask.size() ? js["mask"] : Json();
            if (with_flash && h.scores.size()) jh["flash"] = flash_final(t, h.head, T);
            // a seeded kind's head: its queries, keys, values and context for the step-by-step view (steps_view.js)
            if (!p.layered && find_kind(t.kind) && h.queries.size() && h.keys.size() && h.values.size() && h.context.size())
            {
                jh["vectors"] = {{"queries", matrix(h.queries)}, {"keys", matrix(h.keys)}, {"values", matrix(h.values)},
                                 {"context", matrix(h.context)}};
                // positions: RoPE's q and k before the rotation, ALiBi's bias m (j - i) added to the scaled scores
                if (h.queries_unrotated.size()) jh["vectors"]["queries_unrotated"] = matrix(h.queries_unrotated);
                if (h.keys_unrotated.size()) jh["vectors"]["keys_unrotated"] = matrix(h.keys_unrotated);
                if (h.bias.size()) {  // with the scores as floats, so that scale · score + bias is the run's, digit for digit
                    jh["vectors"]["bias"] = matrix(h.bias);
                    jh["vectors"]["scores"] = matrix(h.scores);
                }
            }
            jheads.push_back(std::move(jh));
        }
        Json jl = {{"layer", p.layered ? Json(l) : Json()}, {"heads", jheads}};
        const bool aggregates = p.scaled ? p.layered && (l < p.layer_mean.size() || l < p.rollout.size())
                                         : p.layered && T == S && l < p.layer_mean.size() && l < p.rollout.size();
        std::vector<const Mat*> aggregated;
        // a one-set page's layer mean is stored as the residual from its heads' mean when the page can
        // form that mean: every head's weights exact ten-thousandths under one mask
        bool mean_of_heads = !p.scaled && !heads->empty();
        Json weight_descs = Json::array();
        for (std::size_t k = 0; mean_of_heads && k < heads->size(); ++k) {
            const Json& st = jheads[k]["stages"];
            mean_of_heads = st.contains("weights") && st["weights"][1] != 0 && (*heads)[k].mask == (*heads)[0].mask;
            if (mean_of_heads) weight_descs.push_back(st["weights"]);
        }
        if (aggregates) {
            Json agg = Json::object();
            for (const auto& [name, all] : {std::pair<const char*, const std::vector<Mat>*>{"layer_mean", &p.layer_mean},
                                            std::pair<const char*, const std::vector<Mat>*>{"rollout", &p.rollout}}) {
                if (l >= all->size() || (*all)[l].shape(0) != T || (*all)[l].shape(1) != S) continue;
                HeadTrace a;
                a.weights = (*all)[l];
                a.mask = (*heads)[0].mask;
                const bool mean = mean_of_heads && std::string(name) == "layer_mean";
                agg[name] = encode_stage(a, PageMatrix::Weights, T, S, blob, mean ? heads : nullptr, mean ? &weight_descs : nullptr);
                aggregated.push_back(&(*all)[l]);
            }
            jl["aggregates"] = agg;
        }
        Json scales = Json::object();
        for (PageMatrix s : stages)
            if (s != PageMatrix::Mask) scales[stage_name(s)] = stage_scale(*heads, s, p.colour);
        if (aggregates) scales["aggregates"] = aggregates_scale(aggregated, (*heads)[0].mask, p.colour);
        jl["scales"] = scales;
        jlayers.push_back(std::move(jl));
    }
    return jlayers;
}

Json stage_names_json(const std::vector<PageMatrix>& stages) {
    Json j = Json::array();
    for (PageMatrix s : stages) j.push_back(stage_name(s));
    return j;
}

// ---- an encoder-decoder's page ----------------------------------------------------------------------

// The names an encoder-decoder trace's sets have, in order (core/base/trace.h).
constexpr const char* kSeq2SeqSets[] = {"encoder", "decoder", "cross"};

// The rows of a set whose keys are all hidden (its first head's mask; weights 0 there).
Json set_empty_rows(const AttentionSet& set) {
    Json rows = Json::array();
    const Mask& m = set.layers.at(0).heads.empty() ? SharedMask().get() : set.layers[0].heads[0].mask.get();
    for (std::size_t i = 0; m.size() && i < m.shape(0); ++i) {
        bool any = false;
        for (std::size_t j = 0; j < m.shape(1) && !any; ++j) any = m(i, j) != 0;
        if (!any) rows.push_back(i);
    }
    return rows;
}

// Labels as text: a leading '·' (a space, bpe_tokenizer.h's labels) is a space; special tokens at either
// end ("<pad>", "</s>", "[CLS]") are left out.
std::string labels_text(const std::vector<std::string>& labels) {
    const auto special = [](const std::string& s) {
        return s.size() >= 3 && ((s.front() == '<' && s.back() == '>') || (s.front() == '[' && s.back() == ']'));
    };
    std::size_t a = 0, b = labels.size();
    while (a < b && special(labels[a])) ++a;
    while (b > a && special(labels[b - 1])) --b;
    const std::string dot = "\xC2\xB7";
    std::string text;
    for (std::size_t k = a; k < b; ++k)
        text += labels[k].compare(0, dot.size(), dot) == 0 ? " " + labels[k].substr(dot.size()) : labels[k];
    const auto first = text.find_first_not_of(' ');
    return first == std::string::npos ? std::string() : text.substr(first);
}

// The generated tokens' labels (T): decoder row i chose generated_ids[i], which is the decoder's input at
// row i + 1 (tokens[i + 1]). The last one's label is found where the trace names that id: the decoder's or
// the source's tokens, or any row's top 5 (a forced end token need not be among its row's); else "#id".
std::vector<std::string> generated_labels(const Trace& t) {
    std::vector<std::string> out(t.tokens.begin() + (t.tokens.empty() ? 0 : 1), t.tokens.end());
    if (t.generated_ids.size() != t.tokens.size() || t.tokens.empty()) return out;
    const std::int64_t last = t.generated_ids.back();
    std::string label = "#" + std::to_string(last);
    for (std::size_t i = 0; i < t.source_tokens.size() && i < t.source_token_ids.size(); ++i)
        if (t.source_token_ids[i] == last) label = t.source_tokens[i];
    for (std::size_t i = 0; i < t.tokens.size() && i < t.token_ids.size(); ++i)
        if (t.token_ids[i] == last) label = t.tokens[i];
    for (auto row = t.predictions.rbegin(); row != t.predictions.rend(); ++row)
        for (const Prediction& p : *row)
            if (p.id == last) label = p.token;
    out.push_back(label);
    return out;
}

Json translation_json(const Trace& t, const HtmlOptions& opt) {
    const std::vector<std::string> generated = generated_labels(t);
    return {{"source", opt.text.empty() ? labels_text(t.source_tokens) : opt.text},
            {"text", opt.translation.empty() ? labels_text(generated) : opt.translation},
            {"generated", generated},
            {"teacher_forced", t.teacher_forced}};
}

// The three sets, each as a one-set page's data would hold it, in one buffer.
Json seq2seq_sets(const Trace& t, std::vector<PageMatrix>& opening_stages, const ColourSpec& colour, std::string& blob) {
    Json sets = Json::array();
    for (std::size_t k = 0; k < t.sets.size(); ++k) {
        const AttentionSet& set = t.sets[k];
        std::vector<PageMatrix> stages;
        const PageLayers p{set.layers, true, set.query_tokens.size(), set.key_tokens.size(), set.layer_mean, set.rollout, true, colour};
        Json layers = layers_json(p, stages, false, t, blob);
        if (k == kOpeningSet) opening_stages = stages;
        sets.push_back({{"name", set.name}, {"tokens", set.query_tokens}, {"source_tokens", set.key_tokens},
                        {"layers", std::move(layers)}, {"stages", stage_names_json(stages)}, {"empty_rows", set_empty_rows(set)}});
    }
    return sets;
}

// --lens: one row per depth ("emb", then each layer) of each position's top next token, as the JSON trace
// has it ({layer, ids (T), p (T)}) with the tokens' text (T) beside (empty when the trace has none).
Json lens_json(const Trace& t) {
    Json rows = Json::array();
    for (const LensRow& row : t.lens) {
        const Json layer = row.layer == "emb" ? Json("emb") : Json(std::stoul(row.layer));
        Json labels = Json::array();  // shown as the terminal and the page's token labels show them ("·the", "↵")
        for (const std::string& tok : row.tokens) labels.push_back(token_label(tok));
        rows.push_back({{"layer", layer}, {"ids", row.ids}, {"p", row.p}, {"tokens", labels}});
    }
    return rows;
}

// --ablate: the JSON trace's "ablation" with each position's top tokens as text.
Json ablation_json(const AblationSummary& a) {
    Json heads = Json::array(), positions = Json::array();
    for (const auto& [l, h] : a.heads) heads.push_back({l, h});
    for (const AblationPosition& p : a.positions)
        positions.push_back({{"top_before", p.top_before}, {"token_before", token_label(p.token_before)}, {"p_before", p.p_before},
                             {"top_after", p.top_after}, {"token_after", token_label(p.token_after)}, {"p_after", p.p_after},
                             {"loss_before", p.loss_before}, {"loss_after", p.loss_after}});
    return {{"heads", heads}, {"mode", a.mode}, {"loss_before", a.loss_before}, {"loss_after", a.loss_after}, {"positions", positions}};
}

Json payload(const Trace& t, const HtmlOptions& opt, std::string& blob) {
    // 1. the layers: a seeded trace is one layer without a number; an encoder-decoder's three sets
    //    (their layers in "sets", the top-level "layers" empty: seq2seq_view.js shows one set at a time)
    const bool seq2seq = encoder_decoder(t);
    const std::size_t T = t.tokens.size(), S = t.source_tokens.size() ? t.source_tokens.size() : T;
    std::vector<PageMatrix> stages;
    Json jlayers = Json::array(), sets;
    if (seq2seq) sets = seq2seq_sets(t, stages, opt.colour, blob);
    else jlayers = layers_json({t.layers(), t.sets.at(0).model_layers, T, S, t.layer_mean, t.rollout, false, opt.colour}, stages,
                               !t.tiles.empty(), t, blob);
    // 3. what the header shows
    const Kind* info = find_kind(t.kind);
    Json j;
    j["kind"] = t.kind;
    j["description"] = info                ? info->description
                       : t.kind == "npy"   ? "attention read from a .npy file"
                       : seq2seq           ? "every head of every layer of an encoder-decoder model: the encoder's "
                                                             "self-attention, the decoder's, and the decoder's cross-attention over the source"
                       : t.kind == "model" ? "every head of every layer of a pretrained model"
                                           : "";
    j["formula"] = info ? info->formula : "";
    // the score stages' names for the stage picker and the step-by-step view (a model's page keeps the page's own)
    if (info) j["score_stages"] = score_stages_json(info->score_stages(t.config));
    j["weights_note"] = random_weights_note(t);  // "random weights (seed 123)" for a seeded kind with weights
    j["paper"] = info ? info->paper : "";
    j["settings"] = settings(t, opt.source);
    j["model"] = model_json(t, opt.model_name);
    if (t.model) {  // a model run's page leads with its text and what its heads do
        if (!opt.text.empty()) j["text"] = opt.text;
        j["head_scores"] = seq2seq ? Json() : head_scores_json(t, opt.text);
    }
    j["tokens"] = t.tokens;
    j["source_tokens"] = t.source_tokens.size() ? t.source_tokens : t.tokens;
    j["token_ids"] = t.token_ids;
    Json preds = Json::array();
    for (const auto& row : t.predictions) {
        Json r = Json::array();
        for (const auto& p : row) r.push_back({p.token, p.p});
        preds.push_back(r);
    }
    j["predictions"] = preds;
    if (!t.lens.empty()) j["lens"] = lens_json(t);  // pages without them stay as they were
    if (t.ablation) j["ablation"] = ablation_json(*t.ablation);
    if (t.model && t.model->stack == "encoder") {  // only an encoder's page has these (a decoder's stays as it was)
        j["stack"] = "encoder";
        j["segments"] = t.segments;
        Json masks = Json::array();
        for (const auto& mp : t.mask_predictions) {
            Json top = Json::array();
            for (const auto& p : mp.top) top.push_back({p.token, p.p});
            masks.push_back({mp.position, t.tokens.at(mp.position), top});
        }
        j["mask_predictions"] = masks;
    }
    if (seq2seq) {
        j["stack"] = "encoder-decoder";
        j["model"]["n_decoder_layer"] = t.model->n_decoder_layer;
        j["sets"] = std::move(sets);
        j["translation"] = translation_json(t, opt);
    }
    if (t.neuron && t.neuron->queries.size()) {  // the neuron view (head_view.js): q and k; the page forms the products
        const NeuronTrace& n = *t.neuron;
        j["neuron"] = {{"layer", n.layer}, {"head", n.head}, {"kv_head", n.kv_head}, {"scaled_by", n.scaled_by},
                       {"rotary", n.rotary}, {"queries", matrix(n.queries)}, {"keys", matrix(n.keys)},
                       {"query", n.query ? Json(*n.query) : Json()}, {"note", neuron_note(t, n)},
                       {"grouped", t.config.kv_heads > 0 && t.config.kv_heads < t.config.heads}};
    }
    j["layered"] = t.sets.at(0).model_layers;
    j["stages"] = Json::array();
    for (PageMatrix s : stages) j["stages"].push_back(stage_name(s));
    j["layers"] = jlayers;
    add_lecture_stages(t, opt.colour, j);  // inputs, q, k, v, context, output and the position figures
    Json tiles = Json::array();
    for (const auto& tile : t.tiles)
        tiles.push_back({tile.head, tile.q_begin, tile.q_end, tile.k_begin, tile.k_end, tile.row_max, tile.row_sum});
    j["tiles"] = tiles;
    j["empty_rows"] = t.empty_rows;
    j["viridis"] = hex_colormap(kViridis);
    j["rdbu"] = hex_colormap(kRdBuR);
    // the colour rule of the figures, for the live panel's runs (--range, --log, --colormap), and every
    // sequential map --colormap names, which a scale names by its name
    const char* range = opt.colour.range == ColourSpec::Range::automatic ? "auto" : opt.colour.range == ColourSpec::Range::data ? "data" : "fixed";
    j["colour"] = {{"range", range}, {"min", opt.colour.min}, {"max", opt.colour.max}, {"log", opt.colour.log},
                   {"colormap", opt.colour.colormap}};
    j["colormaps"] = Json::object();
    for (const std::string& name : colormap_names()) j["colormaps"][name] = hex_colormap(*find_colormap(name));
    j["init"] = {{"layer", opt.layer ? Json(*opt.layer) : Json()}, {"head", opt.head ? Json(*opt.head) : Json()}};
    if (opt.live) j["live"] = {{"argv", *opt.live}};
    return j;
}

}  // namespace

Json page_payload(const Trace& t, const HtmlOptions& opt, std::string& blob) { return payload(t, opt, blob); }

bool encoder_decoder(const Trace& t) { return t.model && t.model->stack == "encoder-decoder"; }

void check_seq2seq_sets(const Trace& t) {
    bool ok = t.sets.size() == std::size(kSeq2SeqSets);
    for (std::size_t k = 0; ok && k < t.sets.size(); ++k)
        ok = t.sets[k].name == kSeq2SeqSets[k] && !t.sets[k].layers.empty();
    if (!ok) throw std::invalid_argument("render_html: an encoder-decoder trace needs the sets encoder, decoder and cross, in that order, each with layers");
}

std::int64_t ten_thousandths(float v) {
    const double x = static_cast<double>(v) * 10000.0;  // exact (see html.h)
    return static_cast<std::int64_t>(std::nearbyint(x));  // the default rounding mode: ties to even
}

std::string format_ten_thousandths(std::int64_t k) {
    const std::uint64_t a = k < 0 ? 0 - static_cast<std::uint64_t>(k) : static_cast<std::uint64_t>(k);
    std::string frac = std::to_string(a % 10000);
    frac.insert(0, 4 - frac.size(), '0');
    return (k < 0 ? "-" : "") + std::to_string(a / 10000) + "." + frac;
}

}  // namespace attn::render
