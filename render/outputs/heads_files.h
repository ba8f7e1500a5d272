// attn heads' figure files: <type>-heads-<pattern> per pattern (render/layout/heads_figures.h) and, for
// each of `top` heads, that head's weights on the text where its pattern is strongest (TopHead::run), as attn show --model draws them
// (<type>-l<L>-h<H>-weights), as PNG or SVG.
#pragma once

#include <string>
#include <vector>

#include "core/analysis/head_report.h"
#include "render/outputs/figures.h"

namespace attn::render {

// The pattern maps (PREFIX-heads-<pattern>) and the top heads' weights figures (PREFIX-l<L>-h<H>-weights).
std::vector<OutputFile> heads_files(const HeadReport& r, const std::string& model_name, const std::string& prefix,
                                    const std::vector<TopHead>& top, const FigureOptions& o, FileType type);

}  // namespace attn::render
