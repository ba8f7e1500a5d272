// The registry of attention kinds: one table that the CLI, `attn kinds` and the tests all read.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/trace.h"
#include "data/params.h"
#include "data/rng.h"

namespace attn {


// Options that only some kinds take; the CLI refuses an option the chosen kind does not take.
enum Option : unsigned {
    opt_heads = 1u << 0,     // --heads
    opt_kv_heads = 1u << 1,  // --kv-heads
    opt_window = 1u << 2,    // --window
    opt_score = 1u << 3,     // --score
    opt_blocks = 1u << 4,    // --block-q, --block-k
    opt_renorm = 1u << 5,    // --renorm
    opt_causal = 1u << 6,    // --causal, --no-causal
    opt_source = 1u << 7,    // --source
    opt_qkv_bias = 1u << 8,  // --qkv-bias
    opt_d_out = 1u << 9,     // --d-out
    opt_init = 1u << 10,     // --init
    opt_dropout = 1u << 11,  // --dropout
};
constexpr unsigned kOptionCount = 12;
const char* option_flag(unsigned option);  // "--heads", ...
std::string option_flags(unsigned options);  // "--heads, --causal, ..."

struct KindInfo {
    const char* name;
    const char* description;  // one line
    const char* formula;      // plain text, one line
    const char* paper;        // where it comes from
    unsigned options;         // Option bits this kind takes
    bool default_causal;      // follows the class the kind comes from
    std::size_t default_heads;
    std::size_t default_kv_heads;
    // The nn.Linear layers in the order the PyTorch module builds them.
    std::vector<LayerSpec> (*layers)(const Config& c, std::size_t d_src);
    // Computes heads and output into t (params already drawn; gen continues for dropout).
    void (*run)(const Inputs& in, const Config& c, TorchGenerator& gen, Trace& t);
};

const std::vector<KindInfo>& kinds();
const KindInfo* find_kind(const std::string& name);
std::string kind_names();  // "simple, self, causal, ..."

// Checks the config against the kind and the inputs (usage errors), draws the parameters and runs.
Trace run_attention(const Inputs& in, const Config& c);


}  // namespace attn
