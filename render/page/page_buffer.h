// The interactive page's data buffer (render/page/html.cpp builds the page around it): the stages a page
// shows, each stage's cells packed as exact ten-thousandths in the fewest bytes, the buffer deflated
// (zlib) and base64'd for the page's JSON, and a colour map as hex for its scripts.
#pragma once

#include <cstddef>
#include <string>

#include "core/base/trace.h"
#include "render/trace_io/json.h"
#include "render/view/colormaps.h"

namespace attn::render {

// The stages the page can show, in the order of its picker (option values are these names).
enum class PageMatrix { Weights, Scores, MaskedScores, Mask, Dropped };
inline constexpr PageMatrix kStages[] = {PageMatrix::Weights, PageMatrix::Scores, PageMatrix::MaskedScores, PageMatrix::Mask, PageMatrix::Dropped};
const char* stage_name(PageMatrix s);
bool has_stage(const HeadTrace& h, PageMatrix s);
// The stage's value at (i, j): masked scores are scale · score as the kinds compute them (float32).
float stage_value(const HeadTrace& h, PageMatrix s, std::size_t i, std::size_t j);
// Appends one (T, S) stage to `blob` and returns its descriptor (render/page/page_buffer.cpp says how).
Json encode_stage(const HeadTrace& h, PageMatrix s, std::size_t T, std::size_t S, std::string& blob);
std::string deflate(const std::string& raw);
std::string base64(const std::string& bytes);
std::string hex_colormap(const Colormap& c);

}  // namespace attn::render
