// Reading PNGs back in tests: decoding with stb_image (tests/png_helpers.cpp holds its one
// implementation), pixel tests, and a causal trace whose numbers are known in closed form.
// Used by tests/test_png.cpp (figures) and tests/test_png_encode.cpp (the encoder).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/trace.h"
#include "render/view/colormaps.h"
#include "render/outputs/figures.h"

namespace attn::test::png {

struct Px {
    int r = 0, g = 0, b = 0;
};

struct Decoded {
    int w = 0, h = 0;
    std::vector<std::uint8_t> rgb;
    Px at(int x, int y) const {
        const std::size_t o = (static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)) * 3;
        return {rgb[o], rgb[o + 1], rgb[o + 2]};
    }
};

// The PNG's pixels as RGB; the test fails when stb_image cannot decode it.
Decoded decode(const std::string& png);

inline bool near(Px p, int r, int g, int b, int tol = 2) {
    return std::abs(p.r - r) <= tol && std::abs(p.g - g) <= tol && std::abs(p.b - b) <= tol;
}
inline bool near(Px p, render::Rgb c, int tol = 2) { return near(p, c.r, c.g, c.b, tol); }
inline int lum(Px p) { return (299 * p.r + 587 * p.g + 114 * p.b) / 1000; }

// First pixel (row-major) of colour (r, g, b) with x >= x_from.
inline std::optional<std::pair<int, int>> find(const Decoded& d, int r, int g, int b, int x_from = 0) {
    for (int y = 0; y < d.h; ++y)
        for (int x = x_from; x < d.w; ++x)
            if (near(d.at(x, y), r, g, b)) return std::make_pair(x, y);
    return std::nullopt;
}

inline bool in_colormap(Px p, const render::Colormap& cm, int tol) {
    return std::any_of(cm.begin(), cm.end(), [&](render::Rgb c) { return near(p, c, tol); });
}

inline int dark_pixels(const Decoded& d, int x0, int y0, int x1, int y1) {
    int n = 0;
    for (int y = std::max(0, y0); y < std::min(d.h, y1); ++y)
        for (int x = std::max(0, x0); x < std::min(d.w, x1); ++x) n += lum(d.at(x, y)) < 90;
    return n;
}

inline const render::OutputFile* file(const std::vector<render::OutputFile>& files, const std::string& name) {
    for (const auto& f : files)
        if (f.name == name) return &f;
    return nullptr;
}

// A causal self-attention trace with numbers known in closed form:
//   scores(i, j) = 0.5 * (i - j) - 1      mask(i, j) = j <= i      weights(i, j) = 1 / (i + 1) for j <= i
inline Trace causal_trace(const std::vector<std::string>& tokens, std::size_t heads = 1, std::size_t kv_heads = 1) {
    Trace t;
    t.kind = "causal";
    t.tokens = tokens;
    t.source_tokens = tokens;
    t.sets = {AttentionSet{"self", t.tokens, t.source_tokens, {LayerTrace{}}}};
    const std::size_t T = tokens.size();
    for (std::size_t h = 0; h < heads; ++h) {
        HeadTrace ht;
        ht.head = h;
        ht.kv_head = h / (heads / kv_heads);
        ht.scale = 0.5f;
        ht.scores = Mat::from_shape({T, T});
        ht.mask = Mask::from_shape({T, T});
        ht.weights = Mat::from_shape({T, T});
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t j = 0; j < T; ++j) {
                ht.scores(i, j) = 0.5f * (static_cast<float>(i) - static_cast<float>(j)) - 1.0f;
                ht.mask.edit()(i, j) = j <= i ? 1 : 0;
                ht.weights(i, j) = j <= i ? 1.0f / static_cast<float>(i + 1) : 0.0f;
            }
        t.heads().push_back(std::move(ht));
    }
    return t;
}

inline const std::vector<std::string> kSix{"Your", "journey", "starts", "with", "one", "step"};

// Where the heatmap of a weights image starts, and its cell size: the cell with the largest weight is
// viridis yellow (#fde725), and so is the top of the colour bar, right of every heatmap. The leftmost
// yellow pixel is the top-left corner of that cell.
struct Grid {
    int x = 0, y = 0, cell = 0;
};
inline Grid locate(const Decoded& d) {
    for (int x = 0; x < d.w; ++x)
        for (int y = 0; y < d.h; ++y)
            if (near(d.at(x, y), 0xfd, 0xe7, 0x25)) {
                Grid g{x, y, 0};
                while (g.x + g.cell < d.w && near(d.at(g.x + g.cell, g.y), 0xfd, 0xe7, 0x25)) ++g.cell;
                return g;
            }
    FAIL("no viridis-yellow pixel in the image");
    return {};
}

}  // namespace attn::test::png
