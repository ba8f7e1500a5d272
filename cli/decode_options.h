// The options of `attn decode`, bound once, and the seeded decode they describe before any output: the
// native command (cli/decode_cmd.cpp) and the page's WebAssembly entry (cli/web/attn_web.cpp, attn_decode)
// parse the same words with the same rules and messages, check them in the same order and run the same
// run_decode. Nothing here draws or writes a file, so the WebAssembly build compiles it without render's
// figures.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/policy/budget.h"
#include "core/kinds/kinds.h"
#include "data/base/defaults.h"
#include "data/inputs/inputs.h"

namespace attn::cli {

struct DecodeOptions {
    std::optional<std::string> sentence, text_file, example, embeddings;
    std::optional<std::string> weights;  // --weights FILE: the parameters from a file, as attn show's
    std::string kind = "gqa", init = "torch", pos = "none", rope_style = "half";
    std::size_t d_in = kDefaultDIn, d_out = 0, heads = 0, kv_heads = 0, window = kDefaultWindow, max_tokens = kDefaultMaxTokens;
    std::uint64_t seed = kDefaultSeed, rope_base = 10000;
    bool qkv_bias = false, force = false;
    int precision = 2;
    std::optional<std::string> json, png, svg, html, font, max_memory, prefix;
    std::string color = "auto", split = "words";
    std::size_t scale = 2;  // --scale, as attn show's
    std::optional<std::string> model;  // --model DIR|NAME: a real model instead of a seeded kind
    bool offline = false;              // --offline: --model NAME from the cache only
    std::optional<std::size_t> layer, head;  // --model: the layer (and head) whose rows the steps record
    std::optional<std::size_t> max_new_tokens;  // --model: generate up to N tokens (an encoder-decoder: 40)
    std::optional<std::size_t> top_k;            // --model: sampling (greedy without these)
    std::optional<double> temperature, top_p;
    std::optional<std::uint64_t> sample_seed;
    CLI::App* cmd = nullptr;  // the subcommand, to ask which options were given
    // the options a kind may not take, each with its bit of Kind::options
    struct Flag {
        CLI::Option* opt;
        unsigned bit;
    };
    std::vector<Flag> flags;
};

// Adds the subcommand "decode" to app with every option bound to o (no callback: the caller's).
CLI::App* bind_decode_options(CLI::App& app, DecodeOptions& o);

// A seeded decode's options that belong to --model (--offline, --layer, --head, the sampling ones) and
// --weights with --seed or --init: usage errors.
void check_seeded_decode_options(const DecodeOptions& o);

// Step 1: a kind that decodes, and only options it takes. Usage errors; returns the kind.
const Kind& check_decode_kind(const DecodeOptions& o);

// Step 2: the inputs (the sentence, --file, --example or --embeddings); --weights is the caller's to read.
Inputs decode_inputs(const DecodeOptions& o);

// Step 3 and 4's check: the kind's settings (always causal), checked, and the run with the outputs in plan
// (plan.decode is set here) within --max-memory.
Settings decode_settings(const DecodeOptions& o, const Inputs& in, OutputPlan plan);

}  // namespace attn::cli
