// The options `attn show` and `attn bench` share: the kind, its settings and --max-memory. One
// binder, so both commands take them with the same rules, defaults and messages.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/kinds/kinds.h"
#include "render/terminal/terminal.h"
#include "render/view/style.h"
#include "render/view/colour_scale.h"

namespace attn::cli {

struct CommonOptions {
    std::string kind;
    std::size_t d_in = kDefaultDIn;
    std::size_t d_out = 0, heads = 0, kv_heads = 0, block_q = 0, block_k = 0;  // 0: the kind's default
    std::size_t window = kDefaultWindow;
    std::uint64_t seed = kDefaultSeed;
    std::string init = "torch", score = "dot";
    bool qkv_bias = false, renorm = false, causal = false, no_causal = false;
    float dropout = 0.0f;
    std::optional<std::uint64_t> dropout_seed;  // --dropout-seed
    std::string pos = "none", rope_style = "half", align = "top-left";
    std::uint64_t rope_base = 10000;
    std::optional<std::string> max_memory;

    // Filled by bind_common_options: the options only some kinds take, with their Option bits.
    struct KindOption {
        CLI::Option* option;
        unsigned bit;
    };
    std::vector<KindOption> kind_options;
    CLI::Option* d_in_option = nullptr;
};

// Binds --pos, --rope-base, --rope-style (opt_pos) and --align (opt_align) to `cmd`.
void bind_position_options(CLI::App& cmd, CommonOptions& o);

// Binds the shared options to `cmd` (with the position options); `kind` and `d_in` are the command's defaults.
void bind_common_options(CLI::App& cmd, CommonOptions& o, const std::string& kind, std::size_t d_in,
                         const std::string& d_in_help);

// The kind named by --kind; usage errors for an option it does not take, and for --causal with --no-causal.
const Kind& check_common_options(const CommonOptions& o);

// What was asked for, unset values left to the kind (resolve_settings).
SettingsRequest settings_request(const CommonOptions& o);

// --max-memory in bytes, 0 when not given.
std::size_t max_memory_bytes(const CommonOptions& o);

// An option's accepted values as a CLI11 check, from the option rules (cli/policy/options.h).
CLI::Validator rule(const char* option);

// --svg DIR, --scale N and --font FILE: how show, decode and render draw their figures.
void bind_figure_options(CLI::App& cmd, std::optional<std::string>& svg, std::size_t& scale,
                         std::optional<std::string>& font);

// --values auto|always|never: numbers in the figures' cells. auto draws them while they stay legible
// on a 1920x1080 slide (14.5 px, render/view/style.h), always whenever they fit in the cells, never not at all.
void bind_values_option(CLI::App& cmd, std::string& values);
render::CellValues cell_values(const std::string& mode);

// The habits every command shares (show, decode, render, kinds, bench), bound by one function each so
// their names, values, defaults and help read the same everywhere.

// --color auto|always|never: shade printed cells. auto shades when standard output is a terminal,
// NO_COLOR is unset or empty and TERM is not "dumb".
void bind_color_option(CLI::App& cmd, std::string& color);
// The shading --color asks for: none, or 24-bit colour when COLORTERM says truecolor/24bit, else the
// xterm 256-colour palette.
render::ColourDepth colour_depth(const std::string& mode);

// --range, --log and --colormap: how the figures (and shaded cells) colour weights.
struct ColourScaleOptions {
    std::string range = "auto", colormap = "viridis";
    bool log = false;
};
void bind_colour_scale_options(CLI::App& cmd, ColourScaleOptions& o);
render::ColourSpec colour_spec(const ColourScaleOptions& o);

// --prefix NAME: figure file names NAME-<figure>.png; `default_name` says what it is without it.
CLI::Option* bind_prefix_option(CLI::App& cmd, std::optional<std::string>& prefix, const std::string& default_name);
// A usage error when --prefix would give names attn also writes for a shorter prefix.
void check_prefix(const std::optional<std::string>& prefix);

// --split words|space|chars: how text becomes tokens.
void bind_split_option(CLI::App& cmd, std::string& split);

}  // namespace attn::cli
