// The model overview: L rows × (H + 2) maps, each a CellGrid on the Surface like every heatmap.
#include "render/layout/model_overview.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "render/layout/chart.h"
#include "render/layout/figure.h"
#include "render/trace_io/file_names.h"
#include "render/view/colour_scale.h"
#include "render/view/model_title.h"
#include "render/view/style.h"

namespace attn::render {
namespace {

constexpr int kGap = 6, kLabelW = 64, kHeaderH = 22, kGroupGap = 12, kGroupH = 22;
// Token labels (first column's queries, first row's keys) need a cell as tall as a line of kCaptionPx
// text (15 px with the built-in font) where the slide rule leaves room, else every k-th token is labelled;
// texts of up to kLabelledTokens tokens get one cell per token, longer ones 48–72 px maps, unlabelled.
constexpr std::size_t kLabelledTokens = 12;
constexpr int kBarH = 160;  // the colour bar's height, at most

// One map of a (T, S) weight matrix (S = T but for an encoder-decoder's cross set), n × n cells, n <= T
// and n <= S: cell (a, b) covers query rows [a·T/n, (a+1)·T/n) and key columns [b·S/n, (b+1)·S/n) and
// holds the largest visible weight it covers. A decoder's (causal) cell is
// hidden when every covered key is in the future of every covered query; an encoder's (bidirectional)
// cells are all visible. Coloured from 0 to the map's own largest weight.
struct OverviewMap {
    Mat values;   // (n, n)
    Mask visible; // (n, n)
    float top = 1.0f;
};

OverviewMap make_map(const Mat& w, std::size_t n, bool causal) {
    const std::size_t T = w.shape(0), S = w.shape(1);
    OverviewMap m;
    m.values = Mat::from_shape({n, n});
    m.visible = Mask::from_shape({n, n});
    m.top = std::max(*std::max_element(w.begin(), w.end()), 1e-12f);
    for (std::size_t a = 0; a < n; ++a) {
        const std::size_t i0 = a * T / n, i1 = std::max(i0 + 1, (a + 1) * T / n);
        for (std::size_t b = 0; b < n; ++b) {
            const std::size_t j0 = b * S / n, j1 = std::max(j0 + 1, (b + 1) * S / n);
            float v = 0.0f;
            for (std::size_t i = i0; i < i1; ++i)
                for (std::size_t j = j0; j < j1 && (j <= i || !causal); ++j) v = std::max(v, w(i, j));
            m.values(a, b) = v;
            m.visible(a, b) = j0 <= i1 - 1 || !causal;
        }
    }
    return m;
}

void draw_map(Surface& s, const OverviewMap& m, int x, int y, int cell) {
    CellGrid g;
    g.x = x, g.y = y, g.cell_w = cell, g.cell_h = cell;
    g.rows = g.cols = static_cast<int>(m.values.shape(0));
    g.values = m.values.data();
    g.visible = m.visible.data();
    g.cmap = &kViridis;
    g.lo = 0.0f, g.hi = m.top;
    g.non_finite = kNonFinite, g.hidden_base = kHiddenBase, g.hidden_line = kHiddenLine, g.hatch = kHatch;
    s.cells(g);
    s.frame(x - 1, y - 1, g.cols * cell + 2, g.rows * cell + 2, 1, kFrame);
}

// Each query head's key/value head, from the first kept layer (every layer groups alike), or nothing when
// every query head has its own (G = H: GPT-2, MHA).                                                  (H)
std::vector<std::size_t> kv_columns(const Trace& t, std::size_t H) {
    const std::size_t G = t.config.kv_heads;
    if (G == 0 || G >= H || t.layers().empty() || t.layers()[0].heads.size() != H) return {};
    std::vector<std::size_t> kv;
    for (const auto& h : t.layers()[0].heads) kv.push_back(h.kv_head);
    return kv;
}

// Bands behind the columns that share a key/value head, as the seeded gqa figures frame them, each
// labelled "kv g" above its heads.  column_x: a head column's left edge; top: the group labels' top.
template <class ColumnX>
void draw_kv_groups(Surface& s, Font& font, const std::vector<std::size_t>& kv, ColumnX column_x, int top, int bottom, int side) {
    for (std::size_t c = 0; c < kv.size();) {
        std::size_t c1 = c;
        while (c1 + 1 < kv.size() && kv[c1 + 1] == kv[c]) ++c1;
        const Rgb gc = kGroupColours[kv[c] % kGroupColours.size()];
        const int x0 = column_x(int(c)) - kGap / 2, x1 = column_x(int(c1)) + side + kGap / 2;
        s.blend(x0, top, x1 - x0, bottom - top, gc, 24);
        s.frame(x0, top, x1 - x0, bottom - top, 2, gc);
        s.text(font, "kv " + std::to_string(kv[c]), kTickPx, (x0 + x1) / 2, top + 4, Align::Centre, Align::Start, gc,
               TextRole::PanelTitle);
        c = c1 + 1;
    }
}

}  // namespace

Drawing model_overview_drawing(const Trace& t, Font& font, int max_cells) {
    // 1. the maps: every kept layer's heads, its mean and the rollout through it
    // (a cross set's maps are T × S: as many cells a side as the shorter axis has tokens, labelled when T = S)
    const std::size_t T = t.tokens.size(), S = t.source_tokens.size(), H = t.model->n_head, L = t.layers().size();
    const std::size_t TS = std::min(T, S);
    // The slide rule (render/view/style.h): fitted to the slide, every label is at least kMinSlideTextPx,
    // so the whole image stays within kSlideWidth × kSlideHeight × kCaptionPx / kMinSlideTextPx. Its
    // width is fixed parts + (H + 2) map sides, its height fixed parts + L map sides: the largest side
    // that fits follows.
    const std::vector<std::size_t> kv = kv_columns(t, H);
    const int rows = static_cast<int>(std::max<std::size_t>(L, 1));
    int kv_changes = 0;
    for (std::size_t i = 1; i < kv.size(); ++i) kv_changes += kv[i] != kv[i - 1];
    const std::string bar_caption = "weight \xC3\xB7 the map's largest";
    const int bar_w = std::max(kBarWidth + 6 + font.text_width("0.0", kTickPx), font.text_width(bar_caption, kCaptionPx));
    const int groups_y = kMargin + font.line_height(kTitlePx) + 4 + font.line_height(kSubtitlePx) + 14;
    const double fit = kCaptionPx / kMinSlideTextPx;
    const auto largest_side = [&](int labels_w) {  // labels_w: the query labels' column, as tall as the key labels
        const int fixed_w = 2 * kMargin + kLabelW + labels_w + int(H + 2) * kGap + kv_changes * kGroupGap + 5 * kGap + bar_w;
        const int fixed_h = groups_y + (kv.empty() ? 0 : kGroupH) + kHeaderH + labels_w + rows * kGap + kMargin;
        return std::max(1, static_cast<int>(std::min((kSlideWidth * fit - fixed_w) / double(H + 2),
                                                     (kSlideHeight * fit - fixed_h) / double(rows))));
    };
    // A cell per token, labelled, for texts of up to kLabelledTokens tokens: each label a line tall where
    // that fits, else every step-th token labelled (cells at least 2 pixels).
    const int label_h = font.line_height(kCaptionPx);
    std::vector<std::string> labels;  // (T) when labelled
    int label_w = 0;                  // the widest of them
    if (S == T && T > 0 && T <= kLabelledTokens)
        for (std::size_t i = 0; i < T; ++i) {
            labels.push_back(font.fit(token_label(t.tokens, i), kCaptionPx, kMaxLabelWidth / 2));
            label_w = std::max(label_w, font.text_width(labels.back(), kCaptionPx));
        }
    const int labelled_cell = labels.empty() ? 0 : std::min(label_h, largest_side(label_w + 6) / static_cast<int>(T));
    const bool labelled = labelled_cell >= 2;
    if (!labelled) labels.clear();
    const int step = labelled ? (label_h + labelled_cell - 1) / labelled_cell : 1;  // every step-th token labelled
    const int want = std::min(static_cast<int>(std::clamp<std::size_t>(T * 8, 48, 72)), largest_side(0));  // a map's side
    const auto n = labelled ? T : static_cast<std::size_t>(std::max(1, std::min({static_cast<int>(TS), want, max_cells})));
    const int cell = labelled ? labelled_cell : std::max(1, want / static_cast<int>(n)), side = cell * static_cast<int>(n);
    const int query_w = labelled ? label_w + 6 : 0, key_h = labelled ? label_w + 6 : 0;
    struct Placed {
        OverviewMap map;
        int row, col;  // col H and H + 1: the mean and the rollout
    };
    auto maps = std::make_shared<std::vector<Placed>>();
    const bool encoder = t.model->stack == "encoder" || t.model->stack == "cross";  // nothing hidden
    // a sentence pair: the line before segment B's first token, at its place on every map's axes
    const std::size_t seg_b = segment_break(t, T, T);
    const int seg_px = seg_b ? static_cast<int>(seg_b * static_cast<std::size_t>(side) / T) : 0;
    for (std::size_t r = 0; r < L; ++r) {
        const LayerTrace& l = t.layers()[r];
        for (const auto& h : l.heads)
            if (h.weights.size()) maps->push_back({make_map(h.weights, n, !encoder), int(r), int(h.head)});
        if (l.layer < t.layer_mean.size()) maps->push_back({make_map(t.layer_mean[l.layer], n, !encoder), int(r), int(H)});
        if (l.layer < t.rollout.size()) maps->push_back({make_map(t.rollout[l.layer], n, !encoder), int(r), int(H) + 1});
    }
    // 2. the layout: L rows × (H + 2) maps, a gap before the two aggregate columns; with grouped-query
    //    attention (G < H) a wider gap between key/value groups and a row of group labels above the heads
    const int grid_x = kMargin + kLabelW + query_w;
    const int grid_y = groups_y + (kv.empty() ? 0 : kGroupH) + kHeaderH + key_h;
    const auto group_gaps = [kv](int c) {  // key/value group changes left of head column c
        int changes = 0;
        for (int i = 1; i <= c && i < int(kv.size()); ++i) changes += kv[std::size_t(i)] != kv[std::size_t(i) - 1];
        return changes;
    };
    const int agg_x = grid_x + static_cast<int>(H) * (side + kGap) + group_gaps(int(H)) * kGroupGap + 3 * kGap;
    const char* dot = " \xC2\xB7 ";
    const std::size_t G = t.config.kv_heads;
    const std::string groups = kv.empty() ? "" : dot + std::to_string(G) + (G == 1 ? " key/value head (" : " key/value heads (") +
                                                     std::to_string(H / G) + " query heads each)";
    const std::string title = model_title(*t.model) + dot + std::to_string(t.model->n_layer) + (t.model->n_layer == 1 ? " layer \xC3\x97 " : " layers \xC3\x97 ") +
                              std::to_string(H) + (H == 1 ? " head" : " heads") + groups + dot + "attention weights";
    const std::string subtitle =
        (t.model->stack == "cross" ? std::to_string(T) + " decoder tokens \xC3\x97 " + std::to_string(S) + " source tokens" : std::to_string(T) + " tokens") +
        dot + "rows: queries, columns: keys" + dot + "each map coloured from 0 to its own largest weight" +
        dot + (t.model->stack == "cross" ? "cross-attention: no key hidden"
               : encoder ? "encoder (bidirectional): no key hidden" : "hatched: future keys") +
        (seg_b ? std::string(dot) + "segments A | B: tokens 0\xE2\x80\x93" + std::to_string(seg_b - 1) + " | " + std::to_string(seg_b) +
                     "\xE2\x80\x93" + std::to_string(T - 1) + " (white line)"
               : std::string());
    const int text_w = std::max(font.text_width(title, kTitlePx), font.text_width(subtitle, kSubtitlePx));
    Drawing d;
    d.word = figure_word::overview;
    // the colour bar right of the rollout: a map's colour is its weight over the map's largest
    const int bar_x = agg_x + 2 * (side + kGap) + 2 * kGap, bar_y = grid_y + font.line_height(kCaptionPx) + font.line_height(kTickPx) / 2 + 2;
    const int bar_h = std::clamp(rows * (side + kGap) - kGap, 80, kBarH);
    d.width = std::max(bar_x + bar_w + kMargin, 2 * kMargin + text_w);
    d.height = std::max(grid_y + rows * (side + kGap), bar_y + bar_h + font.line_height(kTickPx) / 2) + kMargin;
    const bool has_rollout = !t.rollout.empty();
    std::vector<int> layer_numbers;
    for (const auto& l : t.layers()) layer_numbers.push_back(static_cast<int>(l.layer));
    d.draw = [=, &font](Surface& s) {
        // 3. title and subtitle, column headers, row labels, then the maps
        s.text(font, title, kTitlePx, kMargin, kMargin, Align::Start, Align::Start, kInk, TextRole::Title);
        s.text(font, subtitle, kSubtitlePx, kMargin, kMargin + font.line_height(kTitlePx) + 4, Align::Start, Align::Start,
               kSoftInk, TextRole::Subtitle);
        const auto column_x = [&](int c) {
            return c < int(H) ? grid_x + c * (side + kGap) + group_gaps(c) * kGroupGap : agg_x + (c - int(H)) * (side + kGap);
        };
        if (!kv.empty()) draw_kv_groups(s, font, kv, column_x, groups_y, grid_y + rows * (side + kGap) - kGap / 2, side);
        for (int c = 0; c < int(H) + (has_rollout ? 2 : 1); ++c) {  // a cross set has no rollout column
            const std::string head = c < int(H) ? "head " + std::to_string(c) : c == int(H) ? "mean" : "rollout";
            s.text(font, head, kTickPx, column_x(c) + side / 2, grid_y - 4 - key_h, Align::Centre, Align::End, kInk, TextRole::PanelTitle);
            for (std::size_t j = 0; j < labels.size(); j += std::size_t(step))  // the first row's keys, reading upwards
                s.text(font, labels[j], kCaptionPx, column_x(c) + int(j) * cell + cell / 2, grid_y - 4, Align::Centre, Align::End,
                       kSoftInk, TextRole::KeyLabel, true);
        }
        for (std::size_t i = 0; i < labels.size(); i += std::size_t(step))  // the first column's queries
            s.text(font, labels[i], kCaptionPx, grid_x - 4, grid_y + int(i) * cell + cell / 2, Align::End, Align::Centre, kSoftInk,
                   TextRole::QueryLabel);
        s.text(font, bar_caption, kCaptionPx, bar_x, grid_y, Align::Start, Align::Start, kSoftInk, TextRole::Caption);
        chart::draw_colour_bar(s, font, kViridis, 0.0, 1.0, bar_x, bar_y, bar_h);
        for (std::size_t r = 0; r < layer_numbers.size(); ++r)
            s.text(font, "layer " + std::to_string(layer_numbers[r]), kTickPx, grid_x - 8 - query_w,
                   grid_y + int(r) * (side + kGap) + side / 2, Align::End, Align::Centre, kInk, TextRole::QueryLabel);
        for (const Placed& p : *maps) {
            const int x = column_x(p.col), y = grid_y + p.row * (side + kGap);
            draw_map(s, p.map, x, y, cell);
            if (seg_b == 0) continue;
            const int w = kSegmentLineWidth;  // the line as the figures draw it: white, a dark pixel either side
            s.fill(x + seg_px - w / 2 - 1, y, w + 2, side, kSegmentEdge), s.fill(x, y + seg_px - w / 2 - 1, side, w + 2, kSegmentEdge);
            s.fill(x + seg_px - w / 2, y, w, side, kSegmentLine), s.fill(x, y + seg_px - w / 2, side, w, kSegmentLine);
        }
    };
    return d;
}

}  // namespace attn::render
