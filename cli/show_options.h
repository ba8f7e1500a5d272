// The options of `attn show`, bound once, and the seeded run they describe before any output: the
// native command (cli/show.cpp) and the page's WebAssembly entry (cli/web/attn_web.cpp) parse the same
// words with the same rules and messages and check them in the same order. Nothing here draws or
// writes a file, so the WebAssembly build compiles it without render's figures.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cli/common_options.h"
#include "cli/policy/budget.h"
#include "cli/show_model.h"
#include "core/kinds/kinds.h"
#include "data/base/defaults.h"
#include "data/inputs/inputs.h"

namespace attn::cli {

struct ShowOptions {
    CommonOptions common;
    std::optional<std::string> sentence, text_file, example, embeddings, source, mask_file;
    std::optional<std::string> weights;  // --weights FILE: the parameters from a file (kinds taking --init)
    std::size_t max_tokens = kDefaultMaxTokens;
    std::string color = "auto";
    bool full = false;
    ColourScaleOptions scale_colours;  // --range, --log, --colormap
    std::string split = "words";
    std::optional<std::size_t> query;
    std::optional<std::string> figures;
    std::optional<std::string> prefix;
    int precision = 4;
    bool precision_given = false;  // --precision was on the command line: the figures' cells use it too
    std::size_t scale = 2;
    std::string values = "auto";  // --values
    std::string show = "weights";
    std::optional<std::string> json, png, svg, npy, font;
    std::optional<std::string> html;  // --html FILE
    bool force = false;
    bool no_live = false;  // --no-live: the --html page without the live panel
    CLI::App* cmd = nullptr;  // the subcommand, to ask which options were given
    std::optional<std::string> model, keep_layers;  // --model DIR|NAME, --keep-layers LIST
    bool offline = false;                            // --offline: --model NAME from the cache only
    std::optional<std::string> pair;                // --pair TEXT2: an encoder's sentence pair
    std::optional<std::string> target;              // --target TEXT: an encoder-decoder's decoder text
    std::size_t max_new_tokens = 40;                // --max-new-tokens N: an encoder-decoder's generation limit
    std::optional<std::size_t> layer, head;         // --layer, --head
    std::optional<std::string> align_at;            // --align-at output|input: an encoder-decoder's alignment
    bool words = false;                             // --words: the alignment in words
    std::optional<std::string> ablate;              // --ablate L.H[,L.H...]: a decoder run with those heads ablated
    std::optional<std::string> ablate_mode;         // --ablate-mode zero|mean
    bool lens = false;                              // --lens: the logit lens at every layer
};

// Adds the subcommand "show" to app with every option bound to o (no callback: the caller's).
// seeded_only: the options that make sense only for seeded kinds (--model refuses them).
CLI::App* bind_show_options(CLI::App& app, ShowOptions& o, std::vector<CLI::Option*>& seeded_only);
// show's options without the subcommand: the positional sentence and every option, bound to o on cmd
// (`attn page FILE [SENTENCE]` binds them after its FILE, so a page takes show's options by the same rules).
void bind_show_run_options(CLI::App& cmd, ShowOptions& o, std::vector<CLI::Option*>& seeded_only);

// The words of this run that the page's live panel can run again (render/page/live.js): --kind and the
// options that shape the numbers or their colours (--range, --log, --colormap), as given, then the
// sentence (a --file's tokens joined by spaces when no sentence was typed; none after --example NAME,
// which is the input) and --source likewise. tokens and source_tokens: the run's.
std::vector<std::string> live_words(const ShowOptions& o, const std::vector<std::string>& tokens,
                                    const std::vector<std::string>& source_tokens);

// Step 1 for a seeded kind: --layer and --keep-layers (only with --model), the kind and the options it
// does not take, cross without --source. Usage errors; returns the kind.
const Kind& check_seeded_options(const ShowOptions& o);

// --weights FILE given: --seed and --init (which draw the parameters) refused by name. show and decode.
void check_weights_options(const CLI::App& cmd, const std::string& file);

// A seeded run ready to start.
struct SeededRun {
    Inputs in;
    Settings settings;
    RunShape shape;
};

// Steps 2-4: the inputs, the effective settings (checked; a rounded d_out said on std::cerr), --query
// and --head within the run, and the run with its outputs (plan) within --max-memory.
SeededRun prepare_seeded_run(const ShowOptions& o, const OutputPlan& plan);

// "a,b,,c" -> {"a", "b", "", "c"} (--show, --figures).
std::vector<std::string> split_list(const std::string& text);

// --model's options from show's: the run's settings, before outputs and the terminal (the caller's).
// A usage error names the first seeded-only option given (it does not apply to a model).
ModelShowOptions model_show_options(const ShowOptions& o, const std::vector<CLI::Option*>& seeded_only);

}  // namespace attn::cli
