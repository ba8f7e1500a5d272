// Progress on stderr for long runs: only when stderr is a terminal, only once a run has lasted
// about a second, on one line that is rewritten, and cleared when the run ends.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace attn::policy {

class Progress {
public:
    explicit Progress(bool enabled);  // enabled: e.g. isatty(stderr) and not --json -
    ~Progress();                      // clears the line if anything was printed

    void operator()(const char* stage, std::size_t done, std::size_t total);
    // A callback for Settings::progress (the Progress must outlive the run).
    std::function<void(const char*, std::size_t, std::size_t)> callback();

private:
    bool enabled_;
    bool printed_ = false;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace attn::policy
