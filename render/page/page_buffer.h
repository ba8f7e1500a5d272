// The interactive page's data buffer (render/page/html.cpp builds the page around it): the stages a page
// shows, each stage's cells packed as exact ten-thousandths in the fewest bytes, the buffer (deflated by
// render/page/html.cpp) written as base-128 text for an element of its own, and a colour map as hex for its scripts.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

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
// mean_of: the stage is a layer's mean over these heads' weights (every one stored as exact ten-thousandths
// under one mask, their descriptors `mean_descs`): stored as the residual from the mean of their stored values.
Json encode_stage(const HeadTrace& h, PageMatrix s, std::size_t T, std::size_t S, std::string& blob,
                  const std::vector<HeadTrace>* mean_of = nullptr, const Json* mean_descs = nullptr);
// The bytes as "base-128" text for the page's <script type="application/octet-stream"> element (shared.js's
// bytesOf reads it back): 7 bits a character, 8/7 of the bytes (base64 takes 4/3; on a 12 x 12-head page at
// 128 tokens that is 8.2 MB instead of 9.6 MB). The bits are cut into 7-bit groups, high bits first, the last
// group padded with zeros; a group is written as that ASCII character, but for the three an HTML script's
// text cannot hold as they are (0: NUL becomes U+FFFD, 13: CR becomes LF, 60: '<' could close the element):
// the k-th of those (kText7Escaped) and the group after it (0 if none) are one character U+0080 + 128k + next,
// two bytes of UTF-8. Bytes beyond the count the page is told are padding.
inline constexpr unsigned kText7Escaped[3] = {0, 13, 60};
std::string text7(const std::string& bytes);
std::string hex_colormap(const Colormap& c);

}  // namespace attn::render
