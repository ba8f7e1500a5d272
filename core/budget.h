// Memory and output-size estimates, checked before anything large is allocated.
#pragma once

#include <cstddef>
#include <string>

#include "core/trace.h"

namespace attn {

// Per-head widths of a kind under a config: H heads of queries/keys d_k and values d_v.
struct HeadDims {
    std::size_t heads = 1, kv_heads = 1, d_k = 0, d_v = 0;
};
HeadDims head_dims(const Config& c, std::size_t d_src);

// What a run holds at its peak, in bytes: inputs, parameters, projections, per-head matrices
// (the (T, S) ones only when weights are kept), the output.
std::size_t estimate_run_bytes(const Config& c, std::size_t t, std::size_t s, std::size_t d_src);

// The JSON trace's size in bytes (about 11 characters a number), and what building it takes in memory.
std::size_t estimate_json_bytes(const Config& c, std::size_t t, std::size_t s, std::size_t d_src);
std::size_t estimate_json_memory(const Config& c, std::size_t t, std::size_t s, std::size_t d_src);

// PNG rendering's working memory for one trace (one RGB canvas per image at a time, plus its encoding).
std::size_t estimate_png_bytes(std::size_t heads, std::size_t t, std::size_t s);

// What one `attn show` writes, for its budget.
struct OutputPlan {
    bool json = false, png = false, npy = false;
    bool force = false;          // --force: write a JSON trace above kMaxJsonBytes
    std::size_t max_memory = 0;  // --max-memory; 0: default_max_memory()
};
constexpr std::size_t kMaxJsonBytes = std::size_t(256) << 20;  // larger traces want --npy, or --force

// Before anything large is allocated: a usage error when the run with its outputs would need more
// than --max-memory (giving the estimate and what to drop), or when the JSON trace would exceed
// kMaxJsonBytes without --force (suggesting --npy).
void check_show_budget(const Config& c, std::size_t t, std::size_t s, std::size_t d_src, const OutputPlan& out);

std::size_t physical_memory_bytes();
std::size_t default_max_memory();  // 3/4 of physical memory

// "512M", "8G", "1.5GiB", "1000000" -> bytes; usage error naming the option when malformed.
std::size_t parse_bytes(const std::string& text, const std::string& option);
std::string format_bytes(double bytes);  // "1.2 GiB"

}  // namespace attn
