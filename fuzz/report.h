// What every fuzz target does with a harness's verdict: nothing when it is "", else report and abort
// (libFuzzer saves the input as a crash artifact).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace attn::fuzz {

inline void report(const std::string& problem) {
    if (problem.empty()) return;
    std::fprintf(stderr, "attn fuzz: %s\n", problem.c_str());
    std::abort();
}

}  // namespace attn::fuzz
