#include "tests/page_helpers.h"

#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include <doctest/doctest.h>

#include "render/page/html.h"

namespace attn::test {

using Json = nlohmann::json;

std::string four(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    std::string s = buf;
    return s == "-0.0000" ? "0.0000" : s;
}

namespace {

// Where the JSON of <script id="attn-data"> begins and ends in the page.
std::pair<std::size_t, std::size_t> data_span(const std::string& html) {
    const std::string open = "<script type=\"application/json\" id=\"attn-data\">";
    const auto a = html.find(open);
    REQUIRE(a != std::string::npos);
    const auto b = html.find("</script>", a);
    REQUIRE(b != std::string::npos);
    return {a + open.size(), b};
}

}  // namespace

Json page_json(const std::string& html) {
    const auto [a, b] = data_span(html);
    return Json::parse(html.substr(a, b - a));
}

PageData page_data(const std::string& html) {
    const auto [a, b] = data_span(html);
    PageData d;
    d.json = Json::parse(html.substr(a, b - a));
    // base-128 text (render/page/page_buffer.h), then zlib; decoded here from the UTF-8 bytes
    const std::string open_blob = "<script type=\"application/octet-stream\" id=\"attn-blob\">";
    const auto c = html.find(open_blob, b);
    REQUIRE(c != std::string::npos);
    const auto e = html.find("</script>", c);
    REQUIRE(e != std::string::npos);
    const std::string text = html.substr(c + open_blob.size(), e - c - open_blob.size());
    std::string raw;
    int bits = 0;
    std::uint32_t acc = 0;  // keeps only the bits not yet emitted (at most 14)
    const auto put = [&](std::uint32_t g) {
        acc = (acc << 7 | g) & 0x3FFFu;
        bits += 7;
        if (bits >= 8) bits -= 8, raw += static_cast<char>((acc >> bits) & 0xFFu);
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto u = static_cast<unsigned char>(text[i]);
        if (u < 0x80) {
            REQUIRE(u != 0);
            REQUIRE(u != '\r');
            REQUIRE(u != '<');
            put(u);
            continue;
        }
        REQUIRE(i + 1 < text.size());  // two bytes of UTF-8: 110xxxxx 10xxxxxx, code point U+0080..U+01FF
        REQUIRE((u & 0xE0u) == 0xC0u);
        const std::uint32_t cp = (u & 0x1Fu) << 6 | (static_cast<unsigned char>(text[++i]) & 0x3Fu);
        REQUIRE(cp >= 0x80);
        REQUIRE(cp <= 0x1FF);
        const std::uint32_t escaped[3] = {0, 13, 60};
        put(escaped[(cp - 0x80) >> 7]);
        put((cp - 0x80) & 0x7Fu);
    }
    REQUIRE(raw.size() >= d.json["blob_bytes"].get<std::size_t>());
    raw.resize(d.json["blob_bytes"].get<std::size_t>());
    uLongf size = d.json["raw_bytes"].get<uLongf>();
    d.blob.assign(size, '\0');
    REQUIRE(uncompress(reinterpret_cast<Bytef*>(&d.blob[0]), &size, reinterpret_cast<const Bytef*>(raw.data()),
                       static_cast<uLong>(raw.size())) == Z_OK);
    REQUIRE(size == d.json["raw_bytes"].get<uLongf>());
    return d;
}

std::int64_t page_k(const PageData& d, const Json& desc, std::size_t idx, const Json* scores, float scale, std::size_t n) {
    const std::size_t off = desc[0], w = desc[1];
    std::uint64_t u = 0;
    if (n == 0) n = d.json["tokens"].size() * d.json["source_tokens"].size();  // byte planes of T * S
    for (std::size_t b = 0; b < w; ++b) u |= std::uint64_t(static_cast<unsigned char>(d.blob[off + b * n + idx])) << (8 * b);
    std::int64_t k = desc[2].get<std::int64_t>() + static_cast<std::int64_t>(u);
    if (desc.size() > 6 && desc[5] == "heads") {  // a residual from round-half-up(the heads' mean), as the page computes it
        std::int64_t sum = 0;
        for (const Json& h : desc[6]) sum += page_k(d, h, idx, nullptr, 1, n);
        const double x = static_cast<double>(sum) / static_cast<double>(desc[6].size());
        return k + static_cast<std::int64_t>(std::floor(x + 0.5));
    }
    if (desc.size() > 5) {  // a residual from round-half-up(scale * raw score), as the page computes it
        REQUIRE(scores != nullptr);
        const double x = double(scale) * double(page_k(d, *scores, idx, nullptr, 1, n));
        k += static_cast<std::int64_t>(std::floor(x + 0.5));
    }
    return k;
}

std::string page_cell(const PageData& d, const Json& desc, std::size_t idx, const Json* scores, float scale, std::size_t n) {
    if (desc[1] == 0) {
        float f;
        std::memcpy(&f, d.blob.data() + desc[0].get<std::size_t>() + 4 * idx, 4);
        return four(f);
    }
    return render::format_ten_thousandths(page_k(d, desc, idx, scores, scale, n));
}

}  // namespace attn::test
