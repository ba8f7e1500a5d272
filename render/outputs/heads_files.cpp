#include "render/outputs/heads_files.h"

#include "render/layout/heads_figures.h"
#include "render/text/font.h"
#include "render/trace_io/file_names.h"
#include "render/view/model_choice.h"

namespace attn::render {

std::vector<OutputFile> heads_files(const HeadReport& r, const std::string& model_name, const std::string& prefix,
                                    const std::vector<TopHead>& top, const FigureOptions& o, FileType type) {
    Font font(o.font_file);
    std::vector<OutputFile> files = drawing_files(heads_drawings(r, model_name, font), prefix, o.scale, type);
    for (const TopHead& t : top) {
        FigureOptions one = o;
        one.prefix = layer_head_prefix(prefix, t.head.layer, t.head.head);
        one.figures = {"weights"};
        for (OutputFile& f : render_figures(chosen_head_trace(t.run, HeadChoice{t.head.layer, t.head.head}), one, type))
            files.push_back(std::move(f));
    }
    return files;
}

}  // namespace attn::render
