// attn page FILE: the live page for a class. One self-contained HTML file that runs attn's core (compiled
// to WebAssembly, embedded in attn at build time) on whatever sentence, kind and options a student
// types, offline; it opens on a causal run of the chapter's sentence, computed here. With --model DIR, a
// small model folder travels inside the page: the panel loads it at start and runs it.
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

}  // namespace

void setup_page(CLI::App& app) {
    auto file = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("page", "Write the live page: attn in the browser, offline, for any typed sentence");
    cmd->footer(
        "Examples:\n"
        "  attn page lab.html\n"
        "  attn page --model ./tiny-gpt2 lab.html     (the folder inside the page, at most 64 MiB)\n"
        "  attn show --kind mha --heads 4 --range data \"The cat sat on the mat\" --html lab.html\n"
        "Open lab.html in a recent Chromium, Firefox or Safari, from a USB stick or an LMS: no install, no network.\n"
        "A lab that starts elsewhere: attn show's page of that run (--html FILE) carries the same panel, preset to it.");
    cmd->add_option("file", *file, "The HTML file to write")->required();
    auto model = std::make_shared<std::optional<std::string>>();
    cmd->add_option("--model", *model,
                    "A model folder (or a name in the Hugging Face cache) to carry in the page, at most 64 MiB of files: "
                    "the page opens it and runs it")
        ->type_name("DIR");
    auto color = std::make_shared<std::string>("auto");
    bind_color_option(*cmd, *color);  // the page has no shaded terminal cells; taken as every command takes it
    cmd->callback([file, color, model] {
        if (render::live_core_js().empty())
            usage_error("attn page needs attn's core compiled to WebAssembly, and this attn was built without em++",
                        "install emscripten (scripts/setup.sh, or apt-get install emscripten) and rebuild attn");
        policy::check_output_file(*file, "page");
        render::HtmlOptions page{"attn page", std::nullopt, std::nullopt, std::nullopt};
        if (*model) {
            const std::string dir = model_folder(**model, false);
            for (const char* f : model_folder_files())
                if (same_file(*file, policy::join_path(dir, f)))
                    usage_error("'" + excerpt(*file, 4096) + "' is the model's own " + f + "; attn page would overwrite it", "write the page elsewhere");
            page.embedded_files = embedded_folder(dir);
            page.embedded_model = model_display_name(dir);  // a repo id's '/' cannot name a folder in the page
            std::replace(page.embedded_model.begin(), page.embedded_model.end(), '/', '_');
        }
        // the page opens on the chapter's sentence through a causal head, as `attn show` would run it
        const std::vector<std::string> words = {"--kind", "causal", "Your journey starts with one step"};
        InputRequest req;
        req.sentence = words[2];
        const Inputs in = make_inputs(req);
        SettingsRequest s;
        s.kind = words[1];
        RunShape shape{in.x.shape(0), in.source_x.shape(0), in.x.shape(1), in.source_x.shape(1)};
        const Trace t = run_attention(in, resolve_settings(s, shape));
        page.live = words;
        policy::write_file_atomic(*file, render::render_html(t, page));
        std::cout << "wrote " << *file << "\n";
    });
}

}  // namespace attn::cli
