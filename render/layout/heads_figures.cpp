#include "render/layout/heads_figures.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "render/layout/chart.h"
#include "render/view/colormaps.h"
#include "render/view/numbers.h"
#include "render/view/style.h"

namespace attn::render {
namespace {

using namespace chart;

// 1. the (L, H) scores and which are defined, 2. the heatmap with labels, 3. heading and colour bar.

// " · chance 0.18" (or a range when layers differ): what a uniform head scores on the same texts, the
// level a cell must clear by the margin to count (core/analysis/head_patterns.h); "" without chance levels.
std::string chance_text(const HeadReport& r, HeadPattern p) {
    std::optional<double> lo, hi;
    for (std::size_t l = 0; l < r.n_layer; ++l)
        for (std::size_t h = 0; h < r.n_head; ++h)
            if (const auto c = r.chance_of(p, l, h)) lo = std::min(lo.value_or(*c), *c), hi = std::max(hi.value_or(*c), *c);
    if (!lo) return "";
    const std::string a = fixed(*lo, 2), b = fixed(*hi, 2);
    return " \xC2\xB7 chance " + (a == b ? a : a + "\xE2\x80\x93" + b) + " (a uniform head)";
}
Drawing pattern_drawing(const HeadReport& r, HeadPattern p, const std::string& model_name, Font& font) {
    const std::size_t L = r.n_layer, H = r.n_head;
    const auto values = std::make_shared<Mat>(Mat::from_shape({L, H}));
    const auto defined = std::make_shared<Mask>(Mask::from_shape({L, H}));
    for (std::size_t l = 0; l < L; ++l)
        for (std::size_t h = 0; h < H; ++h) {
            const auto& s = r.score(p, l, h);
            (*values)(l, h) = s ? static_cast<float>(*s) : 0.0f;
            (*defined)(l, h) = s.has_value();
        }
    Heatmap map;
    map.values = values.get(), map.visible = defined.get(), map.lo = 0.0, map.hi = 1.0;
    for (std::size_t l = 0; l < L; ++l) map.row_labels.push_back("layer " + std::to_string(l));
    for (std::size_t h = 0; h < H; ++h) map.col_labels.push_back("head " + std::to_string(h));
    // cells of 48 px for a small model, down to 14 px for 48 heads; values printed from 30 px up
    map.cell = std::clamp(720 / static_cast<int>(std::max<std::size_t>({L, H, 1})), 14, 48);
    map.print_values = map.cell >= 30;
    const HeadPatternInfo& info = head_patterns()[static_cast<std::size_t>(p)];
    const std::size_t n = r.defined[static_cast<std::size_t>(p)];
    const std::string title = model_name + " (" + r.model.type + ") \xC2\xB7 " + info.name + " heads";
    const std::string count = p == HeadPattern::induction
                                  ? std::to_string(r.induction_length) + " random ids (seed " + std::to_string(r.induction_seed) + ") repeated twice"
                                  : "mean over " + std::to_string(n) + (n == 1 ? " text" : " texts");
    const std::string sub = std::string(r.definition(p)) + " \xC2\xB7 " + count + chance_text(r, p) + " \xC2\xB7 hatched: undefined" +
                            (r.bidirectional() ? " \xC2\xB7 encoder (bidirectional)" : "");
    const int head = heading_height(font), mw = heatmap_width(font, map), mh = heatmap_height(font, map);
    const int w = std::max({2 * kMargin + mw + 30 + kColourBarWidth, font.text_width(title, kTitlePx) + 2 * kMargin,
                            font.text_width(sub, kSubtitlePx) + 2 * kMargin});
    return {heads_figure_word(p), w, head + mh + kMargin, [&font, values, defined, map, title, sub, head, mw, mh](Surface& cv) {
                draw_heading(cv, font, title, sub);
                draw_heatmap(cv, font, map, kMargin, head);
                const int bar = std::clamp(mh - 40, 60, 300);
                draw_colour_bar(cv, font, kViridis, 0, 1, kMargin + mw + 30, head + mh - bar, bar);
            }};
}

// --effect: the (L, H) loss increases on the diverging map, symmetric around 0 (red: the loss rises).
Drawing effect_drawing(const HeadReport& r, const std::string& model_name, const std::string& texts, Font& font) {
    const std::size_t L = r.n_layer, H = r.n_head;
    const auto values = std::make_shared<Mat>(Mat::from_shape({L, H}));
    double most = 0.0;
    for (std::size_t l = 0; l < L; ++l)
        for (std::size_t h = 0; h < H; ++h) {
            (*values)(l, h) = static_cast<float>(r.effect[l][h]);
            most = std::max(most, std::abs(r.effect[l][h]));
        }
    if (!(most > 0.0)) most = 1.0;
    Heatmap map;
    map.values = values.get(), map.lo = -most, map.hi = most, map.cmap = &kRdBuR;
    for (std::size_t l = 0; l < L; ++l) map.row_labels.push_back("layer " + std::to_string(l));
    for (std::size_t h = 0; h < H; ++h) map.col_labels.push_back("head " + std::to_string(h));
    map.cell = std::clamp(720 / static_cast<int>(std::max<std::size_t>({L, H, 1})), 14, 48);
    map.print_values = map.cell >= 30;
    const std::string title = model_name + " (" + r.model.type + ") \xC2\xB7 heads \xC3\x97 effect on the next-token loss";
    const std::string sub = "increase of the text loss (nats) when the head alone is ablated \xC2\xB7 zero ablation \xC2\xB7 " + texts;
    const int head = heading_height(font), mw = heatmap_width(font, map), mh = heatmap_height(font, map);
    const int w = std::max({2 * kMargin + mw + 30 + kColourBarWidth, font.text_width(title, kTitlePx) + 2 * kMargin,
                            font.text_width(sub, kSubtitlePx) + 2 * kMargin});
    return {"heads-effect", w, head + mh + kMargin, [&font, values, map, title, sub, head, mw, mh, most](Surface& cv) {
                draw_heading(cv, font, title, sub);
                draw_heatmap(cv, font, map, kMargin, head);
                const int bar = std::clamp(mh - 40, 60, 300);
                draw_colour_bar(cv, font, kRdBuR, -most, most, kMargin + mw + 30, head + mh - bar, bar);
            }};
}

// The texts the effect averages: the first one quoted (cut to 40 bytes at a character), and how many more.
std::string effect_texts(const HeadReport& r) {
    if (r.texts.empty()) return "";
    std::string first = r.texts[0].text;
    if (first.size() > 40) {
        std::size_t cut = 40;
        while (cut > 0 && (static_cast<unsigned char>(first[cut]) & 0xC0) == 0x80) --cut;
        first = first.substr(0, cut) + "\xE2\x80\xA6";
    }
    const std::size_t more = r.texts.size() - 1;
    return "\xE2\x80\x9C" + first + "\xE2\x80\x9D" + (more ? " and " + std::to_string(more) + (more == 1 ? " more text" : " more texts") : "");
}

}  // namespace

std::string heads_figure_word(HeadPattern p) { return std::string("heads-") + head_patterns()[static_cast<std::size_t>(p)].name; }

std::vector<Drawing> heads_drawings(const HeadReport& r, const std::string& model_name, Font& font) {
    std::vector<Drawing> out;
    for (const auto& info : head_patterns())
        if (r.shows(info.pattern) && r.defined[static_cast<std::size_t>(info.pattern)] > 0) out.push_back(pattern_drawing(r, info.pattern, model_name, font));
    if (!r.effect.empty()) out.push_back(effect_drawing(r, model_name, effect_texts(r), font));
    return out;
}

}  // namespace attn::render
