// attn page [OPTIONS] FILE [SENTENCE]: the live page for a class. One self-contained HTML file that runs
// attn's core (compiled to WebAssembly, embedded in attn at build time) on whatever sentence, kind and
// options a student types, offline. It opens on the run that `attn show` would make of the same options
// and sentence (bound by show's own binding, cli/show_options.cpp), its live panel preset to them; with
// none, a causal run of the chapter's sentence. With --model DIR, a small model folder travels inside the
// page: the panel loads it at start and runs it.
#include <sys/stat.h>

#include <algorithm>
#include <iostream>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "cli/common_options.h"
#include "cli/model_source.h"
#include "cli/policy/budget.h"
#include "cli/policy/files.h"
#include "cli/show_model.h"
#include "cli/show_options.h"
#include "core/kinds/kinds.h"
#include "data/base/error.h"
#include "data/base/files.h"
#include "data/checkpoint/model_checkpoint.h"
#include "data/inputs/inputs.h"
#include "render/page/html.h"

namespace attn::cli {
namespace {

// The most of a model folder a page carries: larger folders go beside the page (its Model panel opens them).
constexpr std::uint64_t kMaxEmbeddedModel = std::uint64_t(64) << 20;

bool regular_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool same_file(const std::string& a, const std::string& b) {
    struct stat x {}, y {};
    return ::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

// The files of `dir` the page's core reads, checked first as a run checks them (config, tokeniser, every
// weight): config.json, the tokenizer files, the weights (model.safetensors or pytorch_model.bin, or an
// index and the shards it names). A folder above kMaxEmbeddedModel is refused by name.
std::vector<std::pair<std::string, std::string>> embedded_folder(const std::string& dir) {
    const ParsedConfig parsed = read_model_config(dir);
    load_model_tokenizer(dir, parsed);
    std::set<std::string> names;
    for (const char* f : model_folder_files())
        if (regular_file(dir + "/" + f)) names.insert(f);
    for (const char* index_name : {"model.safetensors.index.json", "pytorch_model.bin.index.json"})
        if (names.count(index_name)) {  // its shards: load_model_checkpoint below refuses a bad index by name
            try {
                const nlohmann::json index = nlohmann::json::parse(read_file(dir + "/" + index_name, "index file"));
                for (const auto& [tensor, shard] : index.at("weight_map").items()) {
                    const std::string n = shard.get<std::string>();
                    if (n.find('/') == std::string::npos && n != "." && n != ".." && regular_file(dir + "/" + n)) names.insert(n);
                }
            } catch (const nlohmann::json::exception&) {
            }
        }
    std::uint64_t total = 0;
    for (const std::string& n : names) {
        struct stat st {};
        if (::stat((dir + "/" + n).c_str(), &st) == 0) total += static_cast<std::uint64_t>(st.st_size);
    }
    if (total > kMaxEmbeddedModel)
        usage_error("--model: the folder's files take " + format_bytes(static_cast<double>(total)) + ", more than the " +
                        format_bytes(static_cast<double>(kMaxEmbeddedModel)) + " a page carries",
                    "hand the folder out beside the page: students open it in the page's model panel");
    load_model_checkpoint(dir);  // every weight read and checked, as the page will
    std::vector<std::pair<std::string, std::string>> files;
    for (const std::string& n : names) files.emplace_back(n, read_file(dir + "/" + n, "model file"));
    return files;
}

// The sentence a page opens on when none is given: the chapter's.
constexpr const char* kLabSentence = "Your journey starts with one step";

// show's options that do not describe a seeded run the panel can rerun, refused by name (and left out of
// `attn page --help`): its other outputs, its terminal view, a model run (a page's --model carries the
// folder instead), and files read into the run (parameters, embeddings, a mask), which the panel's typed
// runs would not have. In why and hint, NAME stands for the option.
struct RefusedOptions {
    std::vector<const char*> names;
    const char* why;
    const char* hint;
};

const std::vector<RefusedOptions>& refused_options() {
    static const std::vector<RefusedOptions> groups = {
        {{"--json", "--png", "--svg", "--npy", "--html", "--no-live", "--figures", "--prefix", "--font", "--scale", "--values", "--force"},
         "NAME is an output of attn show; attn page writes only its FILE",
         "run attn show with the same options and NAME"},
        {{"--show", "--precision", "--full", "--query", "--head"},
         "NAME chooses what attn show prints in the terminal; the page shows every stage, head and query",
         "drop NAME: the page's stage and head pickers choose, a click pins a query"},
        {{"--layer", "--keep-layers", "--pair", "--target", "--max-new-tokens", "--align-at", "--words", "--ablate", "--ablate-mode", "--lens"},
         "NAME applies to a model run, and attn page --model DIR only carries the folder for the page to run",
         "attn show --model DIR NAME ... \"text\" --html FILE writes that run's page"},
        {{"--weights", "--embeddings", "--mask"},
         "NAME reads a file into the run, and the page's live panel reruns typed text with seeded vectors",
         "attn show NAME FILE ... --html PAGE writes that run's page"},
    };
    return groups;
}

std::string naming(const char* text, const std::string& name) {
    std::string out = text;
    for (std::size_t at = out.find("NAME"); at != std::string::npos; at = out.find("NAME", at + name.size()))
        out.replace(at, 4, name);
    return out;
}

void refuse_show_only_options(const CLI::App& cmd) {
    for (const RefusedOptions& group : refused_options())
        for (const char* name : group.names)
            if (cmd.get_option(name)->count() > 0) usage_error(naming(group.why, name), naming(group.hint, name));
}

// The run the page opens on: show's seeded run of these options (the chapter's sentence when no text is
// given); its words for the live panel and its colours go into page.
Trace opening_run(ShowOptions& o, render::HtmlOptions& page) {
    const Kind& kind = check_seeded_options(o);
    if (!o.sentence && !o.text_file && !o.example && !o.embeddings) o.sentence = kLabSentence;
    OutputPlan plan;
    plan.html = true, plan.max_memory = max_memory_bytes(o.common);
    const SeededRun run = prepare_seeded_run(o, plan);
    Trace t = run_attention(run.in, run.settings);
    if (kind.source == SourceRule::optional && !o.source)
        std::cerr << "attn: note: kind '" << kind.name << "' without --source: the sentence attends over itself\n";
    if (!t.empty_rows.empty())
        std::cerr << "attn: note: " << t.empty_rows.size() << " query row(s) see no key; their weights and context are 0\n";
    page.colour = colour_spec(o.scale_colours);
    page.live = live_words(o, t.tokens, t.source_tokens);
    return t;
}

}  // namespace

void setup_page(CLI::App& app) {
    auto file = std::make_shared<std::string>();
    auto o = std::make_shared<ShowOptions>();
    CLI::App* cmd = app.add_subcommand("page", "Write the live page: attn in the browser, offline, for any typed sentence");
    cmd->footer(
        "Examples:\n"
        "  attn page lab.html                        (a causal head on \"Your journey starts with one step\")\n"
        "  attn page --kind gqa --heads 4 --kv-heads 2 lab.html \"The cat sat on the mat\"\n"
        "  attn page --kind additive lab.html \"Wie geht es\" --source \"How are you\"\n"
        "  attn page --example journey --kind self --dropout 0.5 --dropout-seed 123 lab.html\n"
        "  attn page --kind mha --heads 4 --range data --colormap gray lab.html \"The cat sat on the mat\"\n"
        "  attn page --model ./tiny-gpt2 lab.html     (the folder inside the page, at most 64 MiB)\n"
        "Open lab.html in a recent Chromium, Firefox or Safari, from a USB stick or an LMS: no install, no network.\n"
        "The options are attn show's that describe a run: the page opens with that run drawn and its live panel preset\n"
        "to it. attn show's outputs (--json, --png, ...), terminal view (--show, --query, ...) and model-run options are refused.");
    cmd->add_option("file", *file, "The HTML file to write")->required();
    std::vector<CLI::Option*> seeded_only;
    bind_show_run_options(*cmd, *o, seeded_only);
    for (const RefusedOptions& group : refused_options())
        for (const char* name : group.names) cmd->get_option(name)->group("");  // parsed, refused by name, not listed
    cmd->get_option("--model")
        ->description("A model folder (or a name in the Hugging Face cache) to carry in the page, at most 64 MiB of files: "
                      "the page opens it and runs it")
        ->type_name("DIR");
    cmd->callback([file, o, cmd] {
        refuse_show_only_options(*cmd);  // the command line's own mistakes first, whatever the build
        if (render::live_core_js().empty())
            usage_error("attn page needs attn's core compiled to WebAssembly, and this attn was built without em++",
                        "install emscripten (scripts/setup.sh, or apt-get install emscripten) and rebuild attn");
        if (o->offline && !o->model) usage_error("--offline applies to --model NAME", "drop --offline");
        policy::check_output_file(*file, "page");
        if (o->text_file && *o->text_file != "-" && same_file(*file, *o->text_file))
            usage_error("'" + excerpt(*file, 4096) + "' is the --file text; attn page would overwrite it", "write the page elsewhere");
        render::HtmlOptions page{"attn page", std::nullopt, std::nullopt, std::nullopt};
        if (o->model) {
            const std::string dir = model_folder(*o->model, o->offline);
            for (const char* f : model_folder_files())
                if (same_file(*file, policy::join_path(dir, f)))
                    usage_error("'" + excerpt(*file, 4096) + "' is the model's own " + f + "; attn page would overwrite it", "write the page elsewhere");
            page.embedded_files = embedded_folder(dir);
            page.embedded_model = model_display_name(dir);  // a repo id's '/' cannot name a folder in the page
            std::replace(page.embedded_model.begin(), page.embedded_model.end(), '/', '_');
            o->model.reset();  // carried, not run: the opening run is the seeded one below
        }
        const Trace t = opening_run(*o, page);
        policy::write_file_atomic(*file, render::render_html(t, page));
        std::cout << "wrote " << *file << "\n";
    });
}

}  // namespace attn::cli
