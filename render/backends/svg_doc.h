// A writer of SVG 1.1 documents: the few elements attn's figures need (rectangles, lines, text, titles,
// groups, a hatching pattern), with text escaped for XML and numbers formatted without the locale, so
// the same calls give the same bytes on every run. Coordinates are pixels, (0, 0) the top-left corner.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "render/view/colormaps.h"

namespace attn::render {

// Text for XML character data and attribute values: & < > " ' escaped; invalid UTF-8 and characters XML
// 1.0 forbids (controls other than tab, newline and carriage return; U+FFFE, U+FFFF) become U+FFFD.
std::string xml_escape(std::string_view utf8);

// "#rrggbb".
std::string hex_colour(Rgb c);

// A number with at most 2 decimals, trailing zeros dropped, "-" for negatives: 14, 13.5, -0.25.
std::string svg_number(double v);

enum class Anchor { Start, Middle, End };  // text-anchor

class SvgDoc {
public:
    // Opens the document: XML declaration, <svg> with width and height (display size) and a viewBox of
    // view_w x view_h (the coordinates used), the font family for every text element, the background.
    SvgDoc(int width, int height, int view_w, int view_h, Rgb background);

    // The id of a pattern of diagonal lines 1 px wide every `spacing` px ("/" when rising, else "\"), in
    // document coordinates so neighbouring shapes continue each other's lines, over `background` unless
    // transparent. Defined on first use.
    std::string pattern(Rgb line, int spacing, bool rising, bool opaque = false, Rgb background = {});

    // A rectangle filled with a colour (or a pattern's "url(#id)" via rect_ref); class_name and title optional.
    void rect(double x, double y, double w, double h, Rgb fill, std::string_view class_name = {},
              std::string_view title = {});
    void rect_ref(double x, double y, double w, double h, std::string_view fill_ref, std::string_view class_name = {},
                  std::string_view title = {}, double opacity = 1.0);
    // The outline of a rectangle, stroke `thickness` wide inside its edges (as Canvas::frame draws it).
    void frame(double x, double y, double w, double h, double thickness, Rgb stroke, double fill_opacity = 0.0,
               Rgb fill = {});
    // A straight line `width` wide with square ends (as Canvas::line's stamps).
    void line(double x0, double y0, double x1, double y1, double width, Rgb stroke);
    // One line of text whose baseline starts (Start), is centred (Middle) or ends (End) at (x, y);
    // rotated: turned 90° counter-clockwise about (x, y), reading upwards.
    void text(double x, double y, std::string_view utf8, double px, Rgb colour, Anchor anchor,
              std::string_view class_name = {}, bool rotated = false);
    void open_group(std::string_view class_name, std::string_view title = {});
    void close_group();

    std::string finish();  // closes the document and returns its bytes

private:
    std::string out_;
    std::vector<std::string> patterns_;  // keys of the patterns defined so far, in order (id = "p" + index)
};

}  // namespace attn::render
