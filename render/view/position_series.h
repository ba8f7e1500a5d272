// The numbers the position figures draw beyond what a run computes, in one place: the PNG charts
// (render/layout/position_charts.h), the JSON trace's "position_figures" (docs/trace-format.md) and the
// page (render/page/position_view.js, through the trace or the seeded page's payload) all read these, so
// every view of a run draws the same numbers.
//   sinusoidal: PE of the first kSinusoidalRows positions (from the run's pos_offset), (64, D);
//   rope:       q · k after rotation as the distance m − n grows, 0 .. kRopeDistances − 1, for q = k = 1
//               and for head 0's unrotated query and key of the first token.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/trace.h"

namespace attn::render {

inline constexpr std::size_t kSinusoidalRows = 64;
inline constexpr std::size_t kRopeDistances = 64;

// PE of positions pos_offset .. pos_offset + 63 at the run's width D, (64, D); empty without --pos sinusoidal
// (the trace's `positions` empty).
Mat sinusoidal_rows(const Trace& t);

struct RopeCurves {
    std::size_t d_k = 0;
    std::vector<double> ones;   // (64) q = k = (1, ..., 1): Σ 2 cos((m − n) θ_i)
    std::vector<double> head0;  // (64) head 0's q and k of tokens[0], before the rotation
    std::string token;          // tokens[0]
};
// Nothing without --pos rope (head 0 without queries_unrotated).
std::optional<RopeCurves> rope_curves(const Trace& t);

}  // namespace attn::render
