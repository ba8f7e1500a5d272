// A Drawing (render/layout/drawing.h) in a file format: the one place that picks a backend.
#pragma once

#include <string>
#include <vector>

#include "render/layout/drawing.h"
#include "render/trace_io/file_names.h"

namespace attn::render {

// PNG: drawn on a white Canvas at `scale` image pixels per layout pixel (1..kMaxScale), encoded.
// SVG: the same calls as SVG elements, shown `scale` times as large. Throws std::invalid_argument for
// FileType::npy.
std::string encode(const Drawing& d, int scale, FileType type);
// encode() of each drawing, in order. Small PNG sets (a sentence's figures) are drawn ahead of their
// encoding, the pool deflating one figure while the next is drawn; the bytes are encode()'s.
std::vector<std::string> encode_all(const std::vector<Drawing>& drawings, int scale, FileType type);

}  // namespace attn::render
