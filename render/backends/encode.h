// A Drawing (render/layout/drawing.h) in a file format: the one place that picks a backend.
#pragma once

#include <string>
#include <vector>

#include "render/layout/drawing.h"
#include "render/trace_io/file_names.h"

namespace attn::render {

// PNG: the drawing's calls kept once (render/backends/display_list.h), then drawn on a white canvas at
// `scale` image pixels per layout pixel (1..kMaxScale) a strip of about a megabyte at a time, each strip
// deflated as it is drawn, on every core: the bytes of the whole canvas drawn and encoded, without a
// whole canvas held. SVG: the same calls as SVG elements, shown `scale` times as large. Throws std::invalid_argument for
// FileType::npy.
std::string encode(const Drawing& d, int scale, FileType type);
// encode() of each drawing, in order. Small PNG sets (a sentence's figures) are pipelined: this thread
// keeps the next figure's calls while the pool draws and deflates the strips of the last; the bytes are encode()'s.
std::vector<std::string> encode_all(const std::vector<Drawing>& drawings, int scale, FileType type);

}  // namespace attn::render
