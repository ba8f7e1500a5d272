// Running a parsed command line: CLI11's parse errors reworded as attn's (what is wrong, with which
// option, the nearest option name), every option at most once, and each error as one line. The native
// program (cli/app.cpp) prints the line; the page's WebAssembly entry (cli/web/attn_web.cpp) hands it to
// JavaScript, so both say the same words.
#include "cli/command_line.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <new>
#include <vector>

#include "data/base/error.h"
#include "data/base/strings.h"

namespace attn::cli {
namespace {


std::string error_text(const std::string& message, const std::string& hint) {
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
    return out;
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
        if (first.size() > 1 && first[0] == '-') return "unknown option '" + excerpt(first) + "'";
        return "unexpected argument '" + excerpt(first) + "'";
    }
    return what;
}

// The command that failed to parse (the subcommand, when one was named).
const CLI::App& command_of(const CLI::App& app) {
    const auto subs = app.get_subcommands();
    return subs.empty() ? app : *subs.back();
}

// The first argument left over that looks like an option ("--head"), else the first left over.
std::string first_extra(const CLI::App& cmd) {
    const std::vector<std::string> rest = cmd.remaining();
    for (const std::string& r : rest)
        if (r.size() > 1 && r[0] == '-' && !(r[1] >= '0' && r[1] <= '9') && r[1] != '.') return r;
    return rest.empty() ? std::string() : rest.front();
}

// The command's option nearest to an unknown one, within a few edits ("--hed" -> "--head").
std::string nearest_option(const CLI::App& cmd, const std::string& given) {
    std::string name = given.substr(0, given.find('='));
    while (!name.empty() && name[0] == '-') name.erase(0, 1);
    // Half-edits as the unit: a name that holds the given letters in order ("hed" in "heads") wins a tie.
    const auto within = [](const std::string& small, const std::string& big) {
        std::size_t k = 0;
        for (char ch : big)
            if (k < small.size() && small[k] == ch) ++k;
        return k == small.size();
    };
    std::string best;
    std::size_t best_d = 2 * (std::max<std::size_t>(2, name.size() / 3) + 1);
    for (const CLI::Option* opt : cmd.get_options()) {
        for (const std::string& l : opt->get_lnames()) {
            std::size_t d = 2 * edit_distance(name, l);
            // "--col" for "--colormap": a prefix of a longer name counts as one edit
            if (name.size() >= 3 && l.compare(0, name.size(), name) == 0) d = std::min<std::size_t>(d, 2);
            if (d > 0 && within(name, l)) --d;
            if (d < best_d) best_d = d, best = "--" + l;
        }
    }
    return best;
}

std::string hint_for(const CLI::ParseError& e, const CLI::App& app) {
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
        const CLI::App& cmd = command_of(app);
        const std::string extra = first_extra(cmd);
        if (extra.size() > 1 && extra[0] == '-') {
            const std::string near = nearest_option(cmd, extra);
            if (!near.empty()) return "did you mean " + near + "? see 'attn " + cmd.get_name() + " --help'";
            return "see 'attn " + cmd.get_name() + " --help'";
        }
        for (const auto* sub : app.get_subcommands())
            if (sub->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty())
                return "'attn " + sub->get_name() + "' takes no sentence; see 'attn " + sub->get_name() + " --help'";
        const std::string name = command_of(app).get_name();
        return "put a sentence of several words in quotes: attn " + (name.empty() || name == "attn" ? std::string("show") : name) +
               " \"Your journey starts\"";
    }
    std::string hint = "see 'attn --help'";
    for (const auto* sub : app.get_subcommands()) hint = "see 'attn " + sub->get_name() + " --help'";
    return hint;
}

// The error line of a parse error: an unknown option is named even when other arguments are left
// over too (`attn show --hed 4 "The cat"` leaves --hed, 4 and "The cat"; the option is what is wrong).
std::string describe_in(const CLI::ParseError& e, const CLI::App& app) {
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
        const std::string extra = first_extra(command_of(app));
        if (extra.size() > 1 && extra[0] == '-') return "unknown option '" + excerpt(extra) + "'";
        if (!extra.empty()) return "unexpected argument '" + excerpt(extra) + "'";
    }
    return describe(e);
}

// Every option at most once, flags too (`kinds --json --json`), values checked or not
// (`--show a --show b`): CLI11 would check each value before counting.
void refuse_repeats(const CLI::App& app, int argc, const char* const* argv) {
    if (argc < 2) return;
    const CLI::App* sub = nullptr;
    for (const auto* s : app.get_subcommands([](const CLI::App*) { return true; }))
        if (s->get_name() == argv[1]) sub = s;
    if (sub == nullptr) return;
    std::map<const CLI::Option*, int> seen;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--") break;
        if (arg.size() < 2 || arg[0] != '-' || arg == "-") continue;
        const auto eq = arg.find('=');
        const std::string name = arg.substr(0, eq);
        const CLI::Option* opt = sub->get_option_no_throw(name);
        if (opt == nullptr) continue;
        if (++seen[opt] == 2) usage_error(name + " is given 2 times; give it once", "see 'attn " + sub->get_name() + " --help'");
        if (eq == std::string::npos && opt->get_expected_max() > 0) ++i;  // its value
    }
}

}  // namespace

std::string error_line(const std::string& message, const std::string& hint) { return error_text(message, hint); }

int run_command_line(CLI::App& app, int argc, const char* const* argv,
                     const std::function<void(const std::string&)>& report) {
    const auto print_error = [&](const std::string& message, const std::string& hint) {
        report(error_text(message, hint));
    };
    try {
        refuse_repeats(app, argc, argv);
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
        std::vector<std::string> names;
        for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
        const std::string commands = join(names);
        if (!app.get_subcommands().empty()) print_error(describe(e), hint_for(e, app));
        else if (argc > 1 && argv[1][0] == '-') print_error("unknown option '" + std::string(argv[1]) + "'", "see 'attn --help'");
        else if (argc > 1) print_error("unknown command '" + std::string(argv[1]) + "'", "the commands are " + commands);
        else print_error("a subcommand is required", "the commands are " + commands);
        return 2;
    } catch (const CLI::ParseError& e) {
        print_error(describe_in(e, app), hint_for(e, app));
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
