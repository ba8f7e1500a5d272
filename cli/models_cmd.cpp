// attn models: the table of model families (data/checkpoint/model_family.h), as text or JSON.
#include <iostream>

#include "cli/cli.h"
#include "data/checkpoint/model_family.h"
#include "render/trace_io/json.h"

namespace attn::cli {

void setup_models(CLI::App& app) {
    auto as_json = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand("models", "List the model families attn runs from Hugging Face folders (show --model)");
    cmd->add_flag("--json", *as_json, "Print the list as JSON");
    cmd->callback([as_json] {
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
