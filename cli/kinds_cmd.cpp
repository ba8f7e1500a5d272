// attn kinds: the registry as a table, or as JSON.
#include <iostream>

#include "cli/cli.h"
#include "cli/common_options.h"
#include "cli/policy/outputs.h"
#include "core/kinds/decode.h"
#include "core/kinds/kinds.h"
#include "render/trace_io/json.h"

namespace attn::cli {

void setup_kinds(CLI::App& app) {
    auto json_path = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("kinds", "List the attention kinds: description, formula, paper, options");
    // --json PATH or '-' as every command takes it; `kinds --json` alone still prints (an optional value)
    CLI::Option* json = cmd->add_option("--json", *json_path, "Write the list as JSON to PATH ('-' or nothing = standard output)")
                            ->expected(0, 1);
    auto color = std::make_shared<std::string>("auto");
    bind_color_option(*cmd, *color);  // the list has no shaded cells; taken as every command takes it
    cmd->callback([json_path, json, color] {
        if (json->count() > 0) {
            policy::OutputRequest outputs;
            outputs.json = json_path->empty() ? "-" : *json_path;
            policy::check_outputs(outputs);
            policy::RunOutputs out(outputs);
            out.files.push_back({*outputs.json, render::kinds_json().dump(2) + "\n"});
            policy::write_outputs(outputs, out, render::FileSet::show);
            if (!policy::json_to_stdout(outputs)) policy::say_written(outputs, std::cout);
            return;
        }
        for (const auto& k : kinds()) {
            std::cout << k.name << "\n"
                      << "    " << k.description << "\n"
                      << "    formula: " << k.formula << "\n"
                      << "    paper:   " << k.paper << "\n"
                      << "    options: " << option_flags(k.options)
                      << (k.defaults.causal ? "  (causal by default)" : "") << "\n"
                      << "    positions: " << ((k.options & opt_pos) ? "none, sinusoidal, rope, alibi" : "none")
                      << (kind_decodes(k) ? "; attn decode takes it" : "") << "\n\n";
        }
    });
}

}  // namespace attn::cli
