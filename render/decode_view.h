// attn decode's outputs: the JSON ("attn-decode", version 1; docs/trace-format.md), the terminal
// view of the cache growing step by step, and the PNGs (the staircase of rows as produced, the cache
// size per step for MHA, GQA and MQA).
#pragma once

#include <string>
#include <vector>

#include "core/decode.h"
#include "render/json.h"
#include "render/plot.h"
#include "render/png.h"
#include "render/svg.h"

namespace attn::render {

Json decode_json(const DecodeTrace& d);
std::string decode_json_text(const DecodeTrace& d);

struct DecodeViewOptions {
    int precision = 2;
    std::size_t head = 0;  // whose weights the staircase prints
};
std::string decode_terminal_view(const DecodeTrace& d, const DecodeViewOptions& opt);

// <prefix>-decode-steps.png and <prefix>-decode-cache.png (prefix "" = the kind), and the same as SVG.
std::vector<PngFile> decode_pngs(const DecodeTrace& d, const FigureFiles& o = {});
std::vector<SvgFile> decode_svgs(const DecodeTrace& d, const FigureFiles& o = {});

}  // namespace attn::render
