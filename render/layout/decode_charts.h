// attn decode's charts: "decode-steps", the staircase of rows as the steps produce them (heads side
// by side), and "decode-cache", the key/value cache per step for MHA, GQA and MQA.
#pragma once

#include <vector>

#include "core/kinds/decode.h"
#include "render/layout/drawing.h"
#include "render/text/font.h"

namespace attn::render {

// None when d has no steps; font must outlive the drawings.
std::vector<Drawing> decode_drawings(const DecodeTrace& d, Font& font);

}  // namespace attn::render
