#include "core/analysis/head_report.h"

#include <algorithm>

#include "core/model/model.h"

namespace attn {
namespace {

using Grid = std::vector<std::vector<std::optional<double>>>;  // (L, H)

// The (L, H) weights of a run: a trace's layers in order (every layer kept).
const Mat& head_weights(const Trace& t, std::size_t l, std::size_t h) { return t.layers().at(l).heads.at(h).weights; }

using Sums = std::array<std::vector<std::vector<double>>, kHeadPatternCount>;        // (P, L, H)
using Counts = std::array<std::vector<std::vector<std::size_t>>, kHeadPatternCount>;  // (P, L, H)

// Adds one text's defined scores into sums and counts.
void add_text(const Trace& t, HeadText& text, Sums& sums, Counts& counts) {
    const std::size_t L = t.layers().size(), H = L ? t.layers()[0].heads.size() : 0;
    text.sinks.assign(L, std::vector<std::optional<HeadSink>>(H));
    const bool bidirectional = t.model && t.model->stack == "encoder";
    for (std::size_t l = 0; l < L; ++l)
        for (std::size_t h = 0; h < H; ++h) {
            const TextHeadScores s = text_head_scores(head_weights(t, l, h), text.punctuation, text.ids, bidirectional);
            text.sinks[l][h] = s.sink;
            for (std::size_t p = 0; p < kHeadPatternCount; ++p)
                if (s.score[p]) sums[p][l][h] += *s.score[p], ++counts[p][l][h];
        }
}

// An empty report of L layers × H heads with zeroed sums and counts.
HeadReport empty_report(std::size_t L, std::size_t H, Sums& sums, Counts& counts) {
    HeadReport r;
    r.n_layer = L, r.n_head = H;
    for (std::size_t p = 0; p < kHeadPatternCount; ++p) {
        sums[p].assign(L, std::vector<double>(H, 0.0));
        counts[p].assign(L, std::vector<std::size_t>(H, 0));
        r.scores[p].assign(L, std::vector<std::optional<double>>(H));
    }
    return r;
}

// One text's run scored and kept in r (sums and counts take its defined scores).
void add_run(HeadReport& r, const Trace& t, const std::string& text, const std::vector<std::int64_t>& ids, Sums& sums, Counts& counts) {
    HeadText ht;
    ht.text = text, ht.tokens = t.tokens, ht.ids = ids;
    for (const auto& label : t.tokens) ht.punctuation.push_back(is_punctuation_label(label));
    add_text(t, ht, sums, counts);
    r.texts.push_back(std::move(ht));
}

// Every pattern's score: the mean over the texts that define it.
void finish_means(HeadReport& r, const Sums& sums, const Counts& counts) {
    for (std::size_t p = 0; p < kHeadPatternCount; ++p)
        for (std::size_t l = 0; l < r.n_layer; ++l)
            for (std::size_t h = 0; h < r.n_head; ++h) {
                if (counts[p][l][h]) r.scores[p][l][h] = sums[p][l][h] / double(counts[p][l][h]);
                r.defined[p] = std::max(r.defined[p], counts[p][l][h]);
            }
}

}  // namespace

HeadReport score_trace(const Trace& t, const std::string& text) {
    const std::size_t L = t.layers().size(), H = L ? t.layers()[0].heads.size() : 0;
    Sums sums;
    Counts counts;
    HeadReport r = empty_report(L, H, sums, counts);
    if (t.model) r.model = *t.model;
    add_run(r, t, text, t.token_ids, sums, counts);
    finish_means(r, sums, counts);
    return r;
}

EncoderDecoderHeadReport score_encoder_decoder(const Trace& t, const std::string& source_text) {
    EncoderDecoderHeadReport out;
    out.model = *t.model;
    for (const AttentionSet& set : t.sets) {
        if (set.layers.empty()) continue;
        const std::size_t H = set.layers[0].heads.size();
        if (set.name == "cross") {  // (T, S) weights: the cross patterns
            CrossHeadReport c;
            c.n_head = H, c.source_length = set.key_tokens.size();
            for (std::size_t p = 0; p < kCrossPatternCount; ++p) {
                c.scores[p].assign(set.layers.size(), std::vector<std::optional<double>>(H));
                c.chance[p] = cross_chance(cross_patterns()[p].pattern, c.source_length);
            }
            for (std::size_t l = 0; l < set.layers.size(); ++l) {
                c.layers.push_back(set.layers[l].layer);
                for (std::size_t h = 0; h < H && h < set.layers[l].heads.size(); ++h) {
                    const Mat& w = set.layers[l].heads[h].weights;
                    c.scores[0][l][h] = cross_monotonic_score(w);
                    c.scores[1][l][h] = cross_eos_sink_score(w);
                }
            }
            out.cross = std::move(c);
            continue;
        }
        // a self-attention set as a run of its own: its tokens, its ids, its stack's definitions
        const bool encoder = set.name == "encoder";
        Trace one;
        one.kind = t.kind, one.model = t.model;
        one.model->stack = encoder ? "encoder" : "decoder";
        one.model->n_layer = encoder ? t.model->n_layer : t.model->n_decoder_layer;
        one.tokens = set.query_tokens, one.source_tokens = set.key_tokens;
        one.token_ids = encoder ? t.source_token_ids : t.token_ids;
        if (one.token_ids.size() != one.tokens.size()) {  // a trace without ids: no token repeats (duplicate undefined)
            one.token_ids.clear();
            for (std::size_t i = 0; i < one.tokens.size(); ++i) one.token_ids.push_back(-1 - static_cast<std::int64_t>(i));
        }
        one.sets = {set};
        HeadReport r = score_trace(one, encoder ? source_text : std::string("(the decoder's tokens)"));
        out.sets.push_back({set.name, std::move(r)});
    }
    return out;
}

HeadReport score_heads(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::string>& texts,
                       const std::vector<std::vector<std::int64_t>>& ids, const HeadRunOptions& opt) {
    const std::size_t L = m.config.n_layer, H = m.config.n_head;
    Sums sums;
    Counts counts;
    HeadReport r = empty_report(L, H, sums, counts);
    // 1. each text: one forward pass, every head scored
    for (std::size_t k = 0; k < ids.size(); ++k) {
        if (opt.progress) opt.progress("running the texts", k, ids.size() + (opt.induction_length ? 1 : 0));
        Trace t = run_model(m, tok, ids[k], ModelRunOptions{});
        add_run(r, t, texts.at(k), ids[k], sums, counts);
        if (k == 0) r.model = *t.model, r.first = std::move(t);
    }
    finish_means(r, sums, counts);
    // 2. induction: R random ids twice through the same forward pass
    if (opt.induction_length > 0) {
        if (opt.progress) opt.progress("running the induction test", ids.size(), ids.size() + 1);
        const std::size_t R = opt.induction_length;
        r.induction_length = R, r.induction_seed = opt.induction_seed;
        r.induction_ids = induction_ids(R, opt.induction_seed, m.config.vocab_size);
        r.induction_ids.insert(r.induction_ids.end(), r.induction_ids.begin(), r.induction_ids.end());  // (2R)
        const Trace t = run_model(m, tok, r.induction_ids, ModelRunOptions{});
        const auto p = static_cast<std::size_t>(HeadPattern::induction);
        for (std::size_t l = 0; l < L; ++l)
            for (std::size_t h = 0; h < H; ++h) r.scores[p][l][h] = induction_score(head_weights(t, l, h), R);
        r.defined[p] = 1;
    }
    return r;
}

std::vector<RankedHead> rank_heads(const HeadReport& r, HeadPattern p) {
    std::vector<RankedHead> out;
    for (std::size_t l = 0; l < r.n_layer; ++l)
        for (std::size_t h = 0; h < r.n_head; ++h)
            if (const auto& s = r.score(p, l, h)) out.push_back({l, h, *s});
    std::stable_sort(out.begin(), out.end(), [](const RankedHead& a, const RankedHead& b) { return a.score > b.score; });
    return out;
}

std::vector<RankedHead> rank_effects(const HeadReport& r) {
    std::vector<RankedHead> out;
    for (std::size_t l = 0; l < r.effect.size(); ++l)
        for (std::size_t h = 0; h < r.effect[l].size(); ++h) out.push_back({l, h, r.effect[l][h]});
    std::stable_sort(out.begin(), out.end(), [](const RankedHead& a, const RankedHead& b) { return a.score > b.score; });
    return out;
}

std::optional<HeadSink> first_sink(const HeadReport& r, std::size_t layer, std::size_t head, std::size_t* text) {
    for (std::size_t k = 0; k < r.texts.size(); ++k)
        if (const auto& s = r.texts[k].sinks.at(layer).at(head)) {
            if (text) *text = k;
            return s;
        }
    return std::nullopt;
}

}  // namespace attn
