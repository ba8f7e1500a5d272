// The command line: one file per subcommand, each with setup_<cmd>(CLI::App&) binding an options
// struct and a callback that calls the libraries. run_cli is the whole program (main calls it; the
// end-to-end fuzzer drives it with argument vectors).
#pragma once

#include <CLI/CLI.hpp>

#include "cli/run_cli.h"

namespace attn::cli {

void setup_show(CLI::App& app);
void setup_kinds(CLI::App& app);
void setup_models(CLI::App& app);
void setup_bench(CLI::App& app);
void setup_decode(CLI::App& app);
void setup_render(CLI::App& app);
void setup_page(CLI::App& app);
void setup_heads(CLI::App& app);
void setup_pull(CLI::App& app);

}  // namespace attn::cli
