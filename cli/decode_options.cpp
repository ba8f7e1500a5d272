#include "cli/decode_options.h"

#include "cli/common_options.h"
#include "cli/show_options.h"
#include "core/kinds/decode.h"
#include "data/base/error.h"
#include "data/text/tokenize.h"

namespace attn::cli {

CLI::App* bind_decode_options(CLI::App& app, DecodeOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "decode", "Generate as a model does: tokens one at a time, each query over a growing key/value cache");
    o.cmd = cmd;
    cmd->footer(
        "Each step t appends token t's key and value to the cache and attends from its query over the\n"
        "t + 1 cached keys (mask aligned bottom-right). Every step equals row t of the full causal pass.\n\n"
        "Examples:\n"
        "  attn decode \"Your journey starts with one step\"\n"
        "  attn decode --kind mqa --heads 8 --d-out 32 \"the cat sat on the mat\"\n"
        "  attn decode --kind mha --heads 4 --pos rope --png out/ \"the cat sat on the mat\"\n"
        "  attn decode --kind causal --pos alibi --json decode.json \"one two three four\"\n"
        "  attn decode --kind local --window 2 --png out/ --prefix local-w2 --html decode.html \"one two three four\"\n"
        "  attn decode --split chars --color always \"abcdef\"\n"
        "  attn decode --model SmolLM2-135M/ \"Your journey starts with one step\"\n"
        "  attn decode --model SmolLM2-135M/ --layer 3 --png out/ --json steps.json \"Your journey starts with one step\"\n"
        "  attn decode --model SmolLM2-135M/ --max-new-tokens 20 \"Your journey starts with\"\n"
        "  attn decode --model SmolLM2-135M/ --max-new-tokens 20 --temperature 0.7 --top-p 0.9 --sample-seed 3 \"Once upon a time\"");
    auto add = [&o](CLI::Option* opt, unsigned bit) {
        o.flags.push_back({opt, bit});
        return opt;
    };
    cmd->add_option("sentence", o.sentence, "The tokens to feed, in order (UTF-8)");
    cmd->add_option("-k,--kind", o.kind, "Attention kind: " + decoding_kinds())->capture_default_str();
    cmd->add_option("--file", o.text_file, "Read the text from a file ('-' = standard input)");
    cmd->add_option("--example", o.example, "A built-in input: journey (the chapter's 6 tokens, d_in 3)");
    cmd->add_option("--embeddings", o.embeddings, "Token vectors: JSON rows, {\"tokens\", \"x\"}, or a 2-D float .npy");
    cmd->add_option("--d-in", o.d_in, "Embedding width")->check(rule("--d-in"))->capture_default_str();
    add(cmd->add_option("--d-out", o.d_out, "Projection width (default: d_in)")->check(rule("--d-out")), opt_d_out);
    cmd->add_option("--seed", o.seed, "Seed for embeddings and weights")->check(rule("--seed"))->capture_default_str();
    add(cmd->add_option("--init", o.init, "Weights: torch (nn.Linear) or torch-rand (torch.rand)")
            ->check(rule("--init"))
            ->capture_default_str(),
        opt_init);
    add(cmd->add_option("--weights", o.weights,
                        "The kind's parameters from FILE instead of --seed (.safetensors, .npz or a trace from attn show --json)"),
        opt_init);
    add(cmd->add_flag("--qkv-bias", o.qkv_bias, "Give the Q/K/V projections a bias"), opt_qkv_bias);
    add(cmd->add_option("--heads", o.heads, "Query heads H")->check(rule("--heads")), opt_heads);
    add(cmd->add_option("--kv-heads", o.kv_heads, "Key/value heads G (gqa; H must divide by G)")->check(rule("--kv-heads")),
        opt_kv_heads);
    add(cmd->add_option("--window", o.window, "local: step t sees keys t - W .. t")->check(rule("--window"))->capture_default_str(),
        opt_window);
    add(cmd->add_option("--pos", o.pos, "Positions: none, sinusoidal, rope, alibi")->check(rule("--pos"))->capture_default_str(),
        opt_pos);
    add(cmd->add_option("--rope-base", o.rope_base, "rope: theta_i = base^(-2i/d_k)")->check(rule("--rope-base"))->capture_default_str(),
        opt_pos);
    add(cmd->add_option("--rope-style", o.rope_style, "rope: half (rotate_half) or interleaved (pairs 2i, 2i+1)")
            ->check(rule("--rope-style"))
            ->capture_default_str(),
        opt_pos);
    cmd->add_option("--max-tokens", o.max_tokens, "Refuse longer inputs")->check(rule("--max-tokens"))->capture_default_str();
    cmd->add_option("--precision", o.precision, "Decimals in the terminal")->check(rule("--precision"))->capture_default_str();
    cmd->add_option("--json", o.json, "Write the steps as JSON to PATH ('-' = standard output only)");
    cmd->add_flag("--force", o.force, "Write a JSON file even above 256 MiB");
    cmd->add_option("--png", o.png, "Write the staircase and cache PNGs into folder DIR (created as needed)");
    bind_prefix_option(*cmd, o.prefix, "the kind");
    bind_figure_options(*cmd, o.svg, o.scale, o.font);
    cmd->add_option("--html", o.html, "Write the interactive page of the full causal pass (one self-contained HTML file) to FILE");
    bind_split_option(*cmd, o.split);
    bind_color_option(*cmd, o.color);
    cmd->add_option("--max-memory", o.max_memory, "Refuse runs estimated above this, e.g. 8G (default: 3/4 of RAM)");
    cmd->add_option("--model", o.model, "A model folder, or a repo id in the Hugging Face cache (gpt2; pulled when missing): its key/value cache per token");
    cmd->add_flag("--offline", o.offline, "--model NAME: use the Hugging Face cache only, never the network (as HF_HUB_OFFLINE=1)");
    cmd->add_option("--layer", o.layer, "--model: the layer whose rows the steps record (default 0)");
    cmd->add_option("--head", o.head, "--model: record only this query head (default: every head of the layer)");
    cmd->add_option("--max-new-tokens", o.max_new_tokens,
                    "--model: generate at most N tokens after the text, stopping at an end token (an encoder-decoder, "
                    "T5, BART, Marian: the text is the source; 40 when not given)");
    cmd->add_option("--temperature", o.temperature, "--model --max-new-tokens: sample, the logits divided by T > 0 (greedy without sampling options)");
    cmd->add_option("--top-k", o.top_k, "--model --max-new-tokens: sample among the K most likely tokens");
    cmd->add_option("--top-p", o.top_p, "--model --max-new-tokens: sample among the fewest most likely tokens whose probability reaches P, in (0, 1]");
    cmd->add_option("--sample-seed", o.sample_seed, "--model: seeds the draws of sampling (default 0; --seed seeds a seeded kind's weights)");
    return cmd;
}

void check_seeded_decode_options(const DecodeOptions& o) {
    const CLI::App& cmd = *o.cmd;
    if (o.offline) usage_error("--offline applies to --model NAME", "drop --offline");
    for (const char* name : {"--layer", "--head"})
        if (cmd.count(name) > 0)
            usage_error(std::string(name) + " applies to --model", "a seeded decode records every head: drop " + std::string(name));
    for (const char* name : {"--max-new-tokens", "--temperature", "--top-k", "--top-p", "--sample-seed"})
        if (cmd.count(name) > 0)
            usage_error(std::string(name) + " applies to --model: a seeded kind has no vocabulary to generate from",
                        "give a model folder (--model DIR), or drop " + std::string(name));
    if (o.weights) check_weights_options(cmd, *o.weights);
}

const Kind& check_decode_kind(const DecodeOptions& o) {
    const Kind& kind = kind_named(o.kind);
    if (!kind_decodes(kind))
        usage_error("kind '" + o.kind + "' does not decode token by token",
                    "decode takes kinds whose keys come from the sentence: " + decoding_kinds());
    for (const DecodeOptions::Flag& f : o.flags) {
        if (f.opt->count() == 0 || (kind.options & f.bit)) continue;
        std::string takers;
        for (const auto& k : kinds())
            if ((k.options & f.bit) && kind_decodes(k)) takers += (takers.empty() ? "" : ", ") + std::string(k.name);
        usage_error(f.opt->get_name() + " does not apply to kind '" + o.kind + "'", "it applies to: " + takers);
    }
    return kind;
}

Inputs decode_inputs(const DecodeOptions& o) {
    InputRequest req;
    req.sentence = o.sentence, req.text_file = o.text_file, req.example = o.example, req.embeddings = o.embeddings;
    if (o.cmd->count("--d-in") > 0) req.d_in = o.d_in;
    req.default_d_in = o.d_in, req.seed = o.seed, req.max_tokens = o.max_tokens, req.split = parse_split(o.split);
    req.command = "decode";
    return make_inputs(req);
}

Settings decode_settings(const DecodeOptions& o, const Inputs& in, OutputPlan plan) {
    SettingsRequest r;
    r.kind = o.kind, r.seed = o.seed, r.init = o.init, r.qkv_bias = o.qkv_bias, r.causal = true;
    const auto given = [](std::size_t v) { return v ? std::optional<std::size_t>(v) : std::nullopt; };
    r.d_out = given(o.d_out), r.heads = given(o.heads), r.kv_heads = given(o.kv_heads), r.window = o.window;
    r.pos = o.pos, r.rope_style = o.rope_style, r.rope_base = static_cast<double>(o.rope_base);
    const RunShape shape{in.x.shape(0), in.source_x.shape(0), in.x.shape(1), in.source_x.shape(1)};
    const Settings c = resolve_settings(r, shape);
    check_settings(c, shape);
    plan.decode = true;
    check_run_budget(c, shape, plan);
    return c;
}

}  // namespace attn::cli
