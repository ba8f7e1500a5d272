// Drawing primitives on an Image for the PNG renderer. Everything clips to the image, so callers may
// draw partly outside it. Coordinates are layout pixels, x to the right, y down, (0, 0) the top-left
// corner; a canvas of scale N holds N x N image pixels per layout pixel and draws everything N times as
// large: text is rasterised at N times its size (not enlarged), lines are N pixels thick.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

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
    // Image rows [first, first + count) of that canvas only (a strip: render/backends/display_list.h draws
    // a figure strip by strip), held in `storage` (its capacity reused). Every call draws what falls on
    // these rows, exactly the pixels the whole canvas would have there; image() holds the strip's rows.
    Canvas(int width, int height, Rgb background, int scale, int first, int count, std::vector<std::uint8_t> storage);

    int scale() const { return scale_; }
    int width() const { return img_.width / scale_; }  // layout pixels
    int height() const { return full_height_ / scale_; }
    int first_row() const { return first_; }  // the image rows held: [first_row, first_row + image().height)
    const Image& image() const { return img_; }
    Image take() { return std::move(img_); }
    std::uint8_t* row(int y) { return img_.rgb.data() + static_cast<std::size_t>(y - first_) * stride(); }  // image row y

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
    void paint(Rgb background);                       // every held row

    Image img_;      // the rows held (all of them but for a strip)
    int scale_ = 1;
    int first_ = 0, full_height_ = 0;  // image pixels: the first row held, the whole canvas's height
};

// Refuses a canvas the PNG encoder could not take, before a byte is allocated: std::invalid_argument on a
// bad size or scale, attn::Error (usage: a figure's size follows from its input) when the image would be
// larger than the encoder takes.
void check_canvas(int width, int height, int scale);

// Text as a canvas of `scale` draws it: the mask rasterised at px * scale and the image pixel of its
// top-left corner (Canvas::text's placement: h and v say which side of the box sits on the anchor).
struct PlacedText {
    TextMask mask;
    int x = 0, y = 0;
    bool rotated = false;
    int box_height() const { return rotated ? mask.width : mask.height; }  // image rows it covers
};
PlacedText place_text(Font& font, std::string_view utf8, float px, int scale, int x, int y, Align h, Align v, bool rotated);

inline constexpr int kMaxScale = 8;  // --scale's upper bound
// About the most image pixels a canvas takes: (width·4 + 1)·height below 2^30, the PNG encoder's limit.
inline constexpr std::uint64_t kMaxImagePixels = std::uint64_t{1} << 28;

}  // namespace attn::render
