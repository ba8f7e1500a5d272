// The PNG encoder: an RGB8 image to the bytes of an 8-bit RGB PNG, deterministic (the same image gives
// the same bytes on every run and machine, whatever the number of threads).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attn::render {

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
