// The PNG encoder: an RGB8 image to the bytes of an 8-bit RGB PNG, deterministic (the same image gives
// the same bytes on every run and machine, whatever the number of threads).
#pragma once

#include <cstdint>
#include <functional>
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
// (the deflate parts, each with its rows' Adler-32), run(i) once for each i on any thread, then file()
// once. The parts are bands of whole rows, about a megabyte each, split by the image's size alone.
class PngParts {
public:
    // Rows [y0, y1) of the image, row-major RGB, into `out` (resized to (y1 - y0) * width * 3; its
    // capacity is the thread's, reused from strip to strip). Called from run() on any thread.
    using Rows = std::function<void(int y0, int y1, std::vector<std::uint8_t>& out)>;

    explicit PngParts(Image img);  // checks the image as encode_png does; the rows are read in place
    // A width x height image whose rows are made part by part (a figure drawn strip by strip,
    // render/backends/display_list.h): no whole image is held. The bytes are those of the same image.
    PngParts(int width, int height, Rows rows);
    static std::size_t tasks(int width, int height);  // the steps of a width x height image
    std::size_t tasks() const { return parts_.size(); }
    void run(std::size_t i);
    std::string file();  // after every run(i); lets the pixels go first

private:
    struct Part {
        std::vector<std::uint8_t> bytes;  // deflated
        std::uint32_t adler = 1;          // of its rows, each behind its filter byte
        std::size_t bytes_in = 0;         // those rows' bytes
    };
    Image img_;  // the pixels, or (with rows_) the size only
    Rows rows_;
    std::vector<Part> parts_;
};

}  // namespace attn::render
