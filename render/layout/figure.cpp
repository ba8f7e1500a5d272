// A figure of a trace (render/layout/figure.h): numbers and ticks, the colour scale, and the figure around its
// panels (grid, title, subtitle, legends, geometry) in the order make_figure runs it. One panel's
// pooling and layout are render/layout/figure_panel.cpp.
#include "render/layout/figure.h"

#include "core/kinds/kinds.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "data/base/strings.h"

namespace attn::render {


Scale last_row_bar(const Scale& sc) {
    Scale row;
    row.cs = *sc.last_row, row.cmap = sc.last_row->cmap;
    return row;
}

Scale scale_for(const FigureView& v) {
    Scale sc;
    sc.cs = v.scale;
    sc.cmap = v.scale.cmap;
    sc.last_row = v.last_row_scale;
    for (std::size_t i = 0; i < 256; ++i) sc.dark_text[i] = wants_dark_text((*sc.cmap)[i]);
    return sc;
}

std::pair<std::size_t, std::size_t> tile_blocks(const Trace& t) {
    std::size_t bq = t.config.block_q, bk = t.config.block_k;
    if ((bq == 0 || bk == 0) && !t.tiles.empty()) {
        bq = std::max<std::size_t>(1, t.tiles.front().q_end - t.tiles.front().q_begin);
        bk = std::max<std::size_t>(1, t.tiles.front().k_end - t.tiles.front().k_begin);
    }
    return {std::max<std::size_t>(1, bq), std::max<std::size_t>(1, bk)};
}

std::vector<std::uint8_t> visited_tiles(const Trace& t, std::size_t head, std::size_t T, std::size_t S) {
    const auto [bq, bk] = tile_blocks(t);
    const std::size_t nq = (T + bq - 1) / bq, nk = (S + bk - 1) / bk;
    std::vector<std::uint8_t> seen(nq * nk, 0);
    for (const Tile& tile : t.tiles) {  // placed by where the tile starts, whatever its block numbers
        const std::size_t a = tile.q_begin / bq, b = tile.k_begin / bk;
        if (tile.head == head && a < nq && b < nk) seen[a * nk + b] = 1;
    }
    return seen;
}

std::vector<std::pair<double, std::string>> bar_ticks(const ColourScale& cs) {
    std::vector<std::pair<double, std::string>> out{{0.0, cs.low_label()}, {1.0, cs.high_label()}};
    const auto frac = [&](double v) {
        if (cs.log) return (std::log10(v) - std::log10(cs.lo)) / (std::log10(cs.hi) - std::log10(cs.lo));
        return (v - cs.lo) / (static_cast<double>(cs.hi) - cs.lo);
    };
    std::vector<Tick> inner;
    if (cs.log) {
        for (double d = std::pow(10.0, std::ceil(std::log10(cs.lo) + 1e-9)); d < cs.hi * (1 - 1e-9); d *= 10.0)
            inner.push_back({d, short_number(d)});
    } else {
        inner = ticks_for(cs.lo, cs.hi);
    }
    for (const Tick& tk : inner) {  // round values clear of the ends
        const double f = frac(tk.value);
        if (f > 0.08 && f < 0.92) out.emplace_back(f, tk.label);
    }
    return out;
}

int bar_labels_width(Font& font, const Scale& sc) {
    int w = 0;
    for (const auto& tk : bar_ticks(sc.cs)) w = std::max(w, font.text_width(tk.second, kTickPx));
    return kBarWidth + 9 + w;
}

int legend_item_width(Font& font, const LegendItem& it) {
    return (it.swatch == Swatch::None ? 0 : kSwatch + 6) + font.text_width(it.text, kLegendPx);
}

Flow flow(Font& font, const std::vector<LegendItem>& items, int width) {
    Flow f;
    int x = 0, line = 0;
    constexpr int kGap = 26;
    for (const LegendItem& it : items) {
        const int w = legend_item_width(font, it);
        if (x > 0 && x + w > width) {
            ++line;
            x = 0;
        }
        f.at.emplace_back(line, x);
        f.widest = std::max(f.widest, x + w);
        x += w + kGap;
    }
    f.lines = items.empty() ? 0 : line + 1;
    return f;
}

namespace {

const char* const kDot = " \xC2\xB7 ";

// 1. Panels: the view's matrices (render/view/figure_views.h checked their shapes).
bool make_panels(Figure& f) {
    const FigureView& v = f.view;
    f.T = v.rows, f.S = v.cols;
    f.panels.clear();  // fresh panels: a second layout starts from the view, not from pooled ones
    f.panels.resize(v.panels.size());
    for (std::size_t h = 0; h < v.panels.size(); ++h) {
        Panel& p = f.panels[h];
        p.head = v.panels[h].head, p.kv_head = v.panels[h].kv_head;
        p.src = v.panels[h].values, p.src_vis = v.panels[h].visible, p.dropped = v.panels[h].dropped;
    }
    return !f.panels.empty() && f.T != 0 && f.S != 0;
}

// 2. Grid shape: the columns (and rows to hold H panels) that show the heatmaps largest when the image
//    is fitted into a 16:9 slide, judged on a trial layout of each (labels take a fixed size, cells grow
//    as columns get fewer): 12 heads -> 4 x 3, 8 -> 4 x 2, 6 -> 3 x 2, 2 -> 2 x 1. Then the kv groups.
void shape_grid(Figure& f, Font& font) {
    const std::size_t H = f.panels.size();
    f.grid = H > 1;
    const auto rows_for = [&](int c) { return static_cast<int>((H + static_cast<std::size_t>(c) - 1) / static_cast<std::size_t>(c)); };
    f.gcols = 1;
    if (f.grid) {
        const int lo = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(H))));
        const int hi = static_cast<int>(std::min<double>(static_cast<double>(H), std::ceil(std::sqrt(static_cast<double>(H) * 16.0 / 9.0)) + 1));
        double best = -1.0;
        for (int c = lo; c <= hi; ++c) {
            const int r = rows_for(c);
            if (c > lo && rows_for(c - 1) == r) continue;  // same rows, more empty slots
            const Layout trial = make_layout(f.view, f.panels, true, c, r, font, f.max_side, f.cell_scale);
            // Approximate image size: panels and gaps, the colour bar column, title, subtitle and legend.
            const double w = c * trial.panel_w + (c - 1) * 30 + 2 * kMargin + 110;
            const double h = r * trial.panel_h + (r - 1) * 18 + 2 * kMargin + 100;
            const double fill = trial.heat_w * std::min(16.0 / w, 9.0 / h);
            if (fill > best * 1.0001) {
                best = fill;
                f.gcols = c;
            }
        }
    }
    f.grows = rows_for(f.gcols);
    f.gcols = static_cast<int>((H + static_cast<std::size_t>(f.grows) - 1) / static_cast<std::size_t>(f.grows));
    for (const Panel& p : f.panels)
        if (std::find(f.kv_ids.begin(), f.kv_ids.end(), p.kv_head) == f.kv_ids.end()) f.kv_ids.push_back(p.kv_head);
    f.grouped = f.grid && f.kv_ids.size() < H;
}

// 3. Layout, pooling, colour scale.
void lay_out(Figure& f, Font& font) {
    f.layout = make_layout(f.view, f.panels, f.grid, f.gcols, f.grows, font, f.max_side, f.cell_scale);
    const bool pooled = f.layout.fq > 1 || f.layout.fk > 1;
    if (pooled)
        for (Panel& p : f.panels) pool(p, f.layout.fq, f.layout.fk, f.view.signed_values);
    if (pooled) f.layout = make_layout(f.view, f.panels, f.grid, f.gcols, f.grows, font, f.max_side, f.cell_scale);
    f.scale = scale_for(f.view);
}

// 4a. The title: kind (Luong: its score) · heads · matrix · pooling.
std::string title_of(const Trace& t, const Figure& f) {
    const Layout& L = f.layout;
    std::string title = t.kind.empty() ? std::string("attention") : t.kind;
    const Kind* k = find_kind(t.kind);
    if (k != nullptr && (k->options & opt_score)) title += " (" + t.config.score + ": e = " + score_formula(t) + ")";
    if (k != nullptr && (k->options & opt_window) && t.config.window) title += " (W = " + std::to_string(*t.config.window) + ")";
    // a head is named only where there are several (a single-head kind has no "head 0")
    const bool several = t.config.heads > 1 || t.heads().size() > 1 || f.view.panels[0].head > 0;
    if (f.view.stage == Stage::output) {
    } else if (f.grid) {
        title += kDot + std::to_string(f.panels.size()) + (f.panels.size() == 1 ? " head" : " heads");
        if (f.grouped)
            title += kDot + std::to_string(f.kv_ids.size()) + (f.kv_ids.size() == 1 ? " kv head" : " kv heads");
    } else if (several) {
        title += kDot + std::string("head ") + std::to_string(f.view.panels[0].head);
        if (t.model && t.config.kv_heads > 0 && t.config.kv_heads < t.config.heads)  // a model's grouped-query head
            title += " (reads kv head " + std::to_string(f.view.panels[0].kv_head) + " of " + std::to_string(t.config.kv_heads) + ")";
    }
    title += kDot + f.view.title_word;
    if (L.fq > 1 || L.fk > 1) title += kDot + std::string("max-pooled ") + std::to_string(L.fq) + "\xC3\x97" + std::to_string(L.fk);
    if (const std::string note = random_weights_note(t); !note.empty()) title += kDot + note;
    return title;
}

// 4b. The subtitle: the shape and exactly what the matrix holds (render/view/stages.h).
std::string subtitle_of(const Trace& t, const Figure& f) {
    const Layout& L = f.layout;
    const std::size_t T = f.T, S = f.S;
    const auto plural = [](std::size_t n, const std::string& axis) {
        const std::string w = axis.substr(0, axis.find(" ("));
        if (n == 1) return "1 " + w;
        return std::to_string(n) + " " + (w == "query" ? std::string("queries") : w + "s");
    };
    std::string subtitle = plural(T, f.view.row_axis) + " \xC3\x97 " + plural(S, f.view.col_axis) + kDot;
    if (f.tiles) {
        std::size_t visited = 0, total = 0;
        for (const Panel& p : f.panels) {
            const std::vector<std::uint8_t> seen = visited_tiles(t, p.head, T, S);
            total += seen.size();
            visited += static_cast<std::size_t>(std::count(seen.begin(), seen.end(), std::uint8_t{1}));
        }
        subtitle += "tiled online softmax: " + std::to_string(visited) + " of " + std::to_string(total) + " tiles computed";
    } else {
        subtitle += f.view.subtitle;
    }
    if (L.fq > 1 || L.fk > 1)
        subtitle += kDot + std::string("each cell the largest ") + (f.view.signed_values ? "|value|" : "value") + " of " +
                    std::to_string(L.fq) + "\xC3\x97" + std::to_string(L.fk);
    if (t.model && t.model->stack == "encoder") subtitle += kDot + std::string("encoder (bidirectional): every query sees every key");
    if (t.model && t.model->stack == "cross") subtitle += kDot + std::string("cross-attention: every target token sees every source token");
    return subtitle;
}

// 4c. The legend below the grid: a sentence pair's segments, hidden cells, tiles, empty rows, kv groups.
std::vector<LegendItem> legend_of(const Trace& t, const Figure& f) {
    const Stage m = f.view.stage;
    std::vector<LegendItem> legend;
    if (f.segment_b > 0)
        legend.push_back({Swatch::Segment, {}, "segments A | B: tokens 0\xE2\x80\x93" + std::to_string(f.segment_b - 1) + " | " +
                                                   std::to_string(f.segment_b) + "\xE2\x80\x93" + std::to_string(f.T - 1) +
                                                   " (the line between them, on both axes)"});
    const bool any_hidden = std::any_of(f.panels.begin(), f.panels.end(), [](const Panel& p) {
        return std::memchr(p.visible().data(), 0, p.visible().size()) != nullptr;
    });
    if (m == Stage::masked_scores && any_hidden)
        legend.push_back({Swatch::Hidden, {}, "\xE2\x88\x92\xE2\x88\x9E: hidden by the mask (e^\xE2\x88\x92\xE2\x88\x9E = 0 in the softmax)"});
    else if (m != Stage::mask && any_hidden)
        legend.push_back({Swatch::Hidden, {}, (f.view.hidden_label.empty() ? std::string("hidden by the mask") : f.view.hidden_label) + " (weight 0)"});
    const bool any_dropped = std::any_of(f.panels.begin(), f.panels.end(), [](const Panel& p) {
        return p.dropped != nullptr && std::memchr(p.dropped->data(), 1, p.dropped->size()) != nullptr;
    });
    if (any_dropped) legend.push_back({Swatch::Dropped, {}, "removed by dropout (weight 0; the mask PyTorch's CPU generator draws, a GPU draws another)"});
    for (const std::string& note : f.view.notes) legend.push_back({Swatch::None, {}, note});
    if (f.tiles) {
        std::size_t tiles_skipped = 0;
        for (const Panel& p : f.panels) {
            const std::vector<std::uint8_t> seen = visited_tiles(t, p.head, f.T, f.S);
            tiles_skipped += static_cast<std::size_t>(std::count(seen.begin(), seen.end(), std::uint8_t{0}));
        }
        const auto [bq, bk] = tile_blocks(t);
        legend.push_back({Swatch::TileLine, {}, "tile: block_q = " + std::to_string(bq) + " queries \xC3\x97 block_k = " +
                                                    std::to_string(bk) + " keys"});
        if (tiles_skipped > 0)
            legend.push_back({Swatch::Skipped, {}, "skipped: never computed, the mask hides the whole tile"});
    }
    if ((m == Stage::weights || m == Stage::dropped) && !t.empty_rows.empty()) {
        std::vector<std::string> shown;
        for (std::size_t i = 0; i < t.empty_rows.size() && i < 12; ++i) shown.push_back(std::to_string(t.empty_rows[i]));
        if (t.empty_rows.size() > 12) shown.push_back("\xE2\x80\xA6");
        legend.push_back({Swatch::None, {},
                          "every key hidden (weights 0) for quer" + std::string(t.empty_rows.size() == 1 ? "y " : "ies ") +
                              join(shown)});
    }
    if (f.grouped)
        for (std::size_t kv : f.kv_ids) {
            std::vector<std::size_t> heads;
            for (const Panel& p : f.panels)
                if (p.kv_head == kv) heads.push_back(p.head);
            legend.push_back({Swatch::Colour, f.group_colour(kv),
                              "kv head " + std::to_string(kv) + " shared by query head" + (heads.size() > 1 ? "s " : " ") +
                                  head_ranges(heads)});
        }
    return legend;
}

// 5. Geometry of the whole image: the grid, the colour bar or the mask's legend right of it, the legend below.
void place(Figure& f, Font& font) {
    const Layout& L = f.layout;
    const bool is_mask = f.view.stage == Stage::mask;
    f.title_lh = font.line_height(kTitlePx);
    const int sub_lh = font.line_height(kSubtitlePx);
    f.legend_lh = std::max(kSwatch, font.line_height(kLegendPx));
    f.pad = f.grouped ? 10 : 0;  // band around grouped panels
    f.gap_x = 30 + 2 * f.pad, f.gap_y = 18 + 2 * f.pad;
    f.grid_top = kMargin + f.title_lh + 4 + sub_lh + 14;
    const int grid_w = f.gcols * L.panel_w + (f.gcols - 1) * f.gap_x + 2 * f.pad;
    const int grid_h = f.grows * L.panel_h + (f.grows - 1) * f.gap_y + 2 * f.pad;

    f.bar_x = kMargin + grid_w + 28;
    f.bar_y = f.panel_y(0) + L.heat_y;
    f.bar_h = std::max(140, f.panel_y(f.grows - 1) + L.heat_y + L.heat_h - f.bar_y);
    f.bar_caption = (f.scale.last_row ? "rows 1\xE2\x80\x93" "3: " : "") + f.scale.cs.caption;  // the query strip: two bars
    int side_w = 0, side_bottom = f.bar_y + f.bar_h;
    if (is_mask) {
        f.side.push_back({Swatch::Colour, kMaskVisible, "visible (1)"});
        f.side.push_back({Swatch::Hidden, {}, "hidden (0)"});
        for (const auto& it : f.side) side_w = std::max(side_w, legend_item_width(font, it));
        side_bottom = f.bar_y + static_cast<int>(f.side.size()) * (f.legend_lh + 8);
    } else {
        side_w = std::max(bar_labels_width(font, f.scale), font.text_width(f.bar_caption, kCaptionPx));
        side_bottom += font.line_height(kTickPx) / 2;
    }
    int width = f.bar_x + side_w + kMargin;
    if (f.scale.last_row) {  // the query strip: row 4 (softmax) has its own bar, on the weights' scale
        const Scale row = last_row_bar(f.scale);
        f.bar2_x = f.bar_x + side_w + 24;
        f.bar2_caption = "row 4: " + row.cs.caption;
        width = f.bar2_x + std::max(bar_labels_width(font, row), font.text_width(f.bar2_caption, kCaptionPx)) + kMargin;
    }
    width = std::max(width, kMargin + font.text_width(f.title, kTitlePx) + kMargin);
    width = std::max(width, kMargin + font.text_width(f.subtitle, kSubtitlePx) + kMargin);
    f.legend_flow = flow(font, f.legend, width - 2 * kMargin);
    f.width = std::max(width, kMargin + f.legend_flow.widest + kMargin);
    f.legend_y = std::max(f.grid_top + grid_h, side_bottom) + 14;
    f.height = f.legend_y + f.legend_flow.lines * (f.legend_lh + 6) + kMargin;
}

// --values: never drops the values, automatic too when the figure fitted to a 1920 × 1080 slide would
// draw them under kMinSlideValuePx (layout sizes: the fit does not depend on --scale).
void choose_values(Figure& f) {
    const double fit = std::min(kSlideWidth / std::max(f.width, 1), kSlideHeight / std::max(f.height, 1));
    const bool legible = f.layout.value_px * fit >= kMinSlideValuePx;
    if (f.view.values == CellValues::never || (f.view.values == CellValues::automatic && !legible)) f.layout.value_px = 0.0f;
}

}  // namespace

Rgb Figure::group_colour(std::size_t kv) const {
    const auto idx = static_cast<std::size_t>(std::find(kv_ids.begin(), kv_ids.end(), kv) - kv_ids.begin());
    return kGroupColours[idx % kGroupColours.size()];
}

std::size_t segment_break(const Trace& t, std::size_t rows, std::size_t cols) {
    const std::size_t T = t.tokens.size();
    if (t.segments.size() != T || rows != T || cols != T || (!t.source_tokens.empty() && t.source_tokens.size() != T)) return 0;
    const auto b = static_cast<std::size_t>(std::find(t.segments.begin(), t.segments.end(), std::uint8_t{1}) - t.segments.begin());
    return b < T ? b : 0;
}

std::optional<Figure> make_figure(const Trace& t, FigureView view, Font& font, int max_side) {
    std::optional<Figure> out(std::in_place);
    Figure& f = *out;
    f.view = std::move(view);
    f.tiles = f.view.name == "tiles", f.trace = &t, f.max_side = max_side;
    if (!make_panels(f)) return std::nullopt;
    f.segment_b = segment_break(t, f.view.rows, f.view.cols);
    // The slide rule: fitted to 1920 × 1080, the smallest text (kCaptionPx) is at least kMinSlideTextPx,
    // so the image may be at most kSlideWidth × kCaptionPx / kMinSlideTextPx wide, and as high likewise.
    // Larger images are laid out again with smaller cells (labels thin out as cells shrink).
    const double fit = kCaptionPx / kMinSlideTextPx, max_w = kSlideWidth * fit, max_h = kSlideHeight * fit;
    for (int round = 0;; ++round) {
        shape_grid(f, font);
        lay_out(f, font);
        f.title = title_of(t, f);
        f.subtitle = subtitle_of(t, f);
        f.legend = legend_of(t, f);
        f.side.clear();
        place(f, font);
        const double over = std::max(f.width / max_w, f.height / max_h);
        if (over <= 1.0 || round == 8 || f.layout.cell_w <= 1 || f.layout.cell_h <= 1) break;
        f.cell_scale *= std::max(0.5, 0.97 / over);  // labels and margins do not shrink: approach from above
        make_panels(f);  // the panels as the view holds them (lay_out may have pooled them)
    }
    choose_values(f);
    return out;
}

}  // namespace attn::render
