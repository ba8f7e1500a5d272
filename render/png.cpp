// PNG heatmaps of a trace: for each figure (render/figure_views.h: scores, masked scores, mask, weights, ...) a
// figure is laid out once (render/figure.h), drawn as pixels (render/raster.h) and encoded
// (render/png_encode.h).
#include "render/png.h"

#include <optional>
#include <stdexcept>

#include "render/figure.h"
#include "render/canvas.h"
#include "render/file_names.h"
#include "render/font.h"
#include "render/raster.h"

namespace attn::render {

std::vector<PngFile> render_pngs(const Trace& t, const PngOptions& opt) {
    std::string prefix = opt.prefix.empty() ? (t.kind.empty() ? std::string("attn") : t.kind) : opt.prefix;
    if (prefix.find_first_of("/\\") != std::string::npos || prefix == "." || prefix == "..")
        throw std::invalid_argument("PNG prefix \"" + prefix + "\" must be a plain file name prefix, without a directory");
    if (opt.scale < 1 || opt.scale > kMaxScale)
        throw std::invalid_argument("PNG scale " + std::to_string(opt.scale) + " is not in 1.." + std::to_string(kMaxScale));
    std::vector<PngFile> out;
    if (t.heads.empty()) return out;
    Font font(opt.font_file);
    const int max_side = kMaxHeatmapSide / opt.scale;  // image pixels per axis stay within kMaxHeatmapSide
    std::vector<std::string> names = opt.figures.empty() ? default_figures(t) : opt.figures;
    if (opt.weights_only) names = {"weights"};
    for (const std::string& name : names)
        if (std::optional<FigureView> v = name == "query" ? query_view(t, opt.query.value_or(0), opt.colour)
                                                          : figure_view(t, name, opt.colour))
            if (const std::optional<Figure> f = make_figure(t, std::move(*v), font, max_side)) {
                Canvas cv(f->width, f->height, kBackground, opt.scale);
                draw_figure(*f, font, cv);
                out.push_back({figure_file_name(prefix, name, FileType::png), encode_png(cv.take())});
            }
    if (const std::string w = missing_glyph_warning(font); !w.empty() && opt.warn) opt.warn(w);
    return out;
}

}  // namespace attn::render
