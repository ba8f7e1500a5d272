#include "cli/common_options.h"

#include <unistd.h>

#include <cstdlib>

#include "render/trace_io/file_names.h"

#include "cli/policy/budget.h"
#include "data/base/error.h"
#include "cli/policy/options.h"

namespace attn::cli {

CLI::Validator rule(const char* option) {
    const OptionRule& r = option_rule(option);
    std::string desc;
    if (r.type == OptionType::whole) desc = "INT in [" + std::to_string(r.min) + ", " + std::to_string(r.max) + "]";
    if (r.type == OptionType::fraction) desc = "NUMBER in [0, 1)";
    return CLI::Validator([&r](std::string& text) { return check_option_text(r, text); }, desc);
}

void bind_position_options(CLI::App& cmd, CommonOptions& o) {
    auto add = [&](CLI::Option* opt, unsigned bit) {
        o.kind_options.push_back({opt, bit});
        return opt;
    };
    add(cmd.add_option("--pos", o.pos,
                       "Positions: none, sinusoidal (x + PE), rope (q, k rotated), alibi (m_h (j - i) bias)")
            ->check(rule("--pos"))
            ->capture_default_str(),
        opt_pos);
    add(cmd.add_option("--rope-base", o.rope_base, "rope: theta_i = base^(-2i/d_k)")
            ->check(rule("--rope-base"))
            ->capture_default_str(),
        opt_pos);
    add(cmd.add_option("--rope-style", o.rope_style,
                       "rope: half (pairs i, i + d_k/2: Hugging Face rotate_half) or interleaved (pairs 2i, 2i+1)")
            ->check(rule("--rope-style"))
            ->capture_default_str(),
        opt_pos);
    add(cmd.add_option("--align", o.align,
                       "cross, T != S: causal mask and positions top-left (query i at key i, as PyTorch's tril) "
                       "or bottom-right (the last query on the last key, as decoding)")
            ->check(rule("--align"))
            ->capture_default_str(),
        opt_align);
}

void bind_common_options(CLI::App& cmd, CommonOptions& o, const std::string& kind, std::size_t d_in,
                         const std::string& d_in_help) {
    o.kind = kind, o.d_in = d_in;
    auto add = [&](CLI::Option* opt, unsigned bit) {
        o.kind_options.push_back({opt, bit});
        return opt;
    };
    cmd.add_option("-k,--kind", o.kind, "Attention kind (see 'attn kinds')")->capture_default_str();
    o.d_in_option = cmd.add_option("--d-in", o.d_in, d_in_help)->check(rule("--d-in"))->capture_default_str();
    add(cmd.add_option("--d-out", o.d_out, "Projection width (default: d_in)")->check(rule("--d-out")), opt_d_out);
    cmd.add_option("--seed", o.seed, "Seed for embeddings, weights and dropout")
        ->check(rule("--seed"))
        ->capture_default_str();
    add(cmd.add_option("--init", o.init, "Weights: torch (nn.Linear) or torch-rand (torch.rand)")
            ->check(rule("--init"))
            ->capture_default_str(),
        opt_init);
    add(cmd.add_flag("--qkv-bias", o.qkv_bias, "Give the Q/K/V projections a bias"), opt_qkv_bias);
    add(cmd.add_option("--dropout", o.dropout, "Dropout on the weights, 0 <= P < 1")->check(rule("--dropout")),
        opt_dropout);
    add(cmd.add_option("--dropout-seed", o.dropout_seed,
                       "Re-seed the generator with N before dropout (the chapter: torch.manual_seed(123))")
            ->check(rule("--dropout-seed")),
        opt_dropout);
    add(cmd.add_option("--heads", o.heads, "Query heads H (default: the kind's)")->check(rule("--heads")), opt_heads);
    add(cmd.add_option("--kv-heads", o.kv_heads, "Key/value heads G (gqa; H must divide by G)")
            ->check(rule("--kv-heads")),
        opt_kv_heads);
    add(cmd.add_option("--window", o.window, "local: query i sees keys with |i - j| <= W")
            ->check(rule("--window"))
            ->capture_default_str(),
        opt_window);
    add(cmd.add_option("--score", o.score, "luong: dot, general or concat")
            ->check(rule("--score"))
            ->capture_default_str(),
        opt_score);
    add(cmd.add_option("--block-q", o.block_q, "flash: query rows per tile (default 2 for ≤16 tokens, else 64)")
            ->check(rule("--block-q")),
        opt_blocks);
    add(cmd.add_option("--block-k", o.block_k, "flash: key columns per tile")->check(rule("--block-k")), opt_blocks);
    add(cmd.add_flag("--renorm", o.renorm, "causal: softmax, zero the future, renormalise"), opt_renorm);
    add(cmd.add_flag("--causal", o.causal, "Hide future keys (j > i)"), opt_causal);
    add(cmd.add_flag("--no-causal", o.no_causal, "See every key"), opt_causal);
    bind_position_options(cmd, o);
    cmd.add_option("--max-memory", o.max_memory, "Refuse runs estimated above this, e.g. 8G (default: 3/4 of RAM)");
}

const Kind& check_common_options(const CommonOptions& o) {
    const Kind& kind = kind_named(o.kind);
    for (const auto& f : o.kind_options)
        if (f.option->count() > 0 && !(kind.options & f.bit))
            usage_error(f.option->get_name() + " does not apply to kind '" + o.kind + "'",
                        "it applies to: " + kinds_taking(f.bit));
    // the kind takes it, but not with this --score (the registry's variant_options)
    for (const auto& f : o.kind_options)
        if (f.option->count() > 0 && !(variant_options(kind, o.score) & f.bit)) {
            std::string variants;
            for (const char* score : {"dot", "general", "concat"})
                if (variant_options(kind, score) & f.bit)
                    variants += (variants.empty() ? "--score " : " or ") + std::string(score);
            usage_error(f.option->get_name() + " does not apply to kind '" + o.kind + "' with --score " + o.score,
                        "nothing uses it there; it applies with " + variants);
        }
    if (o.causal && o.no_causal) usage_error("--causal and --no-causal contradict each other");
    if (o.renorm && o.no_causal)
        usage_error("--renorm renormalises the weights after hiding the future; with --no-causal nothing is hidden",
                    "drop --renorm or --no-causal");
    return kind;
}

SettingsRequest settings_request(const CommonOptions& o) {
    SettingsRequest r;
    r.kind = o.kind, r.seed = o.seed, r.init = o.init, r.score = o.score;
    r.qkv_bias = o.qkv_bias, r.renorm = o.renorm, r.dropout = o.dropout, r.dropout_seed = o.dropout_seed;
    const auto given = [](std::size_t v) { return v ? std::optional<std::size_t>(v) : std::nullopt; };
    r.d_out = given(o.d_out), r.heads = given(o.heads), r.kv_heads = given(o.kv_heads);
    r.block_q = given(o.block_q), r.block_k = given(o.block_k);
    r.window = o.window;  // the option's default is the kind's (2)
    if (o.causal || o.no_causal) r.causal = o.causal;
    r.pos = o.pos, r.rope_style = o.rope_style, r.rope_base = static_cast<double>(o.rope_base);
    r.bottom_right = o.align == "bottom-right";
    return r;
}

std::size_t max_memory_bytes(const CommonOptions& o) {
    return o.max_memory ? parse_bytes(*o.max_memory, "--max-memory") : 0;
}

void bind_figure_options(CLI::App& cmd, std::optional<std::string>& svg, std::size_t& scale,
                         std::optional<std::string>& font) {
    cmd.add_option("--svg", svg, "Write the same figures as SVG into folder DIR (created as needed)");
    cmd.add_option("--scale", scale, "Image pixels per layout pixel in PNGs, text drawn at that size; 2 suits a 1920x1080 slide")
        ->check(rule("--scale"))
        ->capture_default_str();
    cmd.add_option("--font", font, "A TrueType/OpenType FILE for text in images, asked before the built-in DejaVu Sans");
}

void bind_values_option(CLI::App& cmd, std::string& values) {
    cmd.add_option("--values", values,
                   "Numbers in the figures' cells: auto (while legible on a 1920x1080 slide), always (whenever they fit), never")
        ->check(rule("--values"))
        ->capture_default_str();
}

render::CellValues cell_values(const std::string& mode) {
    return mode == "always" ? render::CellValues::always : mode == "never" ? render::CellValues::never : render::CellValues::automatic;
}

void bind_color_option(CLI::App& cmd, std::string& color) {
    cmd.add_option("--color", color, "Shade cells: auto (terminal, no NO_COLOR), always, never")
        ->check(rule("--color"))
        ->capture_default_str();
}

render::ColourDepth colour_depth(const std::string& mode) {
    const char* no_color = std::getenv("NO_COLOR");
    const char* term = std::getenv("TERM");
    const bool on = mode == "always" || (mode == "auto" && ::isatty(STDOUT_FILENO) && !(no_color && *no_color) &&
                                         !(term && std::string(term) == "dumb"));
    if (!on) return render::ColourDepth::none;
    const char* ct = std::getenv("COLORTERM");
    const std::string colorterm = ct ? ct : "";
    return colorterm == "truecolor" || colorterm == "24bit" ? render::ColourDepth::truecolour
                                                            : render::ColourDepth::ansi256;
}

void bind_colour_scale_options(CLI::App& cmd, ColourScaleOptions& o) {
    cmd.add_option("--range", o.range, "Colour scale of weights: auto (0..1), data (the matrix's own), or MIN,MAX")
        ->check(rule("--range"))
        ->capture_default_str();
    cmd.add_flag("--log", o.log, "Colour weights by log10 (long inputs: weights near 1/T)");
    cmd.add_option("--colormap", o.colormap, "Colours of weights: viridis, magma, cividis, gray (scores: red-blue around 0)")
        ->check(rule("--colormap"))
        ->capture_default_str();
}

render::ColourSpec colour_spec(const ColourScaleOptions& o) {
    render::ColourSpec spec;
    spec.range = render::parse_range(o.range, spec.min, spec.max);
    spec.log = o.log, spec.colormap = o.colormap;
    return spec;
}

CLI::Option* bind_prefix_option(CLI::App& cmd, std::optional<std::string>& prefix, const std::string& default_name) {
    return cmd.add_option("--prefix", prefix, "Image file names are PREFIX-<figure>.png (default: " + default_name + ")")
        ->check(rule("--prefix"));
}

void check_prefix(const std::optional<std::string>& prefix) {
    if (!prefix) return;
    if (const auto name = render::prefix_clash(*prefix))
        usage_error("--prefix '" + *prefix + "' gives names like " + *name + ", which attn also writes for a shorter prefix",
                    "choose a prefix that does not end in -l<N>, -h<N> or a figure's first word");
}

void bind_split_option(CLI::App& cmd, std::string& split) {
    cmd.add_option("--split", split, "Tokens: words (punctuation apart), space (between spaces), chars")
        ->check(rule("--split"))
        ->capture_default_str();
}

}  // namespace attn::cli
