// One panel of a figure (render/layout/figure.h, "Layout of one panel"): a head's matrix max-pooled to the
// pixels there are, and the panel's layout: cells, labels, the corner caption, values in cells.
#include "render/layout/figure.h"

#include <algorithm>
#include <cmath>

namespace attn::render {

void pool(Panel& p, std::size_t fq, std::size_t fk, bool by_magnitude) {
    const std::size_t T = p.src_vis->shape(0), S = p.src_vis->shape(1);
    const std::size_t Tp = (T + fq - 1) / fq, Sp = (S + fk - 1) / fk;
    p.pooled_vis = Mask::from_shape({Tp, Sp});
    std::fill(p.pooled_vis.begin(), p.pooled_vis.end(), std::uint8_t{0});
    if (p.src != nullptr) {
        p.pooled = Mat::from_shape({Tp, Sp});
        std::fill(p.pooled.begin(), p.pooled.end(), 0.0f);
    }
    const std::uint8_t* vis = p.src_vis->data();
    const float* val = p.src == nullptr ? nullptr : p.src->data();
    std::uint8_t* ovis = p.pooled_vis.data();
    float* oval = p.src == nullptr ? nullptr : p.pooled.data();
    for (std::size_t i = 0; i < T; ++i) {
        const std::size_t pi = i / fq;
        for (std::size_t j = 0; j < S; ++j) {
            if (vis[i * S + j] == 0) continue;
            const std::size_t o = pi * Sp + j / fk;
            if (val != nullptr) {
                const float v = val[i * S + j];
                const bool better = by_magnitude ? std::fabs(v) > std::fabs(oval[o]) : v > oval[o];
                if (ovis[o] == 0 || better) oval[o] = v;
            }
            ovis[o] = 1;
        }
    }
    p.is_pooled = true;
    p.dropped = nullptr;  // a pooled cell mixes kept and dropped ones
}

std::string cell_text(bool mask, float v, int decimals) {
    if (mask) return "1";
    if (!std::isfinite(v)) return fixed(v, 0);
    // one digit fewer after the point for each digit before it past the first: 0.14, 12.3, 123
    return fixed(v, std::max(0, decimals - (std::fabs(v) >= 100.0f ? 2 : std::fabs(v) >= 10.0f ? 1 : 0)));
}

std::string token_label(const std::vector<std::string>& tokens, std::size_t i) {
    return i < tokens.size() ? tokens[i] : std::to_string(i);
}

Layout make_layout(const FigureView& v, const std::vector<Panel>& panels, bool grid, int gcols, int grows, Font& font,
                   int max_side, double cell_scale) {
    const std::size_t T = v.rows, S = v.cols;
    const bool is_mask = v.stage == Stage::mask;
    Layout L;
    L.T = T;
    L.S = S;
    // 1. Pooling: at most max_side layout pixels per axis over the whole grid.
    const int cap_w = grid ? std::max(32, max_side / gcols) : max_side;
    const int cap_h = grid ? std::max(32, max_side / grows) : max_side;
    L.fq = (T + static_cast<std::size_t>(cap_h) - 1) / static_cast<std::size_t>(cap_h);
    L.fk = (S + static_cast<std::size_t>(cap_w) - 1) / static_cast<std::size_t>(cap_w);
    L.rows = static_cast<int>((T + L.fq - 1) / L.fq);
    L.cols = static_cast<int>((S + L.fk - 1) / L.fk);

    // 2. Cells: square, about `target` pixels for the larger side, 1 px at least.
    //    cell_scale < 1 shrinks them so that the whole image fits the slide's text rule (make_figure).
    const int target = static_cast<int>(std::lround((grid ? std::clamp(1280 / gcols, 120, 320) : 640) * cell_scale));
    const int max_cell = std::max(1, static_cast<int>(std::lround((grid ? 48 : 64) * cell_scale)));
    const int cell = std::clamp(target / std::max(L.rows, L.cols), 1, max_cell);
    L.cell_w = L.cell_h = cell;
    const int kMinSide = std::max(8, static_cast<int>(std::lround(96 * cell_scale)));  // a very thin matrix still gets a readable band
    if (L.rows * cell < kMinSide) L.cell_h = std::min(max_cell, (kMinSide + L.rows - 1) / L.rows);
    if (L.cols * cell < kMinSide) L.cell_w = std::min(max_cell, (kMinSide + L.cols - 1) / L.cols);
    L.heat_w = L.cols * L.cell_w;
    L.heat_h = L.rows * L.cell_h;

    // 3. Labels: every row_step-th query, every col_step-th key (with its index when thinned or pooled).
    L.label_lh = font.line_height(kLabelPx);
    const std::vector<std::string>& qtok = v.row_labels;
    const std::vector<std::string>& ktok = v.col_labels;
    const auto labels = [&](const std::vector<std::string>& tok, int n, std::size_t f, int step) {
        std::vector<std::string> out(static_cast<std::size_t>(n));
        for (int i = 0; i < n; i += step) {
            const std::size_t src = static_cast<std::size_t>(i) * f;
            std::string s = token_label(tok, src);
            if ((step > 1 || f > 1) && src < tok.size()) s = std::to_string(src) + " " + s;
            out[static_cast<std::size_t>(i)] = font.fit(s, kLabelPx, grid ? kMaxLabelWidth * 3 / 4 : kMaxLabelWidth);
        }
        return out;
    };
    const auto widest = [&](const std::vector<std::string>& texts) {
        int w = 0;
        for (const auto& s : texts)
            if (!s.empty()) w = std::max(w, font.text_width(s, kLabelPx));
        return w;
    };
    // Thinned labels get some air: one per two lines of text at least.
    const auto step_for = [&](int size) {
        const int k = (L.label_lh + 1 + size - 1) / size;
        return k <= 1 ? 1 : nice_step((2 * L.label_lh + size - 1) / size);
    };
    L.row_step = step_for(L.cell_h);
    L.row_labels = labels(qtok, L.rows, L.fq, L.row_step);
    L.col_labels = labels(ktok, L.cols, L.fk, 1);
    if (L.fk == 1 && widest(L.col_labels) <= L.cell_w - 6) {
        L.rotate_cols = false;
        L.top_h = L.label_lh + 6;
    } else {
        L.rotate_cols = true;
        L.col_step = step_for(L.cell_w);
        L.col_labels = labels(ktok, L.cols, L.fk, L.col_step);
        L.top_h = widest(L.col_labels) + 8 + (L.col_step > 1 ? 4 : 0);
    }
    L.left_w = widest(L.row_labels) + 10 + (L.row_step > 1 ? 4 : 0);

    // 4. Corner caption ("query ↓  key →") in the empty corner above the query labels; the first query
    //    label pokes above the heatmap when rows are thinner than a line.
    L.corner_lift = std::max(0, (L.label_lh - L.cell_h) / 2 + 1);
    const int caption_h = font.line_height(kCaptionPx) + 4 + L.corner_lift;
    const auto word = [](const std::string& axis) { return axis.substr(0, axis.find(" (")); };
    const std::string long_caption = v.row_axis + " \xE2\x86\x93  " + v.col_axis + " \xE2\x86\x92";
    for (const std::string& c : {long_caption, word(v.row_axis) + " \xE2\x86\x93 " + word(v.col_axis) + " \xE2\x86\x92",
                                 v.row_axis.substr(0, 1) + " \xE2\x86\x93 " + v.col_axis.substr(0, 1) + " \xE2\x86\x92"}) {
        if (font.text_width(c, kCaptionPx) + 12 <= L.left_w && caption_h <= L.top_h) {
            L.corner = c;
            break;
        }
    }
    if (!grid && L.corner != long_caption) {  // a single image widens its label column for it
        L.corner = long_caption;
        L.left_w = std::max(L.left_w, font.text_width(L.corner, kCaptionPx) + 12);
        L.top_h = std::max(L.top_h, caption_h);
    }

    // 5. Values in cells, small matrices only, at the largest size that fits every cell: up to 36% of
    //    the cell's height (digits about a quarter of it), 24 px at most, 9 px at least.
    if (T <= kMaxValueCells && S <= kMaxValueCells) {
        const int largest = std::clamp(L.cell_h * 9 / 25, 9, 24);
        for (int px = largest; px >= 9; --px) {
            int widest_value = 0;
            for (const Panel& p : panels) {
                const Mat* vals = p.values();
                const Mask& vis = p.visible();
                for (std::size_t i = 0; i < vis.size(); ++i)
                    if (vis.data()[i] != 0)
                        widest_value = std::max(widest_value,
                                                font.text_width(cell_text(is_mask, vals ? vals->data()[i] : 1.0f, v.decimals), static_cast<float>(px)));
            }
            if (widest_value <= L.cell_w - std::max(4, L.cell_w / 8) && font.line_height(static_cast<float>(px)) <= L.cell_h - 2) {
                L.value_px = static_cast<float>(px);
                break;
            }
        }
    }

    // 6. Panel geometry.
    L.title_h = grid ? font.line_height(kPanelTitlePx) + 6 : 0;
    L.heat_x = L.left_w;
    L.heat_y = L.title_h + L.top_h;
    L.panel_w = L.heat_x + L.heat_w + (L.rotate_cols ? L.label_lh / 2 : 0);
    L.panel_h = L.heat_y + L.heat_h + L.label_lh / 2;  // labels centred on the last row overhang
    return L;
}

std::string describe_cell(const FigureView& v, const Layout& L, const Panel& p, int i, int j) {
    const auto side = [](const std::vector<std::string>& tok, std::size_t first, std::size_t f, std::size_t n) {
        const std::size_t last = std::min(n, first + f) - 1;
        if (last > first) return std::to_string(first) + "\xE2\x80\x93" + std::to_string(last);  // pooled: a range
        return std::to_string(first) + (first < tok.size() ? " \xE2\x80\x9C" + tok[first] + "\xE2\x80\x9D" : std::string());
    };
    const auto o = static_cast<std::size_t>(i) * static_cast<std::size_t>(L.cols) + static_cast<std::size_t>(j);
    std::string s = v.row_axis + " " + side(v.row_labels, static_cast<std::size_t>(i) * L.fq, L.fq, L.T) + " \xC2\xB7 " +
                    v.col_axis + " " + side(v.col_labels, static_cast<std::size_t>(j) * L.fk, L.fk, L.S) + " \xC2\xB7 ";
    if (p.visible().data()[o] == 0) return s + "hidden by the mask";
    if (v.stage == Stage::mask || p.values() == nullptr) return s + "visible";
    const float x = p.values()->data()[o];
    return s + (L.fq > 1 || L.fk > 1 ? std::string("largest ") : std::string()) + v.bar_caption + " " + fixed(x, 4);
}

}  // namespace attn::render
