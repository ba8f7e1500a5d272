// The page's entry into attn, compiled to WebAssembly by em++ (CMakeLists.txt, ATTN_WASM): `attn show`
// for a seeded kind or for a model folder the page opened (--model /models/NAME: its files, written
// into the module's memory file system by cli/web/api.js), and `attn decode` for a seeded kind, from the
// same option bindings, checks and messages as the native commands (cli/show_options.h,
// cli/decode_options.h, cli/show_model_run.cpp, cli/command_line.h), ending in the JSON that
// `attn show ARGV --json -` (or `attn decode ARGV --json -`) prints. The page's JavaScript calls it
// through cli/web/api.js (window.attn.run, window.attn.decode, window.attn.kinds, window.attn.models, and
// the panel's parse of a link's words).
//
// What the page cannot do is refused by name in one line: options that write files (the page draws the
// figures itself), options that read files other than the opened folders (it takes typed text), and
// runs estimated above kPageMemory (seeded) or kModelMemory (models) of WebAssembly memory.
#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/command_line.h"
#include "cli/decode_options.h"
#include "cli/policy/budget.h"
#include "cli/show_model.h"
#include "cli/show_options.h"
#include "core/kinds/decode.h"
#include "core/kinds/kinds.h"
#include "data/base/error.h"
#include "data/checkpoint/model_checkpoint.h"
#include "render/page/page_payload.h"
#include "render/trace_io/decode_json.h"
#include "render/trace_io/json.h"

namespace attn::cli {
namespace {

// The page's memory budget: runs estimated above it are refused as --max-memory refuses them (a smaller
// --max-memory still applies). The module may grow to twice this (-sMAXIMUM_MEMORY): the estimate
// leaves out the allocator's slack and the JSON text handed to JavaScript.
constexpr std::size_t kPageMemory = std::size_t(512) << 20;
// A model run's budget: the weights and the run within 2 GiB of the module's 4 GiB (the files the page
// opened stay in JavaScript's memory, outside the module's).
constexpr const char* kModelMemory = "2GiB";
// Where the page puts the folders it opens (cli/web/api.js, loadModel).
constexpr const char* kModels = "/models/";

// An option of `attn COMMAND` that writes files (the page draws the run itself) or reads one (the page
// takes typed text), refused by name when given.
template <class Value>
void refuse_write(const char* command, const char* option, const Value& value) {
    if (value)
        usage_error(std::string(option) + " writes files, which the page cannot do",
                    std::string("the page draws the run itself; run attn ") + command + " " + option + " on your machine for files");
}
template <class Value>
void refuse_read(const char* command, const char* option, const Value& value) {
    if (value)
        usage_error(std::string(option) + " reads a file, which the page cannot do",
                    std::string("type the text into the page, or run attn ") + command + " " + option + " on your machine");
}

void refuse_files(const ShowOptions& o) {
    const auto writes = [](const char* option, const auto& value) { refuse_write("show", option, value); };
    const auto reads = [](const char* option, const auto& value) { refuse_read("show", option, value); };
    if (o.model && std::filesystem::path(*o.model).lexically_normal().string().compare(0, std::string(kModels).size(), kModels) != 0)  // no /models/x/../..
        usage_error("--model " + excerpt(*o.model) + " names a folder on your machine, which the page cannot read",
                    "open the folder's files in the page (Model), then run --model /models/NAME");
    reads("--file", o.text_file);
    reads("--embeddings", o.embeddings);
    reads("--mask", o.mask_file);
    reads("--weights", o.weights);
    reads("--font", o.font);
    if (o.json && *o.json != "-") writes("--json", o.json);
    writes("--png", o.png);
    writes("--svg", o.svg);
    writes("--html", o.html);
    writes("--npy", o.npy);
    writes("--figures", o.figures);
    writes("--prefix", o.prefix);
}

// A model folder's run (--model /models/NAME) as the native command computes it; page: for the page's
// views (the budget counts its data as --html's), else for the JSON trace.
ModelShowRun model_run(const ShowOptions& o, const std::vector<CLI::Option*>& seeded_only, bool page) {
    if (o.offline) usage_error("--offline applies to --model NAME from the cache; the page runs the folders it opened", "drop --offline");
    ModelShowOptions m = model_show_options(o, seeded_only);
    if (page) m.outputs.html = "page";
    else m.outputs.json = "-";
    if (!m.max_memory || parse_bytes(*m.max_memory, "--max-memory") > parse_bytes(kModelMemory, "--max-memory")) m.max_memory = kModelMemory;
    const auto load = [](const std::string& dir) { return load_model_checkpoint(dir); };
    ModelShowRun run = compute_show_model(m, load, 1.0, nullptr);
    std::string name = *o.model;
    while (name.size() > 1 && name.back() == '/') name.pop_back();
    run.trace.model->name = name.substr(name.rfind('/') + 1);
    run.model.reset();  // the weights' copy: the file system keeps the folder
    return run;
}

// `attn show --model DIR ... --json -`.
std::string model_json(const ShowOptions& o, const std::vector<CLI::Option*>& seeded_only) {
    return render::trace_json_text(model_run(o, seeded_only, false).trace);
}

std::string g_blob;  // the cells of the last page_json

// The page's data for a model run, as `attn show --model DIR ... --html` embeds it: the JSON object the
// views read (its cells in g_blob, not deflated).
std::string page_json(const ShowOptions& o, const std::vector<CLI::Option*>& seeded_only) {
    refuse_files(o);
    if (!o.model) usage_error("attn.page runs a model folder", "give --model /models/NAME and a text");
    const ModelShowRun run = model_run(o, seeded_only, true);
    render::HtmlOptions page{"attn show --model", std::nullopt, run.head, std::nullopt};
    page.layer = static_cast<std::size_t>(std::find(run.kept.begin(), run.kept.end(), run.layer) - run.kept.begin());
    page.model_name = run.trace.model->name, page.text = run.text, page.colour = colour_spec(o.scale_colours);
    g_blob.clear();
    nlohmann::json data = render::page_payload(run.trace, page, g_blob);
    data["raw_bytes"] = g_blob.size();
    return data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The trace of a run, as `attn show ... --json -` prints it.
std::string show_json(const ShowOptions& o, const std::vector<CLI::Option*>& seeded_only) {
    refuse_files(o);
    if (o.model) return model_json(o, seeded_only);
    check_seeded_options(o);
    OutputPlan plan;
    plan.json = true, plan.json_optional = false, plan.force = o.force;
    const std::size_t given = max_memory_bytes(o.common);
    plan.max_memory = given && given < kPageMemory ? given : kPageMemory;
    plan.big_json = "use fewer tokens or heads, or add --force";  // --npy writes files: not here
    plan.more = "run attn show on your machine (the page keeps within 512 MiB of WebAssembly memory)";
    const SeededRun run = prepare_seeded_run(o, plan);
    return render::trace_json_text(run_attention(run.in, run.settings));
}

// What the words say, for the page's panel (render/page/live.js): after the same checks as a run, every
// option given as [name, value] (value null for a flag) in the binding's order, the kind (given or the
// default), the sentence and the source.
std::string parsed_json(const ShowOptions& o, const std::vector<CLI::Option*>&) {
    refuse_files(o);
    if (!o.model) check_seeded_options(o);
    nlohmann::json given = nlohmann::json::array();
    for (const CLI::Option* opt : o.cmd->get_options()) {
        if (opt->count() == 0 || opt->get_positional() || opt->get_lnames().empty()) continue;
        const std::string name = "--" + opt->get_lnames()[0];
        if (name == "--source") continue;
        if (opt->get_expected_min() == 0) given.push_back({name, nullptr});  // a flag
        else given.push_back({name, opt->as<std::string>()});
    }
    nlohmann::json j = {{"kind", o.common.kind}, {"given", given}, {"sentence", nullptr}, {"source", nullptr}, {"model", nullptr}};
    if (o.model) j["model"] = *o.model;
    if (o.sentence) j["sentence"] = *o.sentence;
    if (o.source) j["source"] = *o.source;
    return j.dump();
}

// The words as `attn COMMAND` parses them (bind: its options' binding), then act(options) in the
// command's callback: 'J' and what act returns, or 'E' and attn's one-line error. A word holding NUL is
// refused: a command line cannot carry one, and C++ would read the word only up to it. js: the API's
// name of the call (attn.run, attn.decode), for the message when the words are not a list of strings.
template <class Options, class Bind, class Act>
std::string with_words(const char* words_json, const char* command, const char* js, Bind bind, Act act) {
    std::vector<std::string> words;
    try {
        const nlohmann::json j = nlohmann::json::parse(words_json);
        if (!j.is_array()) throw std::invalid_argument("not an array");
        for (const auto& w : j) words.push_back(w.get<std::string>());
    } catch (const std::exception&) {
        return "E" + error_line(std::string(js) + " takes a list of words (strings), as attn " + command + " takes them",
                                std::string("e.g. ") + js + "([\"--kind\", \"causal\", \"Your journey starts\"])");
    }
    for (const std::string& w : words)
        if (const auto nul = w.find('\0'); nul != std::string::npos)
            return "E" + error_line("'" + excerpt(w) + "' has a control character at byte offset " + std::to_string(nul) + " (U+0000)",
                                    "remove it; tabs and newlines are fine");
    CLI::App app{"attn: inspect and visualise attention, one matrix at a time", "attn"};
    app.require_subcommand(1);
    Options o;
    CLI::App* cmd = bind(app, o);
    std::string out, error;
    cmd->callback([&] { out = act(o); });
    std::vector<const char*> argv = {"attn", command};
    for (const auto& w : words) argv.push_back(w.c_str());
    run_command_line(app, static_cast<int>(argv.size()), argv.data(), [&](const std::string& line) { error = line; });
    if (!error.empty()) return "E" + error;
    if (out.empty())  // --help or --version: they print, on the command line
        return "E" + error_line("--help and --version print on the command line", std::string("run attn ") + command + " --help on your machine");
    return "J" + out;
}

// `attn show`'s words: act(options, the seeded-only options).
template <class Act>
std::string with_show_words(const char* words_json, Act act) {
    std::vector<CLI::Option*> seeded_only;
    return with_words<ShowOptions>(
        words_json, "show", "attn.run", [&](CLI::App& app, ShowOptions& o) { return bind_show_options(app, o, seeded_only); },
        [&](const ShowOptions& o) { return act(o, seeded_only); });
}

// `attn decode ... --json -` for a seeded kind: the same checks, in the same order, and the same run as
// the native command (cli/decode_options.h), within the page's memory; files and --model refused by name.
std::string decode_json(const DecodeOptions& o) {
    if (o.model)
        usage_error("--model in attn decode runs on your machine, not in the page",
                    "decode a seeded kind here (--kind gqa ...), or run attn decode --model on your machine");
    refuse_read("decode", "--file", o.text_file);
    refuse_read("decode", "--embeddings", o.embeddings);
    refuse_read("decode", "--weights", o.weights);
    refuse_read("decode", "--font", o.font);
    if (o.json && *o.json != "-") refuse_write("decode", "--json", o.json);
    refuse_write("decode", "--png", o.png);
    refuse_write("decode", "--svg", o.svg);
    refuse_write("decode", "--html", o.html);
    refuse_write("decode", "--prefix", o.prefix);
    check_seeded_decode_options(o);
    check_decode_kind(o);
    OutputPlan plan;
    plan.json = true, plan.json_optional = false, plan.force = o.force;
    const std::size_t given = o.max_memory ? parse_bytes(*o.max_memory, "--max-memory") : 0;
    plan.max_memory = given && given < kPageMemory ? given : kPageMemory;
    plan.fewer = "decode fewer tokens, or fewer heads";
    plan.big_json = "decode fewer tokens: the JSON holds every step's rows (or add --force)";
    plan.more = "run attn decode on your machine (the page keeps within 512 MiB of WebAssembly memory)";
    const Inputs in = decode_inputs(o);
    const Settings c = decode_settings(o, in, plan);
    return render::decode_json_text(run_decode(in, c));
}

// A folder the page opened, as the Model panel reports it: the checks a run makes before it computes
// (config, tokeniser, every weight read and checked), then what the folder holds.
// max_memory: --max-memory's words for a smaller budget than kModelMemory ("" for none).
std::string describe_json(const std::string& dir, const std::string& max_memory) {
    const ParsedConfig p = read_model_config(dir);
    load_model_tokenizer(dir, p);
    // the weights as they will sit in memory (mapped, widened), before any is read
    const std::uint64_t page_most = parse_bytes(kModelMemory, "--max-memory");
    const std::uint64_t weights = weights_memory(dir),
                        most = max_memory.empty() ? page_most : std::min<std::uint64_t>(page_most, parse_bytes(max_memory, "--max-memory"));
    if (weights > most)
        input_error("the folder's weights take " + format_bytes(static_cast<double>(weights)) + " in memory, more than the " +
                        format_bytes(static_cast<double>(most)) + " the page runs a model in",
                    "run attn show --model on your machine for a model this large");
    const auto m = load_model_checkpoint(dir);
    const ModelConfig& c = p.config;
    const char* stack = p.family->recipe.stack == Stack::decoder ? "decoder" : p.family->recipe.stack == Stack::encoder ? "encoder" : "encoder-decoder";
    return nlohmann::json({{"model", dir}, {"family", p.family->title}, {"stack", stack}, {"layers", c.n_layer},
                           {"decoder_layers", c.n_decoder_layer}, {"heads", c.n_head}, {"kv_heads", c.n_kv_head},
                           {"params", m->n_params}, {"dtype", m->dtype}, {"unused", unused_tensors_note(*m)}})
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string g_result;  // what the last call returned, until the next call

}  // namespace
}  // namespace attn::cli

extern "C" {

// words_json: a JSON array of the words `attn show` takes. Returns 'J' + the JSON trace, or 'E' + the
// CLI's one-line error; the text stays valid until the next call.
const char* attn_run(const char* words_json) {
    attn::cli::g_result = attn::cli::with_show_words(words_json, attn::cli::show_json);
    return attn::cli::g_result.c_str();
}

// words_json: a JSON array of the words `attn decode` takes (a seeded kind). Returns 'J' + the JSON text
// `attn decode ARGV --json -` prints, or 'E' + the CLI's one-line error; valid until the next call.
const char* attn_decode(const char* words_json) {
    attn::cli::g_result = attn::cli::with_words<attn::cli::DecodeOptions>(words_json, "decode", "attn.decode", attn::cli::bind_decode_options,
                                                                         attn::cli::decode_json);
    return attn::cli::g_result.c_str();
}

// words_json as attn_run takes it. Returns 'J' + {"given": [[name, value or null], ...], "sentence",
// "source"} after the checks a run makes before it computes, or 'E' + the CLI's one-line error.
const char* attn_parse(const char* words_json) {
    attn::cli::g_result = attn::cli::with_show_words(words_json, attn::cli::parsed_json);
    return attn::cli::g_result.c_str();
}

// words_json as attn_run takes it, with --model /models/NAME: 'J' + the page's data for the run (the
// views' JSON object; its cells at attn_blob(), attn_blob_size() bytes), or 'E' + the CLI's error.
const char* attn_page(const char* words_json) {
    attn::cli::g_result = attn::cli::with_show_words(words_json, attn::cli::page_json);
    return attn::cli::g_result.c_str();
}
const char* attn_blob() { return attn::cli::g_blob.data(); }
std::size_t attn_blob_size() { return attn::cli::g_blob.size(); }

// dir: a folder loadModel wrote ("/models/NAME"); max_memory: a smaller budget in --max-memory's words, or "".
// 'J' + {"model", "family", "stack", "layers",
// "decoder_layers", "heads", "kv_heads", "params", "dtype", "unused"}, or 'E' + attn's one-line error.
const char* attn_describe(const char* dir, const char* max_memory) {
    try {
        attn::cli::g_result = "J" + attn::cli::describe_json(dir, max_memory);
    } catch (const attn::Error& e) {
        attn::cli::g_result = "E" + attn::cli::error_line(e.what(), e.hint());
    } catch (const std::bad_alloc&) {
        attn::cli::g_result = "E" + attn::cli::error_line("out of memory reading the folder", "the page keeps within 4 GiB: run attn show --model on your machine");
    } catch (const std::exception& e) {
        attn::cli::g_result = "E" + attn::cli::error_line(e.what(), "");
    }
    return attn::cli::g_result.c_str();
}

// `attn kinds --json`.
const char* attn_kinds() {
    attn::cli::g_result = attn::render::kinds_json().dump(2) + "\n";
    return attn::cli::g_result.c_str();
}

}  // extern "C"
