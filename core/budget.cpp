#include "core/budget.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/kinds.h"
#include "data/error.h"

namespace attn {

HeadDims head_dims(const Config& c, std::size_t d_src) {
    HeadDims d;
    const std::string& k = c.kind;
    d.heads = (k == "mha-wrapper" || k == "mha" || k == "mqa" || k == "gqa" || k == "flash") ? c.heads : 1;
    d.kv_heads = k == "mqa" ? 1 : k == "gqa" ? c.kv_heads : d.heads;
    const bool split = k == "mha" || k == "mqa" || k == "gqa" || k == "flash";
    if (k == "simple") d.d_k = d.d_v = c.d_in;
    else if (k == "additive" || (k == "luong" && c.score == "concat")) d.d_k = c.d_out, d.d_v = d_src;
    else if (k == "luong") d.d_k = c.d_in, d.d_v = d_src;
    else d.d_k = d.d_v = split ? c.d_out / std::max<std::size_t>(c.heads, 1) : c.d_out;
    return d;
}

std::size_t estimate_run_bytes(const Config& c, std::size_t t, std::size_t s, std::size_t d_src) {
    const HeadDims d = head_dims(c, d_src);
    const double f = sizeof(float), T = double(t), S = double(s), H = double(d.heads);
    double bytes = 16.0 * 1024 * 1024;                                  // the program itself
    bytes += (T + S) * double(c.d_in) * f;                              // inputs
    bytes += 4.0 * double(std::max(c.d_in, d_src) + 1) * double(c.d_out) * double(std::max<std::size_t>(d.heads, 1)) * f;  // params
    bytes += (T * H * double(d.d_k) + 2.0 * S * double(d.kv_heads) * double(d.d_v)) * f;  // projections
    if (c.keep_weights) {
        bytes += H * (T * double(d.d_k) + S * double(d.d_k) + S * double(d.d_v)) * f;  // per-head q, k, v
        bytes += H * T * S * (2.0 * f + 1.0 + (c.dropout > 0.0f ? f : 0.0));           // scores, weights, mask
        if (c.kind == "flash") bytes += H * T * (S / double(c.block_k) + 1.0) * 2.0 * f;  // tile records
    } else {
        bytes += 2.0 * 512.0 * S * f;  // one row block of scores on each core
    }
    bytes += 3.0 * T * H * double(d.d_v) * f;  // contexts, their concatenation, the output
    return static_cast<std::size_t>(bytes);
}

namespace {
double json_numbers(const Config& c, std::size_t t, std::size_t s, std::size_t d_src, double& bools) {
    const HeadDims d = head_dims(c, d_src);
    const double T = double(t), S = double(s), H = double(d.heads);
    double n = (T + S) * double(c.d_in) + 4.0 * double(std::max(c.d_in, d_src) + 1) * double(c.d_out) * H;
    n += H * (T * double(d.d_k) + S * double(d.d_k) + S * double(d.d_v) + T * double(d.d_v));
    n += H * T * S * (2.0 + (c.dropout > 0.0f ? 1.0 : 0.0)) + T * H * double(d.d_v);
    bools = H * T * S;
    return n;
}
}  // namespace

std::size_t estimate_json_bytes(const Config& c, std::size_t t, std::size_t s, std::size_t d_src) {
    double bools = 0.0;
    const double n = json_numbers(c, t, s, d_src, bools);
    return static_cast<std::size_t>(n * 11.0 + bools * 5.5 + 4096.0);
}

std::size_t estimate_json_memory(const Config& c, std::size_t t, std::size_t s, std::size_t d_src) {
    double bools = 0.0;
    const double n = json_numbers(c, t, s, d_src, bools);
    return static_cast<std::size_t>((n + bools) * 16.0) + estimate_json_bytes(c, t, s, d_src);  // the tree, the text
}

std::size_t estimate_png_bytes(std::size_t heads, std::size_t t, std::size_t s) {
    const double side_t = std::min<double>(double(t), 8192.0), side_s = std::min<double>(double(s), 8192.0);
    return static_cast<std::size_t>(2.0 * double(std::max<std::size_t>(heads, 1)) * side_t * side_s * 3.0 + 8e6);
}

void check_show_budget(const Config& c, std::size_t t, std::size_t s, std::size_t d_src, const OutputPlan& out) {
    const std::size_t limit = out.max_memory ? out.max_memory : default_max_memory();
    const double run = double(estimate_run_bytes(c, t, s, d_src));
    const double json = out.json ? double(estimate_json_memory(c, t, s, d_src)) : 0.0;
    const double png = out.png ? double(estimate_png_bytes(head_dims(c, d_src).heads, t, s)) : 0.0;
    const double npy = out.npy ? run : 0.0;  // every matrix encoded in memory once more
    if (run + json + png + npy > double(limit)) {
        std::string drop;
        if (out.json) drop += "drop --json (" + format_bytes(json) + ") or write --npy instead, ";
        if (out.png) drop += "drop --png (" + format_bytes(png) + "), ";
        if (out.npy) drop += "drop --npy (" + format_bytes(npy) + "), ";
        usage_error("this run would need about " + format_bytes(run + json + png + npy) + " of memory, more than --max-memory " +
                        format_bytes(double(limit)),
                    drop + "use fewer tokens or heads, or raise --max-memory");
    }
    const double json_bytes = out.json ? double(estimate_json_bytes(c, t, s, d_src)) : 0.0;
    if (json_bytes > double(kMaxJsonBytes) && !out.force)
        usage_error("the JSON trace would be about " + format_bytes(json_bytes) + ", more than " +
                        format_bytes(double(kMaxJsonBytes)),
                    "write the matrices with --npy DIR instead, or add --force");
}

std::size_t physical_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : (8ull << 30);
}

std::size_t default_max_memory() { return physical_memory_bytes() / 4 * 3; }

std::size_t parse_bytes(const std::string& text, const std::string& option) {
    double value = 0.0;
    char unit[8] = {0};
    int used = 0;
    if (std::sscanf(text.c_str(), "%lf%7[a-zA-Z]%n", &value, unit, &used) < 1 || !(value > 0.0) || !std::isfinite(value))
        usage_error(option + " '" + text + "' is not a size", "write e.g. 512M, 8G or 1000000");
    if (used == 0 && unit[0] == 0) std::sscanf(text.c_str(), "%lf%n", &value, &used);
    if (static_cast<std::size_t>(used) != text.size())
        usage_error(option + " '" + text + "' is not a size", "write e.g. 512M, 8G or 1000000");
    std::string u(unit);
    for (char& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    double scale = 1.0;
    if (u.empty() || u == "B") scale = 1.0;
    else if (u == "K" || u == "KB" || u == "KIB") scale = 1024.0;
    else if (u == "M" || u == "MB" || u == "MIB") scale = 1024.0 * 1024.0;
    else if (u == "G" || u == "GB" || u == "GIB") scale = 1024.0 * 1024.0 * 1024.0;
    else if (u == "T" || u == "TB" || u == "TIB") scale = 1024.0 * 1024.0 * 1024.0 * 1024.0;
    else usage_error(option + " '" + text + "' has an unknown unit", "use K, M, G or T");
    const double bytes = value * scale;
    if (bytes >= 1.8e19) usage_error(option + " '" + text + "' is too large");
    return static_cast<std::size_t>(bytes);
}

std::string format_bytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 4) bytes /= 1024.0, ++u;
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
    return buf;
}

}  // namespace attn
