// Colour maps for the terminal and the images: 256-entry RGB8 lookup tables, index 0 = low end of the scale.
// The tables (render/view/colormaps.cpp) are generated from matplotlib and committed as source.
#pragma once

#include <array>
#include <cstdint>

namespace attn::render {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
};

constexpr bool operator==(Rgb a, Rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }
constexpr bool operator!=(Rgb a, Rgb b) { return !(a == b); }

using Colormap = std::array<Rgb, 256>;

extern const Colormap kViridis;  // sequential, perceptually uniform: #440154 (low) -> #fde725 (high)
extern const Colormap kMagma;    // sequential: #000004 (low) -> #fcfdbf (high)
extern const Colormap kCividis;  // sequential, colour-vision friendly: #00224e (low) -> #fee838 (high)
extern const Colormap kGray;     // sequential: black (low) -> white (high)
extern const Colormap kRdBuR;    // diverging: #053061 (negative) -> #f7f7f7 (0) -> #67001f (positive)

}  // namespace attn::render
