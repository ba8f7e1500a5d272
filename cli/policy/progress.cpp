#include "cli/policy/progress.h"

#include <cstdio>

namespace attn::policy {

Progress::Progress(bool enabled) : enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() {
    if (printed_) std::fputs("\r\x1b[K", stderr);
}

void Progress::operator()(const char* stage, std::size_t done, std::size_t total) {
    if (!enabled_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed < 1.0) return;
    std::fprintf(stderr, "\r\x1b[Kattn: %s %zu/%zu (%.1f s)", stage, done, total, elapsed);
    std::fflush(stderr);
    printed_ = true;
}

std::function<void(const char*, std::size_t, std::size_t)> Progress::callback() {
    return [this](const char* stage, std::size_t done, std::size_t total) { (*this)(stage, done, total); };
}

}  // namespace attn::policy
