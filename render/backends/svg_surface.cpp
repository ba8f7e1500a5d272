// The SVG backend: a Surface (render/layout/surface.h) that writes each drawing call as SVG elements.
#include "render/backends/svg_surface.h"

#include <cmath>
#include <optional>
#include <stdexcept>

#include "render/backends/svg_doc.h"
#include "render/text/font.h"
#include "render/view/colour_scale.h"

namespace attn::render {
namespace {

const char* role_class(TextRole r) {
    switch (r) {
        case TextRole::Title: return "title";
        case TextRole::Subtitle: return "subtitle";
        case TextRole::PanelTitle: return "panel-title";
        case TextRole::QueryLabel: return "query-label";
        case TextRole::KeyLabel: return "key-label";
        case TextRole::Value: return "value";
        case TextRole::Tick: return "tick";
        case TextRole::Caption: return "caption";
        case TextRole::Legend: return "legend";
    }
    return "";
}

class SvgSurface final : public Surface {
public:
    SvgSurface(int width, int height, int scale) : doc_(width * scale, height * scale, width, height, {255, 255, 255}) {}

    void fill(int x, int y, int w, int h, Rgb c) override {
        // Runs of 1-px rows of one colour (a colour bar) become one rectangle.
        if (h == 1 && run_ && run_->x == x && run_->w == w && run_->y + run_->h == y && run_->c == c) {
            ++run_->h;
            return;
        }
        flush();
        if (h == 1) {
            run_ = Run{x, y, w, h, c};
            return;
        }
        doc_.rect(x, y, w, h, c);
    }
    void blend(int x, int y, int w, int h, Rgb c, int alpha) override {
        flush();
        doc_.rect_ref(x, y, w, h, hex_colour(c), {}, {}, alpha / 256.0);
    }
    void hatch(int x, int y, int w, int h, Rgb c, int spacing, bool rising) override {
        flush();
        doc_.rect_ref(x, y, w, h, "url(#" + doc_.pattern(c, spacing, rising) + ")");
    }
    void frame(int x, int y, int w, int h, int thickness, Rgb c) override {
        flush();
        doc_.frame(x, y, w, h, thickness, c);
    }
    void line(double x0, double y0, double x1, double y1, Rgb c) override {
        flush();
        doc_.line(x0, y0, x1, y1, 2.0, c);
    }
    void text(Font& font, std::string_view utf8, float px, int x, int y, Align h, Align v, Rgb c, TextRole role,
              bool rotated) override {
        flush();
        // The layout placed a box of the text as attn's fonts measure it: line height by advance width.
        // SVG places text by its baseline and its start, middle or end, which keeps it in place when the
        // viewer's font is a little wider or narrower.
        const int lh = font.line_height(px), asc = font.ascent(px);
        const auto top_of = [](int anchor, int size, Align a) {
            return a == Align::Start ? anchor : a == Align::Centre ? anchor - size / 2 : anchor - size;
        };
        const auto anchor_of = [](Align a) {
            return a == Align::Start ? Anchor::Start : a == Align::Centre ? Anchor::Middle : Anchor::End;
        };
        const std::string shown = shown_text(utf8);  // what the font measured: at most kMaxTextChars
        if (!rotated) {
            doc_.text(x, top_of(y, lh, v) + asc, shown, px, c, anchor_of(h), role_class(role));
            return;
        }
        // Turned counter-clockwise: the line's top faces left, the text starts at the bottom of its box.
        const Anchor along = v == Align::End ? Anchor::Start : v == Align::Centre ? Anchor::Middle : Anchor::End;
        doc_.text(top_of(x, lh, h) + asc, y, shown, px, c, along, role_class(role), true);
    }
    void cells(const CellGrid& g) override {
        flush();
        const std::string hidden = "url(#" + doc_.pattern(g.hidden_line, g.hatch, true, true, g.hidden_base) + ")";
        for (int i = 0; i < g.rows; ++i)
            for (int j = 0; j < g.cols; ++j) {
                const std::size_t o = static_cast<std::size_t>(i) * static_cast<std::size_t>(g.cols) + static_cast<std::size_t>(j);
                const int x = g.x + j * g.cell_w, y = g.y + i * g.cell_h;
                const std::string title = g.describe ? g.describe(i, j) : std::string();
                if (g.visible[o] == 0) {
                    doc_.rect_ref(x, y, g.cell_w, g.cell_h, hidden, "hidden", title);
                    continue;
                }
                Rgb c = g.plain;
                if (g.values != nullptr) {
                    const float val = g.values[o];
                    if (!std::isfinite(val)) c = g.non_finite;
                    else if (g.last_row != nullptr && i == g.rows - 1) c = g.last_row->colour(val);
                    else if (g.scale != nullptr) c = (*g.cmap)[static_cast<std::size_t>(g.scale->index(val))];
                    else c = (*g.cmap)[static_cast<std::size_t>(colour_index(val, g.lo, g.hi))];
                }
                doc_.rect(x, y, g.cell_w, g.cell_h, c, "cell", title);
            }
    }

    std::string finish() {
        flush();
        return doc_.finish();
    }

private:
    struct Run {
        int x, y, w, h;
        Rgb c;
    };
    void flush() {
        if (run_) doc_.rect(run_->x, run_->y, run_->w, run_->h, run_->c);
        run_.reset();
    }

    SvgDoc doc_;
    std::optional<Run> run_;
};

}  // namespace

std::string svg_bytes(const Drawing& d, int scale) {
    SvgSurface surface(d.width, d.height, scale);
    d.draw(surface);
    return surface.finish();
}

}  // namespace attn::render
