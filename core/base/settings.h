// A run's settings (plain data, recorded in the trace) apart from its hooks (progress, profile).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "data/base/defaults.h"

namespace attn {

struct Profile;  // core/base/profile.h

constexpr const char* kDefaultKind = "causal";  // --kind of `attn show` (`attn bench` chooses its own)

// Every effective setting of a run. Defaults here are the CLI's defaults; resolve_settings
// (core/kinds/kinds.h) fills what a kind decides, check_settings refuses what it cannot run.
struct Settings {
    std::string kind = kDefaultKind;
    std::uint64_t seed = kDefaultSeed;
    std::string init = "torch";   // "torch" | "torch-rand"
    std::string weights;          // --weights FILE: its base name, set by the run from Inputs::weights (no seed, no init then)
    std::size_t d_in = kDefaultDIn;
    std::size_t d_out = kDefaultDIn;      // projection width (all heads together for split-head kinds)
    std::size_t heads = 1;        // H
    std::size_t kv_heads = 1;     // G
    bool causal = false;
    bool qkv_bias = false;
    float dropout = 0.0f;         // 0 <= p < 1, inverted dropout on the weights
    // --dropout-seed: the generator re-seeded with it once the parameters are drawn, before dropout's
    // draws (the chapter's torch.manual_seed(123) before its dropout example); unset: it continues
    std::optional<std::uint64_t> dropout_seed;
    std::optional<std::size_t> window;  // local: |i - j| <= window
    std::string score = "dot";    // luong: dot | general | concat
    std::size_t block_q = 2;      // flash tile sizes (the kernel clamps them to T and S)
    std::size_t block_k = 2;
    bool renorm = false;          // causal: softmax, zero the future, renormalise
    bool keep_weights = true;     // false: only what the output needs (bench --no-weights)
    bool keep_scores = true;      // false (a model run no output shows the raw scores of): each head's
                                  // weights are computed over its scores in place, and no scores are kept
    // Positions (core/base/positions.h): none | sinusoidal | rope | alibi, for kinds that take opt_pos.
    std::string pos = "none";
    double rope_base = 10000.0;   // rope: θ_i = base^(-2i/d_k)
    std::string rope_style = "half";  // rope: half (rotate_half) | interleaved (pairs 2i, 2i+1)
    std::int64_t pos_offset = 0;  // every position shifted by this (RoPE's relative-position test)
    bool bottom_right = false;    // causal/window masks and positions aligned bottom-right when T != S
};

// Not settings: a hook called as work proceeds (stage, done, total), e.g. to print progress, and a
// place to add each stage's time (attn bench). The trace never records them.
struct RunHooks {
    std::function<void(const char* stage, std::size_t done, std::size_t total)> progress;
    Profile* profile = nullptr;
};

}  // namespace attn
