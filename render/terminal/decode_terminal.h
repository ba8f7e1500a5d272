// attn decode's terminal view: the cache growing step by step, each step's row of weights, and the
// cache's bytes for MHA, GQA and MQA.
#pragma once

#include <cstddef>
#include <string>

#include "core/kinds/decode.h"
#include "render/terminal/terminal.h"

namespace attn::render {

struct DecodeViewOptions {
    int precision = 2;
    std::size_t head = 0;  // whose weights the staircase prints
    ColourDepth colour = ColourDepth::none;  // shade the staircase's weights (viridis, fixed 0-1), as show's cells
};
std::string decode_terminal_view(const DecodeTrace& d, const DecodeViewOptions& opt);

}  // namespace attn::render
