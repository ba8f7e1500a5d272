// The eight head patterns of core/analysis/head_patterns.h, each a plain loop over one head's (T, T) weights.
#include "core/analysis/head_patterns.h"

#include <memory>
#include <random>
#include <set>
#include <stdexcept>

#include "data/base/threads.h"
#include "data/base/utf8.h"
#include "data/text/unicode.h"

namespace attn {
namespace {

// One pattern's mean over queries i >= 1 of f(i): undefined for T < 2.
template <class F>
std::optional<double> mean_over_queries(const Mat& w, F f) {
    const std::size_t T = w.shape(0);
    if (T < 2) return std::nullopt;
    double total = 0.0;
    for (std::size_t i = 1; i < T; ++i) total += f(i);
    return total / static_cast<double>(T - 1);
}

// A float weight of exactly 1/(i+1) may round just below the double: the sink's backing test allows this.
constexpr double kSinkSlack = 1e-6;

}  // namespace

const std::array<HeadPatternInfo, kHeadPatternCount>& head_patterns() {
    static const std::array<HeadPatternInfo, kHeadPatternCount> table = {{
        {HeadPattern::previous, "previous", "on the previous token",
         "mean weight on the previous token (queries 1..T-1)",
         "mean weight on the previous token (queries 1..T-1)", true},
        {HeadPattern::next, "next", "on the next token",
         "not defined for a decoder (a causal query never sees the next token)",
         "mean weight on the next token (queries 0..T-2)", false},
        {HeadPattern::first, "first", "on the first token",
         "mean weight on the first token (queries 1..T-1)",
         "mean weight on the first token, [CLS] or <s> (all queries)", true},
        {HeadPattern::self, "self", "on its own token",
         "mean weight on the query's own token (queries 1..T-1)",
         "mean weight on the query's own token (all queries)", true},
        {HeadPattern::punctuation, "punctuation", "on punctuation",
         "mean total weight on punctuation tokens (queries 1..T-1)",
         "mean total weight on punctuation tokens (all queries)", true},
        {HeadPattern::duplicate, "duplicate", "on earlier copies of a repeated token",
         "mean total weight on earlier copies of the query's token (queries whose token repeats)",
         "mean total weight on the other copies of the query's token (queries whose token repeats)", true},
        {HeadPattern::induction, "induction", "on the token after the same token's earlier occurrence (repeated random tokens)",
         "mean weight on the token after the same token's first occurrence (second copy of R random ids)",
         "mean weight on the token after the same token's first occurrence (second copy of R random ids)", true},
        {HeadPattern::sink, "sink", "on one token (a sink), from the queries after it",
         "the largest mean weight one key gets from the queries after it (half of them, at least 2, give it \xE2\x89\xA5 1/(i+1))",
         "the largest mean weight one key gets from all queries", true},
    }};
    static_assert(static_cast<std::size_t>(HeadPattern::sink) + 1 == kHeadPatternCount, "one row per pattern");
    return table;
}

const HeadPatternInfo* find_head_pattern(const std::string& name) {
    for (const auto& p : head_patterns())
        if (name == p.name) return &p;
    return nullptr;
}

const char* pattern_definition(const HeadPatternInfo& p, bool bidirectional) {
    return bidirectional ? p.encoder_definition : p.definition;
}

const char* pattern_reading(const HeadPatternInfo& p, bool bidirectional) {
    if (!bidirectional) return p.reading;
    if (p.pattern == HeadPattern::duplicate) return "on the other copies of a repeated token";
    if (p.pattern == HeadPattern::sink) return "on one token (a sink), from every query";
    return p.reading;
}

// Whitespace (PCRE2's \s: category Z, tab, LF, VT, FF, CR) and the label marks (· U+00B7 a leading space,
// ↵ U+21B5 a newline, ⇥ U+21E5 a tab, U+FFFD a control character or invalid byte) are left out; what
// remains must be one or more characters of category P or S. Invalid UTF-8 is not punctuation.
bool is_punctuation_label(const std::string& label) {
    bool any = false;
    for (std::size_t i = 0; i < label.size();) {
        char32_t c = 0;
        const std::size_t n = utf8_decode(label, i, c);
        if (n == 0) return false;
        i += n;
        if (c == 0xB7 || c == 0x21B5 || c == 0x21E5 || c == 0xFFFD || (c >= '\t' && c <= '\r')) continue;
        const UnicodeCategory k = unicode_category(c);
        if (k == UnicodeCategory::Zs || k == UnicodeCategory::Zl || k == UnicodeCategory::Zp) continue;
        if (k < UnicodeCategory::Pc || k > UnicodeCategory::So) return false;  // P* and S* are Pc .. So
        any = true;
    }
    return any;
}

std::optional<double> previous_score(const Mat& w) {
    return mean_over_queries(w, [&](std::size_t i) { return double(w(i, i - 1)); });
}

std::optional<double> first_score(const Mat& w) {
    return mean_over_queries(w, [&](std::size_t i) { return double(w(i, 0)); });
}

std::optional<double> self_score(const Mat& w) {
    return mean_over_queries(w, [&](std::size_t i) { return double(w(i, i)); });
}

std::optional<double> punctuation_score(const Mat& w, const std::vector<bool>& punct) {
    return mean_over_queries(w, [&](std::size_t i) {
        double on = 0.0;
        for (std::size_t j = 0; j <= i; ++j)
            if (punct.at(j)) on += double(w(i, j));
        return on;
    });
}

std::optional<double> duplicate_score(const Mat& w, const std::vector<std::int64_t>& ids) {
    const std::size_t T = w.shape(0);
    double total = 0.0;
    std::size_t queries = 0;
    for (std::size_t i = 1; i < T; ++i) {
        double on = 0.0;
        bool repeated = false;
        for (std::size_t j = 0; j < i; ++j)
            if (ids.at(j) == ids.at(i)) on += double(w(i, j)), repeated = true;
        if (repeated) total += on, ++queries;
    }
    if (queries == 0) return std::nullopt;
    return total / static_cast<double>(queries);
}

std::optional<double> induction_score(const Mat& w, std::size_t R) {
    if (R < 1 || w.shape(0) < 2 * R) return std::nullopt;
    double total = 0.0;
    for (std::size_t i = R; i < 2 * R; ++i) total += double(w(i, i - R + 1));
    return total / static_cast<double>(R);
}

std::optional<HeadSink> head_sink(const Mat& w) {
    const std::size_t T = w.shape(0);
    std::optional<HeadSink> best;
    for (std::size_t j = 0; j + 1 < T; ++j) {
        const std::size_t after = T - 1 - j;
        double on = 0.0;
        std::size_t backing = 0;  // queries giving key j at least a uniform row's weight
        for (std::size_t i = j + 1; i < T; ++i) {
            on += double(w(i, j));
            if (double(w(i, j)) >= 1.0 / static_cast<double>(i + 1) - kSinkSlack) ++backing;
        }
        if (backing < 2 || 2 * backing < after) continue;  // one query's pile is not a sink
        on /= static_cast<double>(after);
        if (!best || on > best->weight) best = HeadSink{j, on};
    }
    return best;
}

std::optional<double> text_induction_score(const Mat& w, const std::vector<std::int64_t>& ids) {
    const std::size_t T = w.shape(0);
    double total = 0.0;
    std::size_t queries = 0;
    for (std::size_t i = 2; i < T; ++i) {
        double on = 0.0;
        bool copied = false;
        for (std::size_t j = 0; j + 1 < i; ++j)  // j + 1 <= i - 1: the earlier copy is not the previous token
            if (ids.at(j) == ids.at(i)) on += double(w(i, j + 1)), copied = true;
        if (copied) total += on, ++queries;
    }
    if (queries == 0) return std::nullopt;
    return total / static_cast<double>(queries);
}

bool clears_chance(double score, double chance) { return score >= chance + kChanceMargin && score >= kChanceRatio * chance; }

Mat uniform_head(const Mask& visible) {
    Mat w = Mat::from_shape({visible.shape(0), visible.shape(1)});
    w.fill(0.0f);
    for (std::size_t i = 0; i < visible.shape(0); ++i) {
        std::size_t n = 0;
        for (std::size_t j = 0; j < visible.shape(1); ++j) n += visible(i, j) ? 1 : 0;
        for (std::size_t j = 0; j < visible.shape(1); ++j)
            if (visible(i, j)) w(i, j) = static_cast<float>(1.0 / static_cast<double>(n));
    }
    return w;
}

Mask visible_keys(std::size_t T, bool bidirectional) {
    Mask m = Mask::from_shape({T, T});
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < T; ++j) m(i, j) = bidirectional || j <= i ? 1 : 0;
    return m;
}

namespace {

// An encoder's mean over all T queries of f(i): undefined for T < 2, as a decoder's.
template <class F>
std::optional<double> mean_over_all_queries(const Mat& w, F f) {
    const std::size_t T = w.shape(0);
    if (T < 2) return std::nullopt;
    double total = 0.0;
    for (std::size_t i = 0; i < T; ++i) total += f(i);
    return total / static_cast<double>(T);
}

}  // namespace

std::optional<double> encoder_next_score(const Mat& w) {
    const std::size_t T = w.shape(0);
    if (T < 2) return std::nullopt;
    double total = 0.0;
    for (std::size_t i = 0; i + 1 < T; ++i) total += double(w(i, i + 1));
    return total / static_cast<double>(T - 1);
}

std::optional<double> encoder_first_score(const Mat& w) {
    return mean_over_all_queries(w, [&](std::size_t i) { return double(w(i, 0)); });
}

std::optional<double> encoder_self_score(const Mat& w) {
    return mean_over_all_queries(w, [&](std::size_t i) { return double(w(i, i)); });
}

std::optional<double> encoder_punctuation_score(const Mat& w, const std::vector<bool>& punct) {
    return mean_over_all_queries(w, [&](std::size_t i) {
        double on = 0.0;
        for (std::size_t j = 0; j < w.shape(1); ++j)
            if (punct.at(j)) on += double(w(i, j));
        return on;
    });
}

std::optional<double> encoder_duplicate_score(const Mat& w, const std::vector<std::int64_t>& ids) {
    const std::size_t T = w.shape(0);
    double total = 0.0;
    std::size_t queries = 0;
    for (std::size_t i = 0; i < T; ++i) {
        double on = 0.0;
        bool repeated = false;
        for (std::size_t j = 0; j < T; ++j)
            if (j != i && ids.at(j) == ids.at(i)) on += double(w(i, j)), repeated = true;
        if (repeated) total += on, ++queries;
    }
    if (queries == 0) return std::nullopt;
    return total / static_cast<double>(queries);
}

std::optional<HeadSink> encoder_head_sink(const Mat& w) {
    const std::size_t T = w.shape(0);
    if (T < 2) return std::nullopt;
    HeadSink best{0, -1.0};
    for (std::size_t j = 0; j < T; ++j) {
        double on = 0.0;
        for (std::size_t i = 0; i < T; ++i) on += double(w(i, j));
        on /= static_cast<double>(T);
        if (on > best.weight) best = {j, on};
    }
    return best;
}

const std::array<CrossPatternInfo, kCrossPatternCount>& cross_patterns() {
    static const std::array<CrossPatternInfo, kCrossPatternCount> k = {{
        {CrossPattern::monotonic, "monotonic",
         "share of decoder steps whose most-attended source token is at or after the previous step's"},
        {CrossPattern::eos_sink, "eos-sink", "mean weight on the source's final token (</s>)"},
    }};
    static_assert(kCrossPatternCount == 2, "one row per CrossPattern");
    return k;
}

std::optional<double> cross_monotonic_score(const Mat& w) {
    const std::size_t T = w.shape(0), S = w.shape(1);
    if (T < 2 || S == 0) return std::nullopt;
    const auto argmax = [&](std::size_t i) {
        std::size_t best = 0;
        for (std::size_t j = 1; j < S; ++j)
            if (w(i, j) > w(i, best)) best = j;
        return best;
    };
    std::size_t forward = 0;
    for (std::size_t i = 1, before = argmax(0); i < T; ++i) {
        const std::size_t now = argmax(i);
        forward += now >= before ? 1 : 0;
        before = now;
    }
    return static_cast<double>(forward) / static_cast<double>(T - 1);
}

std::optional<double> cross_eos_sink_score(const Mat& w) {
    const std::size_t T = w.shape(0), S = w.shape(1);
    if (T == 0 || S == 0) return std::nullopt;
    double on = 0.0;
    for (std::size_t i = 0; i < T; ++i) on += double(w(i, S - 1));
    return on / static_cast<double>(T);
}

double cross_chance(CrossPattern p, std::size_t S) {
    if (S == 0) return 0.0;
    const double s = static_cast<double>(S);
    return p == CrossPattern::monotonic ? (s + 1.0) / (2.0 * s) : 1.0 / s;
}

TextHeadScores text_head_scores(const Mat& w, const std::vector<bool>& punct, const std::vector<std::int64_t>& ids,
                                bool bidirectional) {
    TextHeadScores s;
    auto at = [&](HeadPattern p) -> std::optional<double>& { return s.score[static_cast<std::size_t>(p)]; };
    if (bidirectional) {
        at(HeadPattern::previous) = previous_score(w);
        at(HeadPattern::next) = encoder_next_score(w);
        at(HeadPattern::first) = encoder_first_score(w);
        at(HeadPattern::self) = encoder_self_score(w);
        at(HeadPattern::punctuation) = encoder_punctuation_score(w, punct);
        at(HeadPattern::duplicate) = encoder_duplicate_score(w, ids);
        s.sink = encoder_head_sink(w);
        if (s.sink) at(HeadPattern::sink) = s.sink->weight;
        return s;
    }
    at(HeadPattern::previous) = previous_score(w);
    at(HeadPattern::first) = first_score(w);
    at(HeadPattern::self) = self_score(w);
    at(HeadPattern::punctuation) = punctuation_score(w, punct);
    at(HeadPattern::duplicate) = duplicate_score(w, ids);
    s.sink = head_sink(w);
    if (s.sink) at(HeadPattern::sink) = s.sink->weight;
    return s;
}

std::vector<std::int64_t> induction_ids(std::size_t R, std::uint64_t seed, std::size_t vocab_size) {
    if (R > vocab_size) throw std::invalid_argument("induction_ids: more ids than the vocabulary holds");
    std::mt19937 rng(static_cast<std::mt19937::result_type>(seed));
    std::vector<std::int64_t> ids;
    std::set<std::int64_t> used;
    while (ids.size() < R) {
        const auto id = static_cast<std::int64_t>(static_cast<std::uint64_t>(rng()) % vocab_size);
        if (used.insert(id).second) ids.push_back(id);
    }
    return ids;
}

double mean_attention_distance(const Mat& w) {  // w (T, S), row-major
    const std::size_t T = w.shape(0), S = w.shape(1);
    if (T < 2) return 0.0;
    double total = 0.0;
    for (std::size_t i = 1; i < T; ++i) {
        const float* row = w.data() + i * S;  // the row by pointer: xtensor's (i, j) cost 2% of a model run
        for (std::size_t j = 0; j <= i && j < S; ++j) total += static_cast<double>(row[j]) * static_cast<double>(i - j);
    }
    return total / static_cast<double>(T - 1);
}

double uniform_attention_distance(const HeadTrace& head, bool bidirectional) {
    const std::size_t T = head.weights.shape(0);
    const bool masked = head.mask.get().dimension() == 2 && head.mask.shape(0) == T && head.mask.shape(1) == head.weights.shape(1);
    return mean_attention_distance(uniform_head(masked ? head.mask.get() : visible_keys(T, bidirectional)));
}

LayerDistances layer_distances(const LayerTrace& layer, bool bidirectional) {
    LayerDistances d;
    d.layer = layer.layer;
    d.heads.resize(layer.heads.size());
    // each head's distance (and the baseline, as task H) is one sum in its own order: the same numbers
    // on any number of threads
    const std::size_t H = layer.heads.size();
    run_tasks(H == 0 ? 0 : H + 1, kMaxPoolThreads, [&](std::size_t h) {
        if (h < H) d.heads[h] = mean_attention_distance(layer.heads[h].weights);
        else d.uniform = uniform_attention_distance(layer.heads[0], bidirectional);
    });
    return d;
}

}  // namespace attn
