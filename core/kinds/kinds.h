// The registry of attention kinds: one typed table that `show`, `bench`, `kinds`, the memory
// estimate and the tests all read. Each row holds every fact about one kind: its name and paper,
// the options it takes, how its defaults resolve, its checks, its head geometry, its FLOPs, the
// layers it builds and the function that runs it.
//
// Adding a kind: one run function (core/kinds/attention.cpp), one KindId, one row in core/kinds/kinds.cpp. Nothing
// downstream compares a kind's name: views ask the row (source rule, score formula, options). A row
// is built by Kind's constructor, which takes every column: forgetting one does not compile, and a
// table shorter than KindId::count does not either.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/base/profile.h"
#include "core/base/settings.h"
#include "core/base/trace.h"
#include "data/inputs/params.h"
#include "data/base/rng.h"

namespace attn {

enum class KindId : std::size_t { simple, self, causal, mha_wrapper, mha, cross, additive, luong, mqa, gqa, local, flash, count };
constexpr std::size_t kKindCount = static_cast<std::size_t>(KindId::count);

// Options that only some kinds take; an option the chosen kind does not take is refused.
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
    opt_pos = 1u << 12,      // --pos, --rope-base, --rope-style (kinds with dot-product queries and keys)
    opt_align = 1u << 13,    // --align (kinds whose T and S may differ)
};
constexpr unsigned kOptionCount = 14;
std::string option_flags(unsigned options);  // "--heads, --causal/--no-causal, ..."

// How the heads share the projection width d_out.
enum class HeadLayout {
    one,           // a single head of width d_out
    side_by_side,  // H heads of width d_out each (mha-wrapper): any d_out works
    split,         // d_out split into H heads of d_out / H: d_out must divide by H
};
// Where the key/value head count G comes from.
enum class KvHeads { as_heads, one, option };

// The defaults a kind resolves unset settings to.
struct KindDefaults {
    bool causal;                        // follows the class the kind comes from
    std::size_t heads;                  // H when --heads is not given
    KvHeads kv;                         // G: = H, = 1 (mqa), or --kv-heads (default kv_heads)
    std::size_t kv_heads;
    HeadLayout layout;                  // split kinds round a default d_out up to a multiple of H
    std::optional<std::size_t> window;  // local: W when --window is not given
    bool tiled;                         // flash: default tiles of 2 (up to 16 positions) or 64
};

// The shape of a run's inputs: T query positions, S key positions, their widths.
struct RunShape {
    std::size_t T = 0, S = 0, d_in = 0, d_src = 0;
    std::size_t token_bytes = 0;  // the tokens' and source tokens' text (the JSON trace holds it)
};

// Per-head widths under some settings: H query heads, G key/value heads, d_k and d_v.
struct HeadGeometry {
    std::size_t heads = 1, kv_heads = 1, d_k = 0, d_v = 0;
};

// FLOPs of each stage (a multiply-add counts 2; full, unmasked counts; the softmax counts 0).
using StageFlops = std::array<double, kProfileStageCount>;

// Where a kind's keys and values come from, and whether it needs --source.
enum class SourceRule {
    sentence,  // the sentence attends over itself (axes "query", "key")
    required,  // --source (or --embeddings with source rows); refused without one (cross)
    optional,  // --source; without one the sentence attends over itself, said on stderr (additive, luong)
};
// How the score e_ij of query i and key j is computed, as figures and views title it: "q_i·k_j".
using ScoreFormulaFn = const char* (*)(const Settings& s);
// The names of the two score stages as the page labels them (its stage picker, its step-by-step view):
// the raw score e_ij as the kind computes it from the vectors the trace keeps ("q·k"), and the factor the
// kind multiplies it by before the mask and the softmax ("× 1/√d_k"); scale is nullptr for a kind that
// does not scale its scores (simple, additive, luong: the masked scores are the scores, masked).
struct ScoreStages {
    const char* score;
    const char* scale;
};
using ScoreStagesFn = ScoreStages (*)(const Settings& s);

using LayersFn = std::vector<LayerSpec> (*)(const Settings& s, std::size_t d_src);
using RunFn = void (*)(const Inputs& in, const Settings& s, const RunHooks& hooks, TorchGenerator& gen, Trace& t);
using GeometryFn = HeadGeometry (*)(const Settings& s, std::size_t d_src);
using CheckFn = void (*)(const Settings& s, const RunShape& shape);  // usage errors; never mutates
using FlopsFn = StageFlops (*)(const Settings& s, const RunShape& shape, const HeadGeometry& g);

class Kind {
public:
    constexpr Kind(KindId id_, const char* name_, const char* description_, const char* formula_, const char* paper_,
                   unsigned options_, SourceRule source_, ScoreFormulaFn score_formula_, ScoreStagesFn score_stages_,
                   KindDefaults defaults_, CheckFn check_, GeometryFn geometry_, FlopsFn flops_, LayersFn layers_, RunFn run_)
        : id(id_), name(name_), description(description_), formula(formula_), paper(paper_), options(options_),
          source(source_), score_formula(score_formula_), score_stages(score_stages_), defaults(defaults_), check(check_), geometry(geometry_),
          flops(flops_), layers(layers_), run(run_) {}

    KindId id;
    const char* name;
    const char* description;  // one line
    const char* formula;      // plain text, one line
    const char* paper;        // where it comes from
    unsigned options;         // Option bits this kind takes
    SourceRule source;        // where keys and values come from; whether --source is needed
    ScoreFormulaFn score_formula;  // e_ij as the views title it
    ScoreStagesFn score_stages;    // the score stages' names as the page labels them
    KindDefaults defaults;
    CheckFn check;            // the kind's own checks, beyond the ones every run makes
    GeometryFn geometry;      // heads and widths, for the memory estimate and the FLOPs
    FlopsFn flops;
    LayersFn layers;          // the nn.Linear layers in the order the PyTorch module builds them
    RunFn run;                // computes heads and output into t (params drawn; gen continues for dropout)
};

const std::array<Kind, kKindCount>& kinds();
// The options a kind's variant uses: the kind's own, less those its --score does not use (luong:
// dot has no parameters, so neither --d-out nor --init; general's W_key keeps the width, so no --d-out).
unsigned variant_options(const Kind& kind, const std::string& score);
const Kind& kind(KindId id);
const Kind* find_kind(const std::string& name);
const Kind& kind_named(const std::string& name);  // a usage error naming the kinds when unknown

// Facts of a trace's kind for the views (a trace not run by a kind, "model" or "npy", is self-attention
// scored q_i·k_j): whether its rows and columns are a target and a source, and its score formula.
bool has_source_axes(const Trace& t);
std::string score_formula(const Trace& t);
std::string kind_names();                         // "simple, self, causal, ..."
std::string kinds_taking(unsigned option);        // "mha-wrapper, mha, ..."

// What was asked for; unset values take the kind's defaults.
struct SettingsRequest {
    std::string kind = kDefaultKind;
    std::uint64_t seed = kDefaultSeed;
    std::string init = "torch";
    std::optional<std::size_t> d_out, heads, kv_heads, window, block_q, block_k;
    std::optional<bool> causal;
    bool qkv_bias = false, renorm = false, keep_weights = true;
    float dropout = 0.0f;
    std::optional<std::uint64_t> dropout_seed;  // --dropout-seed
    std::string score = "dot";
    std::string pos = "none", rope_style = "half";  // --pos, --rope-style (kinds taking opt_pos)
    double rope_base = 10000.0;                     // --rope-base
    bool bottom_right = false;                      // --align bottom-right (kinds taking opt_align)
};

// Step 1: the effective settings for inputs of this shape (defaults from the kind).
Settings resolve_settings(const SettingsRequest& request, const RunShape& shape);
// Step 2: usage errors for settings the kind cannot run on inputs of this shape. Never mutates.
void check_settings(const Settings& s, const RunShape& shape);

// Checks the settings against the kind and the inputs (usage errors), draws the parameters and runs.
Trace run_attention(const Inputs& in, const Settings& s, const RunHooks& hooks = {});

}  // namespace attn
