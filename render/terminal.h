// The terminal view: tokens, effective settings, and labelled matrices.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace.h"

namespace attn::render {

struct TerminalOptions {
    int precision = 4;
    std::vector<std::string> show = {"weights"};  // scores, mask, weights, dropped, context, output, ...
    bool color = false;                           // 24-bit background shading
    bool full = false;                            // print every row and column of large matrices
};

// Matrices --show can name.
const std::vector<std::string>& showable_matrices();

std::string terminal_view(const Trace& t, const TerminalOptions& opt);

// Columns a UTF-8 string takes in a terminal (wide East Asian characters and emoji 2, marks 0).
std::size_t display_width(std::string_view utf8);

}  // namespace attn::render
