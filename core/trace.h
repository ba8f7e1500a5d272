// The record of one attention run: every stage a renderer may show.
//
// Letters used in shape comments throughout attn:
//   T = query positions (tokens of the sentence)
//   S = key/value positions (tokens of the source; S = T for self-attention kinds)
//   H = query heads, G = key/value heads (G = H for MHA, 1 for MQA)
//   D = widths: d_in (embedding), d_out (projection), d_k (per-head query/key), d_v (per-head value)
//
// Matrices are row-major xt::xtensor<float, 2>; parameters are stored in x @ W orientation
// (PyTorch's nn.Linear weight transposed). The JSON trace (docs/trace-format.md) is this struct.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "core/allocator.h"

namespace attn {

struct Profile;  // core/profile.h

using Mat = xt::xtensor<float, 2, xt::layout_type::row_major, MatrixAllocator<float>>;  // (rows, cols)
using Mask = xt::xtensor<std::uint8_t, 2, xt::layout_type::row_major, MatrixAllocator<std::uint8_t>>;  // (T, S): 1 = visible

// Every effective setting of a run. Defaults here are the CLI's defaults.
struct Config {
    std::string kind = "causal";
    std::uint64_t seed = 123;
    std::string init = "torch";   // "torch" | "torch-rand"
    std::size_t d_in = 16;
    std::size_t d_out = 16;       // projection width (all heads together for split-head kinds)
    std::size_t heads = 1;        // H
    std::size_t kv_heads = 1;     // G
    bool causal = false;
    bool qkv_bias = false;
    float dropout = 0.0f;         // 0 <= p < 1, inverted dropout on the weights
    std::optional<std::size_t> window;  // local: |i - j| <= window
    std::string score = "dot";    // luong: dot | general | concat
    std::size_t block_q = 2;      // flash tile sizes
    std::size_t block_k = 2;
    bool renorm = false;          // causal: softmax, zero the future, renormalise
    bool keep_weights = true;     // false: only what the output needs (bench --no-weights)

    // Not settings: a place to add each stage's time (attn bench), and a hook
    // called as work proceeds (stage, done, total), e.g. to print progress.
    std::function<void(const char* stage, std::size_t done, std::size_t total)> progress;
    Profile* profile = nullptr;
};

// One head's stages.
struct HeadTrace {
    std::size_t head = 0;
    std::size_t kv_head = 0;
    Mat queries;          // (T, d_k)
    Mat keys;             // (S, d_k)
    Mat values;           // (S, d_v)
    Mat scores;           // (T, S) raw scores, before scaling and masking
    float scale = 1.0f;   // applied to scores before the softmax
    Mask mask;            // (T, S) 1 = visible
    Mat weights;          // (T, S) softmax over visible keys; exactly 0 where hidden; empty rows all 0
    Mat dropped_weights;  // (T, S) only when dropout > 0
    Mat context;          // (T, d_v)
};

// One (query block, key block) step of the tiled online softmax (kind "flash").
struct Tile {
    std::size_t head = 0;
    std::size_t q_block = 0, k_block = 0;
    std::size_t q_begin = 0, q_end = 0;   // query rows [q_begin, q_end)
    std::size_t k_begin = 0, k_end = 0;   // key columns [k_begin, k_end)
    std::vector<float> row_max;           // running max m after this tile, one per query row
    std::vector<float> row_sum;           // running sum l after this tile, one per query row
};

// A named matrix parameter, in x @ W orientation: (in, out). Biases are (1, out).
struct Param {
    std::string name;
    Mat value;
};

// A named scalar the run measured, shown by the terminal view and stored in the JSON
// (for example the largest difference of flash from the unblocked computation).
struct Diagnostic {
    std::string name;
    double value = 0.0;
};

// What a kind reads. S = T and source_* = the sentence's own when no source is given.
struct Inputs {
    std::vector<std::string> tokens;         // (T)
    Mat x;                                   // (T, d_in)
    std::vector<std::string> source_tokens;  // (S)
    Mat source_x;                            // (S, d_src)
    bool has_source = false;
    std::optional<Mask> user_mask;           // (T, S) 1 = visible; combined with the kind's own mask
};

struct Trace {
    std::string kind;
    Config config;
    std::vector<std::string> tokens;         // (T)
    std::vector<std::string> source_tokens;  // (S)
    bool has_source = false;                 // source differs from the sentence
    Mat x;                                   // (T, d_in)
    Mat source_x;                            // (S, d_in) only when has_source
    std::vector<Param> params;               // in PyTorch construction order
    std::vector<HeadTrace> heads;            // (H)
    Mat output;                              // (T, d_out)
    std::vector<Tile> tiles;                 // flash only
    std::vector<std::size_t> empty_rows;     // query rows with every key hidden (weights and context 0)
    std::vector<Diagnostic> diagnostics;

    const Param* param(const std::string& name) const {
        for (const auto& p : params)
            if (p.name == name) return &p;
        return nullptr;
    }
};

}  // namespace attn
