#include "core/analysis/head_report.h"

#include <algorithm>
#include <map>

#include "core/model/model.h"

namespace attn {
namespace {

using Grid = std::vector<std::vector<std::optional<double>>>;  // (L, H)

// The (L, H) weights of a run: a trace's layers in order (every layer kept).
const Mat& head_weights(const Trace& t, std::size_t l, std::size_t h) { return t.layers().at(l).heads.at(h).weights; }

// (P + 1, L, H): the patterns, then natural-text induction. The chance sums use head 0 of each layer.
using Sums = std::array<std::vector<std::vector<double>>, kHeadPatternCount + 1>;
using Counts = std::array<std::vector<std::vector<std::size_t>>, kHeadPatternCount + 1>;

// Sums and counts of every score and of the chance levels.
struct Tally {
    Sums sums, chance_sums;
    Counts counts, chance_counts;
};

// The visible keys of a layer's (T, T) run: its first head's mask when the trace holds one (a set's own,
// a sliding window), else causal for a decoder, every key for an encoder.
Mask layer_visibility(const Trace& t, std::size_t l, std::size_t T, bool bidirectional) {
    const Mask& m = t.layers().at(l).heads.at(0).mask;
    if (m.dimension() == 2 && m.shape(0) == T && m.shape(1) == T) return m;
    return visible_keys(T, bidirectional);
}

// Adds one text's defined scores, and a uniform head's (the chance levels, once per layer), into sums and counts.
void add_text(const Trace& t, HeadText& text, Sums& sums, Counts& counts, Sums& chance_sums, Counts& chance_counts) {
    const std::size_t L = t.layers().size(), H = L ? t.layers()[0].heads.size() : 0, T = text.ids.size();
    text.sinks.assign(L, std::vector<std::optional<HeadSink>>(H));
    text.scores.assign(L, std::vector<std::array<std::optional<double>, kHeadPatternCount>>(H));
    text.induction_text.assign(L, std::vector<std::optional<double>>(H));
    const bool bidirectional = t.model && t.model->stack == "encoder";
    const std::size_t it = kHeadPatternCount;  // the sums' extra row: natural-text induction
    for (std::size_t l = 0; l < L; ++l) {
        for (std::size_t h = 0; h < H; ++h) {
            const Mat& w = head_weights(t, l, h);
            const TextHeadScores s = text_head_scores(w, text.punctuation, text.ids, bidirectional);
            text.sinks[l][h] = s.sink, text.scores[l][h] = s.score;
            for (std::size_t p = 0; p < kHeadPatternCount; ++p)
                if (s.score[p]) sums[p][l][h] += *s.score[p], ++counts[p][l][h];
            text.induction_text[l][h] = text_induction_score(w, text.ids);
            if (text.induction_text[l][h]) sums[it][l][h] += *text.induction_text[l][h], ++counts[it][l][h];
        }
        if (H == 0) continue;
        const Mat u = uniform_head(layer_visibility(t, l, T, bidirectional));  // (T, T)
        const TextHeadScores c = text_head_scores(u, text.punctuation, text.ids, bidirectional);
        for (std::size_t p = 0; p < kHeadPatternCount; ++p)
            if (c.score[p]) chance_sums[p][l][0] += *c.score[p], ++chance_counts[p][l][0];
        if (const auto ci = text_induction_score(u, text.ids)) chance_sums[it][l][0] += *ci, ++chance_counts[it][l][0];
    }
}

// An empty report of L layers × H heads with a zeroed tally.
HeadReport empty_report(std::size_t L, std::size_t H, Tally& tally) {
    HeadReport r;
    r.n_layer = L, r.n_head = H;
    for (std::size_t p = 0; p <= kHeadPatternCount; ++p) {
        tally.sums[p].assign(L, std::vector<double>(H, 0.0));
        tally.counts[p].assign(L, std::vector<std::size_t>(H, 0));
        tally.chance_sums[p].assign(L, std::vector<double>(H, 0.0));
        tally.chance_counts[p].assign(L, std::vector<std::size_t>(H, 0));
    }
    for (std::size_t p = 0; p < kHeadPatternCount; ++p) {
        r.scores[p].assign(L, std::vector<std::optional<double>>(H));
        r.chance[p].assign(L, std::vector<std::optional<double>>(H));
    }
    r.induction_text.assign(L, std::vector<std::optional<double>>(H));
    r.induction_text_chance.assign(L, std::vector<std::optional<double>>(H));
    return r;
}

// One text's run scored and kept in r (the tally takes its defined scores).
void add_run(HeadReport& r, const Trace& t, const std::string& text, const std::vector<std::int64_t>& ids, Tally& tally) {
    HeadText ht;
    ht.text = text, ht.tokens = t.tokens, ht.ids = ids;
    for (const auto& label : t.tokens) ht.punctuation.push_back(is_punctuation_label(label));
    add_text(t, ht, tally.sums, tally.counts, tally.chance_sums, tally.chance_counts);
    r.texts.push_back(std::move(ht));
}

// Every pattern's score: the mean over the texts that define it; its chance level the uniform head's
// mean over the texts that define it for a uniform head (head 0's tally, copied across the layer).
void finish_means(HeadReport& r, const Tally& tally) {
    const auto mean = [](double sum, std::size_t n) { return n ? std::optional<double>(sum / double(n)) : std::nullopt; };
    for (std::size_t p = 0; p <= kHeadPatternCount; ++p) {
        HeadGrid& score = p < kHeadPatternCount ? r.scores[p] : r.induction_text;
        HeadGrid& chance = p < kHeadPatternCount ? r.chance[p] : r.induction_text_chance;
        std::size_t& defined = p < kHeadPatternCount ? r.defined[p] : r.induction_text_defined;
        for (std::size_t l = 0; l < r.n_layer; ++l)
            for (std::size_t h = 0; h < r.n_head; ++h) {
                score[l][h] = mean(tally.sums[p][l][h], tally.counts[p][l][h]);
                chance[l][h] = mean(tally.chance_sums[p][l][0], tally.chance_counts[p][l][0]);
                defined = std::max(defined, tally.counts[p][l][h]);
            }
    }
}

}  // namespace

HeadReport score_trace(const Trace& t, const std::string& text) {
    const std::size_t L = t.layers().size(), H = L ? t.layers()[0].heads.size() : 0;
    Tally tally;
    HeadReport r = empty_report(L, H, tally);
    if (t.model) r.model = *t.model;
    add_run(r, t, text, t.token_ids, tally);
    finish_means(r, tally);
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
    Tally tally;
    HeadReport r = empty_report(L, H, tally);
    // 1. each text: one forward pass, every head scored
    for (std::size_t k = 0; k < ids.size(); ++k) {
        if (opt.progress) opt.progress("running the texts", k, ids.size() + (opt.induction_length ? 1 : 0));
        Trace t = run_model(m, tok, ids[k], ModelRunOptions{});
        add_run(r, t, texts.at(k), ids[k], tally);
        if (k == 0) r.model = *t.model, r.first = std::move(t);
    }
    finish_means(r, tally);
    // 2. induction: R random ids twice through the same forward pass
    if (opt.induction_length > 0) {
        if (opt.progress) opt.progress("running the induction test", ids.size(), ids.size() + 1);
        const std::size_t R = opt.induction_length;
        r.induction_length = R, r.induction_seed = opt.induction_seed;
        r.induction_ids = induction_ids(R, opt.induction_seed, m.config.vocab_size);
        r.induction_ids.insert(r.induction_ids.end(), r.induction_ids.begin(), r.induction_ids.end());  // (2R)
        const Trace t = run_model(m, tok, r.induction_ids, ModelRunOptions{});
        const auto p = static_cast<std::size_t>(HeadPattern::induction);
        const bool bidirectional = t.model && t.model->stack == "encoder";
        for (std::size_t l = 0; l < L; ++l) {
            const auto chance = induction_score(uniform_head(layer_visibility(t, l, 2 * R, bidirectional)), R);
            for (std::size_t h = 0; h < H; ++h) r.scores[p][l][h] = induction_score(head_weights(t, l, h), R), r.chance[p][l][h] = chance;
        }
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

std::vector<RankedHead> named_heads(const HeadReport& r, HeadPattern p, std::size_t n) {
    std::vector<RankedHead> out;
    for (const RankedHead& h : rank_heads(r, p))
        if (out.size() < n && r.clears(p, h.layer, h.head)) out.push_back(h);
    return out;
}

std::vector<TopHead> top_heads(const HeadReport& r, HeadPattern p, std::size_t n) {
    std::vector<TopHead> out;
    for (const RankedHead& h : named_heads(r, p, n)) out.push_back({h, strongest_text(r, p, h.layer, h.head), Trace{}});
    return out;
}

void add_top_runs(std::vector<TopHead>& top, const HeadReport& r, const ModelCheckpoint& m, const Tokenizer& tok,
                  const std::vector<std::vector<std::int64_t>>& ids) {
    std::map<std::size_t, Trace> runs;  // text -> its run, the first text's already kept
    for (TopHead& t : top) {
        if (t.text != 0 && !runs.count(t.text)) runs.emplace(t.text, run_model(m, tok, ids.at(t.text), ModelRunOptions{}));
        t.run = t.text == 0 ? r.first : runs.at(t.text);
    }
}

std::optional<HeadSink> strongest_sink(const HeadReport& r, std::size_t layer, std::size_t head, std::size_t* text) {
    std::optional<HeadSink> best;
    for (std::size_t k = 0; k < r.texts.size(); ++k)
        if (const auto& s = r.texts[k].sinks.at(layer).at(head); s && (!best || s->weight > best->weight)) {
            if (text) *text = k;
            best = s;
        }
    return best;
}

std::size_t strongest_text(const HeadReport& r, HeadPattern p, std::size_t layer, std::size_t head) {
    std::size_t best = 0;
    std::optional<double> top;
    for (std::size_t k = 0; k < r.texts.size(); ++k) {
        const HeadText& t = r.texts[k];
        const std::optional<double> s = p == HeadPattern::induction ? t.induction_text.at(layer).at(head)
                                                                    : t.scores.at(layer).at(head)[static_cast<std::size_t>(p)];
        if (s && (!top || *s > *top)) top = s, best = k;
    }
    return best;
}

}  // namespace attn
