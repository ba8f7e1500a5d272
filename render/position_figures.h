// Figures of positions, from a trace run with --pos (each titled with its formula):
//   sinusoidal: <prefix>-positions.png, the run's table PE (T × D) and the first 64 positions;
//   rope:       <prefix>-rope.png, q · k as the distance between a fixed query and key grows;
//   alibi:      <prefix>-alibi.png, every head's bias matrix m_h (j − i).
// None for --pos none. The prefix is --prefix, as for the other figures; empty = the kind. The same
// drawings as SVG (.svg names). Deterministic bytes, like render_pngs.
#pragma once

#include <string>
#include <vector>

#include "core/trace.h"
#include "render/plot.h"
#include "render/png.h"
#include "render/svg.h"

namespace attn::render {

std::vector<PngFile> position_pngs(const Trace& t, const FigureFiles& o = {});
std::vector<SvgFile> position_svgs(const Trace& t, const FigureFiles& o = {});

}  // namespace attn::render
