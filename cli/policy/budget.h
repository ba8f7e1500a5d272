// The budget policy: whether a run may start, given its estimate (core/kinds/budget.h) and --max-memory.
#pragma once

#include <cstddef>
#include <string>

#include "core/kinds/budget.h"

namespace attn {
struct ModelConfig;
}  // namespace attn

namespace attn {

// What one run writes besides computing, and the limit it must keep within.
struct OutputPlan {
    bool json = false, png = false, npy = false, svg = false, html = false;
    int scale = 2;               // --scale of the PNGs
    double text_scale = 1.0;     // --font's text against DejaVu Sans (render::check_font_file)
    bool force = false;          // --force: write a JSON trace above kMaxJsonBytes
    bool decode = false;         // attn decode: its own run and JSON (estimate_decode_*)
    bool head_view = false;      // show --model: the terminal's or figures' copy of the chosen head (model runs)
    bool bidirectional = false;  // a model run whose weights hide nothing (an encoder, an encoder-decoder's encoder and cross sets)
    bool aggregates = false;     // show --model --show mean,rollout (or their figures): the views of the layer aggregates
    bool raw_scores = true;      // a model run keeps each head's raw scores (false: weights computed in their place)
    std::size_t max_memory = 0;  // --max-memory; 0: default_max_memory()
    std::string fewer = "use fewer tokens or heads";  // the hint's way to a smaller run
    std::string more = "raise --max-memory";         // the hint's way to a larger limit
    bool json_optional = true;   // false where the JSON trace is the only output (the page's core)
    // what to do about a JSON trace above kMaxJsonBytes (attn decode has no --npy or --force)
    std::string big_json = "write the matrices with --npy DIR instead, or add --force";
};
constexpr std::size_t kMaxJsonBytes = std::size_t(256) << 20;  // larger traces want --npy, or --force

// Before anything large is allocated: a usage error when the run with its outputs would need more
// than the limit (giving the estimate and the option to lower: an output to drop, the flash tile,
// the run's size), or when the JSON trace would exceed kMaxJsonBytes without --force (suggesting --npy).
void check_run_budget(const Settings& s, const RunShape& shape, const OutputPlan& out);

// The same for a model run (show --model), before the weights are read: the weights' mapped pages and
// widened copies, the forward pass over T tokens keeping `kept` layers, and the outputs in `out`.
void check_model_run_budget(const ModelConfig& c, std::uint64_t weight_bytes, std::size_t T, std::size_t kept,
                            const OutputPlan& out);

std::size_t physical_memory_bytes();
std::size_t default_max_memory();  // 3/4 of physical memory

// A size: decimal digits with an optional fraction, then an optional unit K, M, G, T, P or E
// (powers of 1024; also KB/KiB..., any case) or B. "512M", "8G", "1.5GiB", "1000000" -> bytes.
// Usage errors naming the option: not a size (signs, spaces, hex, exponents), an unknown unit,
// too small (under one byte, 0 included), too large (2^64 bytes or more).
std::size_t parse_bytes(const std::string& text, const std::string& option);
std::string format_bytes(double bytes);  // "1.2 GiB"

}  // namespace attn
