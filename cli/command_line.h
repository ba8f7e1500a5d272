// Parsing and running a command line with attn's error messages (cli/command_line.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace attn::cli {

// "attn: error: MESSAGE (hint: HINT)" on one line: new lines and tabs become spaces, other control
// characters \xHH (a terminal would obey them).
std::string error_line(const std::string& message, const std::string& hint);

// Parses argv with app (running the chosen subcommand's callback) and returns the exit code: 0, the
// code of attn's error (1 runtime, 2 usage), or CLI11's for --help and --version (which print). Each
// error is handed to report as one line (error_line), never thrown.
int run_command_line(CLI::App& app, int argc, const char* const* argv,
                     const std::function<void(const std::string&)>& report);

}  // namespace attn::cli
