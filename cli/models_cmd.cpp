// attn models: the table of model families (data/checkpoint/model_family.h), as text or JSON; with
// --cached, the models in the Hugging Face cache attn can run (data/hub/hub_cache.h).
#include <cstdio>
#include <iostream>

#include "cli/cli.h"
#include "cli/common_options.h"
#include "cli/policy/outputs.h"
#include "data/base/error.h"
#include "data/base/strings.h"
#include "data/checkpoint/model_checkpoint.h"
#include "data/checkpoint/model_family.h"
#include "data/hub/hub_cache.h"
#include "render/trace_io/json.h"

namespace attn::cli {
namespace {

// The list as JSON to --json's path ('-' or nothing: standard output), written as every command writes
// its --json (cli/policy/outputs.h).
void write_json(const std::string& path, const render::Json& j) {
    policy::OutputRequest outputs;
    outputs.json = path.empty() ? "-" : path;
    policy::check_outputs(outputs);
    policy::RunOutputs out(outputs);
    out.files.push_back({*outputs.json, j.dump(2) + "\n"});
    policy::write_outputs(outputs, out, render::FileSet::show);
    if (!policy::json_to_stdout(outputs)) policy::say_written(outputs, std::cout);
}

// A cache path or a reason as the terminal shows it: control characters written \xHH (a folder name
// may hold any byte but '/' and NUL).
std::string shown(const std::string& text) { return excerpt(text, text.size()); }

// attn models --cached: every snapshot in the cache, with its family when attn can run it.
void list_cached(const std::optional<std::string>& json) {
    const hub::HubEnvironment env = hub::hub_environment();
    render::Json all = render::Json::array();
    std::size_t runnable = 0;
    std::string table, others;
    for (const hub::Snapshot& s : hub::cached_snapshots(env.cache)) {
        render::Json row = {{"repo", s.repo}, {"revision", s.revision}, {"commit", s.commit}, {"path", s.path}};
        const std::vector<std::string> missing = hub::missing_model_files(s.path);
        std::string family, reason = missing.empty() ? "" : "lacks " + missing.front();
        if (reason.empty()) {
            try {
                family = read_model_config(s.path).family->name;
            } catch (const Error& e) {
                reason = e.what();
            }
        }
        const std::uint64_t bytes = hub::snapshot_bytes(s.path);
        row["bytes"] = bytes;
        row["runnable"] = reason.empty();
        row[reason.empty() ? "family" : "reason"] = reason.empty() ? family : reason;
        all.push_back(row);
        const std::string name = shown(s.revision == "main" ? s.repo : s.repo + "@" + s.revision);
        if (!reason.empty()) {
            others += "  " + name + ": " + shown(reason) + "\n";
            continue;
        }
        ++runnable;
        char line[256];
        std::snprintf(line, sizeof line, "  %-40s %-8s %10s  commit %.12s  ", name.c_str(), family.c_str(), decimal_bytes(static_cast<double>(bytes)).c_str(),
                      shown(s.commit).c_str());
        table += line + shown(s.path) + "\n";
    }
    if (json) return write_json(*json, all);
    std::cout << "Models in the Hugging Face cache " << shown(env.cache) << " that attn runs (--model NAME): " << runnable << "\n" << table;
    if (!others.empty()) std::cout << "Cached, but attn cannot run them:\n" << others;
    if (all.empty()) std::cout << "  (none: attn pull NAME downloads one, e.g. attn pull gpt2)\n";
}

}  // namespace

void setup_models(CLI::App& app) {
    auto json_path = std::make_shared<std::string>();
    auto cached = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand("models", "List the model families attn runs from Hugging Face folders (show --model), or the cached models");
    // --json PATH or '-' as every command takes it; `models --json` alone still prints (an optional value)
    CLI::Option* json_opt = cmd->add_option("--json", *json_path, "Write the list as JSON to PATH ('-' or nothing = standard output)")
                                ->expected(0, 1);
    cmd->add_flag("--cached", *cached, "List the models in the Hugging Face cache attn can run, with family, size and snapshot");
    auto color = std::make_shared<std::string>("auto");
    bind_color_option(*cmd, *color);  // the list has no shaded cells; taken as every command takes it
    cmd->footer("Examples:\n  attn models\n  attn models --cached\n  attn models --cached --json");
    cmd->callback([json_path, json_opt, cached, color] {
        const std::optional<std::string> json = json_opt->count() > 0 ? std::optional<std::string>(*json_path) : std::nullopt;
        if (*cached) return list_cached(json);
        auto types = [](const Family& f) {
            std::vector<std::string> v;
            for (const char* t : f.model_types)
                if (t != nullptr) v.emplace_back(t);
            return v;
        };
        if (json) {
            render::Json all = render::Json::array();
            for (const auto& f : families())
                all.push_back({{"family", f.name}, {"model_types", types(f)}, {"description", f.description},
                               {"recipe", recipe_summary(f)}, {"example_tensor", f.tensor_name(f.has(Role::qkv_w) ? Role::qkv_w : Role::q_w)}});
            return write_json(*json, all);
        }
        for (const auto& f : families()) {
            std::string t;
            for (const auto& s : types(f)) t += (t.empty() ? "" : ", ") + s;
            std::cout << f.name << "\n"
                      << "    " << f.description << "\n"
                      << "    model_type: " << t << "\n"
                      << "    recipe: " << recipe_summary(f) << "\n"
                      << "    tensors like: " << f.tensor_name(f.has(Role::qkv_w) ? Role::qkv_w : Role::q_w, 0) << "\n\n";
        }
    });
}

}  // namespace attn::cli
