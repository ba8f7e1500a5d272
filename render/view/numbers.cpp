#include "render/view/numbers.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace attn::render {

std::string fixed(double v, int decimals) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "\xE2\x88\x92inf" : "inf";
    // printf's %f is exact (the nearest decimal, ties to even), as to_chars is, and needs no locale here
    // (attn never calls setlocale); the page's WebAssembly core has no floating-point to_chars
    std::array<char, 400> buf{};  // the longest double at 40 decimals: 309 + 40 digits, a sign, a point
    const int n = std::snprintf(buf.data(), buf.size(), "%.*f", std::clamp(decimals, 0, 40), v);
    if (n < 0 || static_cast<std::size_t>(n) >= buf.size()) return "?";
    std::string s(buf.data(), static_cast<std::size_t>(n));
    if (!s.empty() && s[0] == '-') {
        if (s.find_first_of("123456789") == std::string::npos) s.erase(0, 1);  // "-0.00" -> "0.00"
        else s.replace(0, 1, "\xE2\x88\x92");                                  // U+2212 minus sign
    }
    return s;
}

std::string trimmed(double v, int decimals) {
    std::string s = fixed(v, decimals);
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

std::string short_number(double v) {
    // 3 significant decimals for small numbers (0.00123 would need 5): keep 3 digits after the first
    // non-zero one below 0.01.
    int decimals = 3;
    if (v != 0.0 && std::fabs(v) < 0.01) decimals = std::min(8, 2 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
    return trimmed(v, decimals);
}

std::string shape_str(std::size_t rows, std::size_t cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

std::string head_ranges(const std::vector<std::size_t>& heads) {
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

int nice_step(int k) {
    int base = 1;
    for (;;) {
        for (int m : {1, 2, 5})
            if (m * base >= k) return m * base;
        base *= 10;
    }
}

}  // namespace attn::render
