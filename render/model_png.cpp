// The model overview PNG: a layers × heads grid of small attention-weight maps (in the spirit of
// BertViz's model view), with each layer's mean over heads and its attention rollout at the right.
#include <algorithm>
#include <cmath>

#include "render/canvas.h"
#include "render/colormaps.h"
#include "render/font.h"
#include "render/model_view.h"

namespace attn::render {
namespace {

constexpr Rgb kWhite{255, 255, 255}, kInk{30, 30, 30}, kGrey{110, 110, 110}, kHidden{225, 225, 225};
constexpr int kMargin = 24, kGap = 6, kLabelW = 64, kHeaderH = 22;

// One map drawn into a side × side square: cell (i, j) of the (T, T) matrix covers pixels
// [i·side/T, (i+1)·side/T); when T > side a pixel shows the largest value it covers. Colours are
// viridis from 0 to the map's own largest weight; hidden (future) keys are light grey.
void draw_map(Canvas& cv, const Mat& w, int x0, int y0, int side) {
    const std::size_t T = w.shape(0);
    const float top = std::max(*std::max_element(w.begin(), w.end()), 1e-12f);
    const auto s = static_cast<std::size_t>(side);
    for (std::size_t py = 0; py < s; ++py) {
        const std::size_t i0 = py * T / s, i1 = std::max(i0 + 1, (py + 1) * T / s);
        for (std::size_t px = 0; px < s; ++px) {
            const std::size_t j0 = px * T / s, j1 = std::max(j0 + 1, (px + 1) * T / s);
            if (j0 > i1 - 1) {  // every covered key is in the future of every covered query
                cv.fill(x0 + static_cast<int>(px), y0 + static_cast<int>(py), 1, 1, kHidden);
                continue;
            }
            float v = 0.0f;
            for (std::size_t i = i0; i < i1; ++i)
                for (std::size_t j = j0; j < j1 && j <= i; ++j) v = std::max(v, w(i, j));
            const auto k = static_cast<std::size_t>(std::clamp(v / top, 0.0f, 1.0f) * 255.0f + 0.5f);
            cv.fill(x0 + static_cast<int>(px), y0 + static_cast<int>(py), 1, 1, kViridis[k]);
        }
    }
}

}  // namespace

Image model_overview_image(const Trace& t, int scale) {
    // 1. layout: L rows × (H + 2) maps, a gap before the two aggregate columns; every length × k
    const int k = std::clamp(scale, 1, 8);
    const int margin = kMargin * k, gap = kGap * k, label_w = kLabelW * k, header_h = kHeaderH * k;
    const float fk = static_cast<float>(k);
    const std::size_t T = t.tokens.size(), H = t.model->n_head, L = t.layers.size();
    const int side = static_cast<int>(std::clamp<std::size_t>(T * 8, 48, 72)) * k;
    const int rows = static_cast<int>(std::max<std::size_t>(L, 1));
    const int grid_x = margin + label_w, grid_y = margin + 56 * k + header_h;
    const int agg_x = grid_x + static_cast<int>(H) * (side + gap) + 3 * gap;
    Font font;
    const char* dot = " \xC2\xB7 ";
    const std::string title = t.model->type + dot + std::to_string(t.model->n_layer) + " layers \xC3\x97 " +
                              std::to_string(H) + " heads" + dot + "attention weights";
    const std::string subtitle = std::to_string(T) + " tokens" + dot + "rows: queries, columns: keys" + dot +
                                 "each map coloured from 0 to its own largest weight" + dot + "grey: future keys";
    const int text_w = std::max(font.text_width(title, 20.0f * fk), font.text_width(subtitle, 13.0f * fk));
    const int width = std::max(agg_x + 2 * (side + gap) + margin, 2 * margin + text_w);
    const int height = grid_y + rows * (side + gap) + margin;
    Canvas cv(width, height, kWhite);
    // 2. title and subtitle
    cv.text(font, title, 20.0f * fk, margin, margin, Align::Start, Align::Start, kInk, TextRole::Title);
    cv.text(font, subtitle, 13.0f * fk, margin, margin + 30 * k, Align::Start, Align::Start, kGrey, TextRole::Subtitle);
    // 3. column headers
    for (std::size_t h = 0; h < H; ++h)
        cv.text(font, "head " + std::to_string(h), 12.0f * fk, grid_x + static_cast<int>(h) * (side + gap) + side / 2,
                grid_y - 4 * k, Align::Centre, Align::End, kInk, TextRole::PanelTitle);
    cv.text(font, "mean", 12.0f * fk, agg_x + side / 2, grid_y - 4 * k, Align::Centre, Align::End, kInk, TextRole::PanelTitle);
    cv.text(font, "rollout", 12.0f * fk, agg_x + side + gap + side / 2, grid_y - 4 * k, Align::Centre, Align::End, kInk,
            TextRole::PanelTitle);
    // 4. one row per kept layer: its heads, its mean, the rollout through it
    for (std::size_t r = 0; r < L; ++r) {
        const LayerTrace& l = t.layers[r];
        const int y = grid_y + static_cast<int>(r) * (side + gap);
        cv.text(font, "layer " + std::to_string(l.layer), 12.0f * fk, grid_x - 8 * k, y + side / 2, Align::End, Align::Centre,
                kInk, TextRole::QueryLabel);
        for (const auto& h : l.heads)
            if (h.weights.size()) draw_map(cv, h.weights, grid_x + static_cast<int>(h.head) * (side + gap), y, side);
        if (l.layer < t.layer_mean.size()) draw_map(cv, t.layer_mean[l.layer], agg_x, y, side);
        if (l.layer < t.rollout.size()) draw_map(cv, t.rollout[l.layer], agg_x + side + gap, y, side);
    }
    return cv.take();
}

}  // namespace attn::render
