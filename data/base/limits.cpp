#include "data/base/limits.h"

#include <cstdio>

#include "data/base/error.h"

namespace attn {
namespace {

std::string gib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(1ull << 30));
    return buf;
}

}  // namespace

void check_run_size(double bytes, double work, const std::string& hint) {
    if (bytes > kMaxRunBytes)
        usage_error("this run would need about " + gib(bytes) + " of memory, more than the " + gib(kMaxRunBytes) +
                        " attn allows",
                    hint);
    if (work > kMaxRunWork) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "this run would take about %.1e multiply-adds, more than the %.1e attn allows",
                      work, kMaxRunWork);
        usage_error(buf, hint);
    }
}

}  // namespace attn
