#include "tests/page_helpers.h"

#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstring>

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

PageData page_data(const std::string& html) {
    const std::string open = "<script type=\"application/json\" id=\"attn-data\">";
    const auto a = html.find(open);
    REQUIRE(a != std::string::npos);
    const auto b = html.find("</script>", a);
    PageData d;
    d.json = Json::parse(html.substr(a + open.size(), b - a - open.size()));
    // base64, then zlib
    const std::string b64 = d.json["blob"];
    std::string raw;
    int bits = 0;
    std::uint32_t acc = 0;  // keeps only the bits not yet emitted (at most 14)
    for (char c : b64) {
        const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        if (c == '=') break;
        acc = (acc << 6 | static_cast<std::uint32_t>(std::strchr(digits, c) - digits)) & 0x3FFFu;
        bits += 6;
        if (bits >= 8) bits -= 8, raw += static_cast<char>((acc >> bits) & 0xFFu);
    }
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
