#include "render/backends/encode.h"

#include <stdexcept>

#include "render/backends/canvas.h"
#include "render/backends/svg_surface.h"
#include "render/view/style.h"

namespace attn::render {

std::string encode(const Drawing& d, int scale, FileType type) {
    switch (type) {
        case FileType::png: {
            Canvas cv(d.width, d.height, kBackground, scale);
            d.draw(cv);
            return encode_png(cv.take());
        }
        case FileType::svg: return svg_bytes(d, scale);
        case FileType::npy: break;
    }
    throw std::invalid_argument("a figure is written as PNG or SVG, not .npy");
}

}  // namespace attn::render
