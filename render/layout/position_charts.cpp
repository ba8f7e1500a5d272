#include "render/layout/position_charts.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/base/positions.h"
#include "render/layout/chart.h"
#include "render/trace_io/file_names.h"
#include "render/view/numbers.h"
#include "render/view/position_series.h"
#include "render/view/style.h"

namespace attn::render {
namespace {

using namespace chart;

std::vector<std::string> numbered(const char* prefix, std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
    return out;
}

// 1. the run's table with values, 2. the first 64 positions at the same width.
Drawing sinusoidal_figure(const Trace& t, Font& font) {
    const std::size_t D = t.positions.shape(1);
    Heatmap run;
    run.values = &t.positions, run.row_labels = t.tokens, run.col_labels = numbered("d", D);
    run.lo = -1, run.hi = 1, run.cmap = &kRdBuR, run.cell = D <= 16 ? 36 : std::max(4, 576 / int(D));
    run.print_values = run.cell >= 30, run.title = "this sentence: PE of positions 0.." + std::to_string(t.tokens.size() - 1);
    const auto wide = std::make_shared<const Mat>(sinusoidal_rows(t));
    Heatmap many;
    many.values = wide.get(), many.lo = -1, many.hi = 1, many.cmap = &kRdBuR;
    many.cell = std::max(3, std::min(9, 576 / int(D)));
    many.title = "positions 0..63 × d";
    std::vector<std::string> rows(64);
    for (std::size_t p = 0; p < 64; p += 8) rows[p] = std::to_string(p + std::size_t(t.config.pos_offset));
    many.row_labels = rows;
    // 3. canvas: heading, the two panels side by side, the colour bar
    const int head = heading_height(font);
    const int w1 = heatmap_width(font, run), w2 = heatmap_width(font, many);
    const int h = std::max(heatmap_height(font, run), heatmap_height(font, many));
    const std::string title = "Sinusoidal positions: PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(p / 10000^(2i/D))";
    const int w = std::max(kMargin * 4 + w1 + w2 + kColourBarWidth + 20, font.text_width(title, kTitlePx) + 2 * kMargin);
    return {figure_word::positions, w, head + h + kMargin, [&font, run, many, wide, title, D, head, w1, w2, h](Surface& cv) {
                draw_heading(cv, font, title, "added to the token embeddings before the projections (D = d_in = " +
                                                  std::to_string(D) + "): each position a different pattern, slow waves in the later columns");
                draw_heatmap(cv, font, run, kMargin, head);
                draw_heatmap(cv, font, many, 2 * kMargin + w1 + 20, head);
                draw_colour_bar(cv, font, kRdBuR, -1, 1, 3 * kMargin + w1 + w2 + 20, head + 30, std::min(h - 30, 300));
            }};
}

// q · R(Δ) k for Δ = 0..63: RoPE makes it a function of the distance only. Two curves: q = k = 1
// (the RoFormer paper's decay), and head 0's query and key of the first token in this run
// (render/view/position_series.h: the same numbers the JSON trace and the page carry).
Drawing rope_figure(const Trace& t, Font& font) {
    const RopeCurves rc = *rope_curves(t);
    const std::size_t d_k = rc.d_k, N = kRopeDistances;
    const RopeStyle style = parse_rope_style(t.config.rope_style);
    Chart c;
    c.title = "score q_m · k_n against the distance m − n";
    c.x_label = "distance m − n (positions)", c.y_label = "q · k after rotation";
    std::vector<double> xs(N);
    for (std::size_t i = 0; i < N; ++i) xs[i] = double(i);
    c.series.push_back({"q = k = (1, …, 1): Σ 2 cos((m − n) θ_i)", xs, rc.ones, kSeriesColours[0], false});
    c.series.push_back({"head 0: q and k of '" + font.fit(rc.token, kLabelPx, 120) + "'", xs, rc.head0, kSeriesColours[1], false});
    const int head = heading_height(font);
    const std::string title = "RoPE: q and k rotated by p·θ_i in pairs, θ_i = base^(−2i/d_k)";
    const int w = std::max(900, font.text_width(title, kTitlePx) + 2 * kMargin);
    const std::string subtitle =
        "base " + trimmed(t.config.rope_base, 3) + ", " + t.config.rope_style +
        (style == RopeStyle::half ? " pairs (i, i + d_k/2), Hugging Face rotate_half" : " pairs (2i, 2i+1), the paper's") +
        ", d_k = " + std::to_string(d_k) + ": the score depends on m − n only";
    return {figure_word::rope, w, head + 420 + kMargin, [&font, c, title, subtitle, head, w](Surface& cv) {
                draw_heading(cv, font, title, subtitle);
                draw_chart(cv, font, c, kMargin, head, w - 2 * kMargin, 420);
            }};
}

// Every head's bias matrix, in a grid of up to 4 columns, one colour scale.
Drawing alibi_figure(const Trace& t, Font& font) {
    double lo = 0, hi = 0;
    for (const auto& h : t.heads())  // over visible cells: the hidden ones never reach the softmax
        for (std::size_t x = 0; x < h.bias.size(); ++x)
            if (h.mask.data()[x]) lo = std::min(lo, double(h.bias.data()[x])), hi = std::max(hi, double(h.bias.data()[x]));
    if (!(hi > lo)) hi = lo + 1;
    const std::size_t H = t.heads().size(), cols = std::min<std::size_t>(4, H), rows = (H + cols - 1) / cols;
    const std::size_t S = t.heads()[0].bias.shape(1), T = t.heads()[0].bias.shape(0);
    const int cell = std::max(6, std::min(36, 288 / int(std::max(S, T))));
    std::vector<Heatmap> maps(H);
    for (std::size_t h = 0; h < H; ++h) {
        const double m = -double(t.heads()[h].bias.shape(0) > 1 ? t.heads()[h].bias(1, 0) : t.heads()[h].bias(0, 0));
        maps[h].values = &t.heads()[h].bias, maps[h].visible = &t.heads()[h].mask.get();
        maps[h].row_labels = t.tokens, maps[h].col_labels = t.source_tokens;
        maps[h].lo = lo, maps[h].hi = hi, maps[h].cell = cell, maps[h].print_values = cell >= 30;
        maps[h].title = "head " + std::to_string(h) + ": m = 2^" + trimmed(std::log2(m), 3) + " = " + trimmed(m, 3);
        if (T < 2) maps[h].title = "head " + std::to_string(h);
    }
    int pw = heatmap_width(font, maps[0]) + 30, ph = heatmap_height(font, maps[0]) + 20;
    const int head = heading_height(font);
    // The slide rule (render/view/style.h): within kSlideWidth × kSlideHeight × kCaptionPx / kMinSlideTextPx,
    // smaller cells where the grid would be larger.
    const double fit = kCaptionPx / kMinSlideTextPx;
    for (int c = cell; c > 2 && (kMargin * 2 + int(cols) * pw + kColourBarWidth > kSlideWidth * fit ||
                                 head + int(rows) * ph + kMargin > kSlideHeight * fit);) {
        --c;
        for (Heatmap& m : maps) m.cell = c, m.print_values = c >= 30;
        pw = heatmap_width(font, maps[0]) + 30, ph = heatmap_height(font, maps[0]) + 20;
    }
    // The paper's slopes: 2^(−8(h+1)/H) for a power of two; else those of n, the next lower power, then
    // every other slope of 2n: 2^(−4(2(h−n)+1)/n).
    std::size_t n = 1;
    while (n * 2 <= H) n *= 2;
    const std::string slopes = n == H ? "m_h = 2^(−8(h+1)/H)"
                                      : "m_h = 2^(−8(h+1)/" + std::to_string(n) + ") for h < " + std::to_string(n) +
                                            ", then 2^(−4(2(h−" + std::to_string(n) + ")+1)/" + std::to_string(n) + ")";
    const std::string title = "ALiBi: weights = softmax(scale · q kᵀ + m_h (j − i)), " + slopes;
    const int w = std::max(kMargin * 2 + int(cols) * pw + kColourBarWidth, font.text_width(title, kTitlePx) + 2 * kMargin);
    const std::string subtitle = "H = " + std::to_string(H) +
                                 (H & (H - 1) ? " (not a power of two: the slopes of the next lower power, "
                                                "then every other of twice as many)"
                                              : "") +
                                 "; hatched: hidden by the mask; the scores stay raw q·k";
    return {figure_word::alibi, w, head + int(rows) * ph + kMargin,
            [&font, maps, title, subtitle, head, cols, pw, ph, lo, hi](Surface& cv) {
                draw_heading(cv, font, title, subtitle);
                for (std::size_t h = 0; h < maps.size(); ++h)
                    draw_heatmap(cv, font, maps[h], kMargin + int(h % cols) * pw, head + int(h / cols) * ph);
                draw_colour_bar(cv, font, kViridis, lo, hi, kMargin + int(cols) * pw, head + 40, std::min(ph - 40, 260));
            }};
}

}  // namespace

// The figures the trace's --pos has: the sinusoidal table, RoPE's score curve, ALiBi's biases.
std::vector<Drawing> position_drawings(const Trace& t, Font& font) {
    std::vector<Drawing> out;
    if (t.positions.size()) out.push_back(sinusoidal_figure(t, font));
    if (!t.heads().empty() && t.heads()[0].queries_unrotated.size()) out.push_back(rope_figure(t, font));
    if (!t.heads().empty() && t.heads()[0].bias.size()) out.push_back(alibi_figure(t, font));
    return out;
}

}  // namespace attn::render
