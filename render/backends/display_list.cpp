#include "render/backends/display_list.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace attn::render {

struct DisplayList::Grid {
    CellGrid g;  // pointing into the copies below
    std::vector<float> values;
    std::vector<std::uint8_t> visible;
    Colormap cmap{}, last_map{};
    std::optional<ColourScale> scale, last_row;
};

DisplayList::DisplayList(const Drawing& d, int scale) : width_(d.width), height_(d.height), scale_(scale) {
    if (d.draw) d.draw(*this);
}

DisplayList::~DisplayList() = default;

namespace {
template <class Call, class Op>
Call rect_call(Op op, int x, int y, int w, int h, Rgb c, int n = 0, bool flag = false) {
    Call k{};
    k.op = op, k.x = x, k.y = y, k.w = w, k.h = h, k.c = c, k.n = n, k.flag = flag;
    return k;
}
}  // namespace

void DisplayList::keep(Call call, double top, double bottom) {
    call.top = static_cast<int>(std::max(-1e9, std::floor(top * scale_)));
    call.bottom = static_cast<int>(std::min(1e9, std::ceil(bottom * scale_)));
    calls_.push_back(call);
}

void DisplayList::fill(int x, int y, int w, int h, Rgb c) {
    keep(rect_call<Call>(Op::fill, x, y, w, h, c), y, double(y) + h);
}

void DisplayList::blend(int x, int y, int w, int h, Rgb c, int alpha) {
    keep(rect_call<Call>(Op::blend, x, y, w, h, c, alpha), y, double(y) + h);
}

void DisplayList::hatch(int x, int y, int w, int h, Rgb c, int spacing, bool rising) {
    keep(rect_call<Call>(Op::hatch, x, y, w, h, c, spacing, rising), y, double(y) + h);
}

void DisplayList::frame(int x, int y, int w, int h, int thickness, Rgb c) {
    keep(rect_call<Call>(Op::frame, x, y, w, h, c, thickness), y, double(y) + h);
}

void DisplayList::line(double x0, double y0, double x1, double y1, Rgb c) {
    // the canvas's stamps reach one layout pixel past each end (and a rounding beyond)
    Call k = rect_call<Call>(Op::line, 0, 0, 0, 0, c);
    k.x0 = x0, k.y0 = y0, k.x1 = x1, k.y1 = y1;
    keep(k, std::min(y0, y1) - 2.0, std::max(y0, y1) + 2.0);  // NaN: every row (the canvas decides)
}

void DisplayList::text(Font& font, std::string_view utf8, float px, int x, int y, Align h, Align v, Rgb c, TextRole,
                       bool rotated) {
    texts_.push_back(place_text(font, utf8, px, scale_, x, y, h, v, rotated));
    const PlacedText& t = texts_.back();
    Call call = rect_call<Call>(Op::text, 0, 0, 0, 0, c, static_cast<int>(texts_.size() - 1), rotated);
    call.top = t.y, call.bottom = t.y + t.box_height();
    calls_.push_back(call);
}

void DisplayList::cells(const CellGrid& in) {
    auto grid = std::make_unique<Grid>();
    Grid& k = *grid;
    k.g = in;
    k.g.describe = nullptr;  // a PNG has no place for it
    const std::size_t n = static_cast<std::size_t>(std::max(in.rows, 0)) * static_cast<std::size_t>(std::max(in.cols, 0));
    if (in.values != nullptr) k.values.assign(in.values, in.values + n), k.g.values = k.values.data();
    if (in.visible != nullptr) k.visible.assign(in.visible, in.visible + n), k.g.visible = k.visible.data();
    if (in.cmap != nullptr) k.cmap = *in.cmap, k.g.cmap = &k.cmap;
    if (in.scale != nullptr) {
        k.scale = *in.scale;
        k.g.scale = &*k.scale;
    }
    if (in.last_row != nullptr) {
        k.last_row = *in.last_row;
        if (in.last_row->cmap != nullptr) k.last_map = *in.last_row->cmap, k.last_row->cmap = &k.last_map;
        k.g.last_row = &*k.last_row;
    }
    grids_.push_back(std::move(grid));
    keep(rect_call<Call>(Op::cells, 0, 0, 0, 0, Rgb{}, static_cast<int>(grids_.size() - 1)), in.y, double(in.y) + double(in.rows) * in.cell_h);
}

void DisplayList::play(Canvas& cv) const {
    const int first = cv.first_row(), end = first + cv.image().height;
    for (const Call& k : calls_) {
        if (k.bottom <= first || k.top >= end) continue;
        switch (k.op) {
            case Op::fill: cv.fill(k.x, k.y, k.w, k.h, k.c); break;
            case Op::blend: cv.blend(k.x, k.y, k.w, k.h, k.c, k.n); break;
            case Op::hatch: cv.hatch(k.x, k.y, k.w, k.h, k.c, k.n, k.flag); break;
            case Op::frame: cv.frame(k.x, k.y, k.w, k.h, k.n, k.c); break;
            case Op::line: cv.line(k.x0, k.y0, k.x1, k.y1, k.c); break;
            case Op::text: {
                const PlacedText& t = texts_[static_cast<std::size_t>(k.n)];
                cv.draw(t.mask, t.x, t.y, k.c, t.rotated);
                break;
            }
            case Op::cells: cv.cells(grids_[static_cast<std::size_t>(k.n)]->g); break;
        }
    }
}

}  // namespace attn::render
