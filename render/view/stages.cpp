#include "render/view/stages.h"

#include "render/view/model_title.h"
#include "render/view/numbers.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::render {
namespace {

constexpr const char* kTimes = "\xC3\x97";

struct StageEntry {
    Stage stage;
    const char* name;
};
constexpr StageEntry kStageTable[] = {
    {Stage::scores, "scores"},   {Stage::masked_scores, "masked-scores"}, {Stage::mask, "mask"},
    {Stage::weights, "weights"}, {Stage::zeroed, "zeroed"},               {Stage::dropped, "dropped"},
    {Stage::context, "context"}, {Stage::queries, "queries"},            {Stage::keys, "keys"},
    {Stage::values, "values"},   {Stage::output, "output"},
};
static_assert(sizeof kStageTable / sizeof kStageTable[0] == static_cast<std::size_t>(Stage::output) + 1,
              "one name per stage");

bool any_hidden(const Trace& t) {
    for (const HeadTrace& h : t.heads())
        if (h.mask.size() != 0 && std::find(h.mask.begin(), h.mask.end(), 0) != h.mask.end()) return true;
    return false;
}

std::string scale_text(const Trace& t) {
    const float s = t.heads().empty() ? 1.0f : t.heads()[0].scale;
    if (s == 1.0f) return "";
    return std::string(kTimes) + short_number(s);
}

}  // namespace

const std::vector<std::string>& stage_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const StageEntry& e : kStageTable) v.emplace_back(e.name);
        return v;
    }();
    return names;
}

std::optional<Stage> find_stage(const std::string& name) {
    for (const StageEntry& e : kStageTable)
        if (name == e.name) return e.stage;
    return std::nullopt;
}

const char* stage_name(Stage s) { return kStageTable[static_cast<std::size_t>(s)].name; }

std::string row_axis(const Trace& t) { return has_source_axes(t) ? "target (query)" : "query"; }
std::string col_axis(const Trace& t) { return has_source_axes(t) ? "source (key)" : "key"; }

ValueKind stage_value_kind(Stage s) {
    switch (s) {
        case Stage::weights:
        case Stage::zeroed:
        case Stage::dropped:
        case Stage::mask: return ValueKind::probability;
        default: return ValueKind::signed_value;
    }
}

std::string random_weights_note(const Trace& t) {
    const Kind* k = find_kind(t.kind);
    if (t.model || k == nullptr || !(k->options & opt_init)) return "";
    if (!t.config.weights.empty()) return "weights from " + printable_name(t.config.weights);  // a file name: any bytes
    return "random weights (seed " + std::to_string(t.config.seed) + ")";
}

std::string stage_subtitle(const Trace& t, Stage s) {
    const std::string f = score_formula(t), sc = scale_text(t);
    const bool hidden = any_hidden(t);
    switch (s) {
        case Stage::scores:
            return "raw scores " + f + " for every pair, hidden ones too (before" +
                   (sc.empty() ? std::string() : " the " + sc + " scaling and") + " the mask)";
        case Stage::masked_scores:
            return (sc.empty() ? std::string("scores ") : std::string("scaled scores ")) + f + (sc.empty() ? "" : " " + sc) +
                   (hidden ? ", \xE2\x88\x92\xE2\x88\x9E where the mask hides the key: what the softmax receives"
                           : ": nothing is hidden, this is what the softmax receives");
        case Stage::mask: return "which keys each query may attend to (1 = visible)";
        case Stage::weights:
            if (t.config.renorm)
                return "softmax over every key, hidden ones zeroed, each row divided by its sum (--renorm)";
            return std::string("softmax over the visible keys of each query: each row sums to 1") +
                   (hidden ? "; hidden keys get exactly 0" : "");
        case Stage::zeroed:
            return "softmax over every key (future ones too), then the hidden ones set to 0: rows no longer sum to 1";
        case Stage::dropped:
            return "after dropout p = " + short_number(t.config.dropout) + ": dropped weights are 0 (marked " + kTimes +
                   "), kept ones " + kTimes + "1/(1\xE2\x88\x92p)";
        case Stage::context: return "context = weights " + std::string(kTimes) + " values: one row per query";
        case Stage::queries: return "queries q = x W_q: one row per query token";
        case Stage::keys: return "keys: one row per key token";
        case Stage::values: return "values: one row per key token";
        case Stage::output: return "the layer's output: one row per query token";
    }
    return "";
}

Mat masked_scores(const HeadTrace& h) {
    if (h.scores.size() == 0) return {};
    const std::size_t T = h.scores.shape(0), S = h.scores.shape(1);
    const bool masked = h.mask.size() == h.scores.size();
    Mat m = Mat::from_shape({T, S});
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < S; ++j)
            m(i, j) = !masked || h.mask(i, j) ? h.scale * h.scores(i, j) : -std::numeric_limits<float>::infinity();
    return m;
}

Mat zeroed_weights(const HeadTrace& h) {
    if (h.zeroed.size()) return h.zeroed;  // --renorm: the stage the run computed
    if (h.scores.size() == 0) return {};
    const std::size_t T = h.scores.shape(0), S = h.scores.shape(1);
    const bool masked = h.mask.size() == h.scores.size();
    Mat w = Mat::from_shape({T, S});
    for (std::size_t i = 0; i < T; ++i) {
        // 1. stable softmax of scale·scores over every key, 2. zero the hidden ones
        float m = -std::numeric_limits<float>::infinity();
        for (std::size_t j = 0; j < S; ++j) m = std::max(m, h.scale * h.scores(i, j));
        double sum = 0.0;
        for (std::size_t j = 0; j < S; ++j) sum += std::exp(static_cast<double>(h.scale * h.scores(i, j) - m));
        for (std::size_t j = 0; j < S; ++j) {
            const double p = std::exp(static_cast<double>(h.scale * h.scores(i, j) - m)) / sum;
            w(i, j) = !masked || h.mask(i, j) ? static_cast<float>(p) : 0.0f;
        }
    }
    return w;
}

bool dropped_cell(const HeadTrace& h, std::size_t i, std::size_t j) {
    if (h.dropped_weights.size() == 0) return false;
    const bool visible = h.mask.size() == 0 || h.mask(i, j) != 0;
    return visible && h.weights(i, j) > 0.0f && h.dropped_weights(i, j) == 0.0f;
}

}  // namespace attn::render
