// The validation table: every rule attn checks at its boundary (the limits are in data/base/limits.h).
//
// Test data, not part of attn: one table read two ways. docs/validation.md holds
// validation_table_markdown() verbatim (a test compares them), and tests/test_validation.cpp runs every row's example command and checks the exact error line,
// the exit code and that nothing was written. Change a rule here and the docs test tells you.
//
// Exit codes: 2 = the command line is wrong (fix the command); 1 = a file or the system is wrong
// (fix the file, the disk, the permissions). Every error is one line, "attn: error: ...".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/base/error.h"

namespace attn {

// ---- the table ------------------------------------------------------------------------------------
struct ValidationRule {
    std::string id;       // "sentence.utf8": stable, for the tests
    std::string subject;  // what is checked: "--d-in", "SENTENCE", "--embeddings .npy"
    std::string rule;     // the rule in words
    ErrorKind exit;
    // A command that breaks the rule, run in a folder holding the files tests/validation_run.cpp
    // creates (docs/validation.md describes them), and the exact line it prints on stderr.
    // An error ending in "..." is matched as a prefix (the rest names things others may add, such as kinds).
    std::vector<std::string> example;
    std::string error;
};

const std::vector<ValidationRule>& validation_rules();

// The files the examples name, with what each holds (tests/validation_run.cpp writes exactly these).
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
