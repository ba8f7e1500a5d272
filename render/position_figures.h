// Figures of positions, from a trace run with --pos (each titled with its formula):
//   sinusoidal: <kind>-positions.png, the run's table PE (T × D) and the first 64 positions;
//   rope:       <kind>-rope.png, q · k as the distance between a fixed query and key grows;
//   alibi:      <kind>-alibi.png, every head's bias matrix m_h (j − i).
// None for --pos none. Deterministic bytes, like render_pngs.
#pragma once

#include <vector>

#include "core/trace.h"
#include "render/png.h"

namespace attn::render {

std::vector<PngFile> position_pngs(const Trace& t);

}  // namespace attn::render
