// Draws a Figure (render/figure.h) on a Surface (render/surface.h): heatmaps with hatched hidden cells,
// labels, the colour bar, legends, head groups and flash tiles. The one walk over a figure that every
// backend shares: a Canvas turns the calls into pixels (PNG), the SVG backend into elements.
#pragma once

#include "render/surface.h"
#include "render/figure.h"
#include "render/font.h"

namespace attn::render {

// The figure on cv, which is f.width x f.height layout pixels with a white background.
void draw_figure(const Figure& f, Font& font, Surface& cv);

}  // namespace attn::render
