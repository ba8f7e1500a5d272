// attn show --model DIR: the run itself, from the options to the trace, with every check on the way
// (the folder, the text, the layers and heads, the memory), and nothing drawn or written: the native
// command (cli/show_model.cpp) writes its outputs from what this returns, and the page's WebAssembly
// core (cli/web/attn_web.cpp) returns its JSON trace.
#include "cli/show_model.h"

#include <sys/stat.h>

#include <algorithm>
#include <functional>
#ifndef __EMSCRIPTEN__
#include <future>
#include <system_error>
#endif
#include <vector>

#include "cli/policy/budget.h"
#include "core/kinds/budget.h"
#include "core/model/model.h"
#include "data/base/error.h"
#include "data/base/files.h"
#include "data/checkpoint/model_checkpoint.h"
#include "data/inputs/inputs.h"
#include "data/text/tokenizer.h"

namespace attn::cli {
namespace {

// The text: the argument, or --file (standard input for '-').
std::string model_text(const ModelShowOptions& o) {
    if (o.sentence && o.text_file) usage_error("give the text once: as an argument or with --file");
    if (o.text_file) {
        return read_text_file(*o.text_file);  // problems named with the file and the byte offset in it
    }
    if (!o.sentence) usage_error("no text given", "attn show --model DIR \"Your journey starts with one\"");
    return *o.sentence;
}

}  // namespace

const std::vector<const char*>& model_folder_files() {
    static const std::vector<const char*> files = {
        "config.json", "generation_config.json", "model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
        "pytorch_model.bin.index.json", "vocab.json", "merges.txt", "vocab.txt", "tokenizer.json", "tokenizer_config.json",
        "added_tokens.json", "special_tokens_map.json", "source.spm", "target.spm", "spiece.model", "target_vocab.json"};
    return files;
}

std::vector<bool> parse_layer_list(const std::string& text, std::size_t n_layer) {
    std::vector<bool> keep(n_layer, text == "all");
    if (text == "all") return keep;
    auto bad = [&](const std::string& why) {
        usage_error("--keep-layers '" + text + "' " + why, "write layers and ranges from 0 to " + std::to_string(n_layer - 1) +
                                                             ", e.g. --keep-layers 0,5-7, or all");
    };
    auto number = [&](const std::string& s) {
        if (s.empty() || s.size() > 7 || s.find_first_not_of("0123456789") != std::string::npos) bad("is not a list of layers");
        const std::size_t n = std::stoul(s);
        if (n >= n_layer) bad("names layer " + s + "; the model has " + std::to_string(n_layer));
        return n;
    };
    std::size_t at = 0;
    while (at <= text.size()) {
        std::size_t comma = text.find(',', at);
        if (comma == std::string::npos) comma = text.size();
        const std::string item = text.substr(at, comma - at);
        const std::size_t dash = item.find('-');
        const std::size_t lo = number(item.substr(0, dash)), hi = dash == std::string::npos ? lo : number(item.substr(dash + 1));
        if (hi < lo) bad("has a range that runs backwards");
        for (std::size_t l = lo; l <= hi; ++l) keep[l] = true;
        at = comma + 1;
    }
    return keep;
}

HeadAblation parse_ablation(const std::string& text, const std::optional<std::string>& mode, std::size_t n_layer, std::size_t n_head) {
    const std::string limits = "layers 0 to " + std::to_string(n_layer - 1) + ", heads 0 to " + std::to_string(n_head - 1);
    auto bad = [&](const std::string& why) { usage_error("--ablate '" + text + "' " + why, "write layer.head pairs (" + limits + "), e.g. --ablate 0.1,1.0"); };
    auto number = [&](const std::string& s) -> std::size_t {
        if (s.empty() || s.size() > 7 || s.find_first_not_of("0123456789") != std::string::npos) bad("is not a list of layer.head pairs");
        return std::stoul(s);
    };
    HeadAblation a;
    a.mode = mode && *mode == "mean" ? AblationMode::mean : AblationMode::zero;
    for (std::size_t at = 0; at <= text.size();) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        const std::string item = text.substr(at, comma - at);
        const std::size_t dot = item.find('.');
        if (dot == std::string::npos) bad("is not a list of layer.head pairs");
        const std::size_t l = number(item.substr(0, dot)), h = number(item.substr(dot + 1));
        if (l >= n_layer) bad("names layer " + std::to_string(l) + "; the model has " + std::to_string(n_layer) + " layers");
        if (h >= n_head) bad("names head " + std::to_string(h) + "; the model has " + std::to_string(n_head) + " heads per layer");
        if (std::find(a.heads.begin(), a.heads.end(), std::pair{l, h}) != a.heads.end()) bad("names head " + item + " twice");
        a.heads.emplace_back(l, h);
        at = comma + 1;
    }
    return a;
}

namespace {

// --ablate and --lens run a decoder's layers: an encoder's or an encoder-decoder's are refused by name,
// a one-token text has no next token whose loss could change, --ablate-mode needs --ablate.
void check_interventions(const ModelShowOptions& o, const ParsedConfig& p, std::size_t tokens) {
    if (o.ablate_mode && !o.ablate) usage_error("--ablate-mode " + *o.ablate_mode + " says how heads are ablated, but no --ablate names them", "add --ablate L.H, e.g. --ablate 0.1");
    if (!o.ablate && !o.lens) return;
    const std::string what = o.ablate ? "--ablate" : "--lens";
    if (p.family->recipe.stack != Stack::decoder)
        usage_error(what + " runs a decoder's next-token predictions, and " + p.family->title + " is " +
                        (p.family->recipe.stack == Stack::encoder ? "an encoder" : "an encoder-decoder"),
                    "drop " + what + ", or give a GPT-2, Llama, Mistral or Qwen2 folder");
    if (o.ablate && tokens < 2)
        usage_error("--ablate compares the loss of the text's next tokens, and a one-token text has none", "give a text of at least two tokens");
}

// Usage errors for an empty text or one past the context, an input error for an id outside the vocabulary.
void check_model_ids(const std::vector<std::int64_t>& ids, const ModelConfig& c) {
    const std::size_t n = context_length(c);
    if (ids.empty()) usage_error("the text is empty", "give at least one word, e.g. \"Your journey starts\"");
    if (ids.size() > n)
        usage_error("the text has more than " + std::to_string(n) + " tokens, the model's context (" + context_field(c) + ")",
                    "shorten the text to at most " + std::to_string(n) + " tokens");
    for (auto id : ids)
        if (static_cast<std::size_t>(id) >= c.vocab_size)
            input_error("token id " + std::to_string(id) + " is outside the model's vocabulary of " + std::to_string(c.vocab_size),
                        "the tokeniser files belong to another model: download them with the weights");
}

}  // namespace

Tokenizer load_model_tokenizer(const std::string& dir, const ParsedConfig& p) {
    struct stat st {};
    auto present = [&](const char* name) { return ::stat((dir + "/" + name).c_str(), &st) == 0 && S_ISREG(st.st_mode); };
    // an encoder's special tokens come from its tokenizer.json's post-processor (or BERT's vocab.txt
    // rules); vocab.json + merges.txt alone would run RoBERTa without its <s> … </s>
    if (p.family->recipe.stack == Stack::encoder && !present("tokenizer.json") && !present("vocab.txt"))
        input_error("'" + dir + "' has no tokenizer.json or vocab.txt, which say where an encoder's special tokens go ([CLS] … [SEP], <s> … </s>)",
                    "download the model's tokenizer.json into the folder");
    return Tokenizer::load_dir(dir);
}

ModelInput model_input(const Tokenizer& tok, const ParsedConfig& p, const std::string& text, const std::optional<std::string>& pair) {
    const ModelConfig& c = p.config;
    const bool encoder = p.family->recipe.stack == Stack::encoder;
    if (pair && p.family->recipe.stack == Stack::encoder_decoder)
        usage_error(std::string("--pair runs a sentence pair through an encoder, and ") + p.family->title +
                        " is an encoder-decoder: its decoder's text is --target",
                    "attn show --model DIR \"source sentence\" --target \"its translation\"");
    if (pair && !encoder)
        usage_error(std::string("--pair runs a sentence pair through an encoder, and ") + p.family->title + " is a decoder",
                    "drop --pair, or give an encoder's folder (BERT, RoBERTa, DistilBERT)");
    if (pair && pair->empty()) usage_error("--pair: the second text is empty", "give at least one word, e.g. --pair \"The cat slept.\"");
    // the ids with the post-processor's special tokens ([CLS] A [SEP] (B [SEP]), <s> A </s>), as Hugging Face's tokenizer gives them
    const Encoding e = pair ? tok.encode_pair(text, *pair, context_length(c)) : tok.encode(text, context_length(c));
    ModelInput in;
    in.ids = e.ids;
    if (pair) in.segments = e.segment;
    check_model_ids(in.ids, c);
    if (encoder && p.family->recipe.token_types) {
        in.type_ids = e.type_ids;
        for (auto type : in.type_ids)
            if (type < 0 || static_cast<std::size_t>(type) >= c.type_vocab_size)
                input_error("the tokeniser gives token type " + std::to_string(type) + ", but config.json's type_vocab_size is " +
                                std::to_string(c.type_vocab_size),
                            "Hugging Face would fail on this pair too: run the two texts one at a time, or use a model trained on pairs");
    }
    return in;
}

std::vector<std::int64_t> model_token_ids(const Tokenizer& tok, const ModelConfig& c, const std::string& text) {
    const std::vector<std::int64_t> ids = tok.ids(text, context_length(c));
    check_model_ids(ids, c);
    return ids;
}


// --show: the stages a model run keeps per head (core/model/model.cpp keeps scores, mask and weights), and
// the chosen head's queries and keys (Trace::neuron); its values and contexts are not stored. Any other
// stage is refused by name, never printed empty.
void check_model_stages(const std::vector<std::string>& show, const std::vector<std::string>& figures, bool query) {
    static const std::vector<std::string> kept = {"scores", "masked-scores", "mask", "weights", "queries", "keys"};
    const std::string keeps = "a model run keeps each head's scores, mask and weights, and the chosen head's queries and keys, not its ";
    for (const std::string& stage : show)
        if (std::find(kept.begin(), kept.end(), stage) == kept.end() && stage != "mean" && stage != "rollout")
            usage_error("--show " + stage + ": " + keeps + stage,
                        "choose from scores, masked-scores, mask, weights, queries, keys, and the layer's mean and rollout; the numbers behind them: --npy DIR");
    for (const std::string& figure : figures) {
        if (figure == "query" && !query) usage_error("--figures query draws one query's strip, but no --query is given", "add --query I, e.g. --query 0");
        if (figure == "products" && !query)
            usage_error("--figures products draws query I's products with every key, but no --query is given", "add --query I, e.g. --query 0");
        if (figure != "query" && figure != "products" && std::find(kept.begin(), kept.end(), figure) == kept.end())
            usage_error("--figures " + figure + ": " + keeps + figure,
                        "choose from scores, masked-scores, mask, weights, queries, keys, products, query");
    }
}

static bool wants_neuron(const std::vector<std::string>& show, const std::vector<std::string>& figures) {
    auto has = [](const std::vector<std::string>& v, const char* s) { return std::find(v.begin(), v.end(), s) != v.end(); };
    return has(show, "queries") || has(show, "keys") || has(figures, "queries") || has(figures, "keys") || has(figures, "products");
}

void seq2seq_settings(const Seq2SeqRequest& o, const Tokenizer& tok, const ParsedConfig& p, GenerationConfig& g,
                      ModelRunOptions& run) {
    const ModelConfig& c = p.config;
    g = read_generation_config(o.model, c.model_type);
    check_generation_ids(g, c.vocab_size);
    const std::size_t positions = context_length(c);  // the decoder's input may not pass its positions
    if (o.max_new_tokens < 1)
        usage_error("--max-new-tokens 0 generates nothing", "give at least 1, e.g. --max-new-tokens 40");
    run.generation = &g;
    run.max_new_tokens = std::min(o.max_new_tokens, positions);
    if (o.max_new_tokens > positions)
        usage_error("--max-new-tokens " + std::to_string(o.max_new_tokens) + " is past the decoder's " + std::to_string(positions) +
                        " positions (max_position_embeddings)",
                    "give at most " + std::to_string(positions));
    if (!o.target) return;
    if (o.target->empty()) usage_error("--target: the decoder's text is empty", "give the translation to read, e.g. --target \"Das Haus\"");
    run.target_ids = tok.encode_target(*o.target, positions).ids;  // the labels, with the tokeniser's end token
    if (run.target_ids.size() > positions)
        usage_error("--target has more than " + std::to_string(positions) + " tokens, the decoder's positions",
                    "shorten the target to at most " + std::to_string(positions) + " tokens");
    for (auto id : run.target_ids)
        if (id < 0 || static_cast<std::size_t>(id) >= c.vocab_size)
            input_error("--target: token id " + std::to_string(id) + " is outside the model's vocabulary of " + std::to_string(c.vocab_size),
                        "the tokeniser files belong to another model: download them with the weights");
}

#ifndef __EMSCRIPTEN__
namespace {

// load(dir) on a thread of its own, or when asked where no thread can be started. A future from
// std::async waits for its thread when dropped: an error before the weights are needed still waits for
// them, and theirs is then not reported.
std::future<std::unique_ptr<ModelCheckpoint>> start_loading(const ModelLoader& load, const std::string& dir) {
    try {
        return std::async(std::launch::async, load, dir);
    } catch (const std::system_error&) {
        return std::async(std::launch::deferred, load, dir);
    }
}

}  // namespace
#endif

ModelShowRun compute_show_model(const ModelShowOptions& o, const ModelLoader& load_model, double text_scale,
                                const std::function<void(const char*, std::size_t, std::size_t)>& progress) {
    check_model_stages(o.show, o.figures, o.query.has_value());
    const policy::OutputRequest& r = o.outputs;  // checked as a set by the caller, before the folder is read
    // 2. the folder: config, tokeniser, the weights' header
    const std::string dir = o.model;
    ModelShowRun out;
    out.parsed = read_model_config(dir);
    const ParsedConfig& parsed = out.parsed;
    const ModelConfig& c = parsed.config;
    // The weights are mapped and checked on a second thread while the tokeniser is read and the options
    // checked (GPT-2's vocab.json and merges.txt took 0.10 s, its 475 MiB of weights 0.08–0.15 s); their
    // errors still come after those checks', in the order of the steps below.
#ifdef __EMSCRIPTEN__
    const auto weights = [&] { return load_model(dir); };  // one thread in the page: loaded when needed
#else
    auto pending = start_loading(load_model, dir);
    const auto weights = [&] { return pending.get(); };
#endif
    out.tok = load_model_tokenizer(dir, parsed);
    out.text = model_text(o);
    const Tokenizer& tok = out.tok;
    const std::string& text = out.text;
    // 3. the text (and a sentence pair's second) as token ids, within the model's context
    const ModelInput input = model_input(tok, parsed, text, o.pair);
    const std::vector<std::int64_t>& ids = input.ids;
    const bool seq2seq = out.seq2seq = parsed.family->recipe.stack == Stack::encoder_decoder;
    if ((o.align_at || o.words) && !seq2seq)
        usage_error(std::string(o.align_at ? "--align-at" : "--words") + " draws a translation model's cross-attention, and " +
                        parsed.family->title + " is not an encoder-decoder",
                    "drop it, or give a T5, BART or Marian folder");
    if (seq2seq && o.query)
        usage_error("--query follows one query's row through a single-set run; an encoder-decoder's rows are its steps",
                    "attn decode --model " + dir + " \"source\" prints each step's decoder and cross rows");
    if (seq2seq && r.npy)
        usage_error("--npy writes one set's arrays; an encoder-decoder run keeps three (encoder, decoder, cross)",
                    "write them all with --json FILE (docs/trace-format.md)");
    if (o.target && !seq2seq)
        usage_error(std::string("--target is the decoder's text of an encoder-decoder model, and ") + parsed.family->title + " is not one",
                    "drop --target, or give a T5, BART or Marian folder");
    check_interventions(o, parsed, ids.size());
    const bool neuron = wants_neuron(o.show, o.figures);
    if (neuron && seq2seq)
        usage_error(std::string("--show queries,keys keeps one head of a single-set run, and ") + parsed.family->title +
                        " is an encoder-decoder with three sets (encoder, decoder, cross)",
                    "drop queries and keys, or give a decoder's or an encoder's folder (GPT-2, Llama, BERT, ...)");
    const HeadAblation ablation = o.ablate ? parse_ablation(*o.ablate, o.ablate_mode, c.n_layer, c.n_head) : HeadAblation{};
    GenerationConfig& generation = out.generation;
    if (o.query && *o.query >= ids.size())
        usage_error("--query " + std::to_string(*o.query) + " is past the last query (" + std::to_string(ids.size()) + " tokens)",
                    "pick a query from 0 to " + std::to_string(ids.size() - 1));
    // 4. which layers the trace keeps, the head shown, the memory it takes
    ModelRunOptions run;
    if (seq2seq) seq2seq_settings({o.model, o.max_new_tokens, o.target}, tok, parsed, generation, run);
    const std::size_t depth = std::max(c.n_layer, c.n_decoder_layer);  // an encoder-decoder's layers number both stacks
    run.keep_layers = o.keep_layers ? parse_layer_list(*o.keep_layers, depth) : std::vector<bool>(depth, true);
    std::vector<std::size_t>& kept = out.kept;
    for (std::size_t l = 0; l < depth; ++l)
        if (run.keep_layers[l]) kept.push_back(l);
    const std::size_t layer = out.layer = o.layer.value_or(kept.front());
    if (layer >= depth) usage_error("--layer " + std::to_string(layer) + " is past the model's last layer " + std::to_string(depth - 1), "layers count from 0");
    if (!run.keep_layers[layer]) usage_error("--layer " + std::to_string(layer) + " is not among --keep-layers", "keep the layer you pick");
    const std::size_t head = out.head = o.head.value_or(0);
    if (head >= c.n_head) usage_error("--head " + std::to_string(head) + " is past the model's last head " + std::to_string(c.n_head - 1), "heads count from 0");
    // the raw scores where an output shows them: the files, one query's stages, --show scores; without
    // them (a decoder's or an encoder's terminal alone) the trace holds the chosen layer only
    auto shows = [&](const char* s) { return std::find(o.show.begin(), o.show.end(), s) != o.show.end(); };
    run.keep_scores = r.json || r.html || r.npy || r.png || r.svg || o.query || neuron || shows("scores") || shows("masked-scores");
    const bool terminal_only = !run.keep_scores && !seq2seq;
    OutputPlan plan;
    plan.raw_scores = run.keep_scores;
    plan.json = r.json.has_value(), plan.png = r.png.has_value(), plan.svg = r.svg.has_value();
    plan.html = r.html.has_value(), plan.npy = r.npy.has_value(), plan.force = o.force;
    plan.scale = o.scale, plan.text_scale = text_scale;
    plan.max_memory = o.max_memory ? parse_bytes(*o.max_memory, "--max-memory") : 0;
    plan.head_view = true, plan.bidirectional = parsed.family->recipe.stack != Stack::decoder;
    for (const std::string& s : o.show) plan.aggregates = plan.aggregates || s == "mean" || s == "rollout";
    if (seq2seq) {  // a bound: the three sets as layers of one square run over source and decoder tokens together
        ModelConfig bound = c;
        bound.n_layer = c.n_layer + 2 * c.n_decoder_layer;
        const std::size_t T = ids.size() + std::max(run.max_new_tokens, run.target_ids.size()) + 1;
        check_model_run_budget(bound, weights_memory(dir), T, 3 * kept.size(), plan);
    } else {
        check_model_run_budget(c, weights_memory(dir), ids.size(), terminal_only ? 1 : kept.size(), plan);
    }
    out.model = weights();  // kept with the trace: the memory budget counts the weights while outputs are drawn
    const ModelCheckpoint& model = *out.model;
    // 5. the run
    run.progress = progress;
    run.predict_last_only = !r.json && !r.html;  // the terminal shows the last position's predictions only
    if (terminal_only) {  // every kept layer summarised as it is computed, the chosen one held
        const std::vector<bool> summarised = run.keep_layers;
        const bool bidirectional = plan.bidirectional;
        run.on_layer = [&out, summarised, bidirectional](const LayerTrace& lt) {
            if (summarised.at(lt.layer)) out.distances.push_back(layer_distances(lt, bidirectional));
        };
        run.keep_layers.assign(depth, false);
        run.keep_layers[layer] = true;
    }
    run.type_ids = input.type_ids, run.segments = input.segments;
    run.mask_id = tok.mask_id();
    run.lens = o.lens;
    if (neuron) run.neuron = NeuronRequest{layer, head, o.query};
    Trace& t = out.trace;
    if (o.ablate) {  // the plain run's predictions and losses, then the ablated run, which the trace holds
        ModelRunOptions plain = run;
        plain.token_losses = true, plain.lens = false, plain.on_layer = nullptr;
        plain.keep_layers.assign(c.n_layer, false);
        const Trace before = run_model(model, tok, ids, plain);
        run.token_losses = true, run.ablation = ablation;
        t = run_model(model, tok, ids, run);
        t.ablation = compare_ablation(before, t, run.ablation);
    } else {
        t = run_model(model, tok, ids, run);
    }
    return out;
}

}  // namespace attn::cli
