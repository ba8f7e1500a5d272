// The validation table: every rule attn checks at its boundary, with the limits as constants.
//
// One table, read three ways: the CLI binds each option's accepted values from option_rules();
// docs/validation.md holds validation_table_markdown() verbatim (a test compares them); and
// tests/test_validation.cpp runs every row's example command and checks the exact error line,
// the exit code and that nothing was written. Change a rule here and the docs test tells you.
//
// Exit codes: 2 = the command line is wrong (fix the command); 1 = a file or the system is wrong
// (fix the file, the disk, the permissions). Every error is one line, "attn: error: ...".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/error.h"

namespace attn {

// ---- limits ---------------------------------------------------------------------------------------
constexpr std::size_t kDefaultMaxTokens = 4096;          // --max-tokens default (show)
constexpr std::size_t kMaxTokensLimit = 1u << 20;        // --max-tokens upper bound
constexpr std::size_t kMaxWidth = 65536;                 // --d-in, --d-out, an embeddings file's width
constexpr std::uint64_t kMaxInputFileBytes = 256ull << 20;  // any file attn reads (text, embeddings, mask)
constexpr int kMaxJsonDepth = 3;                         // {"x": [[...]]}: rows of numbers inside an object
constexpr double kMaxRunBytes = 2.0 * (1ull << 30);      // matrices one run may hold
constexpr double kMaxRunWork = 68719476736.0;            // 2^36 multiply-adds (seconds, not hours)

// ---- options ----------------------------------------------------------------------------------------
enum class OptionType {
    whole,     // a decimal whole number in [min, max]; no sign, no exponent, no hex
    fraction,  // a decimal number p with 0 <= p < 1 (also as float32)
    choice,    // one of `choices`; a comma-separated list when `list`
};

struct OptionRule {
    const char* option;  // "--d-in"
    OptionType type;
    std::uint64_t min, max;            // whole: inclusive bounds
    std::vector<std::string> choices;  // choice
    bool list;                         // choice: comma-separated, each item checked
    const char* bad_example;           // a value that breaks the rule (the table's example)
};

const std::vector<OptionRule>& option_rules();
const OptionRule& option_rule(const std::string& option);  // throws std::logic_error when unknown

// Empty when `text` is acceptable for the rule, else why not: "'abc' is not a whole number from 1 to 65536".
std::string check_option_text(const OptionRule& rule, const std::string& text);

// Throws a usage error when a run would hold more than kMaxRunBytes of matrices or do more than
// kMaxRunWork multiply-adds; `bytes` and `work` are estimates made before anything is allocated.
void check_run_size(double bytes, double work,
                    const std::string& hint = "use a smaller --d-in or --d-out, fewer --heads, or fewer tokens");

// ---- the table ------------------------------------------------------------------------------------
struct ValidationRule {
    std::string id;       // "sentence.utf8": stable, for the tests
    std::string subject;  // what is checked: "--d-in", "SENTENCE", "--embeddings .npy"
    std::string rule;     // the rule in words
    ErrorKind exit;
    // A command that breaks the rule, run in a folder holding the files tests/test_validation.cpp
    // creates (docs/validation.md describes them), and the exact line it prints on stderr.
    // An error ending in "..." is matched as a prefix (the rest names things others may add, such as kinds).
    std::vector<std::string> example;
    std::string error;
};

const std::vector<ValidationRule>& validation_rules();

// The files the examples name, with what each holds (tests/test_validation.cpp writes exactly these).
struct ValidationFixture {
    std::string name;
    std::string holds;
};
const std::vector<ValidationFixture>& validation_fixtures();

// The table as Markdown, exactly as docs/validation.md holds it between its markers.
std::string validation_table_markdown();

// Quotes an argument for a POSIX shell when it needs it ("a b" -> 'a b').
std::string shell_quote(const std::string& arg);

}  // namespace attn
