// Drawing primitives on an Image for the PNG renderer. Everything clips to the image, so callers may
// draw partly outside it. Coordinates are layout pixels, x to the right, y down, (0, 0) the top-left
// corner; a canvas of scale N holds N x N image pixels per layout pixel and draws everything N times as
// large: text is rasterised at N times its size (not enlarged), lines are N pixels thick.
#pragma once

#include <cstdint>
#include <string_view>

#include "render/view/colormaps.h"
#include "render/text/font.h"
#include "render/backends/png_encode.h"
#include "render/layout/surface.h"

namespace attn::render {

class Canvas final : public Surface {
public:
    // width x height layout pixels at `scale` image pixels each (1 to kMaxScale); throws
    // std::invalid_argument on a bad size or scale, attn::Error (usage) when the image would be larger
    // than the PNG encoder takes (about kMaxImagePixels).
    Canvas(int width, int height, Rgb background, int scale = 1);

    int scale() const { return scale_; }
    int width() const { return img_.width / scale_; }  // layout pixels
    int height() const { return img_.height / scale_; }
    const Image& image() const { return img_; }
    Image take() { return std::move(img_); }
    std::uint8_t* row(int y) { return img_.rgb.data() + static_cast<std::size_t>(y) * stride(); }  // image row y

    void fill(int x, int y, int w, int h, Rgb c) override;
    void blend(int x, int y, int w, int h, Rgb c, int alpha) override;  // alpha 0 (none) .. 256 (opaque)
    // Diagonal lines 1 layout px wide every `spacing` layout px, in image coordinates so neighbouring
    // rectangles continue each other's lines. rising: "/" lines, else "\" lines.
    void hatch(int x, int y, int w, int h, Rgb c, int spacing, bool rising) override;
    void frame(int x, int y, int w, int h, int thickness, Rgb c) override;  // outline inside the rectangle
    void line(double x0, double y0, double x1, double y1, Rgb c) override;  // 2 x 2 stamps along it

    // A text mask (in image pixels) with its top-left corner at image pixel (x, y), coloured c. rotated:
    // turned 90° counter-clockwise (reads bottom to top); then (x, y) is the top-left of the turned box.
    void draw(const TextMask& m, int x, int y, Rgb c, bool rotated = false);
    // Text at em size px (layout pixels; drawn at px * scale) placed relative to the anchor (x, y): h and
    // v say which side of the text box sits on it. 
    void text(Font& font, std::string_view utf8, float px, int x, int y, Align h, Align v, Rgb c, TextRole role,
              bool rotated = false) override;
    // The cells row by row on worker threads (data/base/threads.h).
    void cells(const CellGrid& g) override;

private:
    std::size_t stride() const { return static_cast<std::size_t>(img_.width) * 3; }
    bool clip(int& x, int& y, int& w, int& h) const;

    void fill_px(int x, int y, int w, int h, Rgb c);  // image pixels

    Image img_;
    int scale_ = 1;
};

inline constexpr int kMaxScale = 8;  // --scale's upper bound
// About the most image pixels a canvas takes: (width·4 + 1)·height below 2^30, the PNG encoder's limit.
inline constexpr std::uint64_t kMaxImagePixels = std::uint64_t{1} << 28;

}  // namespace attn::render
