#include "cli/show_options.h"

#include "cli/policy/options.h"
#include "data/base/error.h"

#include <algorithm>
#include <iostream>

namespace attn::cli {

CLI::App* bind_show_options(CLI::App& app, ShowOptions& o, std::vector<CLI::Option*>& seeded_only) {
    CLI::App* cmd = app.add_subcommand("show", "Run one attention kind on a sentence and show every stage");
    cmd->footer(
        "Examples:\n"
        "  attn show --kind causal \"Your journey starts\"\n"
        "  attn show --example journey --kind simple --show weights,context\n"
        "  attn show --kind cross \"Wie geht es\" --source \"How are you\" --png out/ --svg out/\n"
        "  attn show --kind gqa --heads 6 --kv-heads 2 --d-out 12 \"The cat sat on the mat.\"\n"
        "  attn show --kind flash --causal --block-q 2 --block-k 3 \"Your journey starts with one step\"\n"
        "  attn show --file essay.txt --kind causal --json trace.json\n"
        "  attn show --model gpt2/ --layer 5 --head 1 --png out/ \"Your journey starts with one\"\n"
        "  attn show --model gpt2/ --layer 3 --show mean,rollout --png slides/ \"Your journey starts with one\"\n"
        "  attn show --model bert-base-uncased/ \"The capital of France is [MASK].\" --html bert.html\n"
        "  attn show --model bert-base-uncased/ \"The cat sat.\" --pair \"It was tired.\" --png out/\n"
        "  attn show --kind causal --pos rope --show queries,keys,weights \"the cat sat on the mat\"\n"
        "  attn show --kind mha --heads 8 --d-out 16 --pos alibi --png out/ \"one two three four five\"\n"
        "  attn show --kind mha --heads 12 --values always --png slides/ \"Your journey starts with one step\"\n"
        "  attn show --kind self --pos sinusoidal --show positions,weights \"dog bites man\"\n"
        "  attn show --kind cross --causal --align bottom-right \"a b\" --source \"w x y z\"\n"
        "  attn show --kind mha --heads 4 \"The cat sat on the mat.\" --html cat.html");
    bind_show_run_options(*cmd, o, seeded_only);
    return cmd;
}

void bind_show_run_options(CLI::App& app, ShowOptions& o, std::vector<CLI::Option*>& seeded_only) {
    CLI::App* cmd = &app;
    cmd->add_option("sentence", o.sentence, "The sentence to attend over (UTF-8)");
    bind_common_options(*cmd, o.common, kDefaultKind, kDefaultDIn, "Embedding width");
    cmd->add_option("--file", o.text_file, "Read the text from a file ('-' = standard input)");
    cmd->add_option("--example", o.example, "A built-in input: journey (the chapter's 6 tokens, d_in 3)");
    cmd->add_option("--embeddings", o.embeddings,
                    "Token vectors: JSON rows, {\"tokens\", \"x\"}, or a 2-D float .npy");
    o.common.kind_options.push_back(
        {cmd->add_option("--weights", o.weights,
                         "The kind's parameters from FILE instead of --seed: a .safetensors, a NumPy .npz or a trace from "
                         "--json, with the trace's names and shapes (W_query (d_in, d_out), ..., applied as x @ W)"),
         opt_init});
    o.common.kind_options.push_back(
        {cmd->add_option("--source", o.source, "Source text for keys and values (cross, additive, luong; the sentence gives the queries). An encoder-decoder --model reads the sentence as its source and --target as the decoder's text"), opt_source});
    cmd->add_option("--mask", o.mask_file, "A (T, S) mask file: JSON booleans or 0/1, or bool/uint8 .npy");
    cmd->add_option("--max-tokens", o.max_tokens, "Refuse longer inputs")
        ->check(rule("--max-tokens"))
        ->capture_default_str();
    cmd->add_option("--show", o.show,
                    "Matrices to print, one comma-separated list: scores,masked-scores,mask,weights,zeroed,dropped,"
                    "context,queries,keys,values,output,positions,bias,unrotated; with --model also mean,rollout "
                    "(the layer's mean over heads, the rollout through it; drawn too with --png/--svg)")
        ->check(rule("--show"))
        ->capture_default_str();
    cmd->add_option("--precision", o.precision, "Decimals in the terminal, and when given in the figures' cells (there 2 by default)")
        ->check(rule("--precision"))
        ->each([&o](const std::string&) { o.precision_given = true; })
        ->capture_default_str();
    bind_color_option(*cmd, o.color);
    cmd->add_flag("--full", o.full, "Print every row and column of large matrices");
    cmd->add_option("--query", o.query, "One query's row through every stage: scores, scaled, masked, softmax, context")
        ->check(rule("--query"));
    bind_colour_scale_options(*cmd, o.scale_colours);
    bind_split_option(*cmd, o.split);
    cmd->add_option("--json", o.json, "Write the JSON trace to PATH ('-' = standard output only)");
    cmd->add_option("--png", o.png, "Write heatmap PNGs into folder DIR (created as needed)");
    cmd->add_option("--figures", o.figures,
                    "Which images: scores,masked-scores,mask,weights,zeroed,dropped-weights,tiles,queries,keys,values,"
                    "context,output (default: scores,mask,weights and, when present, dropped-weights,tiles)")
        ->check(rule("--figures"));
    bind_prefix_option(*cmd, o.prefix, "the kind");
    bind_figure_options(*cmd, o.svg, o.scale, o.font);
    bind_values_option(*cmd, o.values);
    cmd->add_option("--html", o.html, "Write the interactive page (one self-contained HTML file) to FILE");
    cmd->add_flag("--no-live", o.no_live,
                  "--html: leave out the live panel (attn's core in WebAssembly, about 1.4 MB) that reruns the page on typed text");
    cmd->add_option("--npy", o.npy, "Write every matrix as a NumPy .npy file into folder DIR");
    cmd->add_flag("--force", o.force, "Write a JSON trace even above 256 MiB (--npy is the better choice)");
    cmd->add_option("--model", o.model,
                    "A Hugging Face model folder, or a repo id found in the Hugging Face cache (gpt2, org/name@rev; "
                    "downloaded when missing): GPT-2, Llama, Mistral, Qwen2, BERT, RoBERTa, DistilBERT, T5, BART, Marian "
                    "(attn models lists the families)");
    cmd->add_flag("--offline", o.offline, "--model NAME: use the Hugging Face cache only, never the network (as HF_HUB_OFFLINE=1)");
    cmd->add_option("--pair", o.pair,
                    "--model with an encoder: a second text, run as a sentence pair ([CLS] A [SEP] B [SEP]; "
                    "BERT's token type 1 for B)");
    cmd->add_option("--target", o.target,
                    "--model with an encoder-decoder (T5, BART, Marian): the decoder's text, read teacher-forced instead of "
                    "generated (the sentence is the source)");
    cmd->add_option("--max-new-tokens", o.max_new_tokens,
                    "--model with an encoder-decoder: generate at most N tokens, the end token included (as generate(max_new_tokens=N))")
        ->capture_default_str();
    cmd->add_option("--layer", o.layer, "--model: the layer whose head is printed and drawn (default: the first kept)")
        ->check(rule("--layer"));
    cmd->add_option("--head", o.head, "The head printed and drawn (default: --model head 0; seeded kinds every head)")
        ->check(rule("--head"));
    cmd->add_option("--keep-layers", o.keep_layers,
                    "--model: layers whose heads the trace keeps, e.g. 0,5-7 (default: all)");
    cmd->add_option("--align-at", o.align_at,
                    "--model with a translation model (T5, BART, Marian): the alignment figure and matrix put generated word i "
                    "at the step whose output it is (output, the default) or whose input it is (input: Shift-Att)")
        ->check(CLI::IsMember({"output", "input"}));
    cmd->add_flag("--words", o.words,
                  "--model with a translation model: the alignment in words, a source word's pieces summed, a target word's rows averaged");
    cmd->add_option("--ablate", o.ablate,
                    "--model with a decoder (GPT-2, Llama, Mistral, Qwen2): run with these heads' outputs ablated, e.g. 0.1,2.3 "
                    "(layer.head; a grouped-query model's query heads); shows each position's top prediction and the text's "
                    "next-token loss before and after");
    cmd->add_option("--ablate-mode", o.ablate_mode,
                    "--ablate: zero (the heads' context vectors set to 0, the default) or mean (set to their mean over the text's positions)")
        ->check(CLI::IsMember({"zero", "mean"}));
    cmd->add_flag("--lens", o.lens,
                  "--model with a decoder: the logit lens, the final norm and output head applied to the residual stream after "
                  "the embeddings and after every layer (the top token at each layer and position)");
    for (const auto& k : o.common.kind_options) seeded_only.push_back(k.option);
    for (const char* name : {"--kind", "--example", "--embeddings", "--mask", "--d-in", "--seed", "--max-tokens", "--split"})
        seeded_only.push_back(cmd->get_option(name));
    o.cmd = cmd;
}

std::vector<std::string> live_words(const ShowOptions& o, const std::vector<std::string>& tokens,
                                    const std::vector<std::string>& source_tokens) {
    // the options that change the numbers and that the page's core takes (no files, no terminal view)
    static const char* const kShaping[] = {"--kind", "--d-in", "--d-out", "--seed", "--init", "--qkv-bias", "--dropout",
                                           "--heads", "--kv-heads", "--window", "--score", "--block-q", "--block-k",
                                           "--renorm", "--causal", "--no-causal", "--pos", "--rope-base",
                                           "--rope-style", "--align", "--split", "--max-tokens", "--dropout-seed",
                                           "--example", "--range", "--log", "--colormap"};
    const auto join = [](const std::vector<std::string>& words) {
        std::string text;
        for (const auto& w : words) text += (text.empty() ? "" : " ") + w;
        return text;
    };
    std::vector<std::string> words;
    for (const char* name : kShaping) {
        const CLI::Option* opt = o.cmd->get_option(name);
        if (opt->count() == 0) continue;
        if (name == std::string("--kind")) {
            words.insert(words.end(), {"--kind", o.common.kind});
        } else if (opt->get_expected_min() == 0) {
            words.push_back(name);  // a flag
        } else {
            const std::string value = opt->as<std::string>();
            if (!value.empty() && value[0] == '-') words.push_back(std::string(name) + "=" + value);
            else words.insert(words.end(), {name, value});
        }
    }
    if (!words.empty() && words[0] != "--kind") words.insert(words.begin(), {"--kind", o.common.kind});
    if (words.empty()) words = {"--kind", o.common.kind};
    if (o.source || (!source_tokens.empty() && source_tokens != tokens)) {
        const std::string source = o.source.value_or(join(source_tokens));
        if (!source.empty() && source[0] == '-') words.push_back("--source=" + source);
        else words.insert(words.end(), {"--source", source});
    }
    if (o.example) return words;  // --example NAME is the input: no sentence
    const std::string text = o.sentence.value_or(join(tokens));
    if (!text.empty() && text[0] == '-') words.push_back("--");
    words.push_back(text);
    return words;
}

void check_weights_options(const CLI::App& cmd, const std::string& file) {
    for (const char* name : {"--seed", "--init"})
        if (cmd.get_option(name)->count() > 0)
            usage_error(std::string(name) + " draws the parameters, which --weights " + file + " gives",
                        std::string("drop ") + name + "; the seeded embeddings then use seed " + std::to_string(kDefaultSeed) +
                            ", and --embeddings FILE gives others");
}

const Kind& check_seeded_options(const ShowOptions& o) {
    if (o.layer) usage_error("--layer applies only with --model", "attn show --model DIR --layer 5 --head 1 \"text\"");
    if (o.keep_layers) usage_error("--keep-layers applies only with --model", "attn show --model DIR --keep-layers 0,5 \"text\"");
    if (o.align_at || o.words)
        usage_error(std::string(o.align_at ? "--align-at" : "--words") + " draws a translation model's cross-attention, which needs --model",
                    "attn show --model T5_DIR \"The house is small.\" --words");
    if (o.pair) usage_error("--pair runs a sentence pair through an encoder model, which needs --model",
                            "attn show --model BERT_DIR \"first text\" --pair \"second text\"");
    if (o.ablate || o.ablate_mode || o.lens)
        usage_error(std::string(o.ablate ? "--ablate" : o.ablate_mode ? "--ablate-mode" : "--lens") + " acts on a trained decoder's layers, which needs --model",
                    std::string("attn show --model GPT2_DIR \"text\" ") + (o.lens && !o.ablate ? "--lens" : "--ablate 0.1"));
    if (o.target) usage_error("--target is the decoder's text of an encoder-decoder model, which needs --model",
                              "seeded kinds take the keys' text with --source: attn show --kind cross \"queries\" --source \"keys\"");
    const Kind& kind = check_common_options(o.common);
    if (o.weights) check_weights_options(*o.cmd, *o.weights);
    if (kind.source == SourceRule::required && !o.source && !o.embeddings)
        usage_error("kind '" + std::string(kind.name) + "' needs --source (its keys and values)",
                    "give the text to attend over, e.g. attn show --kind cross \"Wie geht es\" --source \"How are you\"");
    return kind;
}

SeededRun prepare_seeded_run(const ShowOptions& o, const OutputPlan& plan) {
    // 2. the inputs
    InputRequest req;
    req.sentence = o.sentence, req.text_file = o.text_file, req.example = o.example;
    req.embeddings = o.embeddings, req.source = o.source, req.mask_file = o.mask_file;
    if (o.common.d_in_option->count() > 0) req.d_in = o.common.d_in;
    req.default_d_in = o.common.d_in, req.seed = o.common.seed, req.max_tokens = o.max_tokens;
    req.split = parse_split(o.split);
    SeededRun run{make_inputs(req), {}, {}};
    const Inputs& in = run.in;
    // 3. the effective settings (defaults follow the kind), checked; what the kind changed, said
    RunShape& shape = run.shape;
    shape = RunShape{in.x.shape(0), in.source_x.shape(0), in.x.shape(1), in.source_x.shape(1)};
    for (const auto* list : {&in.tokens, &in.source_tokens})
        for (const auto& token : *list) shape.token_bytes += token.size();
    Settings& c = run.settings;
    c = resolve_settings(settings_request(o.common), shape);
    check_settings(c, shape);
    if (!o.common.d_out && c.d_out != shape.d_in)
        std::cerr << "attn: note: d_out " << shape.d_in << " rounded up to " << c.d_out << ", a multiple of --heads "
                  << c.heads << " (give --d-out to choose)\n";
    if (o.query && *o.query >= in.tokens.size())
        usage_error("--query " + std::to_string(*o.query) + " is past the last query (" +
                        std::to_string(in.tokens.size()) + " tokens)",
                    "pick a query from 0 to " + std::to_string(in.tokens.size() - 1));
    if (o.head && *o.head >= c.heads)
        usage_error("--head " + std::to_string(*o.head) + " is past the last head " + std::to_string(c.heads - 1),
                    "heads count from 0; --heads sets how many there are");
    // 4. the run with its outputs, within --max-memory
    check_run_budget(c, shape, plan);
    return run;
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> items;
    for (std::size_t i = 0; i <= text.size();) {
        const auto comma = std::min(text.find(',', i), text.size());
        items.push_back(text.substr(i, comma - i));
        i = comma + 1;
    }
    return items;
}

ModelShowOptions model_show_options(const ShowOptions& o, const std::vector<CLI::Option*>& seeded_only) {
    for (const CLI::Option* opt : seeded_only)
        if (opt->count() > 0)
            usage_error(opt->get_name() + " does not apply to --model", "a model brings its own tokens, weights, heads and causal mask: drop " + opt->get_name());
    ModelShowOptions m;
    m.model = *o.model, m.sentence = o.sentence, m.text_file = o.text_file;
    m.layer = o.layer, m.head = o.head, m.keep_layers = o.keep_layers;
    m.show = split_list(o.show), m.precision = o.precision, m.figure_decimals = o.precision_given ? o.precision : 2, m.full = o.full, m.force = o.force;
    m.max_memory = o.common.max_memory;
    m.font = o.font, m.scale = static_cast<int>(o.scale);
    m.figure_colour = colour_spec(o.scale_colours), m.values = cell_values(o.values);
    m.figures = o.figures ? split_list(*o.figures) : std::vector<std::string>{};
    m.query = o.query, m.prefix = o.prefix, m.pair = o.pair;
    m.target = o.target, m.max_new_tokens = o.max_new_tokens;
    m.align_at = o.align_at, m.words = o.words;
    m.ablate = o.ablate, m.ablate_mode = o.ablate_mode, m.lens = o.lens;
    return m;
}

}  // namespace attn::cli
