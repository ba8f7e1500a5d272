// Draws a Figure (render/layout/figure.h) on a Surface (render/layout/surface.h): heatmaps with hatched hidden cells,
// labels, the colour bar, legends, head groups and flash tiles. The one walk over a figure that every
// backend shares: a Canvas turns the calls into pixels (PNG), the SVG backend into elements.
#pragma once

#include <string>

#include "render/layout/drawing.h"
#include "render/layout/figure.h"
#include "render/layout/surface.h"
#include "render/text/font.h"

namespace attn::render {

// The figure on cv, which is f.width x f.height layout pixels with a white background.
void draw_figure(const Figure& f, Font& font, Surface& cv);

// The figure as a Drawing named `word` (the Drawing owns it; font must outlive the Drawing).
Drawing figure_drawing(Figure f, Font& font, const std::string& word);

}  // namespace attn::render
