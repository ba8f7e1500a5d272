// The PNG encoder: an RGB8 image to the bytes of an 8-bit RGB PNG, deterministic (the same image gives
// the same bytes on every run and machine, whatever the number of threads).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/base/threads.h"

namespace attn::render {

// An RGB8 picture, row-major, 3 bytes per pixel: rgb.size() == width * height * 3.
struct Image {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgb;
};

// Encodes img as an 8-bit RGB PNG (filter "none" on every row, deflated by render/backends/png_encode.cpp's
// compressor for flat-colour figures) on up to max_threads threads; the bytes are the same for any number.
// Throws std::runtime_error if the image is empty, its buffer has the wrong size, or it is too large
// ((width * 4 + 1) * height must stay below 2^30, which keeps every size far inside int and the IDAT length).
// The image is taken by value and let go before the file is put together (std::move it in).
std::string encode_png(Image img, unsigned max_threads = kMaxPoolThreads);

// encode_png in steps, for a caller that schedules them with other work: tasks() independent steps
// (the deflate parts and the Adler-32), run(i) once for each i on any thread, then file() once. The
// constructor checks the image as encode_png does.
class PngParts {
public:
    explicit PngParts(Image img);
    static std::size_t tasks(int width, int height);  // the steps of a width x height image
    std::size_t tasks() const { return parts_.size() + 1; }
    void run(std::size_t i);
    std::string file();  // after every run(i); lets the pixels go first

private:
    Image img_;
    std::vector<std::vector<std::uint8_t>> parts_;
    std::uint32_t adler_ = 1;
};

}  // namespace attn::render
