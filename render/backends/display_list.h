// A figure's drawing calls kept once and played again onto strips of its canvas: how a PNG figure is
// drawn and deflated strip by strip (render/backends/encode.cpp), a strip of about a megabyte at a time
// on each core, instead of drawing the whole canvas first. Text is rasterised once, when kept; a
// heatmap's values and mask are copied, so the drawing's own data may be gone by the time it plays.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "render/backends/canvas.h"
#include "render/layout/drawing.h"
#include "render/layout/surface.h"

namespace attn::render {

class DisplayList final : public Surface {
public:
    // Keeps d's calls as a canvas of `scale` would draw them (Font::render at px * scale).
    DisplayList(const Drawing& d, int scale);
    ~DisplayList() override;
    DisplayList(const DisplayList&) = delete;
    DisplayList& operator=(const DisplayList&) = delete;

    int width() const { return width_; }    // layout pixels
    int height() const { return height_; }
    int scale() const { return scale_; }
    // Every call, in order, onto cv (a whole canvas or a strip of one, of this list's size and scale): the
    // pixels the calls would have drawn on that canvas directly. Calls wholly off the strip are skipped.
    void play(Canvas& cv) const;

    void fill(int x, int y, int w, int h, Rgb c) override;
    void blend(int x, int y, int w, int h, Rgb c, int alpha) override;
    void hatch(int x, int y, int w, int h, Rgb c, int spacing, bool rising) override;
    void frame(int x, int y, int w, int h, int thickness, Rgb c) override;
    void line(double x0, double y0, double x1, double y1, Rgb c) override;
    void text(Font& font, std::string_view utf8, float px, int x, int y, Align h, Align v, Rgb c, TextRole role,
              bool rotated = false) override;
    void cells(const CellGrid& g) override;

private:
    struct Grid;  // a CellGrid with its own copies of the values, mask, maps and scales
    enum class Op : std::uint8_t { fill, blend, hatch, frame, line, text, cells };
    struct Call {
        Op op;
        bool flag = false;  // hatch: rising; text: rotated
        Rgb c{};
        int x = 0, y = 0, w = 0, h = 0, n = 0;  // n: alpha, spacing, thickness, or the text's / grid's index
        double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // a line's ends
        int top = 0, bottom = 0;                 // the image rows it may touch: [top, bottom)
    };
    void keep(Call call, double top, double bottom);  // layout rows, widened to whole image rows

    int width_ = 0, height_ = 0, scale_ = 1;
    std::vector<Call> calls_;
    std::vector<PlacedText> texts_;
    std::vector<std::unique_ptr<Grid>> grids_;
};

}  // namespace attn::render
