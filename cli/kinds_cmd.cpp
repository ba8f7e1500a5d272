// attn kinds: the registry as a table, or as JSON.
#include <iostream>

#include "cli/cli.h"
#include "core/decode.h"
#include "core/kinds.h"
#include "render/trace_io/json.h"

namespace attn::cli {

void setup_kinds(CLI::App& app) {
    auto as_json = std::make_shared<bool>(false);
    CLI::App* cmd = app.add_subcommand("kinds", "List the attention kinds: description, formula, paper, options");
    cmd->add_flag("--json", *as_json, "Print the list as JSON");
    cmd->callback([as_json] {
        if (*as_json) {
            std::cout << render::kinds_json().dump(2) << "\n";
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
