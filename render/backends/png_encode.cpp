// The PNG encoder: stb_image_write writes the file; its compression hook deflates the filtered image
// data in parallel parts through zlib (data/base/threads.h) and joins them into one zlib stream with the
// Adler-32 of all the data. The bytes depend only on the image, never on the number of threads.
#include "render/backends/png_encode.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>

#include <zlib.h>

#include "data/base/threads.h"

// stb_image_write writes the PNG; its compression hook (defined at the end of this file) deflates the
// filtered data through zlib on worker threads, and chunks are checked with zlib's crc32. The buffer
// the hook returns must come from malloc (STBIW_MALLOC): stb frees it.
static unsigned char* attn_stbiw_zlib_compress(unsigned char* data, int data_len, int* out_len, int quality);
#define STBIW_ZLIB_COMPRESS attn_stbiw_zlib_compress
#define STBIW_CRC32(buffer, len) static_cast<unsigned int>(crc32(0UL, (buffer), static_cast<uInt>(len)))

#include "render/backends/stb_begin.h"
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#include "render/backends/stb_end.h"

namespace {

// zlib level and PNG filter, measured on the weights image of a 2048 x 2048 trace (1-px cells, plus
// labels: 2274 x 2293 px) on this project's 2-core machine, best of 3 (stb_image_write + compress2,
// encoding only, one thread):
//   filter/zlib level   causal softmax     uniform noise in [0, 1]
//   none/1             0.041 s   0.64 MB       0.15 s   6.9 MB      <- chosen
//   none/3             0.048 s   0.57 MB       0.44 s   7.5 MB
//   none/6             0.101 s   0.46 MB       0.74 s   7.5 MB
//   sub/1              0.038 s   0.69 MB       0.30 s  12.4 MB
//   up/1               0.042 s   0.87 MB       0.28 s  12.4 MB
//   paeth/1            0.064 s   0.89 MB       0.35 s  12.7 MB
//   per-row            0.134 s   0.87 MB       0.48 s  12.7 MB      (stb's default: tries all five per row)
// Colour-mapped pixels repeat a few RGB triplets, which deflate matches as they are; a prediction filter
// turns them into noise. Z_RLE and Z_FILTERED strategies were no better.
constexpr int kZlibLevel = 1;
// zlib's memLevel (default 8) sizes its hash table: 2^(memLevel + 7) heads, all rewritten every 32 KiB
// of input. On the images above (one thread, deflate only): weights 20.3 -> 17.8 ms, mask 16.2 -> 13.6 ms,
// uniform noise 160 -> 166 ms, sizes within 0.2%. memLevel 6 was a little faster on heatmaps, 7% slower on noise.
constexpr int kZlibMemLevel = 7;

// The image data is deflated in parts of at most kPartBytes (part_count), each part on whichever worker
// thread takes it (as pigz does). Every part but the last ends with a sync flush (an empty stored block:
// byte-aligned, final bit clear), so the parts concatenate into one deflate stream; no match reaches
// back into an earlier part. The split depends only on the image size, never on the number of threads
// or their timing: the bytes are the same on every run and every machine. 2 MiB parts (8 for the
// 15 MB above) cost 0.1-0.2% in size (1 MiB: 0.3-0.9%) and let two cores share the work evenly.
constexpr std::size_t kPartBytes = std::size_t{2} << 20;

// How many parts n bytes are deflated in: one per kPartBytes begun, made even past one, so that two cores
// finish together (the default weights figure, 5.5 MB, was 2 + 2 + 1.5 MiB: the third part ran alone).
std::size_t part_count(std::size_t n) {
    const std::size_t parts = std::max<std::size_t>(1, (n + kPartBytes - 1) / kPartBytes);
    return parts > 1 && parts % 2 == 1 ? parts + 1 : parts;
}

// Adler-32 (RFC 1950), as zlib's adler32() computes it, written so that the compiler vectorises it: about
// 4 times faster than zlib 1.2.13's at -O3 (1 ms instead of 4 ms for the 15 MB of a 2048 x 2048 heatmap).
// Blocks of 32 bytes go to 32 lanes; per lane, av sums the bytes and bv the sums before each block.
// For a chunk of K blocks (len = 32K bytes) that gives sum(x) = sum(av) and
// sum((len - i) * x_i) = 32 * sum(bv) + sum((32 - l) * av[l]). Chunks of 1024 blocks keep bv below 2^32.
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

// One part of the filtered image data, deflated.
struct DeflatedPart {
    std::unique_ptr<unsigned char[]> bytes;  // raw deflate data, no zlib header or trailer
    std::size_t size = 0;
    std::uint32_t adler = 1;  // Adler-32 of the uncompressed part
};

// A raw deflate stream (no zlib header), reused for the parts one thread takes.
class Deflater {
public:
    Deflater() {
        if (deflateInit2(&z_, kZlibLevel, Z_DEFLATED, -15, kZlibMemLevel, Z_DEFAULT_STRATEGY) != Z_OK)
            throw std::runtime_error("encode_png: zlib could not start (out of memory?)");
    }
    ~Deflater() { deflateEnd(&z_); }
    Deflater(const Deflater&) = delete;
    Deflater& operator=(const Deflater&) = delete;

    DeflatedPart run(const std::uint8_t* data, std::size_t n, bool last) {
        if (deflateReset(&z_) != Z_OK) throw std::runtime_error("encode_png: zlib failed");
        DeflatedPart p;
        std::size_t cap = deflateBound(&z_, static_cast<uLong>(n)) + 64;  // + the sync flush's marker
        p.bytes.reset(new unsigned char[cap]);  // not zero-filled: only what deflate writes is touched
        p.adler = adler32_of(p.adler, data, n);
        feed(p, cap, data, n, last ? Z_FINISH : Z_SYNC_FLUSH);
        return p;
    }

private:
    // Deflates [data, data + n) into p.bytes, growing it if deflate ever needs more than the bound.
    void feed(DeflatedPart& p, std::size_t& cap, const unsigned char* data, std::size_t n, int flush) {
        z_.next_in = const_cast<Bytef*>(data);  // zlib's API is not const-correct; it does not write
        z_.avail_in = static_cast<uInt>(n);
        for (;;) {
            if (p.size == cap) {
                auto bigger = std::unique_ptr<unsigned char[]>(new unsigned char[cap * 2]);
                std::memcpy(bigger.get(), p.bytes.get(), p.size);
                p.bytes = std::move(bigger);
                cap *= 2;
            }
            z_.next_out = p.bytes.get() + p.size;
            z_.avail_out = static_cast<uInt>(std::min<std::size_t>(cap - p.size, std::numeric_limits<uInt>::max()));
            const int rc = deflate(&z_, flush);
            p.size = static_cast<std::size_t>(z_.next_out - p.bytes.get());
            if (rc == Z_STREAM_END) return;
            if (rc != Z_OK && rc != Z_BUF_ERROR) throw std::runtime_error("encode_png: zlib failed");
            if (z_.avail_out != 0) {  // stopped with room to spare: all taken in (and flushed, if asked)
                if (z_.avail_in != 0) throw std::runtime_error("encode_png: zlib failed");
                return;
            }
        }
    }

    z_stream z_{};
};

}  // namespace

namespace attn::render {

// ---------------------------------------------------------------------------------------------------
// encode_png

std::string encode_png(const Image& img) {
    if (img.width <= 0 || img.height <= 0)
        throw std::runtime_error("encode_png: image size " + std::to_string(img.width) + "x" +
                                 std::to_string(img.height) + " is empty");
    const std::uint64_t w = static_cast<std::uint64_t>(img.width), h = static_cast<std::uint64_t>(img.height);
    // Sizes stay far below 2^31: the IDAT length field, zlib's uInt counts and int arithmetic all fit.
    if ((w * 4 + 1) * h >= (std::uint64_t{1} << 30))
        throw std::runtime_error("encode_png: image " + std::to_string(w) + "x" + std::to_string(h) +
                                 " is too large to encode (keep (width*4+1)*height below 2^30)");
    if (img.rgb.size() != w * h * 3)
        throw std::runtime_error("encode_png: pixel buffer holds " + std::to_string(img.rgb.size()) +
                                 " bytes, expected width * height * 3 = " + std::to_string(w * h * 3));

    int len = 0;
    unsigned char* png = nullptr;
    {
        static std::once_flag settings;
        std::call_once(settings, [] { stbi_write_force_png_filter = 0; });  // filter "none": see kZlibLevel
        png = stbi_write_png_to_mem(img.rgb.data(), img.width * 3, img.width, img.height, 3, &len);
    }
    if (png == nullptr || len <= 0) throw std::runtime_error("encode_png: encoding failed (out of memory?)");
    std::string out(reinterpret_cast<const char*>(png), static_cast<std::size_t>(len));
    STBIW_FREE(png);
    return out;
}

}  // namespace attn::render

// stb_image_write's compression hook: the filtered image data in equal parts (part_count; the split depends
// only on the data's size), deflated on worker threads and joined into one zlib stream: header 78 01,
// the parts, the big-endian Adler-32 of all the data. The buffer comes from malloc (stb frees it).
static unsigned char* attn_stbiw_zlib_compress(unsigned char* data, int data_len, int* out_len, int /*quality*/) try {
    const auto n = static_cast<std::size_t>(data_len);
    const std::size_t n_parts = part_count(n);
    const std::size_t part_bytes = (n + n_parts - 1) / n_parts;
    const auto part_size = [&](std::size_t i) { return std::min(n - i * part_bytes, part_bytes); };
    std::vector<DeflatedPart> parts(n_parts);
    std::vector<std::unique_ptr<Deflater>> deflaters(attn::worker_threads(n_parts, attn::kMaxPoolThreads));  // one per worker, made on use
    attn::run_tasks(n_parts, attn::kMaxPoolThreads, [&](unsigned worker, std::size_t i) {
        std::unique_ptr<Deflater>& d = deflaters[worker];
        if (!d) d = std::make_unique<Deflater>();
        parts[i] = d->run(data + i * part_bytes, part_size(i), i + 1 == n_parts);
    });
    std::size_t total = 2 + 4;
    uLong adler = 1;
    for (std::size_t i = 0; i < n_parts; ++i) {
        total += parts[i].size;
        adler = adler32_combine(adler, parts[i].adler, static_cast<z_off_t>(part_size(i)));
    }
    auto* out = static_cast<unsigned char*>(std::malloc(total));
    if (out == nullptr) return nullptr;
    unsigned char* p = out;
    *p++ = 0x78, *p++ = 0x01;  // deflate, 32 KiB window, "fastest" level flag, check bits
    for (const DeflatedPart& part : parts) {
        std::memcpy(p, part.bytes.get(), part.size);
        p += part.size;
    }
    for (int shift = 24; shift >= 0; shift -= 8) *p++ = static_cast<unsigned char>(adler >> shift);
    *out_len = static_cast<int>(total);
    return out;
} catch (...) {
    return nullptr;  // stb reports the failure; encode_png throws
}
