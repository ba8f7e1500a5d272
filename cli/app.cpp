#include <cerrno>
#include <cstdio>
#include <cstring>
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
    // One line, always, and no control characters from a file name or an argument (a terminal would
    // obey them): new lines become spaces, the rest \xHH.
    std::string out;
    for (char ch : line) {
        const auto b = static_cast<unsigned char>(ch);
        if (ch == '\n' || ch == '\r' || ch == '\t') out += ' ';
        else if (b < 0x20 || b == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", b);
            out += buf;
        } else out += ch;
    }
    std::fprintf(stderr, "%s\n", out.c_str());
}

// CLI11's parse errors, reworded as attn's: what is wrong and with which option or argument.
std::string describe(const CLI::ParseError& e) {
    const std::string what = e.what();
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
        const auto colon = what.find(": ");
        const std::string option = colon == std::string::npos ? "an option" : what.substr(0, colon);
        if (what.find(" missing") != std::string::npos) return option + " needs a value";
        const auto received = what.find("but received ");
        if (received != std::string::npos)
            return option + " is given " + what.substr(received + 13) + " times; give it once";
    }
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
        const auto colon = what.find(": ");
        const std::string extra = colon == std::string::npos ? what : what.substr(colon + 2);
        const std::string first = extra.substr(0, extra.find(' '));
        if (first.size() > 1 && first[0] == '-') return "unknown option '" + first + "'";
        return "unexpected argument '" + first + "'";
    }
    return what;
}

std::string hint_for(const CLI::ParseError& e, const CLI::App& app) {
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && describe(e).rfind("unexpected", 0) == 0)
        return "put a sentence of several words in quotes: attn show \"Your journey starts\"";
    std::string hint = "see 'attn --help'";
    for (const auto* sub : app.get_subcommands()) hint = "see 'attn " + sub->get_name() + " --help'";
    return hint;
}

int run(CLI::App& app, int argc, const char* const* argv) {
    try {
        app.parse(argc, argv);
        return 0;
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::RequiredError& e) {
        // No command: a word that is not one ("attn shw") is named.
        std::string commands;
        for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
            commands += (commands.empty() ? "" : ", ") + sub->get_name();
        if (!app.get_subcommands().empty()) print_error(describe(e), hint_for(e, app));
        else if (argc > 1 && argv[1][0] == '-') print_error("unknown option '" + std::string(argv[1]) + "'", "see 'attn --help'");
        else if (argc > 1) print_error("unknown command '" + std::string(argv[1]) + "'", "the commands are " + commands);
        else print_error("a subcommand is required", "the commands are " + commands);
        return 2;
    } catch (const CLI::ParseError& e) {
        print_error(describe(e), hint_for(e, app));
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
    setup_bench(app);
    render::CheckedStdout out;
    const int code = run(app, argc, argv);
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
