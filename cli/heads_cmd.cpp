// attn heads --model DIR TEXT...: every head of a model scored on eight patterns (next: encoders only) (core/analysis/head_report.h),
// printed as tables, written as JSON and as one layers × heads figure per pattern.
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/cli.h"
#include "cli/model_source.h"
#include "data/base/files.h"
#include "cli/common_options.h"
#include "cli/policy/budget.h"
#include "cli/policy/files.h"
#include "cli/policy/outputs.h"
#include "cli/policy/progress.h"
#include "cli/show_model.h"
#include "core/analysis/head_report.h"
#include "core/model/model.h"
#include "data/base/error.h"
#include "data/checkpoint/model_checkpoint.h"
#include "data/inputs/inputs.h"
#include "data/inputs/npy.h"
#include "data/base/strings.h"
#include "render/outputs/heads_files.h"
#include "render/terminal/heads_terminal.h"
#include "render/text/font.h"
#include "render/trace_io/heads_json.h"
#include "render/trace_io/trace_read.h"
#include "render/view/model_title.h"

namespace attn::cli {
namespace {

// The induction run's default length R: long enough that a copying head stands out, short enough for
// any context (TransformerLens's detector examples use sequences of this order).
constexpr std::size_t kDefaultInductionLength = 25;

struct HeadsOptions {
    std::string model;                 // --model DIR|NAME
    bool offline = false;              // --offline: --model NAME from the cache only
    std::optional<std::string> trace;  // --trace FILE: a saved model trace's heads instead
    std::vector<std::string> texts;    // TEXT...
    std::optional<std::string> text_file;  // --file F: one text per line
    std::optional<std::string> rank;   // --rank PATTERN
    std::optional<std::size_t> top;    // --top N
    std::optional<std::size_t> induction_length;  // --induction-length R
    std::uint64_t seed = 0;            // --seed: the induction run's ids
    int precision = 2;
    std::string color = "auto";
    std::optional<std::string> json, png, svg, font;
    std::optional<std::string> prefix;  // --prefix: file names start with it (default: the model's family)
    std::size_t scale = 2;
    std::optional<std::string> max_memory;  // --max-memory, as show --model's
    bool effect = false;                    // --effect: every head's effect on the loss (decoders)
};

// The texts: the arguments, or --file's non-empty lines (standard input for '-').
std::vector<std::string> heads_texts(const HeadsOptions& o) {
    if (!o.texts.empty() && o.text_file) usage_error("give the texts once: as arguments or with --file");
    if (!o.text_file) {
        if (o.texts.empty()) usage_error("no text given", "attn heads --model DIR \"The cat sat on the mat.\" \"She said: no.\"");
        return o.texts;
    }
    const std::string all = read_text_file(*o.text_file);  // problems named with the file and the byte offset in it
    std::vector<std::string> out;
    std::istringstream lines(all);
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") != std::string::npos) out.push_back(line);
    }
    if (out.empty())
        input_error((*o.text_file == "-" ? std::string("standard input") : *o.text_file) + ": the text has no words",
                    "write one text per line");
    return out;
}

const HeadPatternInfo& pattern_named(const std::string& name) {
    if (const HeadPatternInfo* p = find_head_pattern(name)) return *p;
    std::vector<std::string> names;
    for (const auto& p : head_patterns()) names.emplace_back(p.name);
    const std::string near = nearest_name(name, names);
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
    usage_error("--rank: '" + name + "' is not a pattern", (near.empty() ? "" : "did you mean '" + near + "'? ") + "choose one of: " + all);
}

// R: as given (2R within the context, R distinct ids within the vocabulary), else the default cut to fit.
std::size_t induction_length(const HeadsOptions& o, const ModelConfig& c) {
    const std::size_t most = std::min(c.n_positions / 2, c.vocab_size);
    if (!o.induction_length) return std::min(kDefaultInductionLength, most);
    const std::size_t R = *o.induction_length;
    if (2 * R > c.n_positions)
        usage_error("--induction-length " + std::to_string(R) + " needs " + std::to_string(2 * R) + " tokens, more than the model's context of " +
                        std::to_string(c.n_positions),
                    "use at most " + std::to_string(c.n_positions / 2));
    if (R > c.vocab_size)
        usage_error("--induction-length " + std::to_string(R) + " is more distinct ids than the vocabulary's " + std::to_string(c.vocab_size),
                    "use at most " + std::to_string(c.vocab_size));
    return R;
}

// --trace FILE: the heads of a saved model trace (attn show --model --json), scored from its weights and
// printed; an encoder-decoder's per set (core/analysis/head_report.h score_encoder_decoder).
void run_heads_trace(const HeadsOptions& o) {
    if (!o.model.empty()) usage_error("give --model DIR or --trace FILE, not both");
    if (!o.texts.empty() || o.text_file || o.json || o.png || o.svg || o.rank || o.top || o.induction_length || o.prefix || o.effect)
        usage_error("--trace scores a saved trace's heads in the terminal; texts, --file, --json, --png, --svg, --prefix, --rank, --top, "
                    "--induction-length and --effect need --model",
                    "leave them out, or give --model DIR");
    Trace t = render::read_trace_file(*o.trace, std::nullopt);
    if (!t.model)
        usage_error("--trace " + *o.trace + " is not a model's trace: attn heads scores a model's heads",
                    "write one with attn show --model DIR TEXT --json FILE");
    render::HeadsViewOptions v;
    v.model_name = t.model->name.empty() ? policy::folder_name(*o.trace) : render::printable_name(t.model->name);
    v.colour = colour_depth(o.color), v.precision = o.precision;
    if (t.model->stack == "encoder-decoder") {
        std::string source;
        for (const auto& s : t.source_tokens) source += s;
        std::cout << render::encoder_decoder_heads_terminal_view(score_encoder_decoder(t, source), v);
    } else {
        std::string text;
        for (const auto& s : t.tokens) text += s;
        if (t.token_ids.size() != t.tokens.size()) {  // a trace without ids: no token repeats (duplicate undefined)
            t.token_ids.clear();
            for (std::size_t i = 0; i < t.tokens.size(); ++i) t.token_ids.push_back(-1 - static_cast<std::int64_t>(i));
        }
        std::cout << render::heads_terminal_view(score_trace(t, text), v);
    }
    std::cout.flush();
}

// An encoder-decoder folder: the first text translated greedily (as show --model does), every set's
// heads scored and printed (the terminal only, as --trace).
void run_heads_seq2seq(const HeadsOptions& o, const ParsedConfig& parsed, const Tokenizer& tok, const std::vector<std::string>& texts) {
    if (texts.size() != 1 || o.json || o.png || o.svg || o.rank || o.top || o.induction_length)
        usage_error(std::string("attn heads scores ") + parsed.family->title +
                        "'s encoder, decoder and cross heads on one source text, in the terminal; several texts, --json, --png, "
                        "--svg, --rank, --top and --induction-length apply to decoder and encoder models",
                    "attn heads --model " + o.model + " \"one source sentence\"");
    const std::vector<std::int64_t> src = model_input(tok, parsed, texts[0], std::nullopt).ids;
    GenerationConfig g;
    ModelRunOptions run;
    seq2seq_settings({o.model, 40, std::nullopt}, tok, parsed, g, run);
    OutputPlan plan;
    plan.max_memory = o.max_memory ? parse_bytes(*o.max_memory, "--max-memory") : 0;
    ModelConfig bound = parsed.config;
    bound.n_layer = bound.n_layer + 2 * bound.n_decoder_layer;
    check_model_run_budget(bound, weights_memory(o.model), src.size() + run.max_new_tokens + 1, bound.n_layer, plan);
    const auto model = load_model(o.model);
    policy::Progress progress(::isatty(STDERR_FILENO) != 0);
    run.progress = progress.callback();
    const Trace t = run_model(*model, tok, src, run);
    progress("scoring heads", 1, 1);
    render::HeadsViewOptions v;
    v.model_name = model_display_name(o.model), v.colour = colour_depth(o.color), v.precision = o.precision;
    std::cout << render::encoder_decoder_heads_terminal_view(score_encoder_decoder(t, texts[0]), v);
    std::cout.flush();
}

void run_heads(const HeadsOptions& o) {
    if (o.trace) return run_heads_trace(o);
    if (o.model.empty()) usage_error("give a model: --model DIR (or a saved trace: --trace FILE)", "attn heads --model gpt2/ \"The cat sat on the mat.\"");
    // 1. the options and the outputs' paths, before any work
    const std::optional<HeadPattern> rank = o.rank ? std::optional(pattern_named(*o.rank).pattern) : std::nullopt;
    if (o.top && !rank && !o.effect) usage_error("--top needs --rank PATTERN: the top heads of which pattern?", "e.g. --rank previous --top 3");
    if (o.prefix && !o.png && !o.svg) usage_error("--prefix names images, but no --png or --svg folder is given", "add --png DIR");
    check_prefix(o.prefix);
    policy::OutputRequest outputs;
    outputs.json = o.json, outputs.png = o.png, outputs.svg = o.svg;
    outputs.sentence_command = "heads";
    policy::check_output_paths(outputs);
    const double text_scale = o.font ? render::check_font_file(*o.font) : 1.0;
    // 2. the folder and the texts as token ids, each within the model's context
    const ParsedConfig parsed = read_model_config(o.model);
    const ModelConfig& c = parsed.config;
    if (rank == HeadPattern::next && parsed.family->recipe.stack != Stack::encoder)
        usage_error(std::string("--rank next: ") + parsed.family->title + " is a decoder, whose causal heads never see the next token",
                    "rank next on an encoder's folder (BERT, RoBERTa, DistilBERT), or choose previous");
    if (o.effect && parsed.family->recipe.stack != Stack::decoder)
        usage_error(std::string("--effect ablates heads and measures a decoder's next-token loss, and ") + parsed.family->title + " is " +
                        (parsed.family->recipe.stack == Stack::encoder ? "an encoder" : "an encoder-decoder"),
                    "drop --effect, or give a GPT-2, Llama, Mistral or Qwen2 folder");
    const Tokenizer tok = load_model_tokenizer(o.model, parsed);
    const std::vector<std::string> texts = heads_texts(o);
    if (parsed.family->recipe.stack == Stack::encoder_decoder) return run_heads_seq2seq(o, parsed, tok, texts);
    std::vector<std::vector<std::int64_t>> ids;
    for (const auto& text : texts) ids.push_back(model_token_ids(tok, c, text));
    for (std::size_t k = 0; k < ids.size() && o.effect; ++k)
        if (ids[k].size() < 2)
            usage_error("--effect: text " + std::to_string(k + 1) + " is one token, which has no next token to predict",
                        "give texts of at least two tokens");
    HeadRunOptions run;
    run.induction_length = induction_length(o, c), run.induction_seed = o.seed;
    // the outputs as a set (figures start with the model's type), then the longest run's memory
    outputs.prefix = o.prefix.value_or(parsed.family->name);  // the family by default, as show --model's (ModelInfo::type)
    if (o.text_file) outputs.inputs.push_back({"--file", *o.text_file});
    policy::check_outputs(outputs);
    std::size_t longest = 2 * run.induction_length;
    for (const auto& text_ids : ids) longest = std::max(longest, text_ids.size());
    OutputPlan plan;
    plan.png = o.png.has_value(), plan.svg = o.svg.has_value(), plan.scale = static_cast<int>(o.scale), plan.text_scale = text_scale;
    plan.max_memory = o.max_memory ? parse_bytes(*o.max_memory, "--max-memory") : 0;
    plan.fewer = "use shorter texts or a shorter --induction-length";
    check_model_run_budget(c, weights_memory(o.model), longest, c.n_layer, plan);
    const auto model = load_model(o.model);
    // 3. the runs
    const bool json_to_stdout = o.json && *o.json == "-";
    policy::Progress progress(::isatty(STDERR_FILENO) && !json_to_stdout);
    run.progress = progress.callback();
    HeadReport r = score_heads(*model, tok, texts, ids, run);
    if (o.effect) r.effect = head_effects(*model, tok, ids, progress.callback());  // 1 + L·H forwards per text
    // 4. the outputs
    const std::string name = model_display_name(o.model);
    // the named heads (those clearing chance), each drawn on the text where its pattern is strongest
    std::vector<TopHead> top;
    if (rank && o.top) top = top_heads(r, *rank, *o.top);
    if (o.png || o.svg) add_top_runs(top, r, *model, tok, ids);
    for (TopHead& h : top)
        if (h.run.model) h.run.model->name = name;  // the top heads' figures are titled with the checkpoint
    policy::RunOutputs out(outputs);
    if (o.json) out.files.push_back({*o.json, render::heads_json_text(r, name, top, o.top ? rank : std::nullopt)});
    render::FigureOptions fopt;
    fopt.scale = static_cast<int>(o.scale), fopt.font_file = o.font.value_or("");
    if (o.png) out.png.add(out.files, render::heads_files(r, name, outputs.prefix, top, fopt, render::FileType::png));
    if (o.svg) out.svg.add(out.files, render::heads_files(r, name, outputs.prefix, top, fopt, render::FileType::svg));
    progress("writing files", out.files.size(), out.files.size());
    // a run removes only its own earlier pattern maps it did not write; show's and render's figures,
    // and the top heads' weights figures (show's names), stay
    policy::write_outputs(outputs, out, render::FileSet::heads);
    if (!json_to_stdout) {
        render::HeadsViewOptions v;
        v.model_name = name, v.colour = colour_depth(o.color), v.precision = o.precision, v.rank = rank;
        if (o.top) v.top = *o.top;
        std::cout << render::heads_terminal_view(r, v);
        if (o.effect) std::cout << "\n" << render::effect_terminal_view(r, v, o.top.value_or(5));
        policy::say_written(outputs, std::cout);
        std::cout.flush();
    }
}

}  // namespace

void setup_heads(CLI::App& app) {
    auto o = std::make_shared<HeadsOptions>();
    CLI::App* cmd = app.add_subcommand("heads", "What each head of a model does: every layer × head scored on eight patterns");
    cmd->footer(
        "Patterns, per head, from its weights on each text, averaged over the texts that define them:\n"
        "  previous     mean weight on the previous token\n"
        "  next         mean weight on the next token (encoders only: a decoder's head never sees it)\n"
        "  first        mean weight on the first token\n"
        "  self         mean weight on the query's own token\n"
        "  punctuation  mean total weight on tokens made of punctuation and symbols (Unicode P, S)\n"
        "  duplicate    mean total weight on earlier copies of the query's token\n"
        "  induction    on R random ids repeated twice: weight on the token after the earlier copy; beside it, induction\n"
        "               on the texts: weight on the token after an earlier, not adjacent copy of the query's token\n"
        "  sink         the largest mean weight one key gets from the queries after it, among keys at least 2 and half\n"
        "               of those queries give a uniform row's weight (encoders: from all queries)\n"
        "Each score stands beside its chance level, a uniform head's score on the same texts (weights spread evenly\n"
        "over the visible keys); a head is named only when its score is >= chance + 0.2 and >= 2 x chance.\n"
        "(docs/trace-format.md, \"attn heads\", gives the exact definitions and the JSON; docs/bert.md an encoder's.)\n\n"
        "Examples:\n"
        "  attn heads --model gpt2/ \"The cat sat on the mat.\" \"She said: no, not today.\"\n"
        "  attn heads --model gpt2/ --file sentences.txt --rank punctuation\n"
        "  attn heads --model gpt2/ --file sentences.txt --rank previous --top 3 --png slides/\n"
        "  attn heads --model gpt2/ --induction-length 40 --seed 7 --json heads.json \"a b c\"\n"
        "  attn heads --model gpt2/ --max-memory 2G --file essays.txt\n"
        "  attn heads --model gpt2/ --effect --top 5 --png slides/ \"When Mary and John went to the store, John gave a drink to\"\n"
        "  attn heads --trace t5-trace.json\n"
        "An encoder-decoder's sets are scored apart: encoder (as an encoder's heads), decoder (as a decoder's), and\n"
        "cross on two patterns of its own, each beside its chance level (the score of random rows):\n"
        "  monotonic    share of decoder steps whose most-attended source token is at or after the previous step's\n"
        "  eos-sink     mean weight on the source's final token (</s>)");
    cmd->add_option("texts", o->texts, "The texts, one per argument (quote each)");
    cmd->add_option("--model", o->model, "A model folder, or a repo id in the Hugging Face cache (gpt2; pulled when missing)");
    cmd->add_flag("--offline", o->offline, "--model NAME: use the Hugging Face cache only, never the network (as HF_HUB_OFFLINE=1)");
    cmd->add_option("--trace", o->trace,
                    "Instead of --model: a saved model trace (attn show --model --json), its heads scored from its weights and printed; "
                    "an encoder-decoder's (T5, BART, Marian) per set: encoder, decoder, and cross (monotonic, eos-sink)");
    cmd->add_option("--file", o->text_file, "Read the texts from a file, one per line ('-' = standard input)");
    cmd->add_option("--rank", o->rank, "Name the top heads of one pattern: previous, next (encoders), first, self, punctuation, duplicate, induction, sink");
    cmd->add_option("--top", o->top, "How many heads --rank names (default 3); with --png/--svg, their weights figures too")
        ->check(CLI::Range(std::size_t(1), std::size_t(1024)));
    cmd->add_option("--induction-length", o->induction_length,
                    "R, the random ids the induction run repeats (default 25, or half the context when shorter)")
        ->check(CLI::Range(std::size_t(1), std::size_t(1) << 20));
    cmd->add_option("--seed", o->seed, "Seed of the induction run's random ids")->check(rule("--seed"))->capture_default_str();
    cmd->add_option("--precision", o->precision, "Decimals in the tables")->check(rule("--precision"))->capture_default_str();
    bind_color_option(*cmd, o->color);
    cmd->add_option("--json", o->json, "Write the scores as JSON to PATH ('-' = standard output only)");
    cmd->add_option("--png", o->png, "Write one layers × heads map per pattern (and --top heads' weights) into folder DIR");
    bind_figure_options(*cmd, o->svg, o->scale, o->font);
    bind_prefix_option(*cmd, o->prefix, "the model's family; -heads-<pattern> follows");
    cmd->add_flag("--effect", o->effect,
                  "Decoders: every head's effect on the texts' next-token loss, the loss with that head alone zero-ablated "
                  "minus the plain loss (1 + layers × heads forwards per text); a table, the top heads (--top N, default 5), "
                  "JSON effect, and with --png/--svg the map heads-effect");
    cmd->add_option("--max-memory", o->max_memory, "Refuse runs needing more memory than SIZE (e.g. 512M, 8G; default 3/4 of RAM)");
    cmd->callback([o] {
        if (!o->model.empty() && !o->trace) o->model = model_folder(o->model, o->offline);
        else if (o->offline) usage_error("--offline applies to --model NAME", "drop --offline");
        run_heads(*o);
    });
}

}  // namespace attn::cli
