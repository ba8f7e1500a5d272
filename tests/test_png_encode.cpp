// The PNG encoder (render/backends/png_encode.h via render/outputs/figures.h): pixels round-trip through stb_image and
// zlib's inflate (figures as drawn, and images made to hit every kind of match and the Huffman length limit), the
// bytes are the same for any number of threads, a large image is one valid zlib stream with correct chunk CRCs,
// bad images are refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <zlib.h>

#include "render/backends/canvas.h"
#include "render/backends/encode.h"
#include "render/backends/png_encode.h"
#include "render/layout/draw_figure.h"
#include "render/layout/drawing.h"
#include "render/layout/figure.h"
#include "render/outputs/figures.h"
#include "render/text/font.h"
#include "render/view/figure_views.h"
#include "render/view/style.h"
#include "tests/png_helpers.h"

namespace render = attn::render;
using namespace attn::test::png;

TEST_CASE("encode_png writes a PNG that decodes to the same pixels") {
    render::Image img;
    img.width = 5;
    img.height = 3;
    for (int i = 0; i < 15; ++i) {
        img.rgb.push_back(static_cast<std::uint8_t>(i * 17));
        img.rgb.push_back(static_cast<std::uint8_t>(255 - i));
        img.rgb.push_back(static_cast<std::uint8_t>(i % 2 ? 200 : 3));
    }
    const std::string png = render::encode_png(img);
    REQUIRE(png.size() > 8);
    CHECK(png.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) == 0);
    const Decoded d = decode(png);
    CHECK(d.w == 5);
    CHECK(d.h == 3);
    CHECK(d.rgb == img.rgb);
}

TEST_CASE("a large image is deflated in parts that make one valid zlib stream, the same on every run") {
    // 1200 x 1800 px (6.5 MB of rows): several parts whatever the part size. Runs of one colour (long
    // matches) and pseudo-random bytes (literals) in bands.
    render::Image img;
    img.width = 1200;
    img.height = 1800;
    img.rgb.resize(std::size_t{1200} * 1800 * 3);
    std::uint32_t lcg = 12345;
    for (std::size_t i = 0; i < img.rgb.size(); ++i) {
        lcg = lcg * 1664525u + 1013904223u;
        const std::size_t y = i / (1200 * 3);
        img.rgb[i] = (y / 100) % 2 == 0 ? static_cast<std::uint8_t>(lcg >> 24) : static_cast<std::uint8_t>(y);
    }
    const std::string png = render::encode_png(img);
    CHECK(render::encode_png(img) == png);

    // Walk the chunks: every CRC checks, IHDR first (1200 x 1800, 8-bit RGB), then IDAT, then IEND.
    REQUIRE(png.size() > 8);
    REQUIRE(png.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) == 0);
    const auto u32 = [&](std::size_t at) {
        const auto b = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + k])); };
        return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
    };
    std::vector<std::string> types;
    std::string idat;
    for (std::size_t at = 8; at < png.size();) {
        REQUIRE(at + 12 <= png.size());
        const std::uint32_t len = u32(at);
        REQUIRE(at + 12 + len <= png.size());
        types.push_back(png.substr(at + 4, 4));
        const auto* body = reinterpret_cast<const Bytef*>(png.data() + at + 4);
        CHECK(crc32(0UL, body, 4 + len) == u32(at + 8 + len));
        if (types.back() == "IHDR") {
            CHECK(u32(at + 8) == 1200);
            CHECK(u32(at + 12) == 1800);
            CHECK(png.substr(at + 16, 5) == std::string("\x08\x02\x00\x00\x00", 5));
        }
        if (types.back() == "IDAT") idat += png.substr(at + 8, len);
        at += 12 + len;
    }
    REQUIRE(types.size() >= 3);
    CHECK(types.front() == "IHDR");
    CHECK(types.back() == "IEND");

    // zlib's own inflate (which checks the Adler-32) gives the rows, each behind filter byte 0.
    std::vector<unsigned char> raw(std::size_t{1800} * (1200 * 3 + 1) + 1);
    uLongf raw_len = static_cast<uLongf>(raw.size());
    REQUIRE(uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), static_cast<uLong>(idat.size())) == Z_OK);
    REQUIRE(raw_len == std::size_t{1800} * (1200 * 3 + 1));
    bool rows_match = true;
    for (std::size_t y = 0; y < 1800; ++y) {
        const unsigned char* r = raw.data() + y * (1200 * 3 + 1);
        rows_match = rows_match && r[0] == 0 && std::equal(r + 1, r + 1 + 1200 * 3, img.rgb.begin() + static_cast<std::ptrdiff_t>(y * 1200 * 3));
    }
    CHECK(rows_match);
    CHECK(decode(png).rgb == img.rgb);
}

TEST_CASE("encode_png refuses bad images") {
    CHECK_THROWS_AS(render::encode_png(render::Image{}), std::runtime_error);
    render::Image wrong{4, 4, std::vector<std::uint8_t>(10)};
    CHECK_THROWS_AS(render::encode_png(wrong), std::runtime_error);
    render::Image huge{40000, 40000, {}};  // (40000*4+1)*40000 > 2^30: refused before any allocation
    CHECK_THROWS_WITH_AS(render::encode_png(huge), doctest::Contains("too large"), std::runtime_error);
}

namespace {

// The rows a PNG's IDAT inflates to (zlib's own inflate, which checks the Adler-32), each behind its filter byte.
std::vector<unsigned char> inflated_rows(const std::string& png, std::size_t w, std::size_t h) {
    std::string idat;
    const auto u32 = [&](std::size_t at) {
        const auto b = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(png[at + k])); };
        return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
    };
    for (std::size_t at = 8; at + 12 <= png.size();) {
        const std::uint32_t len = u32(at);
        if (png.compare(at + 4, 4, "IDAT") == 0) idat += png.substr(at + 8, len);
        at += 12 + len;
    }
    std::vector<unsigned char> raw(h * (w * 3 + 1) + 1);
    uLongf raw_len = static_cast<uLongf>(raw.size());
    REQUIRE(uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), static_cast<uLong>(idat.size())) == Z_OK);
    raw.resize(raw_len);
    return raw;
}

// What the PNG's rows must be: each image row behind filter byte 0.
std::vector<unsigned char> rows_of(const render::Image& img) {
    const std::size_t stride = static_cast<std::size_t>(img.width) * 3;
    std::vector<unsigned char> rows;
    for (std::size_t y = 0; y < static_cast<std::size_t>(img.height); ++y) {
        rows.push_back(0);
        rows.insert(rows.end(), img.rgb.begin() + static_cast<std::ptrdiff_t>(y * stride),
                    img.rgb.begin() + static_cast<std::ptrdiff_t>((y + 1) * stride));
    }
    return rows;
}

// Checks that img's PNG decodes to its pixels through both decoders and is the same for 1, 2 and 8 threads.
void check_round_trip(const render::Image& img) {
    const std::string png = render::encode_png(img);
    CHECK(inflated_rows(png, static_cast<std::size_t>(img.width), static_cast<std::size_t>(img.height)) == rows_of(img));
    const Decoded d = decode(png);
    CHECK(d.w == img.width);
    CHECK(d.h == img.height);
    CHECK(d.rgb == img.rgb);
    CHECK(render::encode_png(img, 1) == png);
    CHECK(render::encode_png(img, 2) == png);
    CHECK(render::encode_png(img, 8) == png);
}

}  // namespace

TEST_CASE("a figure's PNG decodes to exactly the pixels drawn, text, colour bar and hatching included") {
    const attn::Trace t = causal_trace(kSix);
    render::Font font("");
    for (const char* name : {"scores", "mask", "weights"}) {
        INFO(name);
        std::optional<render::FigureView> v = render::figure_view(t, name, render::ColourSpec{});
        REQUIRE(v);
        std::optional<render::Figure> f = render::make_figure(t, std::move(*v), font);
        REQUIRE(f);
        const render::Drawing drawing = render::figure_drawing(std::move(*f), font, name);
        render::Canvas cv(drawing.width, drawing.height, render::kBackground, 2);  // show's default scale
        drawing.draw(cv);
        check_round_trip(cv.image());
    }
}

TEST_CASE("images of flat runs, repeated rows, diagonals, skewed noise and odd widths round-trip through zlib and stb_image") {
    std::uint32_t lcg = 2024;
    const auto next = [&] { return lcg = lcg * 1664525u + 1013904223u; };
    // widths 1 to 7 (rows shorter than a match), a width whose row is past deflate's 32 KiB window
    // (11000 px: no match with the row above), and a middle one
    for (int width : {1, 2, 3, 4, 7, 11000, 301}) {
        INFO("width " << width);
        render::Image img{width, width == 11000 ? 5 : 97, {}};
        img.rgb.resize(static_cast<std::size_t>(img.width) * static_cast<std::size_t>(img.height) * 3);
        const std::size_t stride = static_cast<std::size_t>(width) * 3;
        for (std::size_t y = 0; y < static_cast<std::size_t>(img.height); ++y)
            for (std::size_t x = 0; x < static_cast<std::size_t>(width); ++x)
                for (std::size_t c = 0; c < 3; ++c) {
                    std::uint8_t v = 0;
                    switch (y / 8 % 5) {
                        case 0: v = static_cast<std::uint8_t>(x / 13 * 40 + c); break;                  // flat runs
                        case 1: v = static_cast<std::uint8_t>(x * 7 + c * 3); break;                    // rows repeat
                        case 2: v = static_cast<std::uint8_t>((x + y) % 9 == 0 ? 30 : 220); break;      // "/" hatching
                        case 3: v = static_cast<std::uint8_t>((x + 1000 - y) % 7 == 0 ? 10 : 250); break;  // "\" hatching
                        default: v = static_cast<std::uint8_t>(__builtin_ctz(next() | 0x80000000u)); break;  // skewed noise
                    }
                    img.rgb[y * stride + x * 3 + c] = v;
                }
        check_round_trip(img);
    }
}

TEST_CASE("skewed noise whose Huffman codes would pass 15 bits still round-trips") {
    // bytes with P(k) = 2^-(k+1): a plain Huffman code would give the rarest values codes of 20 bits and
    // more; deflate allows 15, so the encoder's length limit is what this exercises
    render::Image img{1024, 1024, {}};
    img.rgb.resize(std::size_t{1024} * 1024 * 3);
    std::uint64_t x = 88172645463325252ull;
    for (auto& v : img.rgb) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v = static_cast<std::uint8_t>(__builtin_ctzll(x | (1ull << 40)));
    }
    check_round_trip(img);
}

TEST_CASE("PngParts' steps in any order give encode_png's bytes, figures drawn ahead give encode's bytes, and a drawing that throws is rethrown") {
    render::Image img;
    img.width = 700, img.height = 900;  // 1.9 MB of rows: several parts
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            for (int c = 0; c < 3; ++c) img.rgb.push_back(static_cast<std::uint8_t>((x / 40 + y / 30 + c) % 7 * 37));
    const std::string whole = render::encode_png(img);
    render::PngParts parts(img);
    REQUIRE(parts.tasks() == render::PngParts::tasks(img.width, img.height));
    REQUIRE(parts.tasks() >= 2);
    for (std::size_t i = parts.tasks(); i-- > 0;) parts.run(i);  // last step first
    CHECK(parts.file() == whole);

    // three small drawings (pipelined: well under 16 MiB of canvas) against encode() one by one
    std::vector<render::Drawing> drawings;
    for (int k = 0; k < 3; ++k)
        drawings.push_back({"d" + std::to_string(k), 300 + 40 * k, 200, [k](render::Surface& s) {
                                s.fill(10 * k, 5, 120, 90, render::Rgb{static_cast<std::uint8_t>(40 * k), 120, 200});
                                s.fill(150, 20 + k, 30, 150, render::Rgb{250, 10, static_cast<std::uint8_t>(60 * k)});
                            }});
    const std::vector<std::string> ahead = render::encode_all(drawings, 2, render::FileType::png);
    REQUIRE(ahead.size() == 3);
    for (std::size_t k = 0; k < 3; ++k) CHECK(ahead[k] == render::encode(drawings[k], 2, render::FileType::png));
    // the second drawing fails: the error comes back, and the steps waiting for it do not wait forever
    drawings[1].draw = [](render::Surface&) { throw std::runtime_error("drawing 1 failed"); };
    CHECK_THROWS_WITH_AS(render::encode_all(drawings, 2, render::FileType::png), "drawing 1 failed", std::runtime_error);
    drawings[0].draw = [](render::Surface&) { throw std::runtime_error("drawing 0 failed"); };
    CHECK_THROWS_WITH_AS(render::encode_all(drawings, 2, render::FileType::png), "drawing 0 failed", std::runtime_error);
}
