// attn decode's charts: the staircase of rows as the steps produce them, and the cache per step.
#include <algorithm>
#include <memory>

#include "render/layout/decode_charts.h"

#include "render/layout/chart.h"
#include "render/trace_io/file_names.h"
#include "render/view/model_title.h"
#include "render/view/numbers.h"
#include "render/view/style.h"

namespace attn::render {
namespace {

using namespace chart;

// 1. per head (up to 8), a (T, T) matrix whose row t is step t's weights over keys 0..t; the cells
// right of the diagonal do not exist yet at that step (hatched).
Drawing staircase(const DecodeTrace& d, Font& font) {
    // The first kMaxSteps steps only: a staircase of thousands of rows is no longer readable.
    constexpr std::size_t kMaxSteps = 48;
    // the heads the steps hold: a seeded run's (up to 8, 4 a row); a model's layer (up to 12, a key/value
    // group per row when a group holds 2 to 4 query heads)
    const std::size_t recorded = d.steps[0].heads.size(), per_group = d.heads / std::max<std::size_t>(d.kv_heads, 1);
    const std::size_t T = std::min(d.steps.size(), kMaxSteps), H = std::min<std::size_t>(recorded, d.model ? 12 : 8);
    const bool by_group = d.model && recorded == d.heads && per_group >= 2 && per_group <= 4;
    const std::size_t cols = by_group ? per_group : std::min<std::size_t>(4, H);
    // the matrices, owned by the drawing (its heatmaps point into them)
    const auto rows_of = std::make_shared<std::vector<Mat>>(H, Mat::from_shape({T, T}));
    const auto exists = std::make_shared<Mask>(Mask::from_shape({T, T}));
    for (std::size_t t = 0; t < T; ++t)
        for (std::size_t j = 0; j < T; ++j) {
            (*exists)(t, j) = j <= t;
            for (std::size_t h = 0; h < H; ++h) (*rows_of)[h](t, j) = j <= t ? d.steps[t].heads[h].weights[j] : 0.0f;
        }
    std::vector<std::string> labels;
    std::vector<std::string> keys;
    for (std::size_t t = 0; t < T; ++t) {
        labels.push_back("step " + std::to_string(t) + ": " + font.fit(d.steps[t].token, kLabelPx, 90));
        keys.push_back(d.steps[t].token);
    }
    const int cell = std::max(6, std::min(36, 300 / int(std::max<std::size_t>(T, 1))));
    std::vector<Heatmap> maps(H);
    for (std::size_t h = 0; h < H; ++h) {
        maps[h].values = &(*rows_of)[h], maps[h].visible = exists.get(), maps[h].cell = cell, maps[h].print_values = cell >= 30;
        maps[h].row_labels = labels, maps[h].col_labels = keys;
        const DecodeHeadStep& hs = d.steps[0].heads[h];
        maps[h].title = "head " + std::to_string(hs.head) +
                        (d.kv_heads < d.heads ? " (reads kv head " + std::to_string(hs.kv_head) + ")" : std::string());
    }
    int pw = heatmap_width(font, maps[0]) + 30, ph = heatmap_height(font, maps[0]) + 20;
    const int head = heading_height(font), grid_rows = int((H + cols - 1) / cols);
    // The slide rule (render/view/style.h): within kSlideWidth × kSlideHeight × kCaptionPx / kMinSlideTextPx,
    // smaller cells where the grid would be larger.
    const double fit = kCaptionPx / kMinSlideTextPx;
    for (int c = cell; c > 2 && (kMargin * 2 + int(cols) * pw + kColourBarWidth > kSlideWidth * fit ||
                                 head + grid_rows * ph + kMargin > kSlideHeight * fit);) {
        --c;
        for (Heatmap& m : maps) m.cell = c, m.print_values = c >= 30;
        pw = heatmap_width(font, maps[0]) + 30, ph = heatmap_height(font, maps[0]) + 20;
    }
    const std::string first = T < d.steps.size() ? "the first " + std::to_string(T) + " of " + std::to_string(d.steps.size()) + " steps; " : "";
    std::string title = "Decoding: step t's one query attends over the t + 1 cached keys", sub;
    if (d.model) {
        const std::string model = d.full.model ? model_title_with_family(*d.full.model) : std::string("model");
        title = "Decoding " + model + ", layer " + std::to_string(d.model->layer) + ": step t's queries attend over the t + 1 cached keys";
        sub = first + std::to_string(d.heads) + " query heads over " + std::to_string(d.kv_heads) + " key/value heads";
        if (d.kv_heads < d.heads) sub += " (" + std::to_string(per_group) + " query heads share each cached key/value head" +
                                         (by_group ? ", a row each" : "") + ")";
        sub += "; hatched: not produced yet; row t = row t of the full pass";
    } else {
        sub = first + d.full.kind + ", H = " + std::to_string(d.heads) + ", G = " + std::to_string(d.kv_heads) +
              "; rows appear one per step (hatched: not produced yet); mask aligned bottom-right; row t = "
              "row t of the full causal pass";
    }
    const int w = std::max({kMargin * 2 + int(cols) * pw + kColourBarWidth, font.text_width(title, kTitlePx) + 2 * kMargin,
                            font.text_width(sub, kSubtitlePx) + 2 * kMargin});
    return {figure_word::decode_steps, w, head + grid_rows * ph + kMargin,
            [&font, rows_of, exists, maps, title, sub, head, cols, pw, ph](Surface& cv) {
                draw_heading(cv, font, title, sub);
                for (std::size_t h = 0; h < maps.size(); ++h)
                    draw_heatmap(cv, font, maps[h], kMargin + int(h % cols) * pw, head + int(h / cols) * ph);
                draw_colour_bar(cv, font, kViridis, 0, 1, kMargin + int(cols) * pw, head + 40, std::min(ph - 40, 260));
            }};
}

// 2. bytes of the cache after each step, for G = H, a G between and G = 1.
Drawing cache_chart(const DecodeTrace& d, Font& font) {
    Chart c;
    const std::string dtype = d.model ? d.model->dtype : "float32";
    const std::size_t bytes = d.model ? d.model->dtype_bytes : 4;
    c.title = "KV cache after each step (" + dtype + " keys and values)";
    c.x_label = "tokens in the cache", c.y_label = "bytes";
    std::size_t k = 0;
    for (const CacheVariant& v : d.variants) {
        Series s;
        s.label = v.name + ", G = " + std::to_string(v.kv_heads) + ": " + std::to_string(v.bytes_per_token) +
                  " bytes per token" + (v.this_run ? (d.model ? " (this model)" : " (this run)") : "");
        s.colour = kSeriesColours[k++ % 4], s.steps = true;
        for (std::size_t t = 1; t <= d.steps.size(); ++t) s.x.push_back(double(t)), s.y.push_back(double(v.bytes_per_token * t));
        c.series.push_back(std::move(s));
    }
    const int head = heading_height(font);
    std::string title = "KV cache: layers × G × (d_k + d_v) × 4 bytes per token";
    std::string sub = std::to_string(d.layers) + " layer, H = " + std::to_string(d.heads) + " query heads, d_k = " +
                      std::to_string(d.d_k) + ", d_v = " + std::to_string(d.d_v) + ": fewer kv heads, a smaller cache";
    if (d.model) {
        const std::string model = d.full.model ? model_title_with_family(*d.full.model) : std::string("model");
        title = "KV cache of " + model + ": layers × G × head_dim × 2 (k, v) × " + std::to_string(bytes) + " bytes per token";
        sub = std::to_string(d.layers) + " layers, H = " + std::to_string(d.heads) + " query heads, G = " + std::to_string(d.kv_heads) +
              " key/value heads, head_dim = " + std::to_string(d.d_k) + ": fewer key/value heads, a smaller cache";
    }
    return {figure_word::decode_cache, 900, head + 420 + kMargin, [&font, c, title, sub, head](Surface& cv) {
                draw_heading(cv, font, title, sub);
                draw_chart(cv, font, c, kMargin, head, 900 - 2 * kMargin, 420);
            }};
}

}  // namespace

std::vector<Drawing> decode_drawings(const DecodeTrace& d, Font& font) {
    if (d.steps.empty()) return {};
    return {staircase(d, font), cache_chart(d, font)};
}

}  // namespace attn::render
