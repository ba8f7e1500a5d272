// attn show --model DIR: a GPT-2-family model from a Hugging Face folder (cli/show_model.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/text/tokenizer.h"
#include "core/analysis/head_patterns.h"
#include "core/model/model.h"
#include "data/checkpoint/generation_config.h"
#include "data/checkpoint/model_family.h"
#include "data/checkpoint/model_checkpoint.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/policy/outputs.h"
#include "render/terminal/terminal.h"
#include "render/view/style.h"

namespace attn::cli {

struct ModelShowOptions {
    std::string model;                       // --model DIR
    std::optional<std::string> sentence, text_file;
    std::optional<std::size_t> layer, head;  // --layer, --head
    std::optional<std::string> keep_layers;  // --keep-layers LIST
    std::vector<std::string> show = {"weights"};
    int precision = 4;
    int figure_decimals = 2;  // the cells' digits: --precision when given, else 2
    render::ColourDepth colour = render::ColourDepth::none;  // --color, as the terminal supports it
    std::size_t width = 80;                                   // the terminal's columns
    bool full = false, force = false;
    policy::OutputRequest outputs;          // --json, --png, --npy, --html, --svg; the text file and model's files as inputs
    std::optional<std::string> max_memory;
    std::optional<std::string> font;  // --font FILE for the figures' text
    int scale = 2;                    // --scale: image pixels per layout pixel
    render::ColourSpec figure_colour;       // --range, --log, --colormap (figures and terminal shading)
    render::CellValues values = render::CellValues::automatic;  // --values
    std::vector<std::string> figures;       // --figures: a head's figures (empty: the default set)
    std::optional<std::size_t> query;       // --query I: that query's strip (figure "query", terminal)
    std::optional<std::string> prefix;      // --prefix: the figures' names start with it instead of the family
    std::optional<std::string> pair;        // --pair: an encoder's second text
    std::optional<std::string> target;      // --target: an encoder-decoder's decoder text (teacher forcing)
    std::size_t max_new_tokens = 40;        // --max-new-tokens: an encoder-decoder's generation limit
    std::optional<std::string> align_at;    // --align-at output|input: an encoder-decoder's alignment (render/view/alignment.h)
    bool words = false;                     // --words: the alignment in words
    std::optional<std::string> ablate;      // --ablate L.H[,L.H...] (decoders)
    std::optional<std::string> ablate_mode; // --ablate-mode zero|mean
    bool lens = false;                      // --lens (decoders)
};

// --ablate's list "L.H[,L.H...]" (and --ablate-mode) against the model's n_layer and n_head: usage
// errors for a malformed list, a layer or head outside the model, and a head named twice.
HeadAblation parse_ablation(const std::string& text, const std::optional<std::string>& mode, std::size_t n_layer, std::size_t n_head);

void run_show_model(const ModelShowOptions& o);

// What a run of attn show --model computed, for its outputs: the folder's config and tokeniser, the
// text, the trace (its model's name not yet set), an encoder-decoder's generation settings, the kept
// layers and the layer and head shown, and the weights.
struct ModelShowRun {
    ParsedConfig parsed;
    Tokenizer tok;
    std::string text;
    Trace trace;
    GenerationConfig generation;
    std::vector<std::size_t> kept;
    // The terminal alone: the trace holds only the chosen layer's heads, and this summarises every kept
    // layer (mean distances) as the run computed it; empty otherwise (the views read the trace)
    std::vector<LayerDistances> distances;
    std::size_t layer = 0, head = 0;
    bool seq2seq = false;
    std::unique_ptr<ModelCheckpoint> model;  // the weights, held until the outputs are written (as the budget counts them)
};
// Reads a folder's weights (the native command also says which tensors it leaves unused).
using ModelLoader = std::function<std::unique_ptr<ModelCheckpoint>(const std::string& dir)>;
// Steps 2 to 5 of attn show --model (cli/show_model_run.cpp): the folder, the text as ids, every check
// of the options against the model, the memory budget (o.outputs says what will be written; text_scale
// the figures' text size), then the run. Nothing is drawn or written.
ModelShowRun compute_show_model(const ModelShowOptions& o, const ModelLoader& load_model, double text_scale,
                                const std::function<void(const char*, std::size_t, std::size_t)>& progress);

// The files of a model folder attn may read: outputs may not overwrite them.
const std::vector<const char*>& model_folder_files();

// An encoder-decoder's run settings (show and decode): the folder's generation config (its ids checked
// against the vocabulary), the generation limit within the decoder's positions, and --target's labels
// for teacher forcing. Usage errors for a limit of 0 or past the positions and for an empty target.
struct Seq2SeqRequest {
    std::string model;
    std::size_t max_new_tokens = 40;
    std::optional<std::string> target;
};
void seq2seq_settings(const Seq2SeqRequest& o, const Tokenizer& tok, const ParsedConfig& p, GenerationConfig& g,
                      ModelRunOptions& run);

// The text as the model's token ids: usage errors for an empty text or one past the context, an input
// error for an id outside the vocabulary (tokeniser files of another model). show and decode share it.
std::vector<std::int64_t> model_token_ids(const Tokenizer& tok, const ModelConfig& c, const std::string& text);

// The folder's tokeniser; an encoder's folder must say where its special tokens go (tokenizer.json or
// BERT's vocab.txt), else an input error.
Tokenizer load_model_tokenizer(const std::string& dir, const ParsedConfig& p);

// A model's input: the ids, and for an encoder each token's type id and a sentence pair's segments.
struct ModelInput {
    std::vector<std::int64_t> ids, type_ids;
    std::vector<std::uint8_t> segments;  // empty for one text
};
// The text, or the text and `pair` as a sentence pair (encoders only), checked as model_token_ids checks.
ModelInput model_input(const Tokenizer& tok, const ParsedConfig& p, const std::string& text, const std::optional<std::string>& pair);

// attn bench --model DIR: times each stage of a run on `tokens` tokens (cli/bench_model.cpp).
void run_bench_model(const std::string& dir, std::size_t tokens, std::size_t repeat);

// attn decode --model DIR TEXT: the tokens one at a time through the model's key/value caches, each step
// against the full pass, and the cache per token beside MHA's (cli/decode_model.cpp).
struct ModelDecodeCliOptions {
    std::string model, text;                 // --model DIR; the text (argument, --file or standard input)
    std::optional<std::size_t> layer, head;  // --layer (default 0), --head (default: every head of the layer)
    int precision = 2;
    policy::OutputRequest outputs;           // --json, --png, --svg, --html; checked by the caller, prefix set
    bool force = false;                      // --force: a JSON above 256 MiB
    std::optional<std::string> max_memory, font;
    int scale = 2;
    // --max-new-tokens N: generate up to N tokens after the text (an encoder-decoder: 40 when not given);
    // --temperature, --top-k, --top-p: sample (greedy without them), from --sample-seed's stream
    std::optional<std::size_t> max_new_tokens, top_k;
    std::optional<double> temperature, top_p;
    std::optional<std::uint64_t> sample_seed;
};
void run_decode_model(const ModelDecodeCliOptions& o);

// "all", or comma-separated layers and ranges ("0,5-7"), each below n_layer -> (L) flags.
std::vector<bool> parse_layer_list(const std::string& text, std::size_t n_layer);

}  // namespace attn::cli
