// Drawing primitives on an Image for the PNG renderer. Everything clips to the image, so callers may
// draw partly outside it. Coordinates are pixels, x to the right, y down, (0, 0) the top-left corner.
#pragma once

#include <cstdint>
#include <string_view>

#include "render/colormaps.h"
#include "render/font.h"
#include "render/png.h"

namespace attn::render {

enum class Align { Start, Centre, End };  // left/top, centre, right/bottom

class Canvas {
public:
    Canvas(int width, int height, Rgb background);  // throws std::invalid_argument on a bad size

    int width() const { return img_.width; }
    int height() const { return img_.height; }
    const Image& image() const { return img_; }
    Image take() { return std::move(img_); }
    std::uint8_t* row(int y) { return img_.rgb.data() + static_cast<std::size_t>(y) * stride(); }

    void fill(int x, int y, int w, int h, Rgb c);
    void blend(int x, int y, int w, int h, Rgb c, int alpha);  // alpha 0 (none) .. 256 (opaque)
    // Diagonal lines 1 px wide every `spacing` px, in image coordinates so neighbouring rectangles
    // continue each other's lines. rising: "/" lines, else "\" lines.
    void hatch(int x, int y, int w, int h, Rgb c, int spacing, bool rising);
    void frame(int x, int y, int w, int h, int thickness, Rgb c);  // outline inside the rectangle

    // A text mask with its top-left corner at (x, y), coloured c. rotated: turned 90° counter-clockwise
    // (reads bottom to top); then (x, y) is the top-left of the turned box (mask.height wide).
    void draw(const TextMask& m, int x, int y, Rgb c, bool rotated = false);
    // Text placed relative to the anchor (x, y): h and v say which side of the text box sits on it.
    // Returns the text box width (before rotation).
    int text(Font& font, std::string_view utf8, float px, int x, int y, Align h, Align v, Rgb c,
             bool rotated = false);

private:
    std::size_t stride() const { return static_cast<std::size_t>(img_.width) * 3; }
    bool clip(int& x, int& y, int& w, int& h) const;

    Image img_;
};

}  // namespace attn::render
