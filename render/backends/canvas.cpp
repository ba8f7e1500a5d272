#include "render/backends/canvas.h"

#include "data/base/error.h"

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "data/base/threads.h"

namespace attn::render {

namespace {

// Runs of hidden cells (mask byte 0) in one row of a mask, as [begin, end) pairs. Looks at 8 bytes at a
// time: a causal row is one visible run and one hidden run.
void hidden_runs(const std::uint8_t* vis, std::size_t n, std::vector<std::pair<std::size_t, std::size_t>>& runs) {
    runs.clear();
    const auto word = [&](std::size_t j) {
        std::uint64_t w;
        std::memcpy(&w, vis + j, 8);
        return w;
    };
    constexpr std::uint64_t kOnes = 0x0101010101010101u, kHighs = 0x8080808080808080u;
    for (std::size_t j = 0; j < n;) {
        while (j + 8 <= n && ((word(j) - kOnes) & ~word(j) & kHighs) == 0) j += 8;  // no zero byte in these 8
        while (j < n && vis[j] != 0) ++j;
        const std::size_t begin = j;
        while (j + 8 <= n && word(j) == 0) j += 8;
        while (j < n && vis[j] == 0) ++j;
        if (j > begin) runs.emplace_back(begin, j);
    }
}

// Offers the 2 MiB-aligned pages inside [p, p + n) to the kernel as transparent huge pages before the
// first write to them: the first fill of a 2048 x 2048 heatmap's 15 MB canvas then takes a handful of
// page faults instead of 3,800, 2-3 ms instead of 8 ms on this project's machine (THP "madvise" mode).
// Only a hint: nothing depends on it.
void advise_huge_pages(void* p, std::size_t n) {
    constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
    if (p == nullptr || n < 2 * kHuge) return;
    const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(kHuge - 1);
#ifdef MADV_HUGEPAGE  // Linux only: elsewhere (macOS) there is no such hint
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)begin, (void)end;
#endif
}
}  // namespace

void check_canvas(int width, int height, int scale) {
    if (width <= 0 || height <= 0)
        throw std::invalid_argument("canvas size " + std::to_string(width) + "x" + std::to_string(height) +
                                    " is not positive");
    if (scale < 1 || scale > kMaxScale)
        throw std::invalid_argument("canvas scale " + std::to_string(scale) + " is not in 1.." + std::to_string(kMaxScale));
    // the PNG encoder's limit (render/backends/png_encode.h)
    const std::uint64_t w = std::uint64_t(width) * std::uint64_t(scale), h = std::uint64_t(height) * std::uint64_t(scale);
    if ((w * 4 + 1) * h >= (std::uint64_t{1} << 30))
        usage_error("a figure would be " + std::to_string(w) + "x" + std::to_string(h) + " pixels at --scale " +
                        std::to_string(scale) + ", larger than attn writes a PNG (" + std::to_string(kMaxImagePixels >> 20) +
                        " Mpixels)",
                    "lower --scale, use fewer heads or tokens, or write --svg");
}

Canvas::Canvas(int width, int height, Rgb background, int scale) : scale_(scale) {
    check_canvas(width, height, scale);
    img_.width = width * scale;
    img_.height = full_height_ = height * scale;
    const std::size_t n = static_cast<std::size_t>(img_.width) * static_cast<std::size_t>(img_.height) * 3;
    img_.rgb.reserve(n);  // allocated, not yet touched (libstdc++'s data() is the storage even while empty)
    advise_huge_pages(img_.rgb.data(), n);
    paint(background);
}

Canvas::Canvas(int width, int height, Rgb background, int scale, int first, int count, std::vector<std::uint8_t> storage)
    : scale_(scale) {
    check_canvas(width, height, scale);
    full_height_ = height * scale;
    if (first < 0 || count <= 0 || first > full_height_ - count)
        throw std::invalid_argument("canvas rows [" + std::to_string(first) + ", " + std::to_string(first + count) +
                                    ") are not inside its " + std::to_string(full_height_) + " rows");
    img_.width = width * scale;
    img_.height = count;
    first_ = first;
    img_.rgb = std::move(storage);
    img_.rgb.clear();  // the capacity stays
    paint(background);
}

void Canvas::paint(Rgb background) {
    const std::size_t n = static_cast<std::size_t>(img_.width) * static_cast<std::size_t>(img_.height) * 3;
    if (background.r == background.g && background.g == background.b) {
        img_.rgb.assign(n, background.r);
        return;
    }
    img_.rgb.resize(n);
    for (std::size_t i = 0; i < n; i += 3) {
        img_.rgb[i] = background.r;
        img_.rgb[i + 1] = background.g;
        img_.rgb[i + 2] = background.b;
    }
}

bool Canvas::clip(int& x, int& y, int& w, int& h) const {
    if (x < 0) { w += x; x = 0; }
    if (y < first_) { h -= first_ - y; y = first_; }
    w = std::min(w, img_.width - x);
    h = std::min(h, first_ + img_.height - y);
    return w > 0 && h > 0;
}

void Canvas::fill(int x, int y, int w, int h, Rgb c) {
    fill_px(x * scale_, y * scale_, w * scale_, h * scale_, c);
}

void Canvas::fill_px(int x, int y, int w, int h, Rgb c) {
    if (!clip(x, y, w, h)) return;
    for (int yy = y; yy < y + h; ++yy) {
        std::uint8_t* p = row(yy) + static_cast<std::size_t>(x) * 3;
        for (int i = 0; i < w; ++i, p += 3) {
            p[0] = c.r;
            p[1] = c.g;
            p[2] = c.b;
        }
    }
}

namespace {
std::uint8_t mix(std::uint8_t dst, std::uint8_t src, int alpha) {  // alpha 0..256
    return static_cast<std::uint8_t>((dst * (256 - alpha) + src * alpha + 128) >> 8);
}
}  // namespace

void Canvas::blend(int x, int y, int w, int h, Rgb c, int alpha) {
    alpha = std::clamp(alpha, 0, 256);
    x *= scale_, y *= scale_, w *= scale_, h *= scale_;
    if (!clip(x, y, w, h)) return;
    for (int yy = y; yy < y + h; ++yy) {
        std::uint8_t* p = row(yy) + static_cast<std::size_t>(x) * 3;
        for (int i = 0; i < w; ++i, p += 3) {
            p[0] = mix(p[0], c.r, alpha);
            p[1] = mix(p[1], c.g, alpha);
            p[2] = mix(p[2], c.b, alpha);
        }
    }
}

void Canvas::hatch(int x, int y, int w, int h, Rgb c, int spacing, bool rising) {
    x *= scale_, y *= scale_, w *= scale_, h *= scale_, spacing *= scale_;
    if (spacing < 2 || !clip(x, y, w, h)) return;
    for (int yy = y; yy < y + h; ++yy) {
        // Line pixels are where x + y (rising) or x - y (falling) is, modulo spacing, below the scale
        // (lines are `scale` pixels wide): from the first line start in this row, every spacing-th pixel.
        const int d = rising ? x + yy : x - yy;
        const int first = x + ((spacing - d % spacing) % spacing) - spacing;  // d % spacing is in (-spacing, spacing)
        std::uint8_t* p = row(yy);
        for (int xx = first; xx < x + w; xx += spacing)
            for (int k = std::max(xx, x); k < std::min(xx + scale_, x + w); ++k) {
                std::uint8_t* q = p + static_cast<std::size_t>(k) * 3;
                q[0] = c.r;
                q[1] = c.g;
                q[2] = c.b;
            }
    }
}

void Canvas::line(double x0, double y0, double x1, double y1, Rgb c) {
    // square stamps 2 layout px wide, one per image pixel along the line: smooth at any scale
    const double k = scale_;
    const int n = static_cast<int>(std::ceil(std::max(std::fabs(x1 - x0), std::fabs(y1 - y0)) * k)) + 1;
    for (int i = 0; i <= n; ++i) {
        const double f = double(i) / n;
        fill_px(static_cast<int>(std::lround((x0 + f * (x1 - x0)) * k)) - scale_,
                static_cast<int>(std::lround((y0 + f * (y1 - y0)) * k)) - scale_, 2 * scale_, 2 * scale_, c);
    }
}

void Canvas::frame(int x, int y, int w, int h, int thickness, Rgb c) {
    thickness = std::min({thickness, w, h});
    if (thickness <= 0) return;
    fill(x, y, w, thickness, c);
    fill(x, y + h - thickness, w, thickness, c);
    fill(x, y, thickness, h, c);
    fill(x + w - thickness, y, thickness, h, c);
}

void Canvas::draw(const TextMask& m, int x, int y, Rgb c, bool rotated) {
    const int bw = rotated ? m.height : m.width;
    const int bh = rotated ? m.width : m.height;
    const int bx0 = std::max(0, -x), bx1 = std::min(bw, img_.width - x);  // the box's columns on the canvas
    if (bx0 >= bx1) return;
    const auto mw = static_cast<std::ptrdiff_t>(m.width);
    for (int by = std::max(0, first_ - y); by < bh && y + by < first_ + img_.height; ++by) {
        std::uint8_t* q = row(y + by) + static_cast<std::ptrdiff_t>(x + bx0) * 3;
        // Box pixel (bx, by) is mask pixel (bx, by), or turned counter-clockwise: box column bx is mask row
        // bx, box row by is mask column (width-1-by). `a` walks the mask along the box's row.
        const std::uint8_t* a = rotated ? m.alpha.data() + bx0 * mw + (m.width - 1 - by) : m.alpha.data() + by * mw + bx0;
        const std::ptrdiff_t step = rotated ? mw : 1;
        for (int bx = bx0; bx < bx1; ++bx, q += 3, a += step) {
            if (*a == 0) continue;
            const int alpha = *a + (*a >> 7);  // 0..255 -> 0..256
            q[0] = mix(q[0], c.r, alpha);
            q[1] = mix(q[1], c.g, alpha);
            q[2] = mix(q[2], c.b, alpha);
        }
    }
}

PlacedText place_text(Font& font, std::string_view utf8, float px, int scale, int x, int y, Align h, Align v, bool rotated) {
    PlacedText t;
    t.mask = font.render(utf8, px * static_cast<float>(scale));
    t.rotated = rotated;
    const int bw = rotated ? t.mask.height : t.mask.width;
    const auto place = [](int anchor, int size, Align a) {
        return a == Align::Start ? anchor : a == Align::Centre ? anchor - size / 2 : anchor - size;
    };
    t.x = place(x * scale, bw, h);
    t.y = place(y * scale, t.box_height(), v);
    return t;
}

void Canvas::text(Font& font, std::string_view utf8, float px, int x, int y, Align h, Align v, Rgb c, TextRole,
                  bool rotated) {
    const PlacedText t = place_text(font, utf8, px, scale_, x, y, h, v, rotated);
    draw(t.mask, t.x, t.y, c, rotated);
}

void Canvas::cells(const CellGrid& g) {
    // Image pixels from here on: the canvas draws `s` of them per layout pixel.
    const int s = scale_, period = g.hatch * s, ix = g.x * s, iy = g.y * s, cell_h = g.cell_h * s;
    const int heat_w = g.cols * g.cell_w;
    const auto cols = static_cast<std::size_t>(g.cols), cell_w = static_cast<std::size_t>(g.cell_w * s);
    const std::size_t cell_bytes = cell_w * 3, row_bytes = static_cast<std::size_t>(heat_w * s) * 3;
    if (ix < 0 || iy < 0 || ix + heat_w * s > img_.width || iy + g.rows * cell_h > full_height_)
        throw std::logic_error("Canvas::cells: the heatmap does not fit the canvas");
    // Hidden cells are kHiddenBase with "/" hatching: a line pixel where x + y mod (kHatch * s) < s, in
    // image coordinates. Pixel k of `hatched` is a line pixel when k mod period < s, so on image row y
    // the hidden pixel at heatmap column c is pixel c + (ix + y) mod period of it.
    std::vector<std::uint8_t> hatched((static_cast<std::size_t>(heat_w * s + period)) * 3);
    for (std::size_t k = 0; k * 3 < hatched.size(); ++k) {
        const Rgb c = static_cast<int>(k % static_cast<std::size_t>(period)) < s ? g.hidden_line : g.hidden_base;
        hatched[3 * k] = c.r, hatched[3 * k + 1] = c.g, hatched[3 * k + 2] = c.b;
    }
    const auto hatch_phase = [&](int y) { return static_cast<std::size_t>(((ix + y) % period + period) % period); };
    // Every colour a visible cell may have, as 4 bytes (RGB and a spare) so that a pixel is one 4-byte
    // store whose spare byte the next pixel overwrites: entries 0-255 the colour map, then these.
    // Entries 258-513: the last row's own map (the query strip's softmax row), when it has one.
    constexpr std::uint16_t kCodeNonFinite = 256, kCodeMaskVisible = 257, kCodeLastRow = 258;
    std::array<std::array<std::uint8_t, 4>, 514> palette{};
    const Colormap& last_map = *(g.last_row ? g.last_row->cmap : g.cmap);
    for (std::size_t k = 0; k < palette.size(); ++k) {
        const Rgb c = k < 256 ? (*g.cmap)[k] : k == kCodeNonFinite ? g.non_finite : k == kCodeMaskVisible ? g.plain
                                                                                            : last_map[k - kCodeLastRow];
        palette[k] = {c.r, c.g, c.b, 0};
    }
    const bool log_scale = g.scale != nullptr && g.scale->log;
    const float lo = g.scale != nullptr ? g.scale->lo : g.lo, hi = g.scale != nullptr ? g.scale->hi : g.hi;
    const auto last_row = static_cast<std::size_t>(g.rows - 1);

    // Rows of cells in tasks of about 256 K pixels, on worker threads: every pixel depends only on its cell.
    const std::size_t pixels_per_row = static_cast<std::size_t>(heat_w * s) * static_cast<std::size_t>(cell_h);
    const std::size_t rows_per_task = std::max<std::size_t>(1, (std::size_t{1} << 18) / std::max<std::size_t>(1, pixels_per_row));
    // only the rows of cells on the rows held: [row_begin, n_rows)
    if (cell_h <= 0) return;
    const int held_end = first_ + img_.height;
    if (held_end <= iy || iy + g.rows * cell_h <= first_) return;
    const std::size_t row_begin = static_cast<std::size_t>(std::max(0, (first_ - iy) / cell_h));
    const std::size_t n_rows = static_cast<std::size_t>(std::min(g.rows, (held_end - iy + cell_h - 1) / cell_h));
    const std::size_t n_tasks = (n_rows - row_begin + rows_per_task - 1) / rows_per_task;
    run_tasks(n_tasks, kMaxPoolThreads, [&](std::size_t task) {
        const std::size_t task_begin = row_begin + task * rows_per_task;
        std::vector<std::uint16_t> code(cols, kCodeMaskVisible);  // palette entry of each cell
        std::vector<std::uint8_t> line(row_bytes + 1);            // one pixel row of the cells (+ a spare byte)
        std::vector<std::pair<std::size_t, std::size_t>> runs;    // hidden cells
        for (std::size_t i = task_begin; i < std::min(n_rows, task_begin + rows_per_task); ++i) {
            // 1. The colours of the cells along a pixel row (hidden cells too: they are drawn over). The
            //    mask image has one colour: its line is made once per task.
            if (g.values != nullptr || i == task_begin) {
                if (g.values != nullptr) {
                    const float* x = g.values + i * cols;
                    if (g.last_row != nullptr && i == last_row) {
                        for (std::size_t j = 0; j < cols; ++j)
                            code[j] = std::isfinite(x[j]) ? static_cast<std::uint16_t>(kCodeLastRow + g.last_row->index(x[j]))
                                                          : kCodeNonFinite;
                    } else if (log_scale) {
                        for (std::size_t j = 0; j < cols; ++j) {
                            const auto k = static_cast<std::uint16_t>(g.scale->index(x[j]));
                            code[j] = std::isfinite(x[j]) ? k : kCodeNonFinite;
                        }
                    } else {
                        for (std::size_t j = 0; j < cols; ++j) {  // vectorised
                            const auto k = static_cast<std::uint16_t>(colour_index(x[j], lo, hi));
                            code[j] = std::isfinite(x[j]) ? k : kCodeNonFinite;
                        }
                    }
                }
                std::uint8_t* l = line.data();
                if (cell_w == 1) {
                    for (std::size_t j = 0; j < cols; ++j) std::memcpy(l + 3 * j, palette[code[j]].data(), 4);
                } else {
                    for (std::size_t j = 0; j < cols; ++j)
                        for (std::size_t k = 0; k < cell_w; ++k, l += 3) std::memcpy(l, palette[code[j]].data(), 4);
                }
            }
            hidden_runs(g.visible + i * cols, cols, runs);
            // 2. Each pixel row of the cells: the colours, then the hatching over hidden cells.
            const int top = iy + static_cast<int>(i) * cell_h;  // the cell row's first image row
            for (int py = std::max(0, first_ - top); py < std::min(cell_h, held_end - top); ++py) {
                const int y = top + py;
                std::uint8_t* d = row(y) + static_cast<std::size_t>(ix) * 3;
                std::memcpy(d, line.data(), row_bytes);
                const std::uint8_t* h = hatched.data() + hatch_phase(y) * 3;
                for (const auto& [a, b] : runs) std::memcpy(d + a * cell_bytes, h + a * cell_bytes, (b - a) * cell_bytes);
            }
        }
    });
}

}  // namespace attn::render
