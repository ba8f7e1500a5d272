// The terminal view: tokens, effective settings, and labelled matrices, fitted to the terminal's width.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/trace.h"
#include "render/view/colour_scale.h"
#include "render/view/colormaps.h"

namespace attn::render {

// How cells are shaded: not at all, with the xterm 256-colour palette, or in 24-bit colour.
enum class ColourDepth { none, ansi256, truecolour };

struct TerminalOptions {
    int precision = 4;
    std::vector<std::string> show = {"weights"};  // stage names (render/view/stages.h)
    ColourDepth colour = ColourDepth::none;
    ColourSpec scale;                             // --range, --log, --colormap: the images' scale
    bool full = false;                            // print every row and column of large matrices
    std::size_t width = 80;                       // terminal columns: more matrix columns, heads side by side
    std::optional<std::size_t> query;             // --query I: that query's strip, stage by stage
    std::optional<std::size_t> head;             // --head: print only this head (default: every head)
};

// Matrices --show can name (the stages of render/view/stages.h; mean and rollout: a model run's layer,
// printed by model_terminal_view, refused for the seeded kinds).
const std::vector<std::string>& showable_matrices();

// The view as text; write_terminal_view streams it, one line at a time (what `--full` on thousands of
// tokens needs: the text of a 4096 × 4096 matrix is about 1 GB).
std::string terminal_view(const Trace& t, const TerminalOptions& opt);
void write_terminal_view(std::ostream& out, const Trace& t, const TerminalOptions& opt);

// Columns a UTF-8 string takes in a terminal (wide East Asian characters and emoji 2, marks 0).
std::size_t display_width(std::string_view utf8);

// The xterm 256-colour palette entry nearest to c (the 6x6x6 cube 16-231 or the grey ramp 232-255).
int xterm256(Rgb c);

// The SGR escape that paints a cell's background c, with black or white text, whichever reads better.
std::string cell_escape(Rgb c, ColourDepth depth);

}  // namespace attn::render
