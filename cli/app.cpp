#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <iostream>
#include <map>
#include <new>
#include <vector>

#include "cli/cli.h"
#include "cli/command_line.h"
#include "cli/model_source.h"
#include "data/base/error.h"
#include "data/base/strings.h"
#include "cli/policy/files.h"

namespace attn::cli {
namespace {

// The commands, in the order help lists them.
struct Command {
    const char* name;
    void (*setup)(CLI::App&);
};
constexpr Command kCommands[] = {{"show", setup_show},     {"kinds", setup_kinds}, {"models", setup_models},
                                 {"bench", setup_bench},   {"decode", setup_decode}, {"render", setup_render},
                                 {"page", setup_page},     {"heads", setup_heads}, {"pull", setup_pull}};

void print_error(const std::string& message, const std::string& hint) {
    std::fprintf(stderr, "%s\n", error_line(message, hint).c_str());
}

}  // namespace

int run_cli(int argc, const char* const* argv) {
    policy::install_cleanup_handlers();
    CLI::App app{"attn: inspect and visualise attention, one matrix at a time", "attn"};
    app.footer(
        "Examples:\n"
        "  attn show --kind causal \"Your journey starts\"\n"
        "  attn show --example journey --kind self --init torch-rand --d-out 2 --show scores,weights,context\n"
        "  attn show --kind mha --heads 4 \"The cat sat on the mat.\" --json out/trace.json --png out/\n"
        "  attn show --kind causal --pos rope \"the cat sat on the mat\"\n"
        "  attn decode --kind gqa --heads 4 --kv-heads 2 \"Your journey starts with one step\"\n"
        "  attn render trace.json --html trace.html\n"
        "  attn page lab.html\n"
        "  attn heads --model gpt2/ --rank previous \"The cat sat on the mat.\"\n"
        "  attn pull gpt2   (then --model gpt2: the Hugging Face cache)\n"
        "  attn kinds\n"
        "  attn models\n"
        "Run 'attn COMMAND --help' for a command's options.");
    app.require_subcommand(1);
    app.set_version_flag("--version", "attn 0.1.0");
    // A command line whose first word names a command sets up that command alone: building every
    // command's options took 1.5 ms of each run. Any other (no command, an option, a mistyped word) sets
    // up all of them, so that help and errors list them all.
    const auto* named = std::find_if(std::begin(kCommands), std::end(kCommands),
                                     [&](const Command& c) { return argc > 1 && std::strcmp(argv[1], c.name) == 0; });
    for (const Command& c : kCommands)
        if (named == std::end(kCommands) || &c == named) c.setup(app);
    policy::CheckedStdout out;
    const int code = run_command_line(app, argc, argv, [](const std::string& line) {
        std::fprintf(stderr, "%s\n", line.c_str());
    });
    if (code == 0) print_deferred_notes();
    // Whatever went to standard output must have arrived (a full disk, say). A run that failed has
    // already said why, in its one line.
    const int err = out.flush();
    errno = 0;
    const bool c_failed = std::fflush(stdout) != 0 || std::ferror(stdout);  // --json - goes through stdio
    const int c_err = errno;
    std::clearerr(stdout);
    if ((err != 0 || c_failed) && code == 0) {
        const int why = err != 0 ? err : c_err;
        print_error(std::string("cannot write to standard output: ") + (why ? std::strerror(why) : "write failed"), "");
        return 1;
    }
    return code;
}

}  // namespace attn::cli
