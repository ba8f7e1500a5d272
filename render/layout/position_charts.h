// Charts of positions, from a trace run with --pos (each titled with its formula):
//   sinusoidal: "positions", the run's table PE (T × D) and the first 64 positions;
//   rope:       "rope", q · k as the distance between a fixed query and key grows;
//   alibi:      "alibi", every head's bias matrix m_h (j − i).
// None for --pos none.
#pragma once

#include <vector>

#include "core/base/trace.h"
#include "render/layout/drawing.h"
#include "render/text/font.h"

namespace attn::render {

// font must outlive the drawings.
std::vector<Drawing> position_drawings(const Trace& t, Font& font);

}  // namespace attn::render
