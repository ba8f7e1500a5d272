// Matrices as text for the terminal: a labelled matrix laid out as a Block of lines (its rows made only
// as they are printed), blocks placed side by side within a width, cells shaded with SGR escapes.
// render/terminal/terminal.cpp decides what to show; this file only lays it out.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/base/trace.h"
#include "render/view/colour_scale.h"
#include "render/terminal/terminal.h"

namespace attn::render::text {

inline constexpr std::size_t kEdge = 3;  // rows/columns kept at each end of a summarised matrix

// Which indices to print: all, or `edge` at each end around an ellipsis (SIZE_MAX marks the ellipsis).
std::vector<std::size_t> pick(std::size_t n, std::size_t max, bool full, std::size_t edge = kEdge);

// Lines of text with their display widths (escapes excluded), placed side by side by the caller.
// A matrix's rows are made on demand as they are printed (`body`), so even `--full` on thousands of
// tokens holds one line of each block at a time, never the whole text.
struct Block {
    struct Body {
        std::size_t rows = 0;
        std::function<std::pair<std::string, std::size_t>(std::size_t)> line;  // row r: text, width
        bool rounded_away = false;  // a value that is not 0 printed as 0 at this precision
    };
    std::vector<std::string> lines;
    std::vector<std::size_t> widths;
    std::size_t width = 0;
    std::shared_ptr<Body> body;  // after `lines`, when the block is a matrix
    void add(std::string s, std::size_t w) {
        lines.push_back(std::move(s));
        widths.push_back(w);
        width = std::max(width, w);
    }
    void add(const std::string& s) { add(s, display_width(s)); }
    std::size_t size() const { return lines.size() + (body ? body->rows : 0); }
    std::pair<std::string, std::size_t> line(std::size_t l) const {
        return l < lines.size() ? std::pair{lines[l], widths[l]} : body->line(l - lines.size());
    }
    bool rounded_away() const { return body && body->rounded_away; }
};

// A matrix to print: its values (or a mask printed as 1 / ·), its labels, and how cells are marked.
struct MatrixView {
    std::string title;
    const Mat* values = nullptr;
    const Mask* mask = nullptr;        // hidden cells print as "·"
    const Mask* as_mask = nullptr;     // print this mask itself as 1 / ·
    const HeadTrace* dropout = nullptr;// mark cells the dropout removed with "×"
    std::vector<std::string> rows, cols;
    const ColourScale* scale = nullptr;// shade cells on this scale
};

// A matrix as a block: its title, the column labels, and rows made as they are printed. Summarised
// to 24 rows (kMaxRows) and the terminal's width unless --full.
Block render_matrix(const MatrixView& m, const TerminalOptions& opt);

// Blocks left to right while they fit the width (4 columns apart), then the next row of blocks.
void place(std::ostream& out, const std::vector<Block>& blocks, std::size_t width);

// Below matrices where a value that is not 0 printed as 0, say so.
void note_rounding(std::ostream& out, const std::vector<Block>& blocks, const TerminalOptions& opt);

// One matrix on its own (the positional table).
void print_matrix(std::ostream& out, const MatrixView& m, const TerminalOptions& opt);

// Column labels d0, d1, ... d(n-1) for a matrix of widths.
std::vector<std::string> dims(std::size_t n);

}  // namespace attn::render::text
