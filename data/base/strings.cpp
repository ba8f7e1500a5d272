#include "data/base/strings.h"

#include <cstdio>

#include <algorithm>

namespace attn {

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
    std::string s;
    for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? sep : std::string()) + parts[i];
    return s;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

std::string nearest_name(const std::string& given, const std::vector<std::string>& candidates) {
    if (given.empty() || given.size() > 64) return {};
    std::string best;
    std::size_t best_d = std::max<std::size_t>(1, given.size() / 3) + 1;
    for (const std::string& c : candidates) {
        std::size_t d = edit_distance(given, c);
        if (given.size() >= 3 && c.size() > given.size() && c.compare(0, given.size(), given) == 0) d = std::min<std::size_t>(d, 1);
        if (d > 0 && d < best_d) best_d = d, best = c;
    }
    return best;
}

std::string decimal_bytes(double bytes) {
    const char* units[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000 && u < 4) bytes /= 1000, ++u;
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
    return buf;
}

}  // namespace attn
