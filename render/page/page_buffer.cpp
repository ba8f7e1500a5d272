#include "render/page/page_buffer.h"


#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "render/page/html.h"

namespace attn::render {

const char* stage_name(PageMatrix s) {
    switch (s) {
        case PageMatrix::Weights: return "weights";
        case PageMatrix::Scores: return "scores";
        case PageMatrix::MaskedScores: return "masked-scores";
        case PageMatrix::Mask: return "mask";
        case PageMatrix::Dropped: return "dropped";
    }
    return "";
}
bool has_stage(const HeadTrace& h, PageMatrix s) {
    switch (s) {
        case PageMatrix::Weights: return h.weights.size() != 0;
        case PageMatrix::Scores: return h.scores.size() != 0;
        case PageMatrix::MaskedScores: return h.scores.size() != 0 && h.mask.size() != 0;
        case PageMatrix::Mask: return h.mask.size() != 0;
        case PageMatrix::Dropped: return h.dropped_weights.size() != 0;
    }
    return false;
}
// The stage's value at (i, j): masked scores are scale · score as the kinds compute them (float32).
float stage_value(const HeadTrace& h, PageMatrix s, std::size_t i, std::size_t j) {
    switch (s) {
        case PageMatrix::Weights: return h.weights(i, j);
        case PageMatrix::Scores: return h.scores(i, j);
        case PageMatrix::MaskedScores: return h.scale * h.scores(i, j);
        case PageMatrix::Mask: return h.mask(i, j) ? 1.0f : 0.0f;
        case PageMatrix::Dropped: return h.dropped_weights(i, j);
    }
    return 0.0f;
}

namespace {

// ---- the data buffer ------------------------------------------------------------------------------

// |v| below 2^31 / 10^4: ten-thousandths are exact (see html.h) and any span of them fits 4 bytes.
constexpr double kMaxExact = 2147483648.0 / 10000.0;

// The page's prediction of a masked score from the raw score's ten-thousandths ks: scale · ks rounded
// half up, exactly as its Math.round(Math.fround(scale) * ks) computes it (a float's 24 bits times
// |ks| < 2^29 fits a double). The stored residual is then mostly -1, 0 or 1: masked scores cost
// almost nothing beside the scores, and still read back exactly.
constexpr std::int64_t kMaxPredicted = std::int64_t(1) << 29;
std::int64_t predict_masked(float scale, std::int64_t ks) {
    const double x = static_cast<double>(scale) * static_cast<double>(ks);
    const double r = std::floor(x);
    return static_cast<std::int64_t>(x - r >= 0.5 ? r + 1.0 : r);
}

// The page's prediction of a layer mean's cell from its heads' stored weights ks (ten-thousandths): their
// sum over H, rounded half up, as its Math.round(sum / H) computes it (the sum is an exact integer, the
// quotient the same double in both). On a 12 x 12-head page at 128 tokens the residuals are -1, 0 or 1 and
// the layer means' share of the deflated data fell from 103 KB to a few KB.
std::int64_t predict_mean(std::int64_t sum, std::size_t H) {
    const double x = static_cast<double>(sum) / static_cast<double>(H);
    const double r = std::floor(x);
    return static_cast<std::int64_t>(x - r >= 0.5 ? r + 1.0 : r);
}

}  // namespace

// Appends one (T, S) stage to `blob` and returns its descriptor [offset, bytes per value, base, lo, hi]
// (and a sixth element "scores" when the values are residuals from predict_masked of the scores, or
// "heads" and a seventh, the heads' weights descriptors, when they are residuals from predict_mean):
// values are base + an unsigned integer of that many bytes (byte b of cell c at offset + b·T·S + c, the
// low byte first), in ten-thousandths; bytes per value 0 means raw float32 (values too large for
// exact ten-thousandths). lo and hi are the smallest and largest visible value (ten-thousandths, or
// the floats themselves), for the colours. Hidden cells are stored as 0, but for the raw scores: those
// are computed for every cell before the mask, so the readout can show a hidden one's value.
Json encode_stage(const HeadTrace& h, PageMatrix s, std::size_t T, std::size_t S, std::string& blob,
                  const std::vector<HeadTrace>* mean_of, const Json* mean_descs) {
    const auto visible = [&](std::size_t i, std::size_t j) {
        return s == PageMatrix::Mask || h.mask.size() == 0 || h.mask(i, j) != 0;
    };
    const auto stored = [&](std::size_t i, std::size_t j) { return s == PageMatrix::Scores || visible(i, j); };
    const std::size_t N = T * S, offset = blob.size();
    // 1. the visible range (the colours); every stored value exact in ten-thousandths?
    bool exact = true, any = false;
    float flo = std::numeric_limits<float>::infinity(), fhi = -flo;
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < S; ++j) {
            if (stored(i, j)) exact = exact && std::fabs(static_cast<double>(stage_value(h, s, i, j))) < kMaxExact;
            if (visible(i, j)) {
                const float v = stage_value(h, s, i, j);
                flo = std::min(flo, v), fhi = std::max(fhi, v), any = true;
            }
        }
    if (!any) flo = fhi = 0.0f;
    // 2. raw float32 for values beyond exact ten-thousandths
    if (!exact) {
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t j = 0; j < S; ++j) {
                const float v = stored(i, j) ? stage_value(h, s, i, j) : 0.0f;
                blob.append(reinterpret_cast<const char*>(&v), 4);  // little-endian machines only (x86, ARM)
            }
        return Json::array({offset, 0, 0, flo, fhi});
    }
    // 3. ten-thousandths, minus the prediction for masked scores (when the scores are small enough)
    const std::int64_t lo = ten_thousandths(flo), hi = ten_thousandths(fhi);
    bool predicted = s == PageMatrix::MaskedScores;
    for (std::size_t i = 0; predicted && i < T; ++i)
        for (std::size_t j = 0; predicted && j < S; ++j)
            predicted = std::fabs(static_cast<double>(h.scores(i, j))) * 10000.0 < double(kMaxPredicted);
    std::vector<std::int64_t> k(N, 0);
    std::int64_t kmin = std::numeric_limits<std::int64_t>::max(), kmax = std::numeric_limits<std::int64_t>::min();
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t j = 0; j < S; ++j)
            if (stored(i, j)) {
                std::int64_t v = ten_thousandths(stage_value(h, s, i, j));
                if (predicted) v -= predict_masked(h.scale, ten_thousandths(h.scores(i, j)));
                if (mean_of) {
                    std::int64_t sum = 0;
                    for (const HeadTrace& m : *mean_of) sum += ten_thousandths(m.weights(i, j));
                    v -= predict_mean(sum, mean_of->size());
                }
                k[i * S + j] = v, kmin = std::min(kmin, v), kmax = std::max(kmax, v);
            }
    if (kmin > kmax) kmin = kmax = 0;  // nothing stored
    // 4. byte planes of k - kmin, in the fewest bytes that hold the range: every cell's low byte, then
    //    every cell's next byte, ... (deflate then sees the high planes' long runs of small numbers)
    const auto span = static_cast<std::uint64_t>(kmax - kmin);
    const std::size_t width = span < (1ull << 8) ? 1 : span < (1ull << 16) ? 2 : span < (1ull << 24) ? 3 : 4;
    std::string cells(N * width, '\0');
    for (std::size_t c = 0; c < N; ++c) {
        if (!stored(c / S, c % S)) continue;
        auto u = static_cast<std::uint64_t>(k[c] - kmin);
        for (std::size_t b = 0; b < width; ++b, u >>= 8) cells[b * N + c] = static_cast<char>(u & 0xFF);
    }
    blob += cells;
    Json d = Json::array({offset, width, kmin, lo, hi});
    if (predicted) d.push_back("scores");
    if (mean_of) d.push_back("heads"), d.push_back(*mean_descs);
    return d;
}

std::string text7(const std::string& bytes) {
    std::string out;
    out.reserve(bytes.size() / 7 * 8 + 16);
    const std::size_t groups = (bytes.size() * 8 + 6) / 7;  // the last one padded with zeros
    std::uint32_t acc = 0;
    int bits = 0;
    std::size_t next_byte = 0;
    const auto group = [&]() -> unsigned {  // the next 7 bits, high bits first
        if (bits < 7) {
            const unsigned b = next_byte < bytes.size() ? static_cast<unsigned char>(bytes[next_byte]) : 0u;
            ++next_byte;
            acc = (acc << 8 | b) & 0x7FFFu;  // at most 14 bits wait to be written
            bits += 8;
        }
        bits -= 7;
        return acc >> bits & 0x7Fu;
    };
    for (std::size_t i = 0; i < groups; ++i) {
        const unsigned g = group();
        const unsigned k = g == kText7Escaped[0] ? 0 : g == kText7Escaped[1] ? 1 : g == kText7Escaped[2] ? 2 : 3;
        if (k == 3) {
            out += static_cast<char>(g);
            continue;
        }
        const unsigned next = i + 1 < groups ? (++i, group()) : 0;
        const unsigned cp = 0x80 + 128 * k + next;  // U+0080..U+01FF: two bytes of UTF-8
        out += static_cast<char>(0xC0 | cp >> 6);
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return out;
}

std::string hex_colormap(const Colormap& c) {
    static const char* kHex = "0123456789abcdef";
    std::string s;
    for (const Rgb& rgb : c)
        for (std::uint8_t u : {rgb.r, rgb.g, rgb.b}) s += kHex[u >> 4], s += kHex[u & 15];
    return s;
}

}  // namespace attn::render
