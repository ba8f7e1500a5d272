// attn heads: every head of a model (decoder or encoder) scored on the patterns of core/analysis/head_patterns.h, over one or more
// texts, plus the induction run on repeated random ids (core/model's forward pass for each).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/head_patterns.h"
#include "core/base/trace.h"
#include "data/text/tokenizer.h"
#include "data/checkpoint/model_checkpoint.h"

namespace attn {

struct HeadRunOptions {
    std::size_t induction_length = 0;  // R (0: no induction run)
    std::uint64_t induction_seed = 0;
    std::function<void(const char* stage, std::size_t done, std::size_t total)> progress;
};

// One text as the model saw it.
struct HeadText {
    std::string text;
    std::vector<std::string> tokens;      // (T) labels
    std::vector<std::int64_t> ids;        // (T)
    std::vector<bool> punctuation;        // (T) is_punctuation_label of each token
    std::vector<std::vector<std::optional<HeadSink>>> sinks;  // (L, H)
    std::vector<std::vector<std::array<std::optional<double>, kHeadPatternCount>>> scores;  // (L, H, P) this text's own
    std::vector<std::vector<std::optional<double>>> induction_text;  // (L, H) natural-text induction on this text
};

using HeadGrid = std::vector<std::vector<std::optional<double>>>;  // (L, H)

struct HeadReport {
    ModelInfo model;
    std::size_t n_layer = 0, n_head = 0;
    // (P, L, H): the mean over the texts where the pattern is defined (induction: its one run); nullopt
    // where no text defines it. defined[p] counts those texts (induction: 1 when run).
    std::array<std::vector<std::vector<std::optional<double>>>, kHeadPatternCount> scores;
    std::array<std::size_t, kHeadPatternCount> defined{};
    // (P, L, H): each score's chance level, the same score of a uniform head over the visible keys on the
    // same texts (head_patterns.h); equal across a layer's heads; nullopt where the uniform head leaves it undefined.
    std::array<HeadGrid, kHeadPatternCount> chance;
    // (L, H): natural-text induction (head_patterns.h text_induction_score), the mean over the texts that
    // define it, its chance level, and how many texts define it.
    HeadGrid induction_text, induction_text_chance;
    std::size_t induction_text_defined = 0;
    std::vector<HeadText> texts;
    std::size_t induction_length = 0;  // R, 0 when not run
    std::uint64_t induction_seed = 0;
    std::vector<std::int64_t> induction_ids;  // (2R): the R ids, twice
    Trace first;  // the first text's run (the top heads' figures)
    // attn heads --effect: (L, H) the text loss with that head alone zero-ablated minus the plain loss
    // (mean next-token cross-entropy, nats), averaged over the texts; empty when not asked for.
    std::vector<std::vector<double>> effect;

    const std::optional<double>& score(HeadPattern p, std::size_t l, std::size_t h) const {
        return scores[static_cast<std::size_t>(p)][l][h];
    }
    // nullopt too when the report holds no chance levels (one built by hand without them)
    std::optional<double> chance_of(HeadPattern p, std::size_t l, std::size_t h) const {
        const HeadGrid& g = chance[static_cast<std::size_t>(p)];
        return l < g.size() && h < g[l].size() ? g[l][h] : std::nullopt;
    }
    // Whether a head's score clears its chance level by the margin (head_patterns.h clears_chance); a
    // score without a chance level (undefined for a uniform head) is never named.
    bool clears(HeadPattern p, std::size_t l, std::size_t h) const {
        const auto& s = score(p, l, h);
        const auto c = chance_of(p, l, h);
        return s && c && clears_chance(*s, *c);
    }
    // An encoder's report (bidirectional weights, head_patterns.h's encoder definitions).
    bool bidirectional() const { return model.stack == "encoder"; }
    // Whether tables, JSON and figures list the pattern: every one for an encoder; a decoder's leave
    // out next, which a causal head cannot have (its outputs stay as before the pattern existed).
    bool shows(HeadPattern p) const { return bidirectional() || head_patterns()[static_cast<std::size_t>(p)].decoder; }
    const char* definition(HeadPattern p) const {
        return pattern_definition(head_patterns()[static_cast<std::size_t>(p)], bidirectional());
    }
};

// Runs the model on each text's ids (each 1..n_positions tokens, ids below vocab_size: the caller
// checks), and on the induction ids when opt.induction_length > 0 (2R <= n_positions, R <= vocab_size).
HeadReport score_heads(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::string>& texts,
                       const std::vector<std::vector<std::int64_t>>& ids, const HeadRunOptions& opt);

// One run's own scores, from the weights in its trace as score_heads scores each text: the patterns
// a text defines (every one but induction, which needs its own run on repeated ids: left undefined),
// over the trace's layers in order (a --keep-layers run: the kept ones; n_layer counts them). The
// text is given (a trace holds only its tokens); its tokens and ids are the trace's, which must hold
// a model run's causal (T, T) weights and T token ids. r.first stays empty.
HeadReport score_trace(const Trace& t, const std::string& text);

// An encoder-decoder run's heads, from the weights in its trace (core/base/trace.h: sets "encoder",
// "decoder", "cross"): each self-attention set scored as score_trace scores a run ("encoder" on the
// source's tokens and ids with the encoder's definitions, "decoder" on the decoder's with a decoder's;
// `set` names it), and the cross set on the cross patterns (head_patterns.h), each with its chance level.
struct SetHeadReport {
    std::string set;  // "encoder", "decoder"
    HeadReport report;
};
struct CrossHeadReport {
    std::vector<std::size_t> layers;  // (L) the kept layers' numbers in the decoder
    std::size_t n_head = 0;
    std::size_t source_length = 0;    // S: the chance levels' length
    std::array<std::vector<std::vector<std::optional<double>>>, kCrossPatternCount> scores;  // (P, L, H)
    std::array<double, kCrossPatternCount> chance{};
};
struct EncoderDecoderHeadReport {
    ModelInfo model;
    std::vector<SetHeadReport> sets;  // the self-attention sets the trace holds, in its order
    std::optional<CrossHeadReport> cross;
};
// Precondition: t.model->stack == "encoder-decoder". `source_text` names the encoder's text.
EncoderDecoderHeadReport score_encoder_decoder(const Trace& t, const std::string& source_text);

// One ranked head: (layer, head, score), highest first, ties by layer then head; heads where the pattern
// is undefined are left out.
struct RankedHead {
    std::size_t layer = 0, head = 0;
    double score = 0.0;
};
std::vector<RankedHead> rank_heads(const HeadReport& r, HeadPattern p);
// The first n ranked heads that clear their chance level by the margin (HeadReport::clears): the heads
// the readings and --top name; empty when no head clears chance.
std::vector<RankedHead> named_heads(const HeadReport& r, HeadPattern p, std::size_t n);

// A head --top names: its rank, the text its pattern is strongest on (strongest_text) and, for its figure,
// that text's run (empty until add_top_runs).
struct TopHead {
    RankedHead head;
    std::size_t text = 0;
    Trace run;
};
// The named heads (named_heads) of pattern p, at most n, each with its strongest text.
std::vector<TopHead> top_heads(const HeadReport& r, HeadPattern p, std::size_t n);
// Each top head's run: r.first for the first text, else that text's ids run again through the model
// (once per text).
void add_top_runs(std::vector<TopHead>& top, const HeadReport& r, const ModelCheckpoint& m, const Tokenizer& tok,
                  const std::vector<std::vector<std::int64_t>>& ids);

// A head's sink on the text where it holds most (the largest weight; ties: the earlier text), and that text.
std::optional<HeadSink> strongest_sink(const HeadReport& r, std::size_t layer, std::size_t head, std::size_t* text = nullptr);

// The text on which a head's pattern score is highest (ties: the earlier text; induction: its natural-text
// score); 0 when no text defines it.
std::size_t strongest_text(const HeadReport& r, HeadPattern p, std::size_t layer, std::size_t head);

// Every head ranked by its effect (r.effect), largest increase of the loss first, ties by layer then head.
std::vector<RankedHead> rank_effects(const HeadReport& r);

}  // namespace attn
