// A run's figures as files: each laid out once as a Drawing and encoded by the format's backend.
#include "render/outputs/figures.h"

#include <optional>
#include <stdexcept>

#include "render/backends/canvas.h"
#include "render/backends/encode.h"
#include "render/layout/decode_charts.h"
#include "render/layout/draw_figure.h"
#include "render/layout/figure.h"
#include "render/layout/position_charts.h"
#include "render/text/font.h"

namespace attn::render {
namespace {

std::string checked_prefix(const std::string& wanted, const std::string& kind) {
    std::string prefix = wanted.empty() ? (kind.empty() ? std::string("attn") : kind) : wanted;
    if (prefix.find_first_of("/\\") != std::string::npos || prefix == "." || prefix == "..")
        throw std::invalid_argument("figure prefix \"" + prefix + "\" must be a plain file name prefix, without a directory");
    return prefix;
}

void check_scale(int scale) {
    if (scale < 1 || scale > kMaxScale)
        throw std::invalid_argument("figure scale " + std::to_string(scale) + " is not in 1.." + std::to_string(kMaxScale));
}

}  // namespace

std::vector<OutputFile> drawing_files(const std::vector<Drawing>& drawings, const std::string& prefix, int scale,
                                      FileType type) {
    check_scale(scale);
    std::vector<std::string> bytes = encode_all(drawings, scale, type);
    std::vector<OutputFile> out;
    for (std::size_t i = 0; i < drawings.size(); ++i) out.push_back({figure_file_name(prefix, drawings[i].word, type), std::move(bytes[i])});
    return out;
}

std::vector<Drawing> figure_drawings(const Trace& t, const FigureOptions& opt, FileType type, Font& font) {
    check_scale(opt.scale);
    if (t.sets.empty() || t.heads().empty()) return {};
    // PNG: image pixels per axis stay within kMaxHeatmapSide; SVG: at most kMaxSvgHeatmapSide cells.
    const int max_side = type == FileType::svg ? kMaxSvgHeatmapSide : kMaxHeatmapSide / opt.scale;
    std::vector<std::string> names = opt.figures.empty() ? default_figures(t) : opt.figures;
    if (opt.weights_only) names = {"weights"};
    std::vector<Drawing> drawings;
    for (const std::string& name : names)
        if (std::optional<FigureView> v = name == "query" ? query_view(t, opt.query.value_or(0), opt.colour)
                                                          : figure_view(t, name, opt.colour)) {
            v->values = opt.values, v->decimals = opt.decimals;
            if (std::optional<Figure> f = make_figure(t, std::move(*v), font, max_side))
                drawings.push_back(figure_drawing(std::move(*f), font, name));
        }
    return drawings;
}

std::vector<OutputFile> render_figures(const Trace& t, const FigureOptions& opt, FileType type) {
    const std::string prefix = checked_prefix(opt.prefix, t.kind);
    check_scale(opt.scale);
    if (t.sets.empty() || t.heads().empty()) return {};
    Font font(opt.font_file);
    std::vector<OutputFile> out = drawing_files(figure_drawings(t, opt, type, font), prefix, opt.scale, type);
    if (const std::string w = missing_glyph_warning(font); !w.empty() && opt.warn) opt.warn(w);
    return out;
}

std::vector<OutputFile> position_figures(const Trace& t, const FigureFiles& o, FileType type) {
    Font font(o.font_file);
    return drawing_files(position_drawings(t, font), o.prefix.empty() ? t.kind : o.prefix, o.scale, type);
}

std::vector<OutputFile> decode_figures(const DecodeTrace& d, const FigureFiles& o, FileType type) {
    if (d.steps.empty()) return {};
    Font font(o.font_file);
    return drawing_files(decode_drawings(d, font), o.prefix.empty() ? d.full.kind : o.prefix, o.scale, type);
}

}  // namespace attn::render
