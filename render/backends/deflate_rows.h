// Deflate (RFC 1951) for figures' rows: render/backends/png_encode.cpp's compressor, one part at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace attn::render {

// Rows [y0, y1) of an RGB image whose rows are `stride` bytes, each behind its PNG filter byte 0, as one
// dynamic Huffman block. `first` is row y0 and the rows after it follow; with `above`, row y0 - 1
// precedes it (matches may reach into it, as the decoder has it). The last part sets the final bit and
// pads to a byte; the others end with an empty stored block (byte-aligned, so that parts concatenate).
// The bytes depend only on these rows.
std::vector<std::uint8_t> deflate_rows(const std::uint8_t* first, bool above, std::size_t stride, std::size_t y0, std::size_t y1,
                                       bool last);

}  // namespace attn::render
