// Running the validation table (tests/validation_table.h) end to end: the fixture files its examples
// name, each row through the real binary, and the checks every such run shares: the exact one-line
// error, and a folder left exactly as it was. Used by tests/test_validation.cpp, tests/test_numerics.cpp
// and tests/test_files.cpp.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/helpers.h"
#include "tests/validation_table.h"

namespace attn::test {

// The files validation_fixtures() lists, in dir; it returns 50 ms after writing them, so that a later
// change to any of them carries a later file time (snapshot).
void write_fixtures(const std::string& dir);

// attn with these arguments (tests/helpers.h run_attn).
RunResult run(const std::vector<std::string>& args, const RunOptions& o = {});

// Every path under dir with its type, size, inode, mode and modification and change times (ns): a run
// that fails must leave it exactly as it was (no new file, no temporary made and removed, nothing
// overwritten or renamed over: each moves a change time).
std::map<std::string, std::string> snapshot(const std::string& dir);

// The error line matches the table's: exactly, or as a prefix when the table's ends in "...".
void check_error_line(const std::string& err, const std::string& want);

// The table's row `id` (the test fails when there is none).
const ValidationRule& rule(const std::string& id);

// Runs one row of the table in a fresh folder holding the fixtures; checks the exit code, the exact
// error line, an empty stdout, and that the folder is exactly as it was.
void check_row(const ValidationRule& r);

// check_row for each rule, in one folder of fixtures written once: after each row the folder is as it
// was (a row that needs its own folder gets one; after a row that changed it, the rows after it get the
// fixtures afresh).
void check_rows(const std::vector<ValidationRule>& rules);

// The JSON trace of a run that must succeed (--json - appended); its result in *result if asked.
nlohmann::json run_json(const std::vector<std::string>& args, RunResult* result = nullptr);

// A mask as a JSON array of 0/1 rows.
std::string mask_json(const std::vector<std::vector<int>>& m);

}  // namespace attn::test
