#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
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
    setup_show(app);
    setup_kinds(app);
    setup_models(app);
    setup_bench(app);
    setup_decode(app);
    setup_render(app);
    setup_page(app);
    setup_heads(app);
    setup_pull(app);
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
