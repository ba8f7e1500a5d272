// The unit of the one figure pipeline: a figure laid out once, as its size and a drawing function on
// the Surface interface (render/layout/surface.h). Every figure attn writes — a stage's heatmaps, the
// query strip, the position and decode charts, a model's overview, layer mean and rollout — is a
// Drawing; a backend (render/backends/) turns it into PNG pixels or SVG elements, and
// render/outputs/ names the file from `word` (render/trace_io/file_names.h).
#pragma once

#include <functional>
#include <string>

#include "render/layout/surface.h"

namespace attn::render {

struct Drawing {
    std::string word;  // the file's word: "weights", "rope", "decode-steps", "overview"
    int width = 0, height = 0;  // layout pixels (a white background)
    std::function<void(Surface&)> draw;
};

// How the position and decode figures' files are made: name prefix ("" = the kind), PNG scale (the SVG
// is shown that many times as large), and --font.
struct FigureFiles {
    std::string prefix;
    int scale = 1;
    std::string font_file;
};

}  // namespace attn::render
