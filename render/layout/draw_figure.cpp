#include "render/layout/draw_figure.h"

#include <algorithm>
#include <memory>
#include <cmath>
#include <string>
#include <utility>
#include <vector>


namespace attn::render {
namespace {

// Drawing

void draw_labels(Surface& cv, Font& font, const Layout& L, int hx, int hy, bool corner) {
    // Queries down the left, right-aligned, centred on their row.
    for (int i = 0; i < L.rows; ++i) {
        const std::string& s = L.row_labels[static_cast<std::size_t>(i)];
        if (s.empty()) continue;
        const int cy = hy + i * L.cell_h + L.cell_h / 2;
        int right = hx - 6;
        if (L.row_step > 1) {
            cv.fill(hx - 5, cy, 4, 1, kSoftInk);  // tick
            right -= 4;
        }
        cv.text(font, s, kLabelPx, right, cy, Align::End, Align::Centre, kInk, TextRole::QueryLabel);
    }
    // Keys along the top: horizontal and centred, or turned to read upwards, ending above the heatmap.
    for (int j = 0; j < L.cols; ++j) {
        const std::string& s = L.col_labels[static_cast<std::size_t>(j)];
        if (s.empty()) continue;
        const int cx = hx + j * L.cell_w + L.cell_w / 2;
        if (!L.rotate_cols) {
            cv.text(font, s, kLabelPx, cx, hy - 4, Align::Centre, Align::End, kInk, TextRole::KeyLabel);
            continue;
        }
        int bottom = hy - 6;
        if (L.col_step > 1) {
            cv.fill(cx, hy - 5, 1, 4, kSoftInk);
            bottom -= 4;
        }
        cv.text(font, s, kLabelPx, cx + 1, bottom, Align::Centre, Align::End, kInk, TextRole::KeyLabel, true);
    }
    if (corner && !L.corner.empty())
        cv.text(font, L.corner, kCaptionPx, hx - 12, hy - 4 - L.corner_lift, Align::End, Align::End, kSoftInk,
                TextRole::Caption);
}

// The cells of one panel with their top-left corner at (hx, hy), then the values.
void draw_heatmap(Surface& cv, Font& font, const Layout& L, const FigureView& view, const Panel& p, const Scale& sc, int hx,
                  int hy) {
    const bool is_mask = view.stage == Stage::mask, minus_inf = view.stage == Stage::masked_scores;
    const Mat* val = p.values();
    const Mask& vis = p.visible();
    const auto cols = static_cast<std::size_t>(L.cols);
    CellGrid g;
    g.x = hx, g.y = hy, g.cell_w = L.cell_w, g.cell_h = L.cell_h, g.rows = L.rows, g.cols = L.cols;
    g.values = val == nullptr ? nullptr : val->data();
    g.visible = vis.data();
    g.cmap = sc.cmap, g.lo = sc.cs.lo, g.hi = sc.cs.hi, g.scale = &sc.cs;
    g.last_row = sc.last_row ? &*sc.last_row : nullptr;
    g.plain = kMaskVisible, g.non_finite = kNonFinite, g.hidden_base = kHiddenBase, g.hidden_line = kHiddenLine;
    g.hatch = kHatch;
    g.describe = [&](int i, int j) { return describe_cell(view, L, p, i, j); };
    cv.cells(g);
    // Cells the dropout removed: white with a red cross-hatch, apart from any small weight.
    if (p.dropped != nullptr)
        for (int i = 0; i < L.rows; ++i)
            for (int j = 0; j < L.cols; ++j)
                if (p.dropped->data()[static_cast<std::size_t>(i) * cols + static_cast<std::size_t>(j)] != 0) {
                    const int x = hx + j * L.cell_w, y = hy + i * L.cell_h;
                    cv.fill(x, y, L.cell_w, L.cell_h, kDroppedBase);
                    cv.hatch(x, y, L.cell_w, L.cell_h, kDroppedLine, kHatch, true);
                    cv.hatch(x, y, L.cell_w, L.cell_h, kDroppedLine, kHatch, false);
                }
    cv.frame(hx - 1, hy - 1, L.heat_w + 2, L.heat_h + 2, 1, kFrame);
    if (L.value_px <= 0.0f) return;
    for (int i = 0; i < L.rows; ++i)
        for (int j = 0; j < L.cols; ++j) {
            const std::size_t o = static_cast<std::size_t>(i) * cols + static_cast<std::size_t>(j);
            if (vis.data()[o] == 0 && minus_inf)  // what the softmax receives there
                cv.text(font, "\xE2\x88\x92\xE2\x88\x9E", L.value_px, hx + j * L.cell_w + L.cell_w / 2,
                        hy + i * L.cell_h + L.cell_h / 2, Align::Centre, Align::Centre, kInk, TextRole::Value);
            if (vis.data()[o] == 0 || (p.dropped != nullptr && p.dropped->data()[o] != 0)) continue;
            const float v = val == nullptr ? 1.0f : val->data()[o];
            bool dark = false;
            if (val == nullptr) dark = wants_dark_text(kMaskVisible);
            else if (std::isfinite(v) && sc.last_row && i == L.rows - 1)
                dark = wants_dark_text(sc.last_row->colour(v));
            else if (std::isfinite(v)) dark = sc.dark_text[static_cast<std::size_t>(sc.index(v))];
            cv.text(font, cell_text(is_mask, v, view.decimals), L.value_px, hx + j * L.cell_w + L.cell_w / 2,
                    hy + i * L.cell_h + L.cell_h / 2, Align::Centre, Align::Centre, dark ? kInk : kBackground, TextRole::Value);
        }
}

// The tile grid over one panel's heatmap: tiles never visited shaded and hatched, boundaries on top.
void draw_tiles(Surface& cv, Font& font, const Trace& t, const Layout& L, std::size_t head, int hx, int hy) {
    const auto [bq, bk] = tile_blocks(t);
    const std::size_t nq = (L.T + bq - 1) / bq, nk = (L.S + bk - 1) / bk;
    const std::vector<std::uint8_t> seen = visited_tiles(t, head, L.T, L.S);
    const auto py = [&](std::size_t q) {  // pixel of query row boundary q (pooled rows are cell_h tall)
        return hy + static_cast<int>(static_cast<std::uint64_t>(std::min(q, L.T)) * static_cast<std::uint64_t>(L.cell_h) / L.fq);
    };
    const auto px = [&](std::size_t k) {
        return hx + static_cast<int>(static_cast<std::uint64_t>(std::min(k, L.S)) * static_cast<std::uint64_t>(L.cell_w) / L.fk);
    };
    const int skip_px = font.text_width("skipped", kCaptionPx);
    for (std::size_t a = 0; a < nq; ++a)
        for (std::size_t b = 0; b < nk; ++b) {
            if (seen[a * nk + b] != 0) continue;
            const int x0 = px(b * bk), x1 = px((b + 1) * bk), y0 = py(a * bq), y1 = py((a + 1) * bq);
            cv.blend(x0, y0, x1 - x0, y1 - y0, kSkippedShade, 150);
            cv.hatch(x0, y0, x1 - x0, y1 - y0, kSkippedLine, kHatch, false);
            if (x1 - x0 >= skip_px + 6 && y1 - y0 >= font.line_height(kCaptionPx) + 4) {
                const int cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
                cv.fill(cx - skip_px / 2 - 3, cy - font.line_height(kCaptionPx) / 2 - 1, skip_px + 6,
                        font.line_height(kCaptionPx) + 2, kSkippedShade);
                cv.text(font, "skipped", kCaptionPx, cx, cy, Align::Centre, Align::Centre, kBackground, TextRole::Caption);
            }
        }
    const int tile_w = px(bk) - px(0), tile_h = py(bq) - py(0);
    if (std::min(tile_w, tile_h) >= 3) {
        const int th = std::min(tile_w, tile_h) >= 12 ? 2 : 1;
        for (std::size_t a = 0; a <= nq; ++a) {
            const int y = std::min(py(a * bq), hy + L.heat_h) - th / 2;
            cv.fill(hx - th / 2, y, L.heat_w + th, th, kTileLine);
        }
        for (std::size_t b = 0; b <= nk; ++b) {
            const int x = std::min(px(b * bk), hx + L.heat_w) - th / 2;
            cv.fill(x, hy - th / 2, th, L.heat_h + th, kTileLine);
        }
    }
}

void draw_scale_bar(Surface& cv, Font& font, const Scale& sc, int x, int y, int h) {
    for (int r = 0; r < h; ++r) {  // top = high end
        const int idx = h > 1 ? ((h - 1 - r) * 255 + (h - 1) / 2) / (h - 1) : 255;
        cv.fill(x, y + r, kBarWidth, 1, (*sc.cmap)[static_cast<std::size_t>(idx)]);
    }
    cv.frame(x - 1, y - 1, kBarWidth + 2, h + 2, 1, kFrame);
    for (const auto& [f, label] : bar_ticks(sc.cs)) {
        const int ty = y + h - 1 - static_cast<int>(std::lround(f * (h - 1)));
        cv.fill(x + kBarWidth + 1, ty, 5, 1, kSoftInk);
        cv.text(font, label, kTickPx, x + kBarWidth + 9, ty, Align::Start, Align::Centre, kInk, TextRole::Tick);
    }
}

void draw_legend_item(Surface& cv, Font& font, const LegendItem& it, int x, int y) {  // y = top of the line
    const int lh = std::max(kSwatch, font.line_height(kLegendPx));
    const int sy = y + (lh - kSwatch) / 2;
    switch (it.swatch) {
        case Swatch::Colour: cv.fill(x, sy, kSwatch, kSwatch, it.colour); break;
        case Swatch::Hidden:
            cv.fill(x, sy, kSwatch, kSwatch, kHiddenBase);
            cv.hatch(x, sy, kSwatch, kSwatch, kHiddenLine, kHatch, true);
            break;
        case Swatch::Skipped:
            cv.fill(x, sy, kSwatch, kSwatch, kHiddenBase);
            cv.hatch(x, sy, kSwatch, kSwatch, kHiddenLine, kHatch, true);
            cv.blend(x, sy, kSwatch, kSwatch, kSkippedShade, 150);
            cv.hatch(x, sy, kSwatch, kSwatch, kSkippedLine, kHatch, false);
            break;
        case Swatch::TileLine:
            cv.fill(x, sy, kSwatch, kSwatch, kViridis[128]);
            cv.frame(x, sy, kSwatch, kSwatch, 2, kTileLine);
            break;
        case Swatch::Dropped:
            cv.fill(x, sy, kSwatch, kSwatch, kDroppedBase);
            cv.hatch(x, sy, kSwatch, kSwatch, kDroppedLine, kHatch, true);
            cv.hatch(x, sy, kSwatch, kSwatch, kDroppedLine, kHatch, false);
            break;
        case Swatch::Segment:
            cv.fill(x, sy, kSwatch, kSwatch, kViridis[64]);
            cv.fill(x + kSwatch / 2 - kSegmentLineWidth / 2 - 1, sy, kSegmentLineWidth + 2, kSwatch, kSegmentEdge);
            cv.fill(x + kSwatch / 2 - kSegmentLineWidth / 2, sy, kSegmentLineWidth, kSwatch, kSegmentLine);
            break;
        case Swatch::None: break;
    }
    if (it.swatch != Swatch::None && it.swatch != Swatch::TileLine) cv.frame(x, sy, kSwatch, kSwatch, 1, kFrame);
    const int tx = x + (it.swatch == Swatch::None ? 0 : kSwatch + 6);
    cv.text(font, it.text, kLegendPx, tx, y + lh / 2, Align::Start, Align::Centre, kInk, TextRole::Legend);
}

// A sentence pair's line before segment B's first token b, across the heatmap on both axes (a pooled
// cell holding both segments is cut where b falls in it).
void draw_segment_break(Surface& cv, const Layout& L, std::size_t b, int hx, int hy) {
    const int x = hx + static_cast<int>(static_cast<std::uint64_t>(b) * static_cast<std::uint64_t>(L.cell_w) / L.fk);
    const int y = hy + static_cast<int>(static_cast<std::uint64_t>(b) * static_cast<std::uint64_t>(L.cell_h) / L.fq);
    const int w = kSegmentLineWidth, e = 1;
    cv.fill(x - w / 2 - e, hy, w + 2 * e, L.heat_h, kSegmentEdge);
    cv.fill(hx, y - w / 2 - e, L.heat_w, w + 2 * e, kSegmentEdge);
    cv.fill(x - w / 2, hy, w, L.heat_h, kSegmentLine);
    cv.fill(hx, y - w / 2, L.heat_w, w, kSegmentLine);
}

// Framed bands behind the panels of a grid that share a key/value head, one per run of neighbours.
void draw_group_bands(Surface& cv, const Figure& f) {
    const std::size_t H = f.panels.size();
    const Layout& L = f.layout;
    for (int r = 0; r < f.grows; ++r)
        for (int c = 0; c < f.gcols;) {
            const std::size_t h0 = static_cast<std::size_t>(r * f.gcols + c);
            if (h0 >= H) break;
            int c1 = c;
            while (c1 + 1 < f.gcols && h0 + static_cast<std::size_t>(c1 - c + 1) < H &&
                   f.panels[h0 + static_cast<std::size_t>(c1 - c + 1)].kv_head == f.panels[h0].kv_head)
                ++c1;
            const Rgb gc = f.group_colour(f.panels[h0].kv_head);
            const int x0 = f.panel_x(c) - f.pad, y0 = f.panel_y(r) - f.pad;
            const int w = f.panel_x(c1) + L.panel_w + f.pad - x0, h = L.panel_h + 2 * f.pad;
            cv.blend(x0, y0, w, h, gc, 24);
            cv.frame(x0, y0, w, h, 3, gc);
            c = c1 + 1;
        }
}

// Each head's panel: its title (grids only), labels, heatmap and the flash tiles over it.
void draw_panels(Surface& cv, Font& font, const Figure& f) {
    const Layout& L = f.layout;
    for (std::size_t h = 0; h < f.panels.size(); ++h) {
        const Panel& p = f.panels[h];
        const int c = static_cast<int>(h % static_cast<std::size_t>(f.gcols)), r = static_cast<int>(h / static_cast<std::size_t>(f.gcols));
        const int x = f.panel_x(c), y = f.panel_y(r);
        const int hx = x + L.heat_x, hy = y + L.heat_y;
        if (f.grid)
            cv.text(font, "head " + std::to_string(p.head) + (f.grouped ? " \xC2\xB7 kv " + std::to_string(p.kv_head) : std::string()),
                    kPanelTitlePx, hx + L.heat_w / 2, y + 2, Align::Centre, Align::Start, kInk, TextRole::PanelTitle);
        draw_labels(cv, font, L, hx, hy, h == 0);
        draw_heatmap(cv, font, L, f.view, p, f.scale, hx, hy);
        if (f.segment_b > 0) draw_segment_break(cv, L, f.segment_b, hx, hy);
        if (f.tiles) draw_tiles(cv, font, *f.trace, L, p.head, hx, hy);
    }
}

}  // namespace

void draw_figure(const Figure& f, Font& font, Surface& cv) {
    cv.text(font, f.title, kTitlePx, kMargin, kMargin, Align::Start, Align::Start, kInk, TextRole::Title);
    cv.text(font, f.subtitle, kSubtitlePx, kMargin, kMargin + f.title_lh + 4, Align::Start, Align::Start, kSoftInk,
            TextRole::Subtitle);
    if (f.grouped) draw_group_bands(cv, f);
    draw_panels(cv, font, f);
    if (f.view.stage == Stage::mask) {
        for (std::size_t i = 0; i < f.side.size(); ++i)
            draw_legend_item(cv, font, f.side[i], f.bar_x, f.bar_y + static_cast<int>(i) * (f.legend_lh + 8));
    } else {
        draw_scale_bar(cv, font, f.scale, f.bar_x, f.bar_y, f.bar_h);
        cv.text(font, f.bar_caption, kCaptionPx, f.bar_x, f.bar_y - 6, Align::Start, Align::End, kSoftInk,
            TextRole::Caption);
        if (f.bar2_x) {
            draw_scale_bar(cv, font, last_row_bar(f.scale), f.bar2_x, f.bar_y, f.bar_h);
            cv.text(font, f.bar2_caption, kCaptionPx, f.bar2_x, f.bar_y - 6, Align::Start, Align::End, kSoftInk,
                    TextRole::Caption);
        }
    }
    const Flow& fl = f.legend_flow;
    for (std::size_t i = 0; i < f.legend.size(); ++i)
        draw_legend_item(cv, font, f.legend[i], kMargin + fl.at[i].second, f.legend_y + fl.at[i].first * (f.legend_lh + 6));
}

Drawing figure_drawing(Figure f, Font& font, const std::string& word) {
    auto owned = std::make_shared<Figure>(std::move(f));  // its panels point into its own view: moved, not copied
    Drawing d{word, owned->width, owned->height, {}};
    d.draw = [owned, &font](Surface& s) { draw_figure(*owned, font, s); };
    return d;
}

}  // namespace attn::render
