#include <cstdio>
#include <iostream>
#include <new>

#include "cli/cli.h"
#include "data/error.h"
#include "render/files.h"

namespace attn::cli {
namespace {

void print_error(const std::string& message, const std::string& hint) {
    std::string line = "attn: error: " + message;
    if (!hint.empty()) line += " (hint: " + hint + ")";
    for (char& ch : line)
        if (ch == '\n' || ch == '\r') ch = ' ';  // one line, always
    std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace

int run_cli(int argc, const char* const* argv) {
    render::install_cleanup_handlers();
    CLI::App app{"attn: inspect and visualise attention, one matrix at a time", "attn"};
    app.footer(
        "Examples:\n"
        "  attn show --kind causal \"Your journey starts\"\n"
        "  attn show --example journey --kind self --init torch-rand --d-out 2 --show scores,weights,context\n"
        "  attn show --kind mha --heads 4 \"The cat sat on the mat.\" --json out/trace.json --png out/\n"
        "  attn kinds\n"
        "Run 'attn COMMAND --help' for a command's options.");
    app.require_subcommand(1);
    app.set_version_flag("--version", "attn 0.1.0");
    setup_show(app);
    setup_kinds(app);
    try {
        app.parse(argc, argv);
        return 0;
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::string hint = "see 'attn --help'";
        for (const auto* sub : app.get_subcommands()) hint = "see 'attn " + sub->get_name() + " --help'";
        print_error(e.what(), hint);
        return 2;
    } catch (const Error& e) {
        print_error(e.what(), e.hint());
        return e.exit_code();
    } catch (const std::bad_alloc&) {
        print_error("out of memory", "use fewer tokens or a smaller --d-in");
        return 1;
    } catch (const std::exception& e) {
        print_error(std::string("internal error: ") + e.what(), "please report it with the command line");
        return 1;
    }
}

}  // namespace attn::cli
