// PNG heatmaps of a trace, and the PNG encoder (zlib, deflated in parallel parts).
//
// An image is laid out top to bottom as: title, subtitle, a grid of panels (one per head; a single
// head is a grid of one), the colour bar (or the mask's legend) right of the grid, legend lines below.
// A panel is: panel title (grids only), key labels (rotated when they do not fit a cell), query labels
// on the left, the heatmap. Letters: T = query rows, S = key columns (after pooling, see below).
#include "render/png.h"

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

#include "render/canvas.h"
#include "render/colormaps.h"
#include "render/font.h"

// stb_image_write writes the PNG; its compression hook (defined at the end of this file) deflates the
// filtered data through zlib on worker threads, and chunks are checked with zlib's crc32. The buffer
// the hook returns must come from malloc (STBIW_MALLOC): stb frees it.
static unsigned char* attn_stbiw_zlib_compress(unsigned char* data, int data_len, int* out_len, int quality);
#define STBIW_ZLIB_COMPRESS attn_stbiw_zlib_compress
#define STBIW_CRC32(buffer, len) static_cast<unsigned int>(crc32(0UL, (buffer), static_cast<uInt>(len)))

#include "render/stb_begin.h"
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#include "render/stb_end.h"

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

// The image data is deflated in parts of about kPartBytes (whole rows), each part on whichever worker
// thread takes it (as pigz does). Every part but the last ends with a sync flush (an empty stored block:
// byte-aligned, final bit clear), so the parts concatenate into one deflate stream; no match reaches
// back into an earlier part. The split depends only on the image size, never on the number of threads
// or their timing: the bytes are the same on every run and every machine. 2 MiB parts (8 for the
// 15 MB above) cost 0.1-0.2% in size (1 MiB: 0.3-0.9%) and let two cores share the work evenly.
constexpr std::size_t kPartBytes = std::size_t{2} << 20;

// At most this many threads, and only as many as there are hardware threads.
constexpr unsigned kMaxThreads = 8;

unsigned worker_threads(std::size_t tasks) {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    return static_cast<unsigned>(std::min<std::size_t>({tasks, hw, kMaxThreads}));
}

// Runs task(worker, i) for every i in [0, tasks) on up to worker_threads(tasks) threads, the calling
// thread among them (worker 0); each thread takes the next undone task. Results must not depend on which
// thread runs a task. If a thread cannot be started, the others do its share. Rethrows the first
// exception a task threw.
template <class Task>
void run_tasks(std::size_t tasks, Task&& task) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex error_mutex;
    const auto work = [&](unsigned worker) {
        for (std::size_t i = next++; i < tasks; i = next++) {
            try {
                task(worker, i);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(error_mutex);
                if (!error) error = std::current_exception();
                next = tasks;  // stop handing out tasks
            }
        }
    };
    std::vector<std::thread> helpers;
    const unsigned n = worker_threads(tasks);
    try {
        for (unsigned k = 1; k < n; ++k) helpers.emplace_back(work, k);
    } catch (const std::system_error&) {  // no more threads: fewer workers do it all
    }
    work(0);
    for (std::thread& th : helpers) th.join();
    if (error) std::rethrow_exception(error);
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

// stb_image_write's compression hook: the filtered image data in parts of kPartBytes (the split depends
// only on the data's size), deflated on worker threads and joined into one zlib stream: header 78 01,
// the parts, the big-endian Adler-32 of all the data. The buffer comes from malloc (stb frees it).
static unsigned char* attn_stbiw_zlib_compress(unsigned char* data, int data_len, int* out_len, int /*quality*/) try {
    const auto n = static_cast<std::size_t>(data_len);
    const std::size_t n_parts = std::max<std::size_t>(1, (n + kPartBytes - 1) / kPartBytes);
    const auto part_size = [&](std::size_t i) { return std::min(n - i * kPartBytes, kPartBytes); };
    std::vector<DeflatedPart> parts(n_parts);
    std::vector<std::unique_ptr<Deflater>> deflaters(worker_threads(n_parts));  // one per worker, made on use
    run_tasks(n_parts, [&](unsigned worker, std::size_t i) {
        std::unique_ptr<Deflater>& d = deflaters[worker];
        if (!d) d = std::make_unique<Deflater>();
        parts[i] = d->run(data + i * kPartBytes, part_size(i), i + 1 == n_parts);
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

namespace attn::render {

namespace {

// ---------------------------------------------------------------------------------------------------
// Style

constexpr Rgb kBackground{255, 255, 255};
constexpr Rgb kInk{26, 26, 26};           // titles, labels
constexpr Rgb kSoftInk{90, 90, 90};       // subtitle, captions, ticks
constexpr Rgb kFrame{128, 128, 128};      // around heatmaps and the colour bar
constexpr Rgb kHiddenBase{205, 205, 205}; // a cell the mask hides: neutral grey ...
constexpr Rgb kHiddenLine{140, 140, 140}; // ... with "/" hatching (no map here is grey)
constexpr Rgb kMaskVisible{33, 102, 172}; // mask image: a visible key
constexpr Rgb kNonFinite{255, 0, 255};    // NaN or infinity (should not happen; never a map colour)
constexpr Rgb kTileLine{255, 85, 0};      // flash: tile boundaries
constexpr Rgb kSkippedShade{30, 30, 45};  // flash: tile never visited, shaded ...
constexpr Rgb kSkippedLine{235, 235, 235};// ... and hatched "\"
// Key/value groups (matplotlib's tab10).
constexpr std::array<Rgb, 10> kGroupColours{{{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40},
                                             {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
                                             {188, 189, 34}, {23, 190, 207}}};

constexpr float kTitlePx = 21.0f, kSubtitlePx = 14.0f, kPanelTitlePx = 15.0f, kLabelPx = 14.0f;
constexpr float kTickPx = 13.0f, kLegendPx = 13.0f, kCaptionPx = 12.0f;
constexpr int kMargin = 20;
constexpr int kHatch = 6;                 // hatching period, pixels
constexpr int kMaxHeatmapSide = 4096;     // pixels of heatmap per axis (grids share it); above: max-pool
constexpr int kMaxLabelWidth = 150;       // longer labels end in "…"
constexpr std::size_t kMaxValueCells = 16;// values printed in cells while T and S are at most this
constexpr int kBarWidth = 18, kSwatch = 16;

// ---------------------------------------------------------------------------------------------------
// Numbers, without the locale

std::string fixed(double v, int decimals) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "\xE2\x88\x92inf" : "inf";
    std::array<char, 64> buf{};
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed, decimals);
    if (r.ec != std::errc()) return "?";
    std::string s(buf.data(), r.ptr);
    if (!s.empty() && s[0] == '-') {
        if (s.find_first_of("123456789") == std::string::npos) s.erase(0, 1);  // "-0.00" -> "0.00"
        else s.replace(0, 1, "\xE2\x88\x92");                                  // U+2212 minus sign
    }
    return s;
}

std::string short_number(double v) {  // at most 3 decimals, trailing zeros dropped: 0.354, 0.1, 2
    std::string s = fixed(v, 3);
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

struct Tick {
    double value;
    std::string label;
};

// Round ticks (1, 2, 5 x 10^k apart), about five over [lo, hi].
std::vector<Tick> ticks_for(double lo, double hi) {
    std::vector<Tick> out;
    const double span = hi - lo;
    if (!(span > 0) || !std::isfinite(span)) return out;
    const double raw = span / 5.0;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double n = raw / mag;
    const double step = (n < 1.5 ? 1.0 : n < 3.0 ? 2.0 : n < 7.0 ? 5.0 : 10.0) * mag;
    const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
    const auto first = static_cast<long long>(std::ceil(lo / step - 1e-9));
    const auto last = static_cast<long long>(std::floor(hi / step + 1e-9));
    for (long long k = first; k <= last; ++k) {
        const double v = static_cast<double>(k) * step;
        out.push_back({v, fixed(v, decimals)});
    }
    return out;
}

int nice_step(int k) {  // smallest of 1, 2, 5, 10, 20, 50, ... >= k
    int base = 1;
    for (;;) {
        for (int m : {1, 2, 5})
            if (base * m >= k) return base * m;
        base *= 10;
    }
}

std::string head_ranges(const std::vector<std::size_t>& heads) {  // 0, 1, 2, 5 -> "0–2, 5"
    std::string s;
    for (std::size_t i = 0; i < heads.size();) {
        std::size_t j = i;
        while (j + 1 < heads.size() && heads[j + 1] == heads[j] + 1) ++j;
        if (!s.empty()) s += ", ";
        s += std::to_string(heads[i]);
        if (j > i) s += (j == i + 1 ? ", " : "\xE2\x80\x93") + std::to_string(heads[j]);
        i = j + 1;
    }
    return s;
}

// ---------------------------------------------------------------------------------------------------
// What to draw

enum class Matrix { Scores, Mask, Weights, DroppedWeights };

struct Sheet {
    Matrix matrix;
    bool tiles = false;  // flash: the weights with the tile grid
};

const char* file_word(const Sheet& s) {
    if (s.tiles) return "tiles";
    switch (s.matrix) {
        case Matrix::Scores: return "scores";
        case Matrix::Mask: return "mask";
        case Matrix::Weights: return "weights";
        case Matrix::DroppedWeights: return "dropped-weights";
    }
    return "";
}

const char* title_word(const Sheet& s) {
    if (s.tiles) return "weights and tiles";
    switch (s.matrix) {
        case Matrix::Scores: return "scores";
        case Matrix::Mask: return "mask";
        case Matrix::Weights: return "weights";
        case Matrix::DroppedWeights: return "dropped weights";
    }
    return "";
}

const Mat* values_of(const HeadTrace& h, Matrix m) {
    switch (m) {
        case Matrix::Scores: return &h.scores;
        case Matrix::Weights: return &h.weights;
        case Matrix::DroppedWeights: return &h.dropped_weights;
        case Matrix::Mask: return nullptr;
    }
    return nullptr;
}

bool present(const HeadTrace& h, Matrix m) {
    return m == Matrix::Mask ? h.mask.size() != 0 : values_of(h, m)->size() != 0;
}

std::string shape_str(std::size_t r, std::size_t c) { return std::to_string(r) + "x" + std::to_string(c); }

// One head's matrix as drawn: the values (none for the mask image) and which cells are visible,
// max-pooled by (fq, fk) when the matrix has more cells than pixels to show them.
struct Panel {
    std::size_t head = 0, kv_head = 0;
    const Mat* src = nullptr;       // (T, S) or nullptr
    const Mask* src_vis = nullptr;  // (T, S)
    Mat pooled;                     // (T', S')
    Mask pooled_vis;                // (T', S')
    bool is_pooled = false;

    const Mat* values() const { return src == nullptr ? nullptr : is_pooled ? &pooled : src; }
    const Mask& visible() const { return is_pooled ? pooled_vis : *src_vis; }
};

// Max-pool (T, S) -> (ceil(T/fq), ceil(S/fk)). A pooled cell is visible if any of its cells is, and
// shows the visible value of largest magnitude (scores: sign kept) or the largest value (weights).
void pool(Panel& p, std::size_t fq, std::size_t fk, bool by_magnitude) {
    const std::size_t T = p.src_vis->shape(0), S = p.src_vis->shape(1);
    const std::size_t Tp = (T + fq - 1) / fq, Sp = (S + fk - 1) / fk;
    p.pooled_vis = Mask::from_shape({Tp, Sp});
    std::fill(p.pooled_vis.begin(), p.pooled_vis.end(), std::uint8_t{0});
    if (p.src != nullptr) {
        p.pooled = Mat::from_shape({Tp, Sp});
        std::fill(p.pooled.begin(), p.pooled.end(), 0.0f);
    }
    const std::uint8_t* vis = p.src_vis->data();
    const float* val = p.src == nullptr ? nullptr : p.src->data();
    std::uint8_t* ovis = p.pooled_vis.data();
    float* oval = p.src == nullptr ? nullptr : p.pooled.data();
    for (std::size_t i = 0; i < T; ++i) {
        const std::size_t pi = i / fq;
        for (std::size_t j = 0; j < S; ++j) {
            if (vis[i * S + j] == 0) continue;
            const std::size_t o = pi * Sp + j / fk;
            if (val != nullptr) {
                const float v = val[i * S + j];
                const bool better = by_magnitude ? std::fabs(v) > std::fabs(oval[o]) : v > oval[o];
                if (ovis[o] == 0 || better) oval[o] = v;
            }
            ovis[o] = 1;
        }
    }
    p.is_pooled = true;
}

// The colour scale shared by every panel of an image.
struct Scale {
    float lo = 0.0f, hi = 1.0f;
    const Colormap* cmap = &kViridis;
    std::array<bool, 256> dark_text{};  // black text reads better than white on this entry

    int index(float v) const {  // matplotlib's rule: floor((v - lo) / (hi - lo) * 256), clipped
        const float t = (v - lo) / (hi - lo) * 256.0f;
        if (!(t > 0.0f)) return 0;
        if (t >= 255.0f) return 255;
        return static_cast<int>(t);
    }
};

double luminance(Rgb c) {  // WCAG relative luminance
    const auto lin = [](std::uint8_t u) {
        const double s = u / 255.0;
        return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}
bool wants_dark_text(Rgb c) { return luminance(c) > 0.179; }  // equal contrast against black and white

// The smallest and largest visible finite value of x[0, n), and the largest magnitude, folded into
// lo, hi and mag. Written as kLanes independent lanes without branches, which the compiler turns into
// vector min/max: a plain loop is one long chain of dependent compares. (Where -0 and +0 tie for the
// smallest, the lanes may keep the other one than a plain loop: both give the same colours and labels.)
void fold_visible_range(const float* x, const std::uint8_t* vis, std::size_t n, float& lo, float& hi, float& mag) {
    constexpr std::size_t kLanes = 16;
    constexpr float kInf = std::numeric_limits<float>::infinity(), kMax = std::numeric_limits<float>::max();
    float lo_l[kLanes], hi_l[kLanes], mag_l[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) lo_l[l] = kInf, hi_l[l] = -kInf, mag_l[l] = 0.0f;
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (std::size_t l = 0; l < kLanes; ++l) {
            const float v = x[i + l], a = std::fabs(v);
            const bool ok = (vis[i + l] != 0) & (a <= kMax);  // visible and finite
            const float vl = ok ? v : kInf, vh = ok ? v : -kInf, va = ok ? a : 0.0f;
            lo_l[l] = vl < lo_l[l] ? vl : lo_l[l];
            hi_l[l] = vh > hi_l[l] ? vh : hi_l[l];
            mag_l[l] = va > mag_l[l] ? va : mag_l[l];
        }
    for (; i < n; ++i)
        if (vis[i] != 0 && std::isfinite(x[i])) {
            lo = std::min(lo, x[i]);
            hi = std::max(hi, x[i]);
            mag = std::max(mag, std::fabs(x[i]));
        }
    for (std::size_t l = 0; l < kLanes; ++l) {
        lo = std::min(lo, lo_l[l]);
        hi = std::max(hi, hi_l[l]);
        mag = std::max(mag, mag_l[l]);
    }
}

Scale scale_for(Matrix m, const std::vector<Panel>& panels) {
    Scale sc;
    float lo = std::numeric_limits<float>::infinity(), hi = -lo, mag = 0.0f;
    for (const Panel& p : panels)
        if (const Mat* v = p.values()) fold_visible_range(v->data(), p.visible().data(), v->size(), lo, hi, mag);
    if (m == Matrix::Scores) {  // diverging, centred on 0
        if (!(mag > 0.0f)) mag = 1.0f;
        sc.lo = -mag;
        sc.hi = mag;
        sc.cmap = &kRdBuR;
    } else {  // weights: 0 .. largest visible weight
        sc.lo = std::min(0.0f, std::isfinite(lo) ? lo : 0.0f);
        sc.hi = std::isfinite(hi) && hi > sc.lo ? hi : sc.lo + 1.0f;
        sc.cmap = &kViridis;
    }
    for (std::size_t i = 0; i < 256; ++i) sc.dark_text[i] = wants_dark_text((*sc.cmap)[i]);
    return sc;
}

std::string cell_text(Matrix m, float v) {
    if (m == Matrix::Mask) return "1";
    if (!std::isfinite(v)) return fixed(v, 0);
    return fixed(v, std::fabs(v) >= 100.0f ? 0 : std::fabs(v) >= 10.0f ? 1 : 2);
}

// ---------------------------------------------------------------------------------------------------
// Layout of one panel (every panel of an image has the same)

struct Layout {
    std::size_t T = 0, S = 0;    // matrix as traced
    std::size_t fq = 1, fk = 1;  // max-pooling factors
    int rows = 0, cols = 0;      // cells drawn: (ceil(T/fq), ceil(S/fk))
    int cell_w = 1, cell_h = 1;
    int label_lh = 0;            // line height of labels
    std::vector<std::string> row_labels, col_labels;  // "" = thinned out
    int row_step = 1, col_step = 1;
    bool rotate_cols = false;
    int left_w = 0, top_h = 0, title_h = 0;
    int heat_x = 0, heat_y = 0, heat_w = 0, heat_h = 0;  // heatmap inside the panel
    int panel_w = 0, panel_h = 0;
    float value_px = 0.0f;       // 0: no values in cells
    std::string corner;          // caption in the empty corner above the query labels
    int corner_lift = 0;         // how far the first query label pokes above the heatmap
};

std::string token_label(const std::vector<std::string>& tokens, std::size_t i) {
    return i < tokens.size() ? tokens[i] : std::to_string(i);
}

Layout make_layout(const Trace& t, const std::vector<Panel>& panels, Matrix m, bool grid, int gcols, int grows,
                   std::size_t T, std::size_t S, Font& font) {
    Layout L;
    L.T = T;
    L.S = S;
    // 1. Pooling: at most kMaxHeatmapSide pixels per axis over the whole grid.
    const int cap_w = grid ? std::max(32, kMaxHeatmapSide / gcols) : kMaxHeatmapSide;
    const int cap_h = grid ? std::max(32, kMaxHeatmapSide / grows) : kMaxHeatmapSide;
    L.fq = (T + static_cast<std::size_t>(cap_h) - 1) / static_cast<std::size_t>(cap_h);
    L.fk = (S + static_cast<std::size_t>(cap_w) - 1) / static_cast<std::size_t>(cap_w);
    L.rows = static_cast<int>((T + L.fq - 1) / L.fq);
    L.cols = static_cast<int>((S + L.fk - 1) / L.fk);

    // 2. Cells: square, about `target` pixels for the larger side, 1 px at least.
    const int target = grid ? std::clamp(1280 / gcols, 120, 320) : 640;
    const int max_cell = grid ? 48 : 64;
    const int cell = std::clamp(target / std::max(L.rows, L.cols), 1, max_cell);
    L.cell_w = L.cell_h = cell;
    constexpr int kMinSide = 96;  // a very thin matrix still gets a readable band
    if (L.rows * cell < kMinSide) L.cell_h = std::min(max_cell, (kMinSide + L.rows - 1) / L.rows);
    if (L.cols * cell < kMinSide) L.cell_w = std::min(max_cell, (kMinSide + L.cols - 1) / L.cols);
    L.heat_w = L.cols * L.cell_w;
    L.heat_h = L.rows * L.cell_h;

    // 3. Labels: every row_step-th query, every col_step-th key (with its index when thinned or pooled).
    L.label_lh = font.line_height(kLabelPx);
    const std::vector<std::string>& qtok = t.tokens;
    const std::vector<std::string>& ktok =
        t.source_tokens.size() == S ? t.source_tokens : t.tokens.size() == S ? t.tokens : t.source_tokens;
    const auto labels = [&](const std::vector<std::string>& tok, int n, std::size_t f, int step) {
        std::vector<std::string> out(static_cast<std::size_t>(n));
        for (int i = 0; i < n; i += step) {
            const std::size_t src = static_cast<std::size_t>(i) * f;
            std::string s = token_label(tok, src);
            if ((step > 1 || f > 1) && src < tok.size()) s = std::to_string(src) + " " + s;
            out[static_cast<std::size_t>(i)] = font.fit(s, kLabelPx, grid ? kMaxLabelWidth * 3 / 4 : kMaxLabelWidth);
        }
        return out;
    };
    const auto widest = [&](const std::vector<std::string>& v) {
        int w = 0;
        for (const auto& s : v)
            if (!s.empty()) w = std::max(w, font.text_width(s, kLabelPx));
        return w;
    };
    // Thinned labels get some air: one per two lines of text at least.
    const auto step_for = [&](int size) {
        const int k = (L.label_lh + 1 + size - 1) / size;
        return k <= 1 ? 1 : nice_step((2 * L.label_lh + size - 1) / size);
    };
    L.row_step = step_for(L.cell_h);
    L.row_labels = labels(qtok, L.rows, L.fq, L.row_step);
    L.col_labels = labels(ktok, L.cols, L.fk, 1);
    if (L.fk == 1 && widest(L.col_labels) <= L.cell_w - 6) {
        L.rotate_cols = false;
        L.top_h = L.label_lh + 6;
    } else {
        L.rotate_cols = true;
        L.col_step = step_for(L.cell_w);
        L.col_labels = labels(ktok, L.cols, L.fk, L.col_step);
        L.top_h = widest(L.col_labels) + 8 + (L.col_step > 1 ? 4 : 0);
    }
    L.left_w = widest(L.row_labels) + 10 + (L.row_step > 1 ? 4 : 0);

    // 4. Corner caption ("query ↓  key →") in the empty corner above the query labels; the first query
    //    label pokes above the heatmap when rows are thinner than a line.
    L.corner_lift = std::max(0, (L.label_lh - L.cell_h) / 2 + 1);
    const int caption_h = font.line_height(kCaptionPx) + 4 + L.corner_lift;
    const char* long_caption = "query \xE2\x86\x93  key \xE2\x86\x92";
    for (const char* c : {long_caption, "q \xE2\x86\x93 k \xE2\x86\x92"}) {
        if (font.text_width(c, kCaptionPx) + 12 <= L.left_w && caption_h <= L.top_h) {
            L.corner = c;
            break;
        }
    }
    if (!grid && L.corner != long_caption) {  // a single image widens its label column for it
        L.corner = long_caption;
        L.left_w = std::max(L.left_w, font.text_width(L.corner, kCaptionPx) + 12);
        L.top_h = std::max(L.top_h, caption_h);
    }

    // 5. Values in cells, small matrices only, at the largest size that fits every cell.
    if (T <= kMaxValueCells && S <= kMaxValueCells) {
        int widest_value = 0;
        for (float px : {13.0f, 12.0f, 11.0f, 10.0f, 9.0f}) {
            widest_value = 0;
            for (const Panel& p : panels) {
                const Mat* v = p.values();
                const Mask& vis = p.visible();
                for (std::size_t i = 0; i < vis.size(); ++i)
                    if (vis.data()[i] != 0)
                        widest_value = std::max(widest_value,
                                                font.text_width(cell_text(m, v ? v->data()[i] : 1.0f), px));
            }
            if (widest_value <= L.cell_w - 4 && font.line_height(px) <= L.cell_h - 2) {
                L.value_px = px;
                break;
            }
        }
    }

    // 6. Panel geometry.
    L.title_h = grid ? font.line_height(kPanelTitlePx) + 6 : 0;
    L.heat_x = L.left_w;
    L.heat_y = L.title_h + L.top_h;
    L.panel_w = L.heat_x + L.heat_w + (L.rotate_cols ? L.label_lh / 2 : 0);
    L.panel_h = L.heat_y + L.heat_h + L.label_lh / 2;  // labels centred on the last row overhang
    return L;
}

// ---------------------------------------------------------------------------------------------------
// Drawing

void draw_labels(Canvas& cv, Font& font, const Layout& L, int hx, int hy, bool corner) {
    // Queries down the left, right-aligned, centred on their row.
    for (int i = 0; i < L.rows; ++i) {
        const std::string& s = L.row_labels[static_cast<std::size_t>(i)];
        if (s.empty()) continue;
        const int cy = hy + i * L.cell_h + L.cell_h / 2;
        int right = hx - 6;
        if (L.row_step > 1) {
            cv.fill(hx - 5, cy, 4, 1, kSoftInk);  // tick
            right -= 4;
        }
        cv.text(font, s, kLabelPx, right, cy, Align::End, Align::Centre, kInk);
    }
    // Keys along the top: horizontal and centred, or turned to read upwards, ending above the heatmap.
    for (int j = 0; j < L.cols; ++j) {
        const std::string& s = L.col_labels[static_cast<std::size_t>(j)];
        if (s.empty()) continue;
        const int cx = hx + j * L.cell_w + L.cell_w / 2;
        if (!L.rotate_cols) {
            cv.text(font, s, kLabelPx, cx, hy - 4, Align::Centre, Align::End, kInk);
            continue;
        }
        int bottom = hy - 6;
        if (L.col_step > 1) {
            cv.fill(cx, hy - 5, 1, 4, kSoftInk);
            bottom -= 4;
        }
        cv.text(font, s, kLabelPx, cx + 1, bottom, Align::Centre, Align::End, kInk, true);
    }
    if (corner && !L.corner.empty())
        cv.text(font, L.corner, kCaptionPx, hx - 12, hy - 4 - L.corner_lift, Align::End, Align::End, kSoftInk);
}

// Runs of hidden cells (mask byte 0) in one row of a mask, as [begin, end) pairs. Looks at 8 bytes at a
// time: a causal row is one visible run and one hidden run.
void hidden_runs(const std::uint8_t* vis, std::size_t n, std::vector<std::pair<std::size_t, std::size_t>>& runs) {
    runs.clear();
    const auto word = [&](std::size_t j) {
        std::uint64_t w;
        std::memcpy(&w, vis + j, 8);
        return w;
    };
    constexpr std::uint64_t kOnes = 0x0101010101010101u, kHighs = 0x8080808080808080u;
    for (std::size_t j = 0; j < n;) {
        while (j + 8 <= n && ((word(j) - kOnes) & ~word(j) & kHighs) == 0) j += 8;  // no zero byte in these 8
        while (j < n && vis[j] != 0) ++j;
        const std::size_t begin = j;
        while (j + 8 <= n && word(j) == 0) j += 8;
        while (j < n && vis[j] == 0) ++j;
        if (j > begin) runs.emplace_back(begin, j);
    }
}

// The cells of one panel with their top-left corner at (hx, hy), then the values.
void draw_heatmap(Canvas& cv, Font& font, const Layout& L, const Panel& p, Matrix m, const Scale& sc, int hx, int hy) {
    const Mat* val = p.values();
    const Mask& vis = p.visible();
    const auto cols = static_cast<std::size_t>(L.cols), cell_w = static_cast<std::size_t>(L.cell_w);
    const std::size_t cell_bytes = cell_w * 3, row_bytes = static_cast<std::size_t>(L.heat_w) * 3;
    // Hidden cells are kHiddenBase with "/" hatching: a line pixel where x + y = 0 (mod kHatch), in image
    // coordinates. Pixel k of `hatched` is a line pixel when k = 0 (mod kHatch), so on image row y the
    // hidden pixel at heatmap column c is pixel c + (hx + y) mod kHatch of it.
    std::vector<std::uint8_t> hatched((static_cast<std::size_t>(L.heat_w) + kHatch) * 3);
    for (std::size_t k = 0; k * 3 < hatched.size(); ++k) {
        const Rgb c = k % kHatch == 0 ? kHiddenLine : kHiddenBase;
        hatched[3 * k] = c.r, hatched[3 * k + 1] = c.g, hatched[3 * k + 2] = c.b;
    }
    const auto hatch_phase = [&](int y) { return static_cast<std::size_t>(((hx + y) % kHatch + kHatch) % kHatch); };
    // Every colour a visible cell may have, as 4 bytes (RGB and a spare) so that a pixel is one 4-byte
    // store whose spare byte the next pixel overwrites: entries 0-255 the colour map, then these.
    constexpr std::uint16_t kCodeNonFinite = 256, kCodeMaskVisible = 257;
    std::array<std::array<std::uint8_t, 4>, 258> palette{};
    for (std::size_t k = 0; k < palette.size(); ++k) {
        const Rgb c = k < 256 ? (*sc.cmap)[k] : k == kCodeNonFinite ? kNonFinite : kMaskVisible;
        palette[k] = {c.r, c.g, c.b, 0};
    }

    // Rows of cells in tasks of about 256 K pixels, on worker threads: every pixel depends only on its cell.
    const std::size_t pixels_per_row = static_cast<std::size_t>(L.heat_w) * static_cast<std::size_t>(L.cell_h);
    const std::size_t rows_per_task = std::max<std::size_t>(1, (std::size_t{1} << 18) / std::max<std::size_t>(1, pixels_per_row));
    const std::size_t n_rows = static_cast<std::size_t>(L.rows);
    run_tasks((n_rows + rows_per_task - 1) / rows_per_task, [&](unsigned, std::size_t task) {
        std::vector<std::uint16_t> code(cols, kCodeMaskVisible);  // palette entry of each cell
        std::vector<std::uint8_t> line(row_bytes + 1);            // one pixel row of the cells (+ a spare byte)
        std::vector<std::pair<std::size_t, std::size_t>> runs;    // hidden cells
        for (std::size_t i = task * rows_per_task; i < std::min(n_rows, (task + 1) * rows_per_task); ++i) {
            // 1. The colours of the cells along a pixel row (hidden cells too: they are drawn over). The
            //    mask image has one colour: its line is made once per task.
            if (val != nullptr || i == task * rows_per_task) {
                if (val != nullptr) {
                    const float* x = val->data() + i * cols;
                    for (std::size_t j = 0; j < cols; ++j) {  // vectorised
                        const auto k = static_cast<std::uint16_t>(sc.index(x[j]));
                        code[j] = std::isfinite(x[j]) ? k : kCodeNonFinite;
                    }
                }
                std::uint8_t* l = line.data();
                if (cell_w == 1) {
                    for (std::size_t j = 0; j < cols; ++j) std::memcpy(l + 3 * j, palette[code[j]].data(), 4);
                } else {
                    for (std::size_t j = 0; j < cols; ++j)
                        for (std::size_t k = 0; k < cell_w; ++k, l += 3) std::memcpy(l, palette[code[j]].data(), 4);
                }
            }
            hidden_runs(vis.data() + i * cols, cols, runs);
            // 2. Each pixel row of the cells: the colours, then the hatching over hidden cells.
            for (int py = 0; py < L.cell_h; ++py) {
                const int y = hy + static_cast<int>(i) * L.cell_h + py;
                std::uint8_t* d = cv.row(y) + static_cast<std::size_t>(hx) * 3;
                std::memcpy(d, line.data(), row_bytes);
                const std::uint8_t* h = hatched.data() + hatch_phase(y) * 3;
                for (const auto& [a, b] : runs) std::memcpy(d + a * cell_bytes, h + a * cell_bytes, (b - a) * cell_bytes);
            }
        }
    });
    cv.frame(hx - 1, hy - 1, L.heat_w + 2, L.heat_h + 2, 1, kFrame);
    if (L.value_px <= 0.0f) return;
    for (int i = 0; i < L.rows; ++i)
        for (int j = 0; j < L.cols; ++j) {
            const std::size_t o = static_cast<std::size_t>(i) * cols + static_cast<std::size_t>(j);
            if (vis.data()[o] == 0) continue;
            const float v = val == nullptr ? 1.0f : val->data()[o];
            bool dark = false;
            if (val == nullptr) dark = wants_dark_text(kMaskVisible);
            else if (std::isfinite(v)) dark = sc.dark_text[static_cast<std::size_t>(sc.index(v))];
            cv.text(font, cell_text(m, v), L.value_px, hx + j * L.cell_w + L.cell_w / 2,
                    hy + i * L.cell_h + L.cell_h / 2, Align::Centre, Align::Centre, dark ? kInk : kBackground);
        }
}

// Block sizes of the flash tiling: from the config, else from the first tile.
std::pair<std::size_t, std::size_t> tile_blocks(const Trace& t) {
    std::size_t bq = t.config.block_q, bk = t.config.block_k;
    if ((bq == 0 || bk == 0) && !t.tiles.empty()) {
        bq = std::max<std::size_t>(1, t.tiles.front().q_end - t.tiles.front().q_begin);
        bk = std::max<std::size_t>(1, t.tiles.front().k_end - t.tiles.front().k_begin);
    }
    return {std::max<std::size_t>(1, bq), std::max<std::size_t>(1, bk)};
}

// Which (query block, key block) tiles of one head the tiled softmax visited: (nq, nk) flags.
std::vector<std::uint8_t> visited_tiles(const Trace& t, std::size_t head, std::size_t T, std::size_t S) {
    const auto [bq, bk] = tile_blocks(t);
    const std::size_t nq = (T + bq - 1) / bq, nk = (S + bk - 1) / bk;
    std::vector<std::uint8_t> seen(nq * nk, 0);
    for (const Tile& tile : t.tiles) {  // placed by where the tile starts, whatever its block numbers
        const std::size_t a = tile.q_begin / bq, b = tile.k_begin / bk;
        if (tile.head == head && a < nq && b < nk) seen[a * nk + b] = 1;
    }
    return seen;
}

// The tile grid over one panel's heatmap: tiles never visited shaded and hatched, boundaries on top.
void draw_tiles(Canvas& cv, Font& font, const Trace& t, const Layout& L, std::size_t head, int hx, int hy) {
    const auto [bq, bk] = tile_blocks(t);
    const std::size_t nq = (L.T + bq - 1) / bq, nk = (L.S + bk - 1) / bk;
    const std::vector<std::uint8_t> seen = visited_tiles(t, head, L.T, L.S);
    const auto py = [&](std::size_t q) {  // pixel of query row boundary q (pooled rows are cell_h tall)
        return hy + static_cast<int>(static_cast<std::uint64_t>(std::min(q, L.T)) * static_cast<std::uint64_t>(L.cell_h) / L.fq);
    };
    const auto px = [&](std::size_t k) {
        return hx + static_cast<int>(static_cast<std::uint64_t>(std::min(k, L.S)) * static_cast<std::uint64_t>(L.cell_w) / L.fk);
    };
    const int skip_px = font.text_width("skipped", kCaptionPx);
    for (std::size_t a = 0; a < nq; ++a)
        for (std::size_t b = 0; b < nk; ++b) {
            if (seen[a * nk + b] != 0) continue;
            const int x0 = px(b * bk), x1 = px((b + 1) * bk), y0 = py(a * bq), y1 = py((a + 1) * bq);
            cv.blend(x0, y0, x1 - x0, y1 - y0, kSkippedShade, 150);
            cv.hatch(x0, y0, x1 - x0, y1 - y0, kSkippedLine, kHatch, false);
            if (x1 - x0 >= skip_px + 6 && y1 - y0 >= font.line_height(kCaptionPx) + 4) {
                const int cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
                cv.fill(cx - skip_px / 2 - 3, cy - font.line_height(kCaptionPx) / 2 - 1, skip_px + 6,
                        font.line_height(kCaptionPx) + 2, kSkippedShade);
                cv.text(font, "skipped", kCaptionPx, cx, cy, Align::Centre, Align::Centre, kBackground);
            }
        }
    const int tile_w = px(bk) - px(0), tile_h = py(bq) - py(0);
    if (std::min(tile_w, tile_h) >= 3) {
        const int th = std::min(tile_w, tile_h) >= 12 ? 2 : 1;
        for (std::size_t a = 0; a <= nq; ++a) {
            const int y = std::min(py(a * bq), hy + L.heat_h) - th / 2;
            cv.fill(hx - th / 2, y, L.heat_w + th, th, kTileLine);
        }
        for (std::size_t b = 0; b <= nk; ++b) {
            const int x = std::min(px(b * bk), hx + L.heat_w) - th / 2;
            cv.fill(x, hy - th / 2, th, L.heat_h + th, kTileLine);
        }
    }
}

void draw_colour_bar(Canvas& cv, Font& font, const Scale& sc, int x, int y, int h) {
    for (int r = 0; r < h; ++r) {  // top = high end
        const int idx = h > 1 ? ((h - 1 - r) * 255 + (h - 1) / 2) / (h - 1) : 255;
        cv.fill(x, y + r, kBarWidth, 1, (*sc.cmap)[static_cast<std::size_t>(idx)]);
    }
    cv.frame(x - 1, y - 1, kBarWidth + 2, h + 2, 1, kFrame);
    for (const Tick& tk : ticks_for(sc.lo, sc.hi)) {
        const double f = (tk.value - sc.lo) / (static_cast<double>(sc.hi) - sc.lo);
        const int ty = y + h - 1 - static_cast<int>(std::lround(f * (h - 1)));
        cv.fill(x + kBarWidth + 1, ty, 5, 1, kSoftInk);
        cv.text(font, tk.label, kTickPx, x + kBarWidth + 9, ty, Align::Start, Align::Centre, kInk);
    }
}

int bar_labels_width(Font& font, const Scale& sc) {
    int w = 0;
    for (const Tick& tk : ticks_for(sc.lo, sc.hi)) w = std::max(w, font.text_width(tk.label, kTickPx));
    return kBarWidth + 9 + w;
}

// A legend entry: a swatch and its text.
enum class Swatch { Colour, Hidden, Skipped, TileLine, None };
struct LegendItem {
    Swatch swatch = Swatch::None;
    Rgb colour{};
    std::string text;
};

int legend_item_width(Font& font, const LegendItem& it) {
    return (it.swatch == Swatch::None ? 0 : kSwatch + 6) + font.text_width(it.text, kLegendPx);
}

void draw_legend_item(Canvas& cv, Font& font, const LegendItem& it, int x, int y) {  // y = top of the line
    const int lh = std::max(kSwatch, font.line_height(kLegendPx));
    const int sy = y + (lh - kSwatch) / 2;
    switch (it.swatch) {
        case Swatch::Colour: cv.fill(x, sy, kSwatch, kSwatch, it.colour); break;
        case Swatch::Hidden:
            cv.fill(x, sy, kSwatch, kSwatch, kHiddenBase);
            cv.hatch(x, sy, kSwatch, kSwatch, kHiddenLine, kHatch, true);
            break;
        case Swatch::Skipped:
            cv.fill(x, sy, kSwatch, kSwatch, kHiddenBase);
            cv.hatch(x, sy, kSwatch, kSwatch, kHiddenLine, kHatch, true);
            cv.blend(x, sy, kSwatch, kSwatch, kSkippedShade, 150);
            cv.hatch(x, sy, kSwatch, kSwatch, kSkippedLine, kHatch, false);
            break;
        case Swatch::TileLine:
            cv.fill(x, sy, kSwatch, kSwatch, kViridis[128]);
            cv.frame(x, sy, kSwatch, kSwatch, 2, kTileLine);
            break;
        case Swatch::None: break;
    }
    if (it.swatch != Swatch::None && it.swatch != Swatch::TileLine) cv.frame(x, sy, kSwatch, kSwatch, 1, kFrame);
    const int tx = x + (it.swatch == Swatch::None ? 0 : kSwatch + 6);
    cv.text(font, it.text, kLegendPx, tx, y + lh / 2, Align::Start, Align::Centre, kInk);
}

// Items flowed left to right in lines of at most `width` pixels: the line of each item and its x.
struct Flow {
    std::vector<std::pair<int, int>> at;  // (line, x offset)
    int lines = 0, widest = 0;
};
Flow flow(Font& font, const std::vector<LegendItem>& items, int width) {
    Flow f;
    int x = 0, line = 0;
    constexpr int kGap = 26;
    for (const LegendItem& it : items) {
        const int w = legend_item_width(font, it);
        if (x > 0 && x + w > width) {
            ++line;
            x = 0;
        }
        f.at.emplace_back(line, x);
        f.widest = std::max(f.widest, x + w);
        x += w + kGap;
    }
    f.lines = items.empty() ? 0 : line + 1;
    return f;
}

// ---------------------------------------------------------------------------------------------------
// One image

std::optional<Image> render_sheet(const Trace& t, const Sheet& sheet, Font& font) {
    const Matrix m = sheet.matrix;
    const std::size_t H = t.heads.size();
    if (H == 0 || !present(t.heads[0], m)) return std::nullopt;

    // 1. Panels, after checking every head has this matrix in the same shape as its mask.
    std::size_t T = 0, S = 0;
    std::deque<Mask> all_visible;  // stands in for a mask that was not computed
    std::vector<Panel> panels(H);
    for (std::size_t h = 0; h < H; ++h) {
        const HeadTrace& ht = t.heads[h];
        const std::string what = std::string(title_word({m, false}));
        if (!present(ht, m))
            throw std::invalid_argument("render_pngs: head " + std::to_string(h) + " has no " + what +
                                        " but head 0 has: every head of a trace must have the same matrices");
        const Mat* v = values_of(ht, m);
        const std::size_t r = v ? v->shape(0) : ht.mask.shape(0), c = v ? v->shape(1) : ht.mask.shape(1);
        if (h == 0) {
            T = r;
            S = c;
        } else if (r != T || c != S) {
            throw std::invalid_argument("render_pngs: head " + std::to_string(h) + " " + what + " are " +
                                        shape_str(r, c) + " but head 0 " + what + " are " + shape_str(T, S) +
                                        ": every head of a trace must have the same (T, S)");
        }
        if (ht.mask.size() != 0 && (ht.mask.shape(0) != T || ht.mask.shape(1) != S))
            throw std::invalid_argument("render_pngs: head " + std::to_string(h) + " mask is " +
                                        shape_str(ht.mask.shape(0), ht.mask.shape(1)) + " but its " + what + " are " +
                                        shape_str(T, S) + ": the mask must be (T, S)");
        Panel& p = panels[h];
        p.head = ht.head;
        p.kv_head = ht.kv_head;
        p.src = v;
        if (ht.mask.size() != 0) {
            p.src_vis = &ht.mask;
        } else {
            all_visible.emplace_back(Mask::from_shape({T, S}));
            std::fill(all_visible.back().begin(), all_visible.back().end(), std::uint8_t{1});
            p.src_vis = &all_visible.back();
        }
    }
    if (T == 0 || S == 0) return std::nullopt;

    // 2. Grid shape: about 4 panels a row, rows balanced (8 heads -> 4 x 2, 6 -> 3 x 2).
    const bool grid = H > 1;
    int gcols = static_cast<int>(std::min<std::size_t>(H, std::max<std::size_t>(4, static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(H)))))));
    const int grows = static_cast<int>((H + static_cast<std::size_t>(gcols) - 1) / static_cast<std::size_t>(gcols));
    gcols = static_cast<int>((H + static_cast<std::size_t>(grows) - 1) / static_cast<std::size_t>(grows));

    // 3. Layout, pooling, colour scale.
    Layout L = make_layout(t, panels, m, grid, gcols, grows, T, S, font);
    if (L.fq > 1 || L.fk > 1)
        for (Panel& p : panels) pool(p, L.fq, L.fk, m == Matrix::Scores);
    if (L.fq > 1 || L.fk > 1) L = make_layout(t, panels, m, grid, gcols, grows, T, S, font);
    const Scale sc = scale_for(m, panels);

    // kv groups: framed bands when some key/value head serves several query heads.
    std::vector<std::size_t> kv_ids;
    for (const Panel& p : panels)
        if (std::find(kv_ids.begin(), kv_ids.end(), p.kv_head) == kv_ids.end()) kv_ids.push_back(p.kv_head);
    const bool grouped = grid && kv_ids.size() < H;
    const auto group_colour = [&](std::size_t kv) {
        const auto idx = static_cast<std::size_t>(std::find(kv_ids.begin(), kv_ids.end(), kv) - kv_ids.begin());
        return kGroupColours[idx % kGroupColours.size()];
    };

    // 4. Texts.
    const std::string kind = t.kind.empty() ? std::string("attention") : t.kind;
    const char* dot = " \xC2\xB7 ";
    std::string title = kind + dot;
    if (grid) {
        title += std::to_string(H) + " heads";
        if (grouped) title += dot + std::to_string(kv_ids.size()) + (kv_ids.size() == 1 ? " kv head" : " kv heads");
    } else {
        title += "head " + std::to_string(t.heads[0].head);
    }
    title += dot + std::string(title_word(sheet));
    if (L.fq > 1 || L.fk > 1) title += dot + std::string("max-pooled ") + std::to_string(L.fq) + "\xC3\x97" + std::to_string(L.fk);

    std::string subtitle = std::to_string(T) + (T == 1 ? " query" : " queries") + " \xC3\x97 " + std::to_string(S) +
                           (S == 1 ? " key" : " keys") + dot;
    switch (m) {
        case Matrix::Scores: {
            const float s = t.heads[0].scale;
            subtitle += s == 1.0f ? "raw scores, before the mask"
                                  : "raw scores, before the \xC3\x97" + short_number(s) + " scaling and the mask";
            break;
        }
        case Matrix::Mask: subtitle += "which keys each query may attend to"; break;
        case Matrix::Weights:
            if (sheet.tiles) {
                std::size_t visited = 0, total = 0;
                for (const Panel& p : panels) {
                    const std::vector<std::uint8_t> seen = visited_tiles(t, p.head, T, S);
                    total += seen.size();
                    visited += static_cast<std::size_t>(std::count(seen.begin(), seen.end(), std::uint8_t{1}));
                }
                subtitle += "tiled online softmax: " + std::to_string(visited) + " of " + std::to_string(total) +
                            " tiles computed";
            } else {
                subtitle += "softmax over the visible keys of each query";
            }
            break;
        case Matrix::DroppedWeights:
            subtitle += "after dropout p = " + short_number(t.config.dropout) +
                        ": dropped weights are 0, kept ones \xC3\x97" "1/(1\xE2\x88\x92p)";
            break;
    }
    if (L.fq > 1 || L.fk > 1)
        subtitle += dot + std::string("each cell the largest ") + (m == Matrix::Scores ? "|score|" : "value") +
                    " of " + std::to_string(L.fq) + "\xC3\x97" + std::to_string(L.fk);

    std::vector<LegendItem> legend;
    const bool any_hidden = std::any_of(panels.begin(), panels.end(), [](const Panel& p) {
        return std::memchr(p.visible().data(), 0, p.visible().size()) != nullptr;
    });
    if (m != Matrix::Mask && any_hidden) legend.push_back({Swatch::Hidden, {}, "hidden by the mask (no value)"});
    std::size_t tiles_skipped = 0;
    if (sheet.tiles)
        for (const Panel& p : panels) {
            const std::vector<std::uint8_t> seen = visited_tiles(t, p.head, T, S);
            tiles_skipped += static_cast<std::size_t>(std::count(seen.begin(), seen.end(), std::uint8_t{0}));
        }
    if (sheet.tiles) {
        const auto [bq, bk] = tile_blocks(t);
        legend.push_back({Swatch::TileLine, {}, "tile: block_q = " + std::to_string(bq) + " queries \xC3\x97 block_k = " +
                                                    std::to_string(bk) + " keys"});
        if (tiles_skipped > 0)
            legend.push_back({Swatch::Skipped, {}, "skipped: never computed, the mask hides the whole tile"});
    }
    if ((m == Matrix::Weights || m == Matrix::DroppedWeights) && !t.empty_rows.empty()) {
        std::string s = "every key hidden (weights 0) for quer" + std::string(t.empty_rows.size() == 1 ? "y " : "ies ");
        for (std::size_t i = 0; i < t.empty_rows.size() && i < 12; ++i) s += (i ? ", " : "") + std::to_string(t.empty_rows[i]);
        if (t.empty_rows.size() > 12) s += ", \xE2\x80\xA6";
        legend.push_back({Swatch::None, {}, s});
    }
    if (grouped)
        for (std::size_t kv : kv_ids) {
            std::vector<std::size_t> heads;
            for (const Panel& p : panels)
                if (p.kv_head == kv) heads.push_back(p.head);
            legend.push_back({Swatch::Colour, group_colour(kv),
                              "kv head " + std::to_string(kv) + " shared by query head" + (heads.size() > 1 ? "s " : " ") +
                                  head_ranges(heads)});
        }

    // 5. Geometry of the whole image.
    const int title_lh = font.line_height(kTitlePx), sub_lh = font.line_height(kSubtitlePx);
    const int legend_lh = std::max(kSwatch, font.line_height(kLegendPx));
    const int pad = grouped ? 10 : 0;  // band around grouped panels
    const int gap_x = 30 + 2 * pad, gap_y = 18 + 2 * pad;
    const int grid_top = kMargin + title_lh + 4 + sub_lh + 14;
    const auto panel_x = [&](int c) { return kMargin + pad + c * (L.panel_w + gap_x); };
    const auto panel_y = [&](int r) { return grid_top + pad + r * (L.panel_h + gap_y); };
    const int grid_w = gcols * L.panel_w + (gcols - 1) * gap_x + 2 * pad;
    const int grid_h = grows * L.panel_h + (grows - 1) * gap_y + 2 * pad;

    // Right of the grid: the colour bar (with a caption) or the mask's legend.
    const int bar_x = kMargin + grid_w + 28;
    const int bar_y = panel_y(0) + L.heat_y;
    const int bar_h = std::max(140, panel_y(grows - 1) + L.heat_y + L.heat_h - bar_y);
    const char* bar_caption = m == Matrix::Scores ? "score" : m == Matrix::DroppedWeights ? "dropped weight" : "weight";
    std::vector<LegendItem> side;
    int side_w = 0, side_bottom = bar_y + bar_h;
    if (m == Matrix::Mask) {
        side.push_back({Swatch::Colour, kMaskVisible, "visible (1)"});
        side.push_back({Swatch::Hidden, {}, "hidden (0)"});
        for (const auto& it : side) side_w = std::max(side_w, legend_item_width(font, it));
        side_bottom = bar_y + static_cast<int>(side.size()) * (legend_lh + 8);
    } else {
        side_w = std::max(bar_labels_width(font, sc), font.text_width(bar_caption, kCaptionPx));
        side_bottom += font.line_height(kTickPx) / 2;
    }
    int width = bar_x + side_w + kMargin;
    width = std::max(width, kMargin + font.text_width(title, kTitlePx) + kMargin);
    width = std::max(width, kMargin + font.text_width(subtitle, kSubtitlePx) + kMargin);
    Flow fl = flow(font, legend, width - 2 * kMargin);
    width = std::max(width, kMargin + fl.widest + kMargin);
    const int legend_y = std::max(grid_top + grid_h, side_bottom) + 14;
    const int height = legend_y + fl.lines * (legend_lh + 6) + kMargin;

    // 6. Draw.
    Canvas cv(width, height, kBackground);
    cv.text(font, title, kTitlePx, kMargin, kMargin, Align::Start, Align::Start, kInk);
    cv.text(font, subtitle, kSubtitlePx, kMargin, kMargin + title_lh + 4, Align::Start, Align::Start, kSoftInk);
    if (grouped)
        for (int r = 0; r < grows; ++r)
            for (int c = 0; c < gcols;) {  // one band per run of neighbours sharing a kv head
                const std::size_t h0 = static_cast<std::size_t>(r * gcols + c);
                if (h0 >= H) break;
                int c1 = c;
                while (c1 + 1 < gcols && h0 + static_cast<std::size_t>(c1 - c + 1) < H &&
                       panels[h0 + static_cast<std::size_t>(c1 - c + 1)].kv_head == panels[h0].kv_head)
                    ++c1;
                const Rgb gc = group_colour(panels[h0].kv_head);
                const int x0 = panel_x(c) - pad, y0 = panel_y(r) - pad;
                const int w = panel_x(c1) + L.panel_w + pad - x0, h = L.panel_h + 2 * pad;
                cv.blend(x0, y0, w, h, gc, 24);
                cv.frame(x0, y0, w, h, 3, gc);
                c = c1 + 1;
            }
    for (std::size_t h = 0; h < H; ++h) {
        const int c = static_cast<int>(h % static_cast<std::size_t>(gcols)), r = static_cast<int>(h / static_cast<std::size_t>(gcols));
        const int x = panel_x(c), y = panel_y(r);
        const int hx = x + L.heat_x, hy = y + L.heat_y;
        if (grid)
            cv.text(font, "head " + std::to_string(panels[h].head) + dot + "kv " + std::to_string(panels[h].kv_head),
                    kPanelTitlePx, hx + L.heat_w / 2, y + 2, Align::Centre, Align::Start, kInk);
        draw_labels(cv, font, L, hx, hy, h == 0);
        draw_heatmap(cv, font, L, panels[h], m, sc, hx, hy);
        if (sheet.tiles) draw_tiles(cv, font, t, L, panels[h].head, hx, hy);
    }
    if (m == Matrix::Mask) {
        for (std::size_t i = 0; i < side.size(); ++i)
            draw_legend_item(cv, font, side[i], bar_x, bar_y + static_cast<int>(i) * (legend_lh + 8));
    } else {
        draw_colour_bar(cv, font, sc, bar_x, bar_y, bar_h);
        cv.text(font, bar_caption, kCaptionPx, bar_x, bar_y - 6, Align::Start, Align::End, kSoftInk);
    }
    for (std::size_t i = 0; i < legend.size(); ++i)
        draw_legend_item(cv, font, legend[i], kMargin + fl.at[i].second, legend_y + fl.at[i].first * (legend_lh + 6));
    return cv.take();
}

}  // namespace

std::vector<PngFile> render_pngs(const Trace& t, const PngOptions& opt) {
    std::string prefix = opt.prefix.empty() ? (t.kind.empty() ? std::string("attn") : t.kind) : opt.prefix;
    if (prefix.find_first_of("/\\") != std::string::npos || prefix == "." || prefix == "..")
        throw std::invalid_argument("PNG prefix \"" + prefix + "\" must be a plain file name prefix, without a directory");
    std::vector<PngFile> out;
    if (t.heads.empty()) return out;
    Font font;
    std::vector<Sheet> sheets{{Matrix::Scores}, {Matrix::Mask}, {Matrix::Weights}, {Matrix::DroppedWeights}};
    if (!t.tiles.empty()) sheets.push_back({Matrix::Weights, true});
    if (opt.weights_only) sheets = {{Matrix::Weights}};
    for (const Sheet& s : sheets)
        if (std::optional<Image> img = render_sheet(t, s, font))
            out.push_back({prefix + "-" + file_word(s) + ".png", encode_png(*img)});
    return out;
}

}  // namespace attn::render
