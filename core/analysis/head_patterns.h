// What a head does, as numbers: per layer × head a score for each of eight patterns (attn heads).
//
// A decoder (causal attention): one text of T tokens and one head's causal weights w (T, T) (row i:
// query i over keys j <= i). Query 0 sees only itself (its weight there is 1 whatever the head does),
// so the means leave it out:
//   previous     mean over queries i >= 1 of w[i][i-1]                     (undefined for T < 2)
//   first        mean over queries i >= 1 of w[i][0]                       (undefined for T < 2)
//   self         mean over queries i >= 1 of w[i][i]                       (undefined for T < 2)
//   punctuation  mean over queries i >= 1 of Σ_{j <= i, token j punctuation} w[i][j]   (undefined for T < 2)
//                a token is punctuation when its label, without whitespace and the label marks · ↵ ⇥,
//                is not empty and every character is in Unicode category P or S (PCRE2's \p{P}, \p{S})
//   duplicate    over the queries i whose token id occurs at some j < i, the mean of Σ_{j < i, id_j = id_i} w[i][j]
//                (undefined when no id repeats)
//   induction    on R random ids repeated twice (T = 2R, ids distinct within a copy), the mean over the
//                second copy's queries i = R..2R-1 of w[i][i-R+1]: the position just after the same
//                token's first occurrence (Olsson et al. 2022; TransformerLens's induction detector)
//   sink         the key j with the largest mean weight over the queries after it, (1/(T-1-j)) Σ_{i>j} w[i][j],
//                among the keys that hold as sinks (ties: the earlier key); its score is that mean. A key holds
//                when at least 2 of the queries after it, and at least half of them, give it at least a
//                uniform row's weight, w[i][j] >= 1/(i+1) (within 1e-6): a key near the end that one query
//                piles onto is not a sink. Undefined when no key holds (T < 3 always)
//   induction_text  natural-text induction, on the user's own texts: over the queries i whose id occurs at
//                some j < i-1 (an earlier, not adjacent copy), the mean of Σ_{such j} w[i][j+1], the weight on
//                the tokens after the earlier copies (undefined when no id repeats that way). Kept beside the
//                random-id induction score, outside the pattern table (HeadReport::induction_text)
//   next         not defined: a causal query never sees the key after it (its weight there is 0 by
//                construction), so a decoder's tables, JSON and figures leave the pattern out
//
// An encoder (bidirectional attention: BERT, RoBERTa, DistilBERT): every query sees every key, query 0
// included, so every mean runs over all the queries that have the key it asks about:
//   previous     mean over queries i >= 1 of w[i][i-1]                     (undefined for T < 2)
//   next         mean over queries i <= T-2 of w[i][i+1]                   (undefined for T < 2)
//   first        mean over all queries i of w[i][0]: the weight on [CLS] (<s> for RoBERTa)  (undefined for T < 2)
//   self         mean over all queries i of w[i][i]                        (undefined for T < 2)
//   punctuation  mean over all queries i of Σ_{j, token j punctuation} w[i][j]  (undefined for T < 2)
//   duplicate    over the queries i whose token id occurs at some other j != i, the mean of
//                Σ_{j != i, id_j = id_i} w[i][j]                          (undefined when no id repeats)
//   induction    as for a decoder (the second copy's queries, on w[i][i-R+1])
//   sink         the key j with the largest mean weight over all queries, (1/T) Σ_i w[i][j], any j
//                (ties: the earlier key; often the final [SEP] or [CLS]); its score is that mean
//                (undefined for T < 2)
//   induction_text  as for a decoder
// Scores over several texts are the mean over the texts where the pattern is defined.
//
// Chance level: every score above computed on a uniform head over the same texts (each query's weight
// spread evenly over its visible keys: causal for a decoder, every key for an encoder, a set's own mask).
// It depends only on the texts and the mask. A uniform causal head over 14 tokens scores 0.17 on
// previous (the mean of 1/(i+1), i = 1..13). A head is named only when its score clears chance by the
// margin below (both rules).
//
// An encoder-decoder (T5, BART, Marian): its "encoder" set is scored as an encoder's heads, its "decoder"
// set as a decoder's (induction needs a run of its own: left out), and its "cross" set (w (T, S): decoder
// step i over the S source tokens, every key visible) on two patterns of its own, each beside its chance
// level (the score of a head whose rows are random in the way said):
//   monotonic    a_i = argmax_j w[i][j] (the first on ties); the share of rows i >= 1 with a_i >= a_{i-1}:
//                1 when the alignment never moves back along the source (undefined for T < 2).
//                chance (S+1)/(2S): the share expected when every a_i is drawn uniformly from the S columns
//   eos-sink     mean over all rows i of w[i][S-1], the weight on the source's final token (the </s> the
//                tokenizers append) (undefined for S = 0). chance 1/S: a uniform row's weight there
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/trace.h"
#include "data/base/tensor.h"

namespace attn {

enum class HeadPattern { previous, next, first, self, punctuation, duplicate, induction, sink };

struct HeadPatternInfo {
    HeadPattern pattern;
    const char* name;     // "previous": --rank's word, the JSON's key, the figure's word
    const char* reading;     // completes "layer 1 head 0: 0.61 of its attention " ("on punctuation")
    const char* definition;  // what the number is, one line (tables and figures): a decoder's
    const char* encoder_definition;  // the same for an encoder (bidirectional attention)
    bool decoder;  // defined for a decoder (next is not: a causal query never sees the key after it)
};
inline constexpr std::size_t kHeadPatternCount = 8;
// The patterns in the order above (every table and figure uses it).
const std::array<HeadPatternInfo, kHeadPatternCount>& head_patterns();
const HeadPatternInfo* find_head_pattern(const std::string& name);  // nullptr when unknown

// The definition line of a pattern for an encoder (bidirectional) or a decoder, and its reading.
const char* pattern_definition(const HeadPatternInfo& p, bool bidirectional);
const char* pattern_reading(const HeadPatternInfo& p, bool bidirectional);

// The margin a named head must clear: score >= chance + kChanceMargin and score >= kChanceRatio × chance.
inline constexpr double kChanceMargin = 0.2;
inline constexpr double kChanceRatio = 2.0;
bool clears_chance(double score, double chance);

// A uniform head (T, S): row i spreads 1/n_i over its n_i visible keys (mask 1), 0 elsewhere; a row with
// no visible key is all 0.
Mat uniform_head(const Mask& visible);
// The visibility of a decoder's (causal, j <= i) or an encoder's (every key) T × T run.
Mask visible_keys(std::size_t T, bool bidirectional);

// True when a token's label (Tokenizer::label) is punctuation as defined above.
bool is_punctuation_label(const std::string& label);

// The sink of one head in one text: key `key` holds `weight`, its mean weight over the queries after it.
struct HeadSink {
    std::size_t key = 0;
    double weight = 0.0;
};

// One head's scores on one text. w (T, T) causal weights; punct (T) from is_punctuation_label; ids (T).
std::optional<double> previous_score(const Mat& w);
std::optional<double> first_score(const Mat& w);
std::optional<double> self_score(const Mat& w);
std::optional<double> punctuation_score(const Mat& w, const std::vector<bool>& punct);
std::optional<double> duplicate_score(const Mat& w, const std::vector<std::int64_t>& ids);
std::optional<double> induction_score(const Mat& w, std::size_t R);  // w (2R, 2R) on the repeated ids
std::optional<HeadSink> head_sink(const Mat& w);
// Natural-text induction on one text: w (T, T) and its ids (T), any mask (the tokens after earlier
// copies are always visible to the later query).
std::optional<double> text_induction_score(const Mat& w, const std::vector<std::int64_t>& ids);

// An encoder head's scores on one text: w (T, T) bidirectional weights (every key visible).
std::optional<double> encoder_next_score(const Mat& w);
std::optional<double> encoder_first_score(const Mat& w);
std::optional<double> encoder_self_score(const Mat& w);
std::optional<double> encoder_punctuation_score(const Mat& w, const std::vector<bool>& punct);
std::optional<double> encoder_duplicate_score(const Mat& w, const std::vector<std::int64_t>& ids);
std::optional<HeadSink> encoder_head_sink(const Mat& w);

// A cross-attention head's scores (an encoder-decoder's "cross" set): w (T, S).
enum class CrossPattern { monotonic, eos_sink };
struct CrossPatternInfo {
    CrossPattern pattern;
    const char* name;        // "monotonic", "eos-sink": the tables' and the docs' word
    const char* definition;  // one line
};
inline constexpr std::size_t kCrossPatternCount = 2;
const std::array<CrossPatternInfo, kCrossPatternCount>& cross_patterns();
std::optional<double> cross_monotonic_score(const Mat& w);
std::optional<double> cross_eos_sink_score(const Mat& w);
double cross_chance(CrossPattern p, std::size_t S);  // (S+1)/(2S), 1/S; 0 for S = 0

// The patterns a text defines (all but induction), per head: (P) scores, nullopt where undefined
// (next always for a decoder). bidirectional: an encoder's weights and definitions.
struct TextHeadScores {
    std::array<std::optional<double>, kHeadPatternCount> score;
    std::optional<HeadSink> sink;
};
TextHeadScores text_head_scores(const Mat& w, const std::vector<bool>& punct, const std::vector<std::int64_t>& ids,
                                bool bidirectional = false);

// R distinct ids below vocab_size, drawn from std::mt19937(seed): id = draw mod vocab_size, a repeat
// drawn again. The induction run feeds them twice (2R tokens).
std::vector<std::int64_t> induction_ids(std::size_t R, std::uint64_t seed, std::size_t vocab_size);

// Mean attention distance of one head: over query rows i >= 1, the average of Σ_j w_ij · (i − j).
// About 1 for a previous-token head, large for heads that spread out or park on the first token.
double mean_attention_distance(const Mat& weights);
// The same distance for a uniform head over the head's visible keys (its mask; without one, causal or,
// for an encoder, every key): the table's baseline. A causal text of T tokens gives T/4: (1/(T-1)) Σ i/2.
double uniform_attention_distance(const HeadTrace& head, bool bidirectional);

// One row of the all-heads summary: a layer's number, each head's mean attention distance and the
// uniform baseline. layer_distances computes it from a layer's heads (on the pool's threads).
struct LayerDistances {
    std::size_t layer = 0;
    std::vector<double> heads;
    double uniform = 0.0;
};
LayerDistances layer_distances(const LayerTrace& layer, bool bidirectional);

}  // namespace attn
