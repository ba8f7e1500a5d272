#include "render/terminal/heads_terminal.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <sstream>
#include <vector>

#include "render/view/colour_scale.h"
#include "render/view/colormaps.h"
#include "render/view/numbers.h"

namespace attn::render {
namespace {

constexpr const char* kDot = " \xC2\xB7 ";
constexpr int kCellWidth = 7;

std::string right(const std::string& s, std::size_t w) {
    const std::size_t n = display_width(s);
    return std::string(n < w ? w - n : 1, ' ') + s;
}

std::string left(const std::string& s, std::size_t w) {
    const std::size_t n = display_width(s);
    return s + std::string(n < w ? w - n : 1, ' ');
}

using LayerChance = std::function<std::optional<double>(std::size_t layer)>;

// A layers × heads grid of one pattern's scores, rows "<row><layer number>", each cell coloured on the
// 0..1 viridis scale (every score is a share of a query's attention); "–" where a score is undefined.
// With `chance`, a last column gives each layer's chance level (a uniform head's score), uncoloured.
template <class Score>
void score_grid(std::ostringstream& out, const std::string& row, std::size_t label_w, const std::vector<std::size_t>& layers,
                std::size_t n_head, const HeadsViewOptions& opt, Score score, const LayerChance& chance = nullptr,
                const ColourScale& scale = ColourScale()) {
    out << std::string(label_w, ' ');
    for (std::size_t h = 0; h < n_head; ++h) out << right("h" + std::to_string(h), kCellWidth);
    if (chance) out << right("chance", kCellWidth + 2);
    out << "\n";
    for (std::size_t l = 0; l < layers.size(); ++l) {
        out << left(row + std::to_string(layers[l]), label_w);
        for (std::size_t h = 0; h < n_head; ++h) {
            const auto s = score(l, h);
            const std::string cell = right(s ? fixed(*s, opt.precision) : "\xE2\x80\x93", kCellWidth);  // –
            if (s && opt.colour != ColourDepth::none)
                out << cell_escape(scale.colour(static_cast<float>(*s)), opt.colour) << cell << "\x1b[0m";
            else
                out << cell;
        }
        if (chance) {
            const auto c = chance(l);
            out << right(c ? fixed(*c, opt.precision) : "\xE2\x80\x93", kCellWidth + 2);
        }
        out << "\n";
    }
    out << "\n";
}

// The grid of one (L, H) score and its chance level under a heading already written.
void grid_with_chance(std::ostringstream& out, const HeadReport& r, const HeadGrid& score, const HeadGrid& chance,
                      const HeadsViewOptions& opt, const std::string& set) {
    const std::string row = set.empty() ? "layer " : set + " layer ";
    const std::size_t label_w = set.empty() ? 8 : row.size() + 3;  // "layer 11" as before; "decoder layer 11"
    std::vector<std::size_t> layers(r.n_layer);
    for (std::size_t l = 0; l < r.n_layer; ++l) layers[l] = l;
    score_grid(out, row, label_w, layers, r.n_head, opt, [&](std::size_t l, std::size_t h) { return score[l][h]; },
               [&](std::size_t l) { return l < chance.size() && !chance[l].empty() ? chance[l][0] : std::nullopt; });
}

// One pattern's layers × heads table; rows "layer L", or "<set> layer L" for an encoder-decoder's set;
// the last column each layer's chance level.
void table(std::ostringstream& out, const HeadReport& r, HeadPattern p, const HeadsViewOptions& opt, const std::string& set = "") {
    const auto i = static_cast<std::size_t>(p);
    out << (set.empty() ? "" : set + " ") << head_patterns()[i].name << ": " << r.definition(p);
    if (p == HeadPattern::induction) out << "\n";
    else out << " \xC2\xB7 " << r.defined[i] << " of " << r.texts.size() << (r.texts.size() == 1 ? " text\n" : " texts\n");
    if (r.defined[i] == 0) {
        out << "  undefined in every text" << (p == HeadPattern::duplicate ? " (no token repeats)" : "") << "\n\n";
        return;
    }
    grid_with_chance(out, r, r.scores[i], r.chance[i], opt, set);
}

// Natural-text induction's table, beside the random-id one.
void induction_text_table(std::ostringstream& out, const HeadReport& r, const HeadsViewOptions& opt) {
    out << "induction on the texts: mean weight on the token after an earlier, not adjacent copy "
        << "of the query's token" << kDot << r.induction_text_defined << " of " << r.texts.size()
        << (r.texts.size() == 1 ? " text\n" : " texts\n");
    if (r.induction_text_defined == 0) {
        out << "  n/a: no token repeats apart from its neighbour in any text\n\n";
        return;
    }
    grid_with_chance(out, r, r.induction_text, r.induction_text_chance, opt, "");
}

// The named heads of one pattern (those that clear chance), or "no head clears chance" with the best score.
void reading_lines(std::ostringstream& out, const HeadReport& r, HeadPattern p, std::size_t n, const HeadsViewOptions& opt,
                   bool name_pattern) {
    const std::string name = name_pattern ? left(head_patterns()[static_cast<std::size_t>(p)].name, 13) : "";
    const std::vector<RankedHead> ranked = rank_heads(r, p);
    if (ranked.empty()) {
        if (name_pattern) out << "  " << name << "undefined in every text\n";
        return;
    }
    const std::vector<RankedHead> named = named_heads(r, p, n);
    if (named.empty()) {
        const RankedHead& b = ranked.front();
        const auto c = r.chance_of(p, b.layer, b.head);
        out << "  " << name << "no head clears chance (the highest, layer " << b.layer << " head " << b.head << ", scores "
            << fixed(b.score, opt.precision) << (c ? " against chance " + fixed(*c, opt.precision) : std::string(", no chance level"))
            << ")\n";
        return;
    }
    for (const RankedHead& k : named) {
        out << "  " << name << head_reading(r, p, k.layer, k.head, opt.precision) << "\n";
        if (p == HeadPattern::sink) continue;
        const std::string caution = sink_caution(r, k.layer, k.head, opt.precision);
        if (!caution.empty()) out << "  " << (name_pattern ? std::string(13, ' ') : "") << "  " << caution << "\n";
    }
}

// A cross pattern's table: "cross monotonic: <definition> · chance 0.58 (S = 6)", then layers × heads.
void cross_table(std::ostringstream& out, const CrossHeadReport& c, std::size_t p, const HeadsViewOptions& opt) {
    const CrossPatternInfo& info = cross_patterns()[p];
    out << "cross " << info.name << ": " << info.definition << kDot << "chance " << fixed(c.chance[p], opt.precision)
        << " (random rows over " << c.source_length << " source tokens)\n";
    const std::string row = "cross layer ";
    const std::size_t label_w = row.size() + 3;
    score_grid(out, row, label_w, c.layers, c.n_head, opt, [&](std::size_t l, std::size_t h) { return c.scores[p][l][h]; });
}

}  // namespace

std::string encoder_decoder_heads_terminal_view(const EncoderDecoderHeadReport& r, const HeadsViewOptions& opt) {
    std::ostringstream out;
    const auto count = [](std::size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
    out << "model:     " << opt.model_name << kDot << r.model.type << kDot << "encoder-decoder" << kDot << count(r.model.n_layer, "encoder layer")
        << " \xC3\x97 " << count(r.model.n_decoder_layer, "decoder layer") << " \xC3\x97 " << count(r.model.n_head, "head") << "\n";
    out << "sets:      encoder (source \xC3\x97 source, bidirectional), decoder (its tokens, causal), cross (decoder tokens \xC3\x97 source)\n\n";
    for (const SetHeadReport& s : r.sets)
        for (const auto& info : head_patterns())
            if (s.report.shows(info.pattern) && info.pattern != HeadPattern::induction)  // induction needs a run of its own
                table(out, s.report, info.pattern, opt, s.set);
    if (r.cross)
        for (std::size_t p = 0; p < kCrossPatternCount; ++p) cross_table(out, *r.cross, p, opt);
    return out.str();
}

std::string head_reading(const HeadReport& r, HeadPattern p, std::size_t layer, std::size_t head, int precision) {
    const auto& s = r.score(p, layer, head);
    std::string line = "layer " + std::to_string(layer) + " head " + std::to_string(head) + ": ";
    if (!s) return line + "undefined";
    line += fixed(*s, precision) + " of its attention " + pattern_reading(head_patterns()[static_cast<std::size_t>(p)], r.bidirectional());
    std::size_t text = 0;
    if (p == HeadPattern::sink)
        if (const auto sink = strongest_sink(r, layer, head, &text))
            line += ": \"" + r.texts[text].tokens.at(sink->key) + "\" (position " + std::to_string(sink->key) +
                    (r.texts.size() > 1 ? " of text " + std::to_string(text + 1) + ", " + fixed(sink->weight, precision) + " there" : "") + ")";
    if (const auto c = r.chance_of(p, layer, head)) line += " (chance " + fixed(*c, precision) + ")";
    return line;
}

std::string sink_caution(const HeadReport& r, std::size_t layer, std::size_t head, int precision) {
    const auto& s = r.score(HeadPattern::sink, layer, head);
    std::size_t text = 0;
    const auto sink = strongest_sink(r, layer, head, &text);
    if (!s || !sink || *s < kSinkCaution) return "";
    const std::size_t T = r.texts[text].tokens.size(), after = T - 1 - sink->key;
    if (!r.bidirectional() && 2 * after < T - 1) return "";  // an encoder's sink is seen by every query
    // the text's own value and token: a mean over texts would pair one text's token with other texts' sinks
    return "caution: this head parks " + fixed(sink->weight, precision) + " of its attention on one token (\"" +
           r.texts[text].tokens.at(sink->key) + "\" at position " + std::to_string(sink->key) +
           (r.texts.size() > 1 ? " of text " + std::to_string(text + 1) : "") +
           "): a column every query shares, which may explain this score better than a job";
}

std::string effect_terminal_view(const HeadReport& r, const HeadsViewOptions& opt, std::size_t top) {
    if (r.effect.empty()) return "";
    std::ostringstream out;
    // 1. the layers × heads table, coloured on a diverging scale symmetric around 0
    out << "effect: the increase of the text's next-token loss (nats) when the head alone is zero-ablated"
        << kDot << "mean over " << r.texts.size() << (r.texts.size() == 1 ? " text\n" : " texts\n");
    ColourScale scale;
    double most = 0.0;
    for (const auto& row : r.effect)
        for (double e : row) most = std::max(most, std::abs(e));
    scale.cmap = &kRdBuR, scale.lo = -static_cast<float>(most > 0 ? most : 1.0), scale.hi = -scale.lo;
    std::vector<std::size_t> layers(r.effect.size());
    for (std::size_t l = 0; l < layers.size(); ++l) layers[l] = l;
    HeadsViewOptions cells = opt;  // effects are small: at least 3 decimals
    cells.precision = std::max(opt.precision, 3);
    score_grid(out, "layer ", 8, layers, r.n_head, cells,
               [&](std::size_t l, std::size_t h) { return std::optional<double>(r.effect[l][h]); }, nullptr, scale);
    // 2. the heads whose ablation raises the loss most
    const std::vector<RankedHead> ranked = rank_effects(r);
    out << "top heads by effect on the loss:\n";
    for (std::size_t k = 0; k < ranked.size() && k < top; ++k)
        out << "  layer " << ranked[k].layer << " head " << ranked[k].head << ": " << (ranked[k].score >= 0 ? "+" : "")
            << fixed(ranked[k].score, std::max(opt.precision, 3)) << " nats\n";
    return out.str();
}

std::string heads_terminal_view(const HeadReport& r, const HeadsViewOptions& opt) {
    std::ostringstream out;
    // 1. the model, the texts, the induction run
    out << "model:     " << opt.model_name << kDot << r.model.type << kDot << r.n_layer << " layers \xC3\x97 " << r.n_head
        << " heads\n";
    out << "texts:     " << r.texts.size();
    if (!r.texts.empty()) out << " (the first: " << r.texts[0].tokens.size() << " tokens)";
    out << "\n";
    if (r.induction_length)
        out << "induction: " << r.induction_length << " random token ids (seed " << r.induction_seed << ") repeated twice\n";
    out << "\n";
    // 2. a table per pattern
    for (const auto& info : head_patterns()) {
        if (!r.shows(info.pattern)) continue;
        table(out, r, info.pattern, opt);
        if (info.pattern == HeadPattern::induction) induction_text_table(out, r, opt);
    }
    out << "chance: the same score of a uniform head (each query's weight spread evenly over its visible keys) on the same "
           "texts; a head is named only when its score is at least chance + "
        << fixed(kChanceMargin, 1) << " and at least " << fixed(kChanceRatio, 0) << " \xC3\x97 chance\n\n";
    // 3. the readings: --rank's top heads, or every pattern's best
    if (opt.rank) {
        out << "top heads by " << head_patterns()[static_cast<std::size_t>(*opt.rank)].name << ":\n";
        reading_lines(out, r, *opt.rank, opt.top, opt, false);
    } else {
        out << "the best head of each pattern that clears chance (--rank PATTERN names more):\n";
        for (const auto& info : head_patterns())
            if (r.shows(info.pattern)) reading_lines(out, r, info.pattern, 1, opt, true);
    }
    return out.str();
}

}  // namespace attn::render
