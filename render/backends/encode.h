// A Drawing (render/layout/drawing.h) in a file format: the one place that picks a backend.
#pragma once

#include <string>

#include "render/layout/drawing.h"
#include "render/trace_io/file_names.h"

namespace attn::render {

// PNG: drawn on a white Canvas at `scale` image pixels per layout pixel (1..kMaxScale), encoded.
// SVG: the same calls as SVG elements, shown `scale` times as large. Throws std::invalid_argument for
// FileType::npy.
std::string encode(const Drawing& d, int scale, FileType type);

}  // namespace attn::render
