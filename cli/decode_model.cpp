// attn decode --model DIR: a real model's key/value cache filled one token at a time; the terminal
// table, and the steps as JSON ("attn-decode"), figures (staircase, cache) and the full pass's page
// (with the generation's steps after --max-new-tokens).
// With --max-new-tokens the model then generates (greedy, or sampled with --temperature, --top-k,
// --top-p from --sample-seed): one line per new token, and "generated_ids" / "generation" in the JSON.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/model_source.h"
#include "cli/policy/budget.h"
#include "cli/policy/progress.h"
#include "cli/show_model.h"
#include "core/model/model.h"
#include "core/model/seq2seq.h"
#include "data/base/error.h"
#include "data/base/strings.h"
#include "data/checkpoint/model_checkpoint.h"
#include "render/outputs/figures.h"
#include "render/page/html.h"
#include "render/text/font.h"
#include "render/trace_io/decode_json.h"
#include "render/view/model_title.h"

namespace attn::cli {
namespace {

// --layer and --head against the model's shape (usage errors: exit 2).
ModelDecodeOptions decode_choice(const ModelDecodeCliOptions& o, const ModelConfig& c) {
    ModelDecodeOptions d;
    d.layer = o.layer.value_or(0), d.head = o.head;
    if (d.layer >= c.n_layer)
        usage_error("--layer " + std::to_string(d.layer) + " is past the model's last layer " + std::to_string(c.n_layer - 1),
                    "layers count from 0");
    if (d.head && *d.head >= c.n_head)
        usage_error("--head " + std::to_string(*d.head) + " is past the model's last head " + std::to_string(c.n_head - 1),
                    "heads count from 0");
    return d;
}

std::string number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// --temperature, --top-k, --top-p and --sample-seed: sampling (usage errors: exit 2). An encoder-decoder
// always generates (40 tokens when --max-new-tokens is not given); a decoder only with --max-new-tokens.
SamplingOptions sampling_choice(const ModelDecodeCliOptions& o, bool always_generates) {
    const std::pair<const char*, bool> given[] = {{"--temperature", o.temperature.has_value()}, {"--top-k", o.top_k.has_value()},
                                                  {"--top-p", o.top_p.has_value()}, {"--sample-seed", o.sample_seed.has_value()}};
    if (!o.max_new_tokens && !always_generates)
        for (const auto& [name, set] : given)
            if (set)
                usage_error(std::string(name) + " shapes the generated tokens, but no --max-new-tokens is given: decode --model only feeds the text",
                            "add --max-new-tokens N, e.g. --max-new-tokens 20");
    SamplingOptions s;
    s.sample = o.temperature || o.top_k || o.top_p;
    if (o.temperature && !(std::isfinite(*o.temperature) && *o.temperature > 0.0))
        usage_error("--temperature " + number(*o.temperature) + " is not a positive finite number",
                    "greedy is the default (drop --temperature); to sample give T > 0, e.g. --temperature 0.7");
    if (o.top_k && *o.top_k == 0)
        usage_error("--top-k 0 keeps no token to sample from", "give at least 1, e.g. --top-k 50");
    if (o.top_p && !(*o.top_p > 0.0 && *o.top_p <= 1.0))
        usage_error("--top-p " + number(*o.top_p) + " is outside (0, 1]", "give the nucleus's share of the probability, e.g. --top-p 0.9");
    if (o.sample_seed && !s.sample)
        usage_error("--sample-seed seeds sampling, but without --temperature, --top-k or --top-p the run is greedy",
                    "add a sampling option (e.g. --temperature 1), or drop --sample-seed");
    s.temperature = o.temperature.value_or(1.0), s.top_k = o.top_k.value_or(0), s.top_p = o.top_p.value_or(1.0);
    s.seed = o.sample_seed.value_or(0);
    return s;
}

// "temperature 0.7, top-k 50, top-p 0.9, --sample-seed 3", or the greedy rule.
std::string sampling_text(const SamplingOptions& s) {
    if (!s.sample) return "greedy: the most likely token at each step";
    std::string t = "sampled: temperature " + number(s.temperature);
    if (s.top_k) t += ", top-k " + std::to_string(s.top_k);
    if (s.top_p < 1.0) t += ", top-p " + number(s.top_p);
    return t + ", --sample-seed " + std::to_string(s.seed);
}

// When the folder's generation config would sample and this run is greedy: how to sample as it would.
void say_model_samples(const GenerationConfig& g, const SamplingOptions& s) {
    if (!g.do_sample || s.sample) return;
    std::string how = "--temperature " + number(g.temperature);
    if (g.top_k) how += " --top-k " + std::to_string(g.top_k);
    if (g.top_p < 1.0) how += " --top-p " + number(g.top_p);
    std::cout << "greedy here; the model's own settings would sample (" << g.file << ": do_sample true): " << how << "\n";
}

// The full pass (every layer kept, as the steps are checked against all of them) with the figures and
// page asked for, then the decode JSON: its steps' rows, T(T + 1)/2 numbers per recorded head.
void check_decode_budget(const ModelDecodeCliOptions& o, const ModelConfig& c, std::size_t T, std::size_t recorded_heads,
                         double text_scale) {
    const policy::OutputRequest& r = o.outputs;
    OutputPlan plan;
    plan.png = r.png.has_value(), plan.svg = r.svg.has_value(), plan.html = r.html.has_value();
    plan.scale = o.scale, plan.text_scale = text_scale, plan.force = true;  // the trace's JSON is not written
    plan.max_memory = o.max_memory ? parse_bytes(*o.max_memory, "--max-memory") : 0;
    check_model_run_budget(c, weights_memory(o.model), T, c.n_layer, plan);
    if (!r.json) return;
    const double half = double(T) * double(T + 1) / 2.0;
    const double json = json_text_bytes(double(recorded_heads) * half + 2.0 * double(T), 0.0, 0.0, 64.0 * double(T));
    if (json > double(kMaxJsonBytes) && !o.force)
        usage_error("the decode JSON would be about " + format_bytes(json) + ", more than " + format_bytes(double(kMaxJsonBytes)),
                    "decode fewer tokens, record one head (--head N), or add --force");
}

void print_decode(const DecodeTrace& d, const ModelCheckpoint& model, int precision) {
    const ModelConfig& c = model.config;
    std::cout << "model:    " << render::model_title_with_family(*d.full.model) << " \xC2\xB7 " << model.dtype << " \xC2\xB7 " << c.n_layer << " layers \xC3\x97 "
              << c.n_head << " query heads over " << c.n_kv_head << " key/value heads \xC2\xB7 head_dim " << c.head_dim << "\n";
    std::cout << "attn decode \xC2\xB7 " << d.steps.size() << " tokens fed one at a time; each step's queries attend over the cached keys\n\n";
    // columns padded by characters, not bytes (labels hold '·' and other non-ASCII text)
    auto pad = [](const std::string& s, std::size_t width, bool right = false) {
        std::size_t chars = 0;
        for (unsigned char ch : bytes_of(s)) chars += (ch & 0xC0) != 0x80;
        const std::string fill(chars < width ? width - chars : 0, ' ');
        return right ? fill + s : s + fill;
    };
    std::cout << pad("step", 5, true) << "  " << pad("token", 18) << pad("next (top 1)", 18) << pad("cache", 10, true) << "\n";
    for (const auto& s : d.steps)
        std::cout << pad(std::to_string(s.step), 5, true) << "  " << pad(s.token, 18) << pad(s.next, 18)
                  << pad(format_bytes(static_cast<double>(s.cache_bytes)), 10, true) << "\n";
    char diff[400];  // %g of a double: at most 310 characters
    std::snprintf(diff, sizeof diff, "%.*g", std::max(1, precision / 2), d.max_abs_diff);
    std::cout << "\nevery step's weights equal row t of the full pass within " << diff << " (largest difference)"
              << (d.model->top_changed ? "; some top prediction differs from the full pass's" : "; the same top predictions") << "\n";
    const auto G = c.n_kv_head, H = c.n_head;
    const std::size_t bytes = d.model->dtype_bytes;
    std::cout << "key/value cache per token: " << c.n_layer << " layers \xC3\x97 " << G << " key/value heads \xC3\x97 " << c.head_dim
              << " head_dim \xC3\x97 2 (k, v) \xC3\x97 " << bytes << " bytes (" << model.dtype
              << ") = " << cache_bytes_per_token(c.n_layer, G, c.head_dim, c.head_dim, bytes) << " bytes\n";
    std::cout << "  as multi-head attention (" << H << " key/value heads): "
              << cache_bytes_per_token(c.n_layer, H, c.head_dim, c.head_dim, bytes) << " bytes";
    if (G != H) std::cout << "; sharing each key/value head among " << H / G << " query heads keeps 1/" << H / G << " of it";
    std::cout << "\n";
}

// Columns padded by characters, not bytes (labels hold '·' and other non-ASCII text).
std::string pad(const std::string& s, std::size_t width, bool right = false) {
    std::size_t chars = 0;
    for (unsigned char ch : bytes_of(s)) chars += (ch & 0xC0) != 0x80;
    const std::string fill(chars < width ? width - chars : 0, ' ');
    return right ? fill + s : s + fill;
}

// A row of weights with the tokens they fall on: "0.12 tok  0.80 tok2 ..." (the recorded heads' mean).
std::string weighted_row(const std::vector<std::vector<float>>& rows, const std::vector<std::string>& tokens, int precision) {
    std::string s;
    for (std::size_t j = 0; j < tokens.size() && j < rows.at(0).size(); ++j) {
        double w = 0.0;
        for (const auto& r : rows) w += r[j];
        w /= double(rows.size());
        char num[32];
        std::snprintf(num, sizeof num, "%.*f", std::max(1, precision), w);
        s += std::string(j ? "  " : "") + num + " " + tokens[j];
    }
    return s;
}

// Generation: one line per new token (its step, the token, its probability, the top 5, the chosen head's
// row at the step that chose it), then the text the tokens make.
void print_generation(const DecodeTrace& d, const Tokenizer& tok, std::size_t head, int precision) {
    const DecodeGeneration& g = *d.model->generation;
    std::cout << "\ngeneration \xC2\xB7 " << sampling_text({g.sample, g.temperature, g.top_k, g.top_p, g.sample_seed})
              << " \xC2\xB7 at most " << g.max_new_tokens << " new tokens \xC2\xB7 p: the model's probability"
              << (g.sample ? ", q: the sampler's (after temperature, top-k, top-p)" : "") << " \xC2\xB7 row: layer " << d.model->layer << ", head " << head << "\n";
    auto prob = [&](double p) {
        char num[32];
        std::snprintf(num, sizeof num, "%.*f", std::max(4, precision), p);
        return std::string(num);
    };
    std::vector<std::int64_t> ids;
    for (std::size_t i = 0; i < g.tokens.size(); ++i) {
        const GeneratedToken& t = g.tokens[i];
        std::string line = pad(std::to_string(i + 1), 5, true) + "  " + pad("\"" + t.token + "\"", 14) + " p " + prob(t.p);
        if (g.sample) line += " q " + prob(t.p_sample);
        line += "  top:";
        for (const Prediction& a : t.top) line += " \"" + tok.label(a.id) + "\" " + prob(a.p);
        std::vector<std::string> seen;
        for (std::size_t j = 0; j <= t.row; ++j) seen.push_back(d.steps[j].token);
        for (const DecodeHeadStep& h : d.steps[t.row].heads)
            if (h.head == head) line += "  row: " + weighted_row({h.weights}, seen, precision);
        std::cout << line << "\n";
        if (!(g.stopped_at_eos && i + 1 == g.tokens.size())) ids.push_back(t.id);
    }
    std::cout << "generated: " << tok.decode_text(ids) << (g.stopped_at_eos ? "  (then the end token)" : "") << "\n";
}

// An encoder-decoder's steps: the terminal only (show --model writes the figures, page and trace).
void run_decode_seq2seq(const ModelDecodeCliOptions& o, const ParsedConfig& parsed) {
    const ModelConfig& c = parsed.config;
    if (o.outputs.json || o.outputs.png || o.outputs.svg || o.outputs.html)
        usage_error("decode --model prints an encoder-decoder's steps in the terminal; its JSON trace, figures and page come from show",
                    "attn show --model " + o.model + " \"source sentence\" --json trace.json --png figs/ --html page.html");
    const Tokenizer tok = load_model_tokenizer(o.model, parsed);
    const std::vector<std::int64_t> src = model_input(tok, parsed, o.text, std::nullopt).ids;
    GenerationConfig g;
    ModelRunOptions run;
    run.sampling = sampling_choice(o, true);
    seq2seq_settings({o.model, o.max_new_tokens.value_or(40), std::nullopt}, tok, parsed, g, run);
    const std::size_t layer = o.layer.value_or(0);
    if (layer >= c.n_decoder_layer)
        usage_error("--layer " + std::to_string(layer) + " is past the decoder's last layer " + std::to_string(c.n_decoder_layer - 1),
                    "layers count from 0");
    if (o.head && *o.head >= c.n_head)
        usage_error("--head " + std::to_string(*o.head) + " is past the model's last head " + std::to_string(c.n_head - 1), "heads count from 0");
    OutputPlan plan;
    plan.force = true;
    plan.max_memory = o.max_memory ? parse_bytes(*o.max_memory, "--max-memory") : 0;
    ModelConfig bound = c;
    bound.n_layer = c.n_layer + 2 * c.n_decoder_layer;
    check_model_run_budget(bound, weights_memory(o.model), src.size() + run.max_new_tokens + 1, 1, plan);
    const auto model = load_model(o.model);
    policy::Progress progress(::isatty(STDERR_FILENO) != 0);
    run.progress = progress.callback();
    const Seq2SeqDecode d = run_seq2seq_decode(*model, tok, src, run, layer, o.head);
    progress("done", 1, 1);
    std::cout << "model:    " << model->family->name << " \xC2\xB7 " << model->dtype << " \xC2\xB7 encoder " << c.n_layer
              << " layers, decoder " << c.n_decoder_layer << " layers \xC3\x97 " << c.n_head << " heads \xC2\xB7 head_dim " << c.head_dim << "\n";
    std::cout << "source:   " << o.text << "\n";
    std::cout << "attn decode \xC2\xB7 " << (run.sampling.sample ? sampling_text(run.sampling) : "greedy") << ", one token a step; decoder layer " << layer << ", "
              << (o.head ? "head " + std::to_string(*o.head) : "the mean of its " + std::to_string(c.n_head) + " heads") << "\n\n";
    say_model_samples(g, run.sampling);
    std::cout << pad("step", 5, true) << "  " << pad("input", 16) << pad(run.sampling.sample ? "next (drawn)" : "next (greedy)", 16)
              << pad("self cache", 12, true) << "\n";
    for (std::size_t i = 0; i < d.steps.size(); ++i) {
        const Seq2SeqStep& s = d.steps[i];
        std::cout << pad(std::to_string(i), 5, true) << "  " << pad(s.token, 16) << pad(s.next, 16)
                  << pad(format_bytes(double(s.self_cache_bytes)), 12, true) << "\n";
        std::vector<std::string> so_far;
        for (std::size_t j = 0; j <= i; ++j) so_far.push_back(d.steps[j].token);
        std::cout << "       decoder row: " << weighted_row(s.self, so_far, o.precision) << "\n";
        std::cout << "       cross row:   " << weighted_row(s.cross, d.source, o.precision) << "\n";
    }
    char diff[400];
    std::snprintf(diff, sizeof diff, "%.*g", std::max(1, o.precision / 2), d.max_abs_diff);
    std::cout << "\nevery step's rows equal row t of the full pass within " << diff << " (largest difference)\n";
    std::cout << "self-attention cache (what a caching decoder keeps; attn recomputes each step): grows by one token a step, " << c.n_decoder_layer << " layers \xC3\x97 " << c.n_head
              << " heads \xC3\x97 " << c.head_dim << " head_dim \xC3\x97 2 (k, v) \xC3\x97 " << d.dtype_bytes << " bytes = "
              << format_bytes(double(d.dtype_bytes) * 2.0 * double(c.n_decoder_layer * c.n_head * c.head_dim)) << " per token\n";
    std::cout << "cross-attention keys and values: computed once from the encoder's " << d.source.size()
              << " source tokens and read at every step, " << format_bytes(double(d.cross_cache_bytes)) << " whatever the output's length\n";
    std::cout.flush();
}

}  // namespace

void run_decode_model(const ModelDecodeCliOptions& o) {
    const policy::OutputRequest& r = o.outputs;
    const double text_scale = o.font ? render::check_font_file(*o.font) : 1.0;
    // 1. the folder and the text, within the model's context; the layer and head recorded
    const ParsedConfig parsed = read_model_config(o.model);
    const ModelConfig& c = parsed.config;
    if (parsed.family->recipe.stack == Stack::encoder)
        usage_error(std::string("decode feeds a decoder one token at a time through its key/value cache, and ") + parsed.family->title +
                        " is an encoder: every token sees every other at once",
                    "attn show --model " + o.model + " \"text\" shows an encoder's heads");
    if (parsed.family->recipe.stack == Stack::encoder_decoder) return run_decode_seq2seq(o, parsed);
    const Tokenizer tok = Tokenizer::load_dir(o.model);
    const std::vector<std::int64_t> ids = model_token_ids(tok, c, o.text);
    ModelDecodeOptions choice = decode_choice(o, c);
    choice.sampling = sampling_choice(o, false);
    // generation: the text and the new tokens within the context; the end tokens from the folder
    GenerationConfig generation;
    if (o.max_new_tokens) {
        const std::size_t n = *o.max_new_tokens, limit = context_length(c);
        if (n < 1) usage_error("--max-new-tokens 0 generates nothing", "give at least 1, e.g. --max-new-tokens 20");
        if (n > limit || ids.size() + n > limit)
            usage_error("the text's " + std::to_string(ids.size()) + " tokens and --max-new-tokens " + std::to_string(n) +
                            " pass the model's context of " + std::to_string(limit) + " tokens",
                        ids.size() < limit ? "give at most --max-new-tokens " + std::to_string(limit - ids.size()) + ", or a shorter text"
                                           : "shorten the text");
        generation = read_generation_config(o.model, c.model_type);
        for (auto e : generation.eos)
            if (static_cast<std::size_t>(e) >= c.vocab_size)
                input_error(generation.file + ": eos_token_id " + std::to_string(e) + " is past the vocabulary (" +
                                std::to_string(c.vocab_size) + " ids)",
                            "the ids must name rows of the model's vocabulary: use the model's own config files");
        choice.max_new_tokens = n, choice.generation = &generation;
    }
    const std::size_t head_shown = o.head.value_or(0);
    check_decode_budget(o, c, ids.size() + choice.max_new_tokens, choice.head ? 1 : c.n_head, text_scale);
    const auto model = load_model(o.model);
    // 2. the full pass and the steps
    const bool quiet = policy::json_to_stdout(r);
    policy::Progress progress(::isatty(STDERR_FILENO) && !quiet);
    progress("decoding", 0, 1);
    DecodeTrace d = run_model_decode(*model, tok, ids, choice);
    d.full.model->name = model_display_name(o.model);  // the checkpoint, in the JSON and the titles
    // 3. the outputs: the steps, the figures (named after --prefix or the family), the full pass's page
    policy::RunOutputs out(r);
    if (r.json) out.files.push_back({*r.json, render::decode_json_text(d)});
    const render::FigureFiles figures{r.prefix, o.scale, o.font.value_or("")};
    if (r.png) out.png.add(out.files, render::decode_figures(d, figures, render::FileType::png));
    if (r.svg) out.svg.add(out.files, render::decode_figures(d, figures, render::FileType::svg));
    if (r.html)
        out.files.push_back({*r.html, render::render_decode_html(d, {"attn decode --model", choice.layer, choice.head.value_or(0), std::nullopt})});
    progress("writing files", out.files.size(), out.files.size());
    policy::write_outputs(r, out, render::FileSet::decode);
    if (!quiet) {
        print_decode(d, *model, o.precision);
        if (d.model->generation) {
            say_model_samples(generation, choice.sampling);
            print_generation(d, tok, head_shown, o.precision);
        }
        policy::say_written(r, std::cout);
        std::cout.flush();
    }
}

}  // namespace attn::cli
