// attn models: the table of model families (data/checkpoint/model_family.h), as text or JSON; with
// --cached, the models in the Hugging Face cache attn can run (data/hub/hub_cache.h).
#include <cstdio>
#include <iostream>

#include "cli/cli.h"
#include "data/base/error.h"
#include "data/base/strings.h"
#include "data/checkpoint/model_checkpoint.h"
#include "data/checkpoint/model_family.h"
#include "data/hub/hub_cache.h"
#include "render/trace_io/json.h"

namespace attn::cli {
namespace {

// attn models --cached: every snapshot in the cache, with its family when attn can run it.
void list_cached(bool as_json) {
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
        const std::string name = s.revision == "main" ? s.repo : s.repo + "@" + s.revision;
        if (!reason.empty()) {
            others += "  " + name + ": " + reason + "\n";
            continue;
        }
        ++runnable;
        char line[512];
        std::snprintf(line, sizeof line, "  %-40s %-8s %10s  commit %.12s  %s\n", name.c_str(), family.c_str(), decimal_bytes(static_cast<double>(bytes)).c_str(), s.commit.c_str(),
                      s.path.c_str());
        table += line;
    }
    if (as_json) {
        std::cout << all.dump(2) << "\n";
        return;
    }
    std::cout << "Models in the Hugging Face cache " << env.cache << " that attn runs (--model NAME): " << runnable << "\n" << table;
    if (!others.empty()) std::cout << "Cached, but attn cannot run them:\n" << others;
    if (all.empty()) std::cout << "  (none: attn pull NAME downloads one, e.g. attn pull gpt2)\n";
}

}  // namespace

void setup_models(CLI::App& app) {
    auto as_json = std::make_shared<bool>(false), cached = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand("models", "List the model families attn runs from Hugging Face folders (show --model), or the cached models");
    cmd->add_flag("--json", *as_json, "Print the list as JSON");
    cmd->add_flag("--cached", *cached, "List the models in the Hugging Face cache attn can run, with family, size and snapshot");
    cmd->footer("Examples:\n  attn models\n  attn models --cached\n  attn models --cached --json");
    cmd->callback([as_json, cached] {
        if (*cached) return list_cached(*as_json);
        auto types = [](const Family& f) {
            std::vector<std::string> v;
            for (const char* t : f.model_types)
                if (t != nullptr) v.emplace_back(t);
            return v;
        };
        if (*as_json) {
            render::Json all = render::Json::array();
            for (const auto& f : families())
                all.push_back({{"family", f.name}, {"model_types", types(f)}, {"description", f.description},
                               {"recipe", recipe_summary(f)}, {"example_tensor", f.tensor_name(f.has(Role::qkv_w) ? Role::qkv_w : Role::q_w)}});
            std::cout << all.dump(2) << "\n";
            return;
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
