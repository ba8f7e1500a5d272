// Generation for encoder-decoder models, as Hugging Face's generate() runs greedy search (or sampling):
// the encoder once; then at each step the decoder over its whole input (the start token and the
// tokens chosen so far), the last row's logits through the logits processors, and the first maximum
// (or a seeded draw, core/model/sampling.h).
// The run ends after an end token or max_new tokens (max_length = 1 + max_new, forced eos included).
// A last pass over the final input records the three attention sets the trace holds: row i of the
// decoder and cross sets is the step that chose generated token i.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/model/layers.h"
#include "core/model/seq2seq.h"

namespace attn {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

bool contains(const std::vector<std::int64_t>& v, std::int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

void set_neg_inf(float* logits, std::size_t V, std::int64_t id) {
    if (id >= 0 && static_cast<std::size_t>(id) < V) logits[id] = kNegInf;
}

// Everything but `keep` to −∞, `keep` to 0 (ForcedBOS/ForcedEOSTokenLogitsProcessor).
void force(float* logits, std::size_t V, const std::vector<std::int64_t>& keep) {
    for (std::size_t v = 0; v < V; ++v) logits[v] = kNegInf;
    for (auto id : keep)
        if (id >= 0 && static_cast<std::size_t>(id) < V) logits[id] = 0.0f;
}

}  // namespace

void process_logits(const GenerationConfig& g, const std::vector<std::int64_t>& dec, std::size_t max_new, float* logits,
                    std::size_t V, std::size_t prompt) {
    const std::size_t cur = dec.size();  // the decoder's input length, the start token (or the text) included
    // 1. repetition penalty on every id of the input: / p where positive, · p where negative
    if (g.repetition_penalty != 1.0) {
        const float p = static_cast<float>(g.repetition_penalty);
        for (auto id : std::set<std::int64_t>(dec.begin(), dec.end()))
            if (id >= 0 && static_cast<std::size_t>(id) < V) logits[id] = logits[id] < 0 ? logits[id] * p : logits[id] / p;
    }
    // 2. no n-gram twice: the tokens that would complete an n-gram the input already holds
    if (const std::size_t n = g.no_repeat_ngram; n > 0 && cur + 1 >= n) {
        for (std::size_t s = 0; s + n <= cur; ++s)
            if (std::equal(dec.begin() + static_cast<std::ptrdiff_t>(s), dec.begin() + static_cast<std::ptrdiff_t>(s + n - 1),
                           dec.end() - static_cast<std::ptrdiff_t>(n - 1)))
                set_neg_inf(logits, V, dec[s + n - 1]);
    }
    // 3. bad words: a one-token word always; a longer one when the input ends with all but its last token
    //    (a word that is just an end token is not banned, as Hugging Face filters it out)
    for (const auto& w : g.bad_words) {
        if (w.size() == 1 && contains(g.eos, w[0])) continue;
        if (w.size() - 1 <= cur && std::equal(w.begin(), w.end() - 1, dec.end() - static_cast<std::ptrdiff_t>(w.size() - 1)))
            set_neg_inf(logits, V, w.back());
    }
    // 4. min_length (the input's length) and min_new_tokens (tokens generated): no end token before them
    if (cur < g.min_length || cur - prompt < g.min_new_tokens)
        for (auto e : g.eos) set_neg_inf(logits, V, e);
    // 5. forced BOS at the first step, forced EOS at the last one (cur = max_length − 1 = prompt + max_new − 1)
    if (cur == 1 && g.forced_bos >= 0) force(logits, V, {g.forced_bos});
    if (cur + 1 == prompt + max_new && !g.forced_eos.empty()) force(logits, V, g.forced_eos);
}

std::int64_t greedy_choice(const GenerationConfig& g, const std::vector<std::int64_t>& dec, std::size_t max_new,
                           std::vector<float>& logits) {
    process_logits(g, dec, max_new, logits.data(), logits.size());
    return argmax_token(logits.data(), logits.size());
}

std::int64_t next_choice(const GenerationConfig& g, const std::vector<std::int64_t>& dec, std::size_t max_new,
                         std::vector<float>& logits, const SamplingOptions& s, TorchGenerator& rng) {
    process_logits(g, dec, max_new, logits.data(), logits.size());
    return choose_token(logits.data(), logits.size(), s, rng);
}

bool generation_ends(const GenerationConfig& g, std::int64_t next, std::size_t step, std::size_t max_new) {
    return contains(g.eos, next) || step + 1 == max_new;
}

Trace seq2seq_forward(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& src,
                      const ModelRunOptions& opt) {
    const ModelConfig& cfg = m.config;
    const GenerationConfig& g = *opt.generation;
    const std::size_t S = src.size(), V = cfg.vocab_size;
    // a model trace's header, its tokens moved to the source (the encoder's input)
    Trace t = layers::model_trace_header(m, tok, src);
    t.model->stack = "encoder-decoder", t.model->n_decoder_layer = cfg.n_decoder_layer;
    t.source_token_ids = std::move(t.token_ids), t.source_tokens = std::move(t.tokens);
    t.token_ids.clear(), t.tokens.clear();
    t.has_source = true;
    t.sets = {AttentionSet{"encoder", t.source_tokens, t.source_tokens, {}, true, {}, {}}};
    // 1. the encoder, once (its heads recorded)
    const std::vector<float> enc = seq2seq_encode(m, src, opt, &t, &t.sets[0]);
    // 2. the decoder's input: teacher-forced from the target, or chosen greedily step by step
    std::vector<std::int64_t> dec = {g.decoder_start};
    if (!opt.target_ids.empty()) {
        t.teacher_forced = true;
        t.generated_ids = opt.target_ids;
        dec.insert(dec.end(), opt.target_ids.begin(), opt.target_ids.end() - 1);
    } else {
        TorchGenerator rng(opt.sampling.seed);
        for (std::size_t step = 0; step < opt.max_new_tokens; ++step) {
            std::vector<float> logits = seq2seq_decode(m, enc, S, dec, true, opt, nullptr, nullptr, nullptr);  // (1, V)
            const std::int64_t next = next_choice(g, dec, opt.max_new_tokens, logits, opt.sampling, rng);
            t.generated_ids.push_back(next);
            if (opt.progress) opt.progress("generated tokens", step + 1, opt.max_new_tokens);
            if (generation_ends(g, next, step, opt.max_new_tokens)) break;
            dec.push_back(next);
        }
    }
    // 3. one pass over the final input, recording the decoder's and the cross-attention's heads
    t.token_ids = dec;
    for (auto id : dec) t.tokens.push_back(tok.label(id));
    t.sets.push_back(AttentionSet{"decoder", t.tokens, t.tokens, {}, true, {}, {}});
    t.sets.push_back(AttentionSet{"cross", t.tokens, t.source_tokens, {}, true, {}, {}});
    std::vector<float> logits = seq2seq_decode(m, enc, S, dec, false, opt, &t, &t.sets[1], &t.sets[2]);  // (T, V)
    t.sets[0].rollout = attention_rollout(t.sets[0].layer_mean);
    t.sets[1].rollout = attention_rollout(t.sets[1].layer_mean);
    // 4. each row's top 5: the model's own probabilities (before the generation's rules)
    t.predictions = layers::top_predictions(logits, dec.size(), V, opt.top_k, tok);
    return t;
}

}  // namespace attn
