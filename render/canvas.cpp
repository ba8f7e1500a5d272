#include "render/canvas.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace attn::render {

namespace {
// Offers the 2 MiB-aligned pages inside [p, p + n) to the kernel as transparent huge pages before the
// first write to them: the first fill of a 2048 x 2048 heatmap's 15 MB canvas then takes a handful of
// page faults instead of 3,800, 2-3 ms instead of 8 ms on this project's machine (THP "madvise" mode).
// Only a hint: nothing depends on it.
void advise_huge_pages(void* p, std::size_t n) {
    constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
    if (p == nullptr || n < 2 * kHuge) return;
    const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(kHuge - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}
}  // namespace

Canvas::Canvas(int width, int height, Rgb background) {
    if (width <= 0 || height <= 0)
        throw std::invalid_argument("canvas size " + std::to_string(width) + "x" + std::to_string(height) +
                                    " is not positive");
    img_.width = width;
    img_.height = height;
    const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3;
    img_.rgb.reserve(n);  // allocated, not yet touched (libstdc++'s data() is the storage even while empty)
    advise_huge_pages(img_.rgb.data(), n);
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
    if (y < 0) { h += y; y = 0; }
    w = std::min(w, img_.width - x);
    h = std::min(h, img_.height - y);
    return w > 0 && h > 0;
}

void Canvas::fill(int x, int y, int w, int h, Rgb c) {
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
    if (spacing < 2 || !clip(x, y, w, h)) return;
    for (int yy = y; yy < y + h; ++yy) {
        // Line pixels are where x + y (rising) or x - y (falling) is a multiple of spacing: from the
        // first of them in this row, every spacing-th pixel.
        const int d = rising ? x + yy : x - yy;
        const int first = x + ((spacing - d % spacing) % spacing);  // d % spacing is in (-spacing, spacing)
        std::uint8_t* p = row(yy);
        for (int xx = first; xx < x + w; xx += spacing) {
            std::uint8_t* q = p + static_cast<std::size_t>(xx) * 3;
            q[0] = c.r;
            q[1] = c.g;
            q[2] = c.b;
        }
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
    for (int by = std::max(0, -y); by < bh && y + by < img_.height; ++by) {
        std::uint8_t* p = row(y + by);
        for (int bx = std::max(0, -x); bx < bw && x + bx < img_.width; ++bx) {
            // Turned counter-clockwise: box column bx is mask row bx, box row by is mask column (width-1-by).
            const int mx = rotated ? m.width - 1 - by : bx;
            const int my = rotated ? bx : by;
            const int a = m.alpha[static_cast<std::size_t>(my) * static_cast<std::size_t>(m.width) + static_cast<std::size_t>(mx)];
            if (a == 0) continue;
            std::uint8_t* q = p + static_cast<std::size_t>(x + bx) * 3;
            const int alpha = a + (a >> 7);  // 0..255 -> 0..256
            q[0] = mix(q[0], c.r, alpha);
            q[1] = mix(q[1], c.g, alpha);
            q[2] = mix(q[2], c.b, alpha);
        }
    }
}

int Canvas::text(Font& font, std::string_view utf8, float px, int x, int y, Align h, Align v, Rgb c, bool rotated) {
    const TextMask m = font.render(utf8, px);
    const int bw = rotated ? m.height : m.width;
    const int bh = rotated ? m.width : m.height;
    const auto place = [](int anchor, int size, Align a) {
        return a == Align::Start ? anchor : a == Align::Centre ? anchor - size / 2 : anchor - size;
    };
    draw(m, place(x, bw, h), place(y, bh, v), c, rotated);
    return m.width;
}

}  // namespace attn::render
