// PNG heatmaps of a trace: one image per matrix (scores, mask, weights, dropped weights), every head of
// a multi-head trace as a panel of one grid image, and for kind "flash" the tile grid over the weights.
//
// Output is deterministic: the same trace gives the same bytes on every run (text comes from the font
// compiled into the binary, numbers are formatted without the locale, zlib is fed identical data).
// Nothing here touches the file system: the caller writes PngFile::bytes where it likes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace.h"

namespace attn::render {

struct PngFile {
    std::string name;   // file name without a directory, e.g. "causal-weights.png"
    std::string bytes;  // the encoded PNG
};

struct PngOptions {
    std::string prefix;  // file names are "<prefix>-<matrix>.png"; empty = the trace's kind
    bool weights_only = false;  // only <prefix>-weights.png (attn bench --png times just that image)
};

// Images, in this order when present: <prefix>-scores.png, -mask.png, -weights.png, -dropped-weights.png,
// -tiles.png (kind flash: the weights with the tile grid; tiles never visited are marked "skipped").
// An empty matrix (not computed) gives no image. Throws std::invalid_argument if the heads' matrices
// disagree in shape, std::runtime_error if encoding fails.
std::vector<PngFile> render_pngs(const Trace& t, const PngOptions& opt);

// An RGB8 picture, row-major, 3 bytes per pixel: rgb.size() == width * height * 3.
struct Image {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgb;
};

// Encodes img as an 8-bit RGB PNG (zlib at a fast level, one fixed filter for every row).
// Throws std::runtime_error if the image is empty, its buffer has the wrong size, it is too large for
// stb_image_write's int arithmetic ((width * 4 + 1) * height must stay below 2^30), or encoding fails.
std::string encode_png(const Image& img);

}  // namespace attn::render
