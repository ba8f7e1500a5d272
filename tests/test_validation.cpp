// The validation table (tests/validation_table.h) end to end: every row run through the real binary
// (tests/validation_run.h), the docs checked against the table, option bounds, and the loaders' edges.
// The numerics and user masks are tests/test_numerics.cpp, output files tests/test_files.cpp.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/policy/options.h"
#include "core/base/ops.h"
#include "data/inputs/embed.h"
#include "data/base/error.h"
#include "data/inputs/inputs.h"
#include "data/base/limits.h"
#include "data/text/tokenize.h"
#include "fuzz/harness.h"
#include "render/view/figure_views.h"
#include "render/terminal/terminal.h"
#include "tests/helpers.h"
#include "tests/model_fixtures.h"
#include "tests/validation_run.h"

using namespace attn;
using namespace attn::test;
using Json = nlohmann::json;

// ---- the table --------------------------------------------------------------------------------------

TEST_CASE("validation: every row of the table fails as documented end to end") {
    std::set<std::string> ids;
    for (const ValidationRule& r : validation_rules()) CHECK(ids.insert(r.id).second);  // ids are unique
    CHECK(ids.size() >= 60);
    check_rows(validation_rules());
}

TEST_CASE("validation: docs/validation.md holds the table verbatim") {
    const std::string doc = slurp(std::string(ATTN_SOURCE_DIR) + "/docs/validation.md");
    const std::string begin = "<!-- attn:validation-table begin -->\n", end = "<!-- attn:validation-table end -->";
    const auto b = doc.find(begin), e = doc.find(end);
    REQUIRE(b != std::string::npos);
    REQUIRE(e != std::string::npos);
    const std::string table = doc.substr(b + begin.size(), e - b - begin.size());
    const std::string want = validation_table_markdown();
    if (table != want) {
        // Regenerate with: ATTN_WRITE_VALIDATION_TABLE=1 ctest -R 'verbatim'
        if (std::getenv("ATTN_WRITE_VALIDATION_TABLE")) {
            write(std::string(ATTN_SOURCE_DIR) + "/docs/validation.md",
                  doc.substr(0, b + begin.size()) + want + doc.substr(e));
            MESSAGE("rewrote docs/validation.md");
        }
        FAIL_CHECK("docs/validation.md differs from validation_table_markdown(); the table is:\n" << want);
    }
}

// The rows' folder check itself: a file rewritten with its own bytes, a file made and removed, and a
// file renamed over another with the same bytes each change the snapshot (on a file system whose times
// are too coarse to tell, this fails rather than let the rows pass unchecked).
TEST_CASE("validation: a folder's snapshot changes when a file is rewritten with its own bytes, or one is made and removed") {
    const std::string dir = temp_dir();
    write_fixtures(dir);
    const auto before = snapshot(dir);
    write(dir + "/rows.json", slurp(dir + "/rows.json"));
    const auto rewritten = snapshot(dir);
    CHECK(rewritten != before);
    write(dir + "/made.tmp", "x");
    REQUIRE(::unlink((dir + "/made.tmp").c_str()) == 0);
    const auto made = snapshot(dir);
    CHECK(made != rewritten);
    write(dir + "/blank.tmp", slurp(dir + "/blank.txt"));
    REQUIRE(::rename((dir + "/blank.tmp").c_str(), (dir + "/blank.txt").c_str()) == 0);
    CHECK(snapshot(dir) != made);
    fuzz::remove_tree(dir);
}

TEST_CASE("validation: the fixtures written are the ones the table lists") {
    const std::string dir = temp_dir();
    write_fixtures(dir);
    std::set<std::string> written, listed;
    std::vector<std::string> paths;
    fuzz::list_tree(dir, "", paths);
    for (const auto& f : validation_fixtures()) listed.insert(f.name);
    // every top-level fixture is listed, and so is any deeper file the table names (a model folder's
    // own files are described by the folder's row)
    for (const auto& p : paths)
        if (p.find('/') == std::string::npos || listed.count(p)) written.insert(p);
    CHECK(written == listed);
}

TEST_CASE("validation: option rules accept their bounds and refuse one past them") {
    for (const OptionRule& r : option_rules()) {
        INFO(r.option);
        CHECK(!check_option_text(r, r.bad_example).empty());
        CHECK(!check_option_text(r, "").empty());
        CHECK(!check_option_text(r, " 1").empty());
        if (r.type == OptionType::whole) {
            CHECK(check_option_text(r, std::to_string(r.min)).empty());
            CHECK(check_option_text(r, std::to_string(r.max)).empty());
            if (r.min > 0) CHECK(!check_option_text(r, std::to_string(r.min - 1)).empty());
            if (r.max < std::numeric_limits<std::uint64_t>::max())
                CHECK(!check_option_text(r, std::to_string(r.max + 1)).empty());
            else
                CHECK(!check_option_text(r, "18446744073709551616").empty());  // 2^64
            for (const char* bad : {"-1", "+1", "1.0", "1e2", "0x1", "abc", "99999999999999999999999"})
                CHECK(!check_option_text(r, bad).empty());
        }
        if (r.type == OptionType::choice)
            for (const auto& c : r.choices) CHECK(check_option_text(r, c).empty());
    }
    const OptionRule& p = option_rule("--dropout");
    for (const char* ok : {"0", "0.0", "0.5", "0.999", "1e-3"}) CHECK(check_option_text(p, ok).empty());
    for (const char* bad : {"1", "1.0", "-0.1", "nan", "inf", "0.99999999999", "0.5x", "0,5"})
        CHECK(!check_option_text(p, bad).empty());
    // --show's choices are the terminal's matrices, --max-tokens' default is the documented 4096.
    CHECK(option_rule("--show").choices == render::showable_matrices());
    CHECK(option_rule("--figures").choices == render::figure_names());
    CHECK(kDefaultMaxTokens == 4096);
    const RunResult help = run({"show", "--help"});
    for (const OptionRule& r : option_rules()) CHECK(help.out.find(r.option) != std::string::npos);
    CHECK(help.out.find("4096") != std::string::npos);
}

TEST_CASE("validation: a sentence of 50000 words is refused quickly") {
    std::string text;  // 100 kB: one argument may be at most 128 kB (MAX_ARG_STRLEN)
    for (int i = 0; i < 50000; ++i) text += "a ";
    const RunResult r = run({"show", text});
    CHECK(r.code == 2);
    check_error_line(r.err,
                     "attn: error: the sentence has more than 4096 tokens (--max-tokens 4096) (hint: raise --max-tokens or "
                     "shorten the text)");
    CHECK(tokenize(text, 10).size() == 11);  // the tokeniser stops once past the limit
}

TEST_CASE("validation: a run too large for a JSON trace is refused before it starts") {
    const std::string dir = temp_dir();
    std::string words;
    for (int i = 0; i < 3000; ++i) words += "w" + std::to_string(i) + " ";
    write(dir + "/words.txt", words);
    // 4 heads of 3000 x 3000: the matrices fit in 1 GiB, their JSON tree (about 3 GiB) does not.
    const RunResult r = run({"show", "--kind", "mqa", "--file", "words.txt", "--json", "t.json", "--max-memory", "1G",
                             "--force"},
                            {dir, "", false, ""});
    CHECK(r.code == 2);
    check_error_line(r.err, "attn: error: this run would need about ...");  // core/kinds/budget.cpp estimates how much
    CHECK(r.err.find("more than --max-memory 1.0 GiB (hint: drop --json (") != std::string::npos);
    // without --force, the trace's size itself is refused first, pointing at --npy
    const RunResult big = run({"show", "--kind", "mqa", "--file", "words.txt", "--json", "t.json"}, {dir, "", false, ""});
    CHECK(big.code == 2);
    CHECK(big.err.find("write the matrices with --npy DIR instead, or add --force") != std::string::npos);
    CHECK(::access((dir + "/t.json").c_str(), F_OK) != 0);
    const RunResult ok = run({"show", "--kind", "mqa", "--file", "words.txt"}, {dir, "", false, ""});
    CHECK(ok.code == 0);
}

TEST_CASE("validation: emoji and non-Latin text are fine and a byte order mark is skipped") {
    const RunResult r = run({"show", "--kind", "self", "héllo 👋🏽 世界 مرحبا"});
    INFO(r.err);
    CHECK(r.code == 0);
    const std::string dir = temp_dir();
    write(dir + "/bom.txt", "\xEF\xBB\xBFYour journey");
    const Json j = run_json({"show", "--file", dir + "/bom.txt"});
    CHECK(j["tokens"] == Json::array({"Your", "journey"}));
    // Bidirectional overrides reorder what a terminal shows: refused like control characters.
    CHECK(text_problem("a \xE2\x80\xAE b").value() == "has a control character at byte offset 2 (U+202E)");
    CHECK(!text_problem("a\tb\nc").has_value());
    CHECK(text_problem("a\tb", false).value() == "has a control character at byte offset 1 (U+0009)");
    CHECK(!text_problem("👨\u200d👩\u200d👧").has_value());  // a zero-width joiner is part of the emoji
}

// ---- the loaders ------------------------------------------------------------------------------------

TEST_CASE("loaders: JSON object form, unknown keys, duplicates and depth") {
    auto load = [](const std::string& text) { return load_embeddings_bytes(text, "e.json"); };
    const Embeddings e = load(R"({"model": {"name": "toy", "dims": [2]}, "tokens": ["a", "b"], "x": [[1, 2.5], [-3, 4e-3]]})");
    CHECK(e.tokens == std::vector<std::string>{"a", "b"});
    REQUIRE(e.x.shape(0) == 2);
    CHECK(e.x(0, 1) == 2.5f);
    CHECK(e.x(1, 1) == 0.004f);
    auto message = [&](const std::string& text) -> std::string {
        try {
            load(text);
        } catch (const Error& err) {
            CHECK(err.exit_code() == 1);
            return err.what();
        }
        return "no error";
    };
    CHECK(message(R"({"x": [[1]], "x": [[2]]})") == "e.json: the key \"x\" appears twice");
    CHECK(message(R"({"tokens": ["a"]})") == "e.json: no rows found (no \"x\" key)");
    CHECK(message("[]") == "e.json: there are no rows (an empty array)");
    CHECK(message("[[]]") == "e.json: row 0 is empty");
    CHECK(message("[1, 2]") == "e.json: row 0 is a number, not an array");
    CHECK(message("3") == "e.json: expected an array of rows or an object, found a number");
    CHECK(message("[[1e39]]") == "e.json: row 0, column 0 is not a finite float32 value (1e39)");
    CHECK(message("[[-1e999]]") == "e.json: row 0, column 0 is not a finite float32 value (-1e999)");
    CHECK(message("[[1]] x") ==
          "e.json: invalid JSON at byte offset 6: invalid literal; expected end of input");
    CHECK(message(R"({"tokens": ["a", ""], "x": [[1], [2]]})") == "e.json: token 1 is empty");
    CHECK(message(R"({"meta": 1e999, "x": [[1]]})").rfind("e.json: the number 1e999 near byte offset", 0) == 0);
    CHECK(message(R"({"tokens": "a", "x": [[1]]})") == "e.json: \"tokens\" must be an array of strings, not a string");
    CHECK(message(std::string(100000, '[')) == "e.json: row 0, column 0 is an array, not a number");
    CHECK(message("{\"x\": " + std::string(100000, '[')) ==
          "e.json: nested deeper than 3 levels (rows of values are 2 or 3 deep)");
    CHECK(message("{\"meta\": " + std::string(100000, '[')) ==
          "e.json: nested deeper than 3 levels (rows of values are 2 or 3 deep)");
    CHECK(message("[[1], [\"\xff\"]]").rfind("e.json: invalid JSON at byte offset", 0) == 0);
}

TEST_CASE("loaders: .npy in Fortran order and float64 read as the same matrix") {
    const Embeddings c = load_embeddings_bytes(npy("<f8", "(2, 3)", raw({1.0, 2.0, 3.0, 4.0, 5.0, 6.0})), "c.npy");
    const Embeddings f = load_embeddings_bytes(npy("<f4", "(2, 3)", raw({1.0f, 4.0f, 2.0f, 5.0f, 3.0f, 6.0f}), true), "f.npy");
    REQUIRE(c.x.shape(1) == 3);
    CHECK(max_abs_diff(c.x, f.x) == 0.0f);
    CHECK(c.x(1, 0) == 4.0f);
    const Mask m = load_mask_bytes(npy("|b1", "(2, 3)", std::string("\1\0\0\1\1\1", 6), true), "m.npy", 2, 3);
    CHECK(m(0, 0) == 1);  // column-major: (0,0) (1,0) (0,1) (1,1) (0,2) (1,2)
    CHECK(m(1, 0) == 0);
    CHECK(m(0, 1) == 0);
    CHECK(m(1, 2) == 1);
    // Beyond float32 in a float64 file is an error too, naming the cell.
    try {
        load_embeddings_bytes(npy("<f8", "(1, 2)", raw({1.0, 1e300})), "big.npy");
        FAIL("expected an error");
    } catch (const Error& e) {
        CHECK(std::string(e.what()) == "big.npy: row 0, column 1 is beyond float32, not a finite float32 value");
    }
}
