#include "render/backends/svg_doc.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace attn::render {

std::string xml_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char b0 = byte(i);
        if (b0 < 0x80) {
            switch (b0) {
                case '&': out += "&amp;"; break;
                case '<': out += "&lt;"; break;
                case '>': out += "&gt;"; break;
                case '"': out += "&quot;"; break;
                case '\'': out += "&apos;"; break;
                default:
                    if (b0 < 0x20 && b0 != '\t' && b0 != '\n' && b0 != '\r') out += kReplacement;
                    else out += static_cast<char>(b0);
            }
            ++i;
            continue;
        }
        // 1. A strict UTF-8 sequence (RFC 3629), else one replacement character for the bytes it took.
        std::size_t len = 0;
        char32_t cp = 0, min = 0;
        if ((b0 & 0xE0) == 0xC0) { len = 2; cp = b0 & 0x1Fu; min = 0x80; }
        else if ((b0 & 0xF0) == 0xE0) { len = 3; cp = b0 & 0x0Fu; min = 0x800; }
        else if ((b0 & 0xF8) == 0xF0) { len = 4; cp = b0 & 0x07u; min = 0x10000; }
        std::size_t k = 1;
        if (len != 0)
            for (; k < len && i + k < s.size() && (byte(i + k) & 0xC0) == 0x80; ++k) cp = (cp << 6) | (byte(i + k) & 0x3Fu);
        const bool bad = len == 0 || k < len || cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF);
        // 2. Characters XML 1.0 does not allow: C1 controls are allowed but useless; U+FFFE and U+FFFF are not.
        if (bad || cp == 0xFFFE || cp == 0xFFFF || (cp >= 0x80 && cp < 0xA0)) out += kReplacement;
        else out.append(s.substr(i, len));
        i += bad ? std::max<std::size_t>(k, 1) : len;
    }
    return out;
}

std::string hex_colour(Rgb c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

std::string svg_number(double v) {
    if (!std::isfinite(v)) return "0";
    const double r = std::round(v * 100.0) / 100.0;
    std::array<char, 48> buf{};
    const auto res = std::to_chars(buf.data(), buf.data() + buf.size(), r == 0.0 ? 0.0 : r, std::chars_format::fixed, 2);
    if (res.ec != std::errc()) return "0";
    std::string s(buf.data(), res.ptr);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
}

namespace {
std::string attr(std::string_view name, std::string_view value) {
    return " " + std::string(name) + "=\"" + std::string(value) + "\"";
}
std::string num_attr(std::string_view name, double v) { return attr(name, svg_number(v)); }
}  // namespace

SvgDoc::SvgDoc(int width, int height, int view_w, int view_h, Rgb background) {
    out_ += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out_ += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + std::to_string(width) +
            "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(view_w) + " " +
            std::to_string(view_h) + "\" font-family=\"DejaVu Sans, Verdana, sans-serif\">\n";
    out_ += "<rect width=\"" + std::to_string(view_w) + "\" height=\"" + std::to_string(view_h) + "\" fill=\"" +
            hex_colour(background) + "\"/>\n";
}

std::string SvgDoc::pattern(Rgb line, int spacing, bool rising, bool opaque, Rgb background) {
    const std::string key = hex_colour(line) + std::to_string(spacing) + (rising ? "/" : "\\") +
                            (opaque ? hex_colour(background) : std::string("none"));
    for (std::size_t i = 0; i < patterns_.size(); ++i)
        if (patterns_[i] == key) return "p" + std::to_string(i);
    const std::string id = "p" + std::to_string(patterns_.size());
    patterns_.push_back(key);
    const std::string p = std::to_string(spacing), q = std::to_string(spacing + 1), m = std::to_string(spacing - 1);
    // One tile: the diagonal through it and the ends of the two neighbouring diagonals at its corners.
    const std::string d = rising ? "M0," + p + "L" + p + ",0M-1,1L1,-1M" + m + "," + q + "L" + q + "," + m
                                 : "M0,0L" + p + "," + p + "M" + m + ",-1L" + q + ",1M-1," + m + "L1," + q;
    out_ += "<defs><pattern id=\"" + id + "\" patternUnits=\"userSpaceOnUse\" width=\"" + p + "\" height=\"" + p + "\">";
    if (opaque) out_ += "<rect width=\"" + p + "\" height=\"" + p + "\" fill=\"" + hex_colour(background) + "\"/>";
    out_ += "<path d=\"" + d + "\" stroke=\"" + hex_colour(line) + "\" stroke-width=\"1\"/></pattern></defs>\n";
    return id;
}

void SvgDoc::rect(double x, double y, double w, double h, Rgb fill, std::string_view class_name, std::string_view title) {
    rect_ref(x, y, w, h, hex_colour(fill), class_name, title);
}

void SvgDoc::rect_ref(double x, double y, double w, double h, std::string_view fill_ref, std::string_view class_name,
                      std::string_view title, double opacity) {
    out_ += "<rect";
    if (!class_name.empty()) out_ += attr("class", class_name);
    out_ += num_attr("x", x) + num_attr("y", y) + num_attr("width", w) + num_attr("height", h) + attr("fill", fill_ref);
    if (opacity < 1.0) out_ += num_attr("fill-opacity", opacity);
    if (title.empty()) {
        out_ += "/>\n";
        return;
    }
    out_ += "><title>" + xml_escape(title) + "</title></rect>\n";
}

void SvgDoc::frame(double x, double y, double w, double h, double t, Rgb stroke, double fill_opacity, Rgb fill) {
    // A stroke is centred on its path: inset by t/2 so it lies inside the rectangle, as Canvas::frame.
    out_ += "<rect" + num_attr("x", x + t / 2) + num_attr("y", y + t / 2) + num_attr("width", w - t) +
            num_attr("height", h - t) + attr("fill", fill_opacity > 0.0 ? hex_colour(fill) : "none");
    if (fill_opacity > 0.0) out_ += num_attr("fill-opacity", fill_opacity);
    out_ += attr("stroke", hex_colour(stroke)) + num_attr("stroke-width", t) + "/>\n";
}

void SvgDoc::line(double x0, double y0, double x1, double y1, double width, Rgb stroke) {
    out_ += "<line" + num_attr("x1", x0) + num_attr("y1", y0) + num_attr("x2", x1) + num_attr("y2", y1) +
            attr("stroke", hex_colour(stroke)) + num_attr("stroke-width", width) + attr("stroke-linecap", "square") + "/>\n";
}

void SvgDoc::text(double x, double y, std::string_view utf8, double px, Rgb colour, Anchor anchor,
                  std::string_view class_name, bool rotated) {
    out_ += "<text";
    if (!class_name.empty()) out_ += attr("class", class_name);
    out_ += num_attr("x", x) + num_attr("y", y) + num_attr("font-size", px);
    if (anchor != Anchor::Start) out_ += attr("text-anchor", anchor == Anchor::Middle ? "middle" : "end");
    if (colour != Rgb{0, 0, 0}) out_ += attr("fill", hex_colour(colour));
    if (rotated) out_ += attr("transform", "rotate(-90 " + svg_number(x) + " " + svg_number(y) + ")");
    out_ += ">" + xml_escape(utf8) + "</text>\n";
}

void SvgDoc::open_group(std::string_view class_name, std::string_view title) {
    out_ += "<g" + attr("class", class_name) + ">";
    if (!title.empty()) out_ += "<title>" + xml_escape(title) + "</title>";
    out_ += "\n";
}

void SvgDoc::close_group() { out_ += "</g>\n"; }

std::string SvgDoc::finish() {
    out_ += "</svg>\n";
    return std::move(out_);
}

}  // namespace attn::render
