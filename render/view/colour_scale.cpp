#include "render/view/colour_scale.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "data/base/error.h"
#include "render/view/numbers.h"

namespace attn::render {
namespace {

constexpr float kLogFloor = 1e-6f;  // --log never reaches below this

bool parse_float(const std::string& s, float& out) {
    if (s.empty() || s.find_first_not_of("0123456789.eE+-") != std::string::npos) return false;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v) || std::fabs(v) > 3.0e38) return false;
    out = static_cast<float>(v);
    return true;
}

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

}  // namespace

bool wants_dark_text(Rgb c) {
    const auto lin = [](std::uint8_t u) {
        const double s = u / 255.0;
        return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b) > 0.179;
}

ColourSpec::Range parse_range(const std::string& text, float& min, float& max) {
    const std::string hint = "write --range auto, --range data or --range MIN,MAX, e.g. --range 0,1";
    if (text == "auto") return ColourSpec::Range::automatic;
    if (text == "data") return ColourSpec::Range::data;
    const auto comma = text.find(',');
    if (comma == std::string::npos || !parse_float(text.substr(0, comma), min) || !parse_float(text.substr(comma + 1), max))
        usage_error("--range '" + text + "' is not auto, data or MIN,MAX", hint);
    if (!(min < max)) usage_error("--range " + text + ": MIN must be below MAX", hint);
    return ColourSpec::Range::fixed;
}

const std::vector<std::string>& colormap_names() {
    static const std::vector<std::string> names = {"viridis", "magma", "cividis", "gray"};
    return names;
}

const Colormap* find_colormap(const std::string& name) {
    if (name == "viridis") return &kViridis;
    if (name == "magma") return &kMagma;
    if (name == "cividis") return &kCividis;
    if (name == "gray") return &kGray;
    if (name == "RdBu_r") return &kRdBuR;
    return nullptr;
}

void ValueRange::add(float v) {
    if (!std::isfinite(v)) return;
    if (!any) lo = hi = v;
    lo = std::min(lo, v), hi = std::max(hi, v), mag = std::max(mag, std::fabs(v));
    if (v > 0.0f && (min_positive == 0.0f || v < min_positive)) min_positive = v;
    any = true;
}

void ValueRange::add_visible(const float* x, const std::uint8_t* vis, std::size_t n, bool positive_too) {
    float l = std::numeric_limits<float>::infinity(), h = -l, m = 0.0f;
    fold_visible_range(x, vis, n, l, h, m);
    if (!(l <= h)) return;  // nothing visible and finite
    add(l), add(h), mag = std::max(mag, m);
    if (positive_too)
        for (std::size_t i = 0; i < n; ++i)
            if (vis[i] != 0) add(x[i]);
}

float ColourScale::log_position(float v) const {
    const float x = std::log10(std::max(v, kLogFloor * 0.1f));
    return (x - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) * 256.0f;
}

std::string ColourScale::low_label() const { return (clipped_low ? "\xE2\x89\xA4 " : "") + short_number(lo); }
std::string ColourScale::high_label() const { return (clipped_high ? "\xE2\x89\xA5 " : "") + short_number(hi); }

ColourScale make_scale(ValueKind kind, const ValueRange& r, const ColourSpec& spec, const std::string& what) {
    ColourScale sc;
    const char* dash = "\xE2\x80\x93";
    if (kind == ValueKind::signed_value) {
        // 1. diverging, centred on 0: ±(largest visible |value|)
        const float m = r.mag > 0.0f ? r.mag : 1.0f;
        sc.lo = -m, sc.hi = m;
        sc.cmap = &kRdBuR, sc.cmap_name = "RdBu_r";
        sc.caption = what + ", 0 = white";
        return sc;
    }
    // 2. probabilities: 0..1, the data's own span, or the user's
    sc.cmap = find_colormap(spec.colormap);
    if (sc.cmap == nullptr) sc.cmap = &kViridis;
    sc.cmap_name = spec.colormap;
    switch (spec.range) {
        case ColourSpec::Range::automatic:
            sc.lo = 0.0f, sc.hi = 1.0f;
            sc.caption = what + ", fixed 0" + dash + "1";
            break;
        case ColourSpec::Range::data:
            sc.lo = r.any ? r.lo : 0.0f;
            sc.hi = r.any && r.hi > sc.lo ? r.hi : sc.lo + 1.0f;
            sc.caption = what + ", this matrix's range";
            break;
        case ColourSpec::Range::fixed:
            sc.lo = spec.min, sc.hi = spec.max;
            sc.caption = what + ", --range " + short_number(spec.min) + "," + short_number(spec.max);
            break;
    }
    // 3. log10: the bottom must be positive
    if (spec.log) {
        sc.log = true;
        if (spec.range != ColourSpec::Range::fixed || sc.lo <= 0.0f) {
            const float smallest = r.min_positive > 0.0f ? r.min_positive : kLogFloor;
            sc.lo = std::max(kLogFloor, std::pow(10.0f, std::floor(std::log10(smallest))));
            if (spec.range == ColourSpec::Range::data && r.any && r.hi > sc.lo) sc.hi = r.hi;
            if (!(sc.hi > sc.lo)) sc.hi = sc.lo * 10.0f;
        }
        sc.caption = what + ", log scale " + short_number(sc.lo) + dash + short_number(sc.hi);
    }
    sc.clipped_low = r.any && r.lo < sc.lo;
    sc.clipped_high = r.any && r.hi > sc.hi;
    return sc;
}

}  // namespace attn::render
