#include "render/outputs/model_figures.h"

#include "render/layout/model_overview.h"
#include "render/text/font.h"
#include "render/trace_io/file_names.h"

namespace attn::render {

std::vector<OutputFile> model_figures(const Trace& t, const HeadChoice& c, FigureOptions o, FileType type) {
    const std::string base = o.prefix.empty() ? t.model->type : o.prefix;  // --prefix, else the family
    o.prefix = model_head_prefix(base, t.layers().at(c.layer).layer, c.head);
    std::vector<OutputFile> files = render_figures(chosen_head_trace(t, c), o, type);
    // The overview's maps are pixel summaries in a PNG (a 1024-token head in 72 × 72 pixels); in SVG each
    // cell is an element, so at most 24 a side.
    Font font(o.font_file);
    const int max_cells = type == FileType::svg ? 24 : 72;
    for (OutputFile& f : drawing_files({model_overview_drawing(t, font, max_cells)}, base, o.scale, type))
        files.push_back(std::move(f));
    return files;
}

}  // namespace attn::render
