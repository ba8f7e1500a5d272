// Hostile inputs and faults, end to end: every row of the validation table (tests/validation_table.h) run
// through the real binary, the docs checked against the table, the softmax at its numeric edges,
// user masks on every kind, and output files that are written whole or not at all.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/kinds.h"
#include "core/ops.h"
#include "tests/ops_helpers.h"
#include "data/embed.h"
#include "data/error.h"
#include "data/inputs.h"
#include "data/npy.h"
#include "data/tokenize.h"
#include "cli/policy/options.h"
#include "data/limits.h"
#include "tests/validation_table.h"
#include "fuzz/harness.h"
#include "render/terminal.h"
#include "render/figure_views.h"
#include "tests/helpers.h"
#include "tests/model_fixtures.h"

using namespace attn;
using attn::test::RunOptions;
using attn::test::RunResult;
using attn::test::slurp;
using attn::test::temp_dir;
using Json = nlohmann::json;
using attn::test::write;
using attn::test::npy;
using attn::test::raw;
using attn::test::npy_header;

namespace {

// ---- writing inputs ------------------------------------------------------------------------------





// ASCII text as UTF-16LE without a byte order mark (as some Windows editors save it).
std::string utf16le(const std::string& ascii) {
    std::string out;
    for (char ch : ascii) out += std::string(1, ch) + '\0';
    return out;
}

// Two rows of 16 finite float32 values, 3e38 then -3e38: additive's projections overflow.
std::string big_rows() {
    std::string a = "[", b = "[";
    for (int i = 0; i < 16; ++i) a += (i ? ",3e38" : "3e38"), b += (i ? ",-3e38" : "-3e38");
    return "[" + a + "]," + b + "]]";
}

// The files validation_fixtures() lists, in dir.
void write_fixtures(const std::string& dir) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    std::string many, wide = "[[";
    for (int i = 0; i < 300; ++i) many += (i ? " w" : "w") + std::to_string(i);
    for (int i = 0; i < 65537; ++i) wide += i ? ",0" : "0";
    wide += "]]";
    const std::map<std::string, std::string> files = {
        {"rows.json", "[[1, 2], [3, 4]]"},
        {"named.json", R"({"tokens": ["a", "b"], "x": [[1, 2], [3, 4]]})"},
        {"many.txt", many},
        {"bad-utf8.txt", "Your \xff journey"},
        {"ctrl.txt", "Your\x1b[2J journey"},
        {"blank.txt", "  \t\n"},
        {"long.txt", "a b c d e"},
        {"syntax.json", "[[1, 2], [3, 4]"},
        {"deep.json", R"({"x": [[[1]]]})"},
        {"ragged.json", "[[1, 2], [3]]"},
        {"text.json", R"([[1, 2], [3, "x"]])"},
        {"huge.json", "[[1, 2], [3, 1e999]]"},
        {"wide.json", wide},
        {"count.json", R"({"tokens": ["a", "b", "c"], "x": [[1, 2], [3, 4]]})"},
        {"ctrl-token.json", R"({"tokens": ["a", "b\u001b[2J"], "x": [[1, 2], [3, 4]]})"},
        {"long-word.txt", "Your " + std::string(1025, 'x')},
        {"long-token.json", R"({"tokens": ["a", ")" + std::string(1025, 'x') + R"("], "x": [[1, 2], [3, 4]]})"},
        {"long-token.txt", "a\n" + std::string(1025, 'x')},
        {"version.npy", std::string("\x93NUMPY\x09\x00", 8) + std::string(8, '\0')},
        {"header.npy", std::string("\x93NUMPY\x01\x00\xff\xff{}", 12)},
        {"size.npy", npy("<f4", "(1000000, 1000000)", raw({1.0f, 2.0f}))},
        {"dtype.npy", npy("<i4", "(2, 2)", raw<std::int32_t>({1, 2, 3, 4}))},
        {"bool.npy", npy("|b1", "(2, 2)", std::string("\1\0\1\1", 4))},
        {"shape.npy", npy("<f4", "(4,)", raw({1.0f, 2.0f, 3.0f, 4.0f}))},
        {"nan.npy", npy("<f4", "(2, 2)", raw({1.0f, 2.0f, nan, 4.0f}))},
        {"inf.npy", npy("<f8", "(2, 2)", raw({1.0, inf, 3.0, 4.0}))},
        {"mask-syntax.json", "[[true, false], [true"},
        {"mask-shape.json", "[[1, 0, 1]]"},
        {"mask-value.json", "[[1, 2], [1, 1]]"},
        {"mask-float.npy", npy("<f4", "(2, 2)", raw({1.0f, 0.0f, 1.0f, 1.0f}))},
        {"mask-shape.npy", npy("|u1", "(3, 3)", std::string(9, '\0'))},
        {"mask-value.npy", npy("|u1", "(2, 2)", std::string("\1\7\1\1", 4))},
        {"overflow.json", "[[1e20, 1e20], [1e20, -1e20]]"},
        {"file", "not a folder\n"},
        {"utf16.txt", utf16le("Your journey")},
        {"utf16.json", utf16le("[[1, 2], [3, 4]]")},
        {"space-token.json", R"({"tokens": ["a b", "c"], "x": [[1, 2], [3, 4]]})"},
        {"zwsp-token.json", R"({"tokens": ["a", "b\u200bc"], "x": [[1, 2], [3, 4]]})"},
        {"long-literal.json", "[[1" + std::string(5000, '0') + "]]"},
        {"beyond.json", "[[3.5e38]]"},
        {"version11.npy", std::string("\x93NUMPY\x01\x01", 8) + npy("<f4", "(2, 2)", raw({1.0f, 2.0f, 3.0f, 4.0f})).substr(8)},
        {"nodict.npy", npy_header("'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), ", raw({1.0f, 2.0f, 3.0f, 4.0f}))},
        {"dupkey.npy", npy_header("{'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
                                  raw({1.0f, 2.0f, 3.0f, 4.0f}))},
        {"nul.npy", npy(std::string("<\0f4", 4), "(2, 2)", raw({1.0f, 2.0f, 3.0f, 4.0f}))},
        {"big.json", big_rows()},
        {"npy-out/causal-x.npy", "[[1, 2], [3, 4]]"},
        {"trace-cut.json", std::string(R"({"format": "attn-trace", "version": 1, "tokens": ["a", "b"], "heads": [[)").substr(0, 60)},
        {"trace-v2.json", R"({"format": "attn-trace", "version": 2})"},
        {"trace-kind.json", R"({"format": "attn-trace", "version": 1, "kind": ")" + std::string(200001, 'x') + R"(", "tokens": ["a"]})"},
        {"rank5.npy", npy("<f4", "(1, 1, 1, 1, 1)", raw({1.0f}))},
        {"tokens3.txt", "a\nb\nc\n"},
    };
    REQUIRE(::mkdir((dir + "/npy-out").c_str(), 0755) == 0);
    for (const auto& [name, bytes] : files) write(dir + "/" + name, bytes);
    REQUIRE(::mkdir((dir + "/folder").c_str(), 0755) == 0);
    attn::test::write_model_fixtures(dir);
    const int fd = ::open((dir + "/large.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);  // sparse: no disk used
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, 257LL << 20) == 0);
    ::close(fd);
}

// ---- running the binary ------------------------------------------------------------------------

RunResult run(const std::vector<std::string>& args, const RunOptions& o = {}) { return attn::test::run_attn(args, o); }

// Every path under dir with its size and, for small files, its bytes: a run that fails must leave it
// exactly as it was (no new file, no temporary, nothing overwritten).
std::map<std::string, std::string> snapshot(const std::string& dir) {
    std::vector<std::string> paths;
    fuzz::list_tree(dir, "", paths);
    std::map<std::string, std::string> snap;
    for (const auto& p : paths) {
        struct stat st {};
        REQUIRE(::lstat((dir + "/" + p).c_str(), &st) == 0);
        std::string what = S_ISDIR(st.st_mode) ? "folder" : std::to_string(st.st_size) + " bytes";
        if (S_ISREG(st.st_mode) && st.st_size < (1 << 20)) what += ": " + slurp(dir + "/" + p);
        snap[p] = what;
    }
    return snap;
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The error line matches the table's: exactly, or as a prefix when the table's ends in "...".
void check_error_line(const std::string& err, const std::string& want) {
    INFO("stderr: " << err);
    INFO("want:   " << want);
    REQUIRE(!err.empty());
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK(err.back() == '\n');
    const std::string line = err.substr(0, err.size() - 1);
    if (ends_with(want, "...")) CHECK(line.rfind(want.substr(0, want.size() - 3), 0) == 0);
    else CHECK(line == want);
}

const ValidationRule& rule(const std::string& id) {
    for (const auto& r : validation_rules())
        if (r.id == id) return r;
    FAIL("no row " << id);
    throw;
}

// Runs one row of the table in a fresh folder holding the fixtures; checks the exit code, the exact
// error line, an empty stdout, and that the folder is exactly as it was.
void check_row(const ValidationRule& r) {
    INFO("row " << r.id);
    const std::string dir = temp_dir();
    RunOptions o;
    o.cwd = dir;
    if (r.id == "output.vanished") {
        o.remove_cwd = true;  // the folder is deleted after attn is started in it
    } else {
        write_fixtures(dir);
    }
    if (r.id == "output.stdout") o.stdout_path = "/dev/full";
    if (r.id == "text.stdin-max-tokens") o.stdin_text = "a b c d";
    const auto before = snapshot(dir);
    const RunResult res = run(r.example, o);
    CHECK(res.code == static_cast<int>(r.exit));
    check_error_line(res.err, r.error);
    CHECK(res.out.empty());
    if (!o.remove_cwd) CHECK(snapshot(dir) == before);
    fuzz::remove_tree(dir);
}

Json run_json(const std::vector<std::string>& args, RunResult* result = nullptr) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--json", "-"});
    const RunResult r = run(a);
    INFO("stderr: " << r.err);
    REQUIRE(r.code == 0);
    if (result) *result = r;
    return Json::parse(r.out);
}

std::string mask_json(const std::vector<std::vector<int>>& m) {
    Json j = Json::array();
    for (const auto& row : m) j.push_back(row);
    return j.dump();
}

}  // namespace

// ---- the table --------------------------------------------------------------------------------------

TEST_CASE("validation: every row of the table fails as documented end to end") {
    std::set<std::string> ids;
    for (const ValidationRule& r : validation_rules()) {
        CHECK(ids.insert(r.id).second);  // ids are unique
        check_row(r);
    }
    CHECK(ids.size() >= 60);
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
    check_error_line(r.err, "attn: error: this run would need about ...");  // core/budget.cpp estimates how much
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

// ---- numerics at the edges ------------------------------------------------------------------------

TEST_CASE("numerics: softmax of scores up to ±1e30 with different row maxima") {
    const Mat scores = {{1e30f, 0.0f, -1e30f}, {-1e30f, -1e30f, -1e30f}, {1e30f, 1e30f, 5.0f}, {1.0f, 2.0f, 3.0f}};
    Mask all = Mask::from_shape({4, 3});
    all.fill(1);
    Mat w;
    std::vector<std::size_t> empty;
    masked_softmax(scores, 1.0f, all, w, empty);
    CHECK(empty.empty());
    // Independent values: e^-1e30 underflows to 0; equal maxima share; the last row is softmax(1, 2, 3).
    const double e1 = std::exp(1.0), e2 = std::exp(2.0), e3 = std::exp(3.0), z = e1 + e2 + e3;
    test::check_matrix(w, {{1.0f, 0.0f, 0.0f},
                           {1.0f / 3, 1.0f / 3, 1.0f / 3},
                           {0.5f, 0.5f, 0.0f},
                           {float(e1 / z), float(e2 / z), float(e3 / z)}},
                       1e-6);
    // The same with a scale, as attention applies 1/sqrt(d_k).
    masked_softmax(scores, 0.125f, all, w, empty);
    test::check_row(w, 0, {1.0f, 0.0f, 0.0f}, 1e-6);
    test::check_row(w, 2, {0.5f, 0.5f, 0.0f}, 1e-6);
    for (float v : w) CHECK(std::isfinite(v));
}

TEST_CASE("numerics: a row with every key hidden has weights 0 and is listed once") {
    const Mat scores = {{1e30f, 2.0f}, {3.0f, -1e30f}, {0.0f, 0.0f}};
    const Mask mask = {{1, 1}, {0, 0}, {0, 1}};
    Mat w;
    std::vector<std::size_t> empty;
    masked_softmax(scores, 1.0f, mask, w, empty);
    CHECK(empty == std::vector<std::size_t>{1});
    test::check_matrix(w, {{1.0f, 0.0f}, {0.0f, 0.0f}, {0.0f, 1.0f}}, 0.0);
}

TEST_CASE("numerics: a visible +inf or NaN score is an error naming the row and not a NaN weight") {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    for (const Mat& scores : {Mat{{0.0f, 1.0f}, {inf, 1.0f}}, Mat{{0.0f, 1.0f}, {nan, 1.0f}}}) {
        Mask all = Mask::from_shape({2, 2});
        all.fill(1);
        Mat w;
        std::vector<std::size_t> empty;
        try {
            masked_softmax(scores, 1.0f, all, w, empty);
            for (float v : w) CHECK(std::isfinite(v));  // if it does not throw, it must not make NaN
            FAIL_CHECK("expected an error for a non-finite score");
        } catch (const Error& e) {
            CHECK(e.exit_code() == 1);
            CHECK(std::string(e.what()).find("row 1") != std::string::npos);
        }
    }
}

TEST_CASE("numerics: embeddings of ±1e15 give scores of ±1e30 and exact one-hot weights end to end") {
    const std::string dir = temp_dir();
    write(dir + "/x.json", "[[1e15, 0], [0, 1e15], [-1e15, 0]]");
    RunResult r;
    const Json j = run_json({"show", "--kind", "simple", "--embeddings", dir + "/x.json", "a b c"}, &r);
    const Json& h = j["heads"][0];
    CHECK(h["scores"][0][0].get<double>() == doctest::Approx(1e30).epsilon(1e-6));
    CHECK(h["scores"][0][2].get<double>() == doctest::Approx(-1e30).epsilon(1e-6));
    CHECK(h["weights"] == Json::parse("[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]"));
    CHECK(h["context"][0][0].get<double>() == doctest::Approx(1e15).epsilon(1e-6));
    CHECK(j["empty_rows"].empty());
    // The terminal view prints no NaN or Inf either.
    const RunResult t = run({"show", "--kind", "simple", "--embeddings", dir + "/x.json", "a b c", "--show",
                             "scores,weights,context"});
    CHECK(t.code == 0);
    for (const char* bad : {"nan", "NaN", "inf"}) CHECK(t.out.find(bad) == std::string::npos);
}

TEST_CASE("numerics: NaN and Inf in a float32 .npy are input errors naming row and column") {
    const std::string dir = temp_dir();
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    write(dir + "/ninf.npy", npy("<f4", "(3, 2)", raw({0.5f, 1.0f, 2.0f, -inf, 1.0f, 1.0f})));
    write(dir + "/nan.npy", npy("<f4", "(3, 2)", raw({0.5f, 1.0f, 2.0f, 3.0f, 1.0f, nan})));
    const RunResult a = run({"show", "--embeddings", dir + "/ninf.npy", "a b c", "--json", dir + "/t.json"});
    CHECK(a.code == 1);
    CHECK(a.err.find("ninf.npy: row 1, column 1 is infinite") != std::string::npos);
    const RunResult b = run({"show", "--embeddings", dir + "/nan.npy", "a b c", "--json", dir + "/t.json"});
    CHECK(b.code == 1);
    CHECK(b.err.find("nan.npy: row 2, column 1 is NaN") != std::string::npos);
    CHECK(::access((dir + "/t.json").c_str(), F_OK) != 0);
}

TEST_CASE("numerics: scores that overflow float32 are an error, not NaN weights") {
    const std::string dir = temp_dir();
    write(dir + "/big.npy", npy("<f4", "(2, 2)", raw({1e30f, 1e30f, -1e30f, 1e30f})));
    for (const char* kind : {"simple", "self", "causal", "flash"}) {
        INFO(kind);
        const RunResult r = run({"show", "--kind", kind, "--embeddings", dir + "/big.npy", "a b", "--png", dir + "/png"});
        CHECK(r.code == 1);
        CHECK(r.err.find("overflow float32") != std::string::npos);
        CHECK(r.out.find("nan") == std::string::npos);
        CHECK(::access((dir + "/png").c_str(), F_OK) != 0);
    }
}

// ---- the user's mask ------------------------------------------------------------------------------

TEST_CASE("mask: combined with every kind's own mask and shown in the trace") {
    const std::string dir = temp_dir();
    // T = 4 query tokens; S = 3 source tokens for the kinds that take --source.
    const std::vector<std::vector<int>> self_mask = {{1, 1, 0, 1}, {0, 1, 1, 1}, {0, 0, 0, 0}, {1, 0, 1, 1}};
    const std::vector<std::vector<int>> src_mask = {{1, 0, 1}, {0, 1, 1}, {0, 0, 0}, {1, 1, 0}};
    write(dir + "/self.json", mask_json(self_mask));
    write(dir + "/src.json", mask_json(src_mask));
    for (const Kind& k : kinds()) {
        INFO("kind " << k.name);
        std::vector<std::string> args = {"show", "--kind", k.name, "The cat sat down"};
        const bool source = (k.options & opt_source) != 0;
        if (source) args.insert(args.end(), {"--source", "Die Katze saß"});
        const auto& user = source ? src_mask : self_mask;
        const Json plain = run_json(args);
        args.insert(args.end(), {"--mask", dir + (source ? "/src.json" : "/self.json")});
        RunResult r;
        const Json masked = run_json(args, &r);
        // The note on stderr, once.
        CHECK(r.err == "attn: note: 1 query row(s) see no key; their weights and context are 0\n");
        CHECK(masked["empty_rows"] == Json::array({2}));
        REQUIRE(masked["heads"].size() == plain["heads"].size());
        for (std::size_t h = 0; h < masked["heads"].size(); ++h) {
            const Json& mh = masked["heads"][h];
            const Json& ph = plain["heads"][h];
            REQUIRE(mh["mask"].size() == user.size());
            for (std::size_t i = 0; i < user.size(); ++i) {
                REQUIRE(mh["mask"][i].size() == user[i].size());
                for (std::size_t j = 0; j < user[i].size(); ++j) {
                    const bool want = ph["mask"][i][j].get<bool>() && user[i][j] == 1;
                    CHECK(mh["mask"][i][j].get<bool>() == want);
                    if (!want) CHECK(mh["weights"][i][j].get<double>() == 0.0);
                }
            }
            for (const auto& v : mh["weights"][2]) CHECK(v.get<double>() == 0.0);
            for (const auto& v : mh["context"][2]) CHECK(v.get<double>() == 0.0);
            for (std::size_t i = 0; i < user.size(); ++i) {
                if (i == 2) continue;
                double sum = 0.0;
                for (const auto& v : mh["weights"][i]) sum += v.get<double>();
                CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
            }
        }
    }
}

TEST_CASE("mask: local with --window 0 and a mask hiding the diagonal leaves every row empty") {
    const std::string dir = temp_dir();
    write(dir + "/offdiag.json", mask_json({{0, 1, 1}, {1, 0, 1}, {1, 1, 0}}));
    RunResult r;
    const Json j = run_json({"show", "--kind", "local", "--window", "0", "--mask", dir + "/offdiag.json", "a b c"}, &r);
    CHECK(j["empty_rows"] == Json::array({0, 1, 2}));
    CHECK(r.err == "attn: note: 3 query row(s) see no key; their weights and context are 0\n");
    const Json& h = j["heads"][0];
    CHECK(h["mask"] == Json::parse("[[false,false,false],[false,false,false],[false,false,false]]"));
    for (const auto& row : h["weights"])
        for (const auto& v : row) CHECK(v.get<double>() == 0.0);
    for (const auto& row : h["context"])
        for (const auto& v : row) CHECK(v.get<double>() == 0.0);
    // The terminal view says so and prints no NaN.
    const RunResult t = run({"show", "--kind", "local", "--window", "0", "--mask", dir + "/offdiag.json", "a b c",
                             "--show", "weights,context"});
    CHECK(t.code == 0);
    CHECK(t.out.find("nan") == std::string::npos);
}

TEST_CASE("mask: causal --renorm with a fully hidden row gives weights 0") {
    const std::string dir = temp_dir();
    write(dir + "/m.json", mask_json({{1, 1, 1}, {0, 0, 1}, {1, 1, 1}}));
    const Json j = run_json({"show", "--kind", "causal", "--renorm", "--mask", dir + "/m.json", "a b c"});
    CHECK(j["empty_rows"] == Json::array({1}));
    CHECK(j["heads"][0]["weights"][1] == Json::parse("[0.0, 0.0, 0.0]"));
    for (const auto& v : j["heads"][0]["context"][1]) CHECK(v.get<double>() == 0.0);
}

TEST_CASE("mask: the mask PNG draws the combined mask") {
    const std::string dir = temp_dir();
    write(dir + "/tril.json", mask_json({{1, 0, 0}, {1, 1, 0}, {1, 1, 1}}));
    write(dir + "/tril.npy", npy("|u1", "(3, 3)", std::string("\1\0\0\1\1\0\1\1\1", 9)));
    REQUIRE(run({"show", "--kind", "self", "--causal", "a b c", "--png", dir + "/causal"}).code == 0);
    REQUIRE(run({"show", "--kind", "self", "a b c", "--png", dir + "/none"}).code == 0);
    REQUIRE(run({"show", "--kind", "self", "--mask", dir + "/tril.json", "a b c", "--png", dir + "/json"}).code == 0);
    REQUIRE(run({"show", "--kind", "self", "--mask", dir + "/tril.npy", "a b c", "--png", dir + "/npy"}).code == 0);
    // A user mask equal to the causal mask draws the causal run's pictures, byte for byte.
    const std::string want = slurp(dir + "/causal/self-mask.png");
    REQUIRE(want.size() > 100);
    CHECK(slurp(dir + "/json/self-mask.png") == want);
    CHECK(slurp(dir + "/npy/self-mask.png") == want);
    CHECK(slurp(dir + "/json/self-weights.png") == slurp(dir + "/causal/self-weights.png"));
    CHECK(slurp(dir + "/none/self-mask.png") != want);
}

// ---- output files ---------------------------------------------------------------------------------

TEST_CASE("files: a failed write to /dev/full leaves nothing, not even the folders it made") {
    const std::string dir = temp_dir();
    const RunResult r = run({"show", "hi", "--png", "out/png", "--json", "/dev/full"}, {dir, "", false, ""});
    CHECK(r.code == 1);
    check_error_line(r.err, "attn: error: cannot write file '/dev/full': No space left on device");
    CHECK(snapshot(dir).empty());  // no out/, no temporaries
}

TEST_CASE("files: a PNG name taken by a folder fails before anything is written") {
    const std::string dir = temp_dir();
    REQUIRE(::mkdir((dir + "/png").c_str(), 0755) == 0);
    REQUIRE(::mkdir((dir + "/png/causal-weights.png").c_str(), 0755) == 0);
    const auto before = snapshot(dir);
    const RunResult r = run({"show", "hi", "--json", "t.json", "--png", "png"}, {dir, "", false, ""});
    CHECK(r.code == 1);
    check_error_line(r.err, "attn: error: output path 'png/causal-weights.png' is a folder (hint: name a file inside it)");
    CHECK(snapshot(dir) == before);
}

TEST_CASE("files: two outputs on one path are refused and nothing is written") {
    const std::string dir = temp_dir();
    const RunResult r = run({"show", "hi", "--json", "out/causal-mask.png", "--png", "out"}, {dir, "", false, ""});
    CHECK(r.code == 2);
    check_error_line(r.err, "attn: error: two outputs would both be written to 'out/causal-mask.png' (hint: give --json a "
                            "different name)");
    CHECK(snapshot(dir).empty());
}

TEST_CASE("files: a run writes the named paths and nothing else") {
    const std::string dir = temp_dir();
    write(dir + "/old.json", "old");
    const RunResult r = run({"show", "hi", "--json", "a/b/t.json", "--png", "c"}, {dir, "", false, ""});
    REQUIRE(r.code == 0);
    std::vector<std::string> paths;
    fuzz::list_tree(dir, "", paths);
    std::sort(paths.begin(), paths.end());
    CHECK(paths == std::vector<std::string>{"a", "a/b", "a/b/t.json", "c", "c/causal-mask.png", "c/causal-scores.png",
                                            "c/causal-weights.png", "old.json"});
    // Overwriting replaces the file whole, with the usual permissions.
    REQUIRE(run({"show", "hi", "--json", "old.json"}, {dir, "", false, ""}).code == 0);
    CHECK(Json::parse(slurp(dir + "/old.json"))["kind"] == "causal");
    struct stat st {};
    REQUIRE(::stat((dir + "/old.json").c_str(), &st) == 0);
    const mode_t mask = ::umask(0);
    ::umask(mask);
    CHECK((st.st_mode & 0777) == (0666 & ~mask));
}

TEST_CASE("files: a folder that vanished and a full standard output are runtime errors") {
    check_row(rule("output.vanished"));
    check_row(rule("output.stdout"));
    // --json - to a full standard output too.
    const RunResult r = run({"show", "hi", "--json", "-"}, {"", "/dev/full", false, ""});
    CHECK(r.code == 1);
    check_error_line(r.err, "attn: error: cannot write to standard output: No space left on device");
}

TEST_CASE("files: an interrupt at any moment leaves no temporary and no half-written file") {
    const std::string dir = temp_dir();
    std::string words;
    for (int i = 0; i < 1200; ++i) words += "w" + std::to_string(i) + " ";
    write(dir + "/words.txt", words);
    int whole = 0;  // runs that got as far as renaming t.json into place
    // The run takes about 0.7 s (longer under sanitizers): the signal lands before, during and after the writes.
    for (int delay_ms : {0, 150, 300, 450, 550, 600, 650, 700, 800}) {
        INFO("SIGTERM after " << delay_ms << " ms");
        const std::string out = dir + "/run" + std::to_string(delay_ms);
        REQUIRE(::mkdir(out.c_str(), 0755) == 0);
        // SIGTERM stays blocked until the child has dropped doctest's handlers (exec keeps it pending).
        sigset_t term, old_mask;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        REQUIRE(::sigprocmask(SIG_BLOCK, &term, &old_mask) == 0);
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            ::signal(SIGTERM, SIG_DFL);
            ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
            const int null = ::open("/dev/null", O_WRONLY);
            ::dup2(null, 1), ::dup2(null, 2);
            ::execl(ATTN_BINARY, ATTN_BINARY, "show", "--kind", "self", "--file", (dir + "/words.txt").c_str(), "--json",
                    (out + "/t.json").c_str(), "--png", (out + "/png").c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
        int status = 0;
        bool done = false;
        for (int waited = 0; waited < delay_ms && !done; waited += 5) {
            ::usleep(5000);
            done = ::waitpid(pid, &status, WNOHANG) == pid;
        }
        if (!done) {
            ::kill(pid, SIGTERM);
            ::waitpid(pid, &status, 0);
        }
        std::vector<std::string> left;
        fuzz::list_tree(out, "", left);
        for (const auto& p : left) CHECK(p.find(".attn-") == std::string::npos);
        if (std::find(left.begin(), left.end(), "t.json") != left.end()) {
            CHECK_NOTHROW(Json::parse(slurp(out + "/t.json")));  // renamed into place only when whole
            ++whole;
        }
    }
    MESSAGE(whole << " of 9 interrupted runs had written their trace");
}

TEST_CASE("files: the fuzz harness's scratch runs leave no temporaries") {
    // The command-line fuzz target's own checks, on argument vectors that write, and that fail.
    auto joined = [](const std::vector<std::string>& args) {
        std::string s;
        for (const auto& a : args) s += a + std::string(1, '\0');
        return s;
    };
    const std::string scratch = fuzz::make_scratch("validation");
    fuzz::stdin_from_dev_null();
    CHECK(fuzz::cli_one(joined({"show", "hi", "--json", "o/t.json", "--png", "o"}), scratch) == "");
    CHECK(fuzz::cli_one(joined({"show", "hi", "--json", "e.json", "--png", "e.json"}), scratch) == "");
    CHECK(fuzz::cli_one(joined({"show", "--embeddings", "t.json", "--png", "p", "--json", "p/x/"}), scratch) == "");
    CHECK(fuzz::cli_one(joined({"show", "--file", "-"}), scratch) == "");
    std::vector<std::string> left;
    fuzz::list_tree(scratch, "", left);
    CHECK(left.empty());
    // Paths outside the scratch folder are refused before anything runs.
    std::vector<std::string> args;
    CHECK(!fuzz::decode_arguments(joined({"show", "hi", "--json", "/tmp/x.json"}), args));
    CHECK(!fuzz::decode_arguments(joined({"show", "hi", "--png=../x"}), args));
    CHECK(!fuzz::decode_arguments(joined({"show", "hi", "--json", "a/../../x"}), args));
    CHECK(!fuzz::decode_arguments(joined({"show", "hi", "--d-in", "4096"}), args));
    CHECK(fuzz::decode_arguments(joined({"show", "Wait... what?", "--seed", "123456789"}), args));
    fuzz::remove_tree(scratch);
}
