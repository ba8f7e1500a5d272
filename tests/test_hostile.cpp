// Hostile inputs, round two, end to end through the binary: no non-finite number in a trace, list
// options, .npy headers and tokens as numpy and the tokeniser read them, and messages that stay short
// and say what to do. (Round two's output files are tests/test_files.cpp.)
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "data/inputs/embed.h"
#include "data/base/error.h"
#include "data/inputs/npy.h"
#include "data/text/tokenize.h"
#include "fuzz/harness.h"
#include "render/trace_io/npy.h"
#include "render/outputs/figures.h"
#include "tests/helpers.h"

using namespace attn;
using attn::test::RunOptions;
using attn::test::RunResult;
using attn::test::slurp;
using attn::test::temp_dir;
using Json = nlohmann::json;
using attn::test::write;
using attn::test::is_link;
using attn::test::one_line;
using attn::test::run_in;
using attn::test::tree;

namespace {



std::string npy_text(const std::string& header, const std::string& data, const char* version = "\x01\x00") {
    std::string h = header;
    while ((10 + h.size() + 1) % 64 != 0) h += ' ';
    h += '\n';
    std::string out = std::string("\x93NUMPY", 6) + std::string(version, 2);
    out += static_cast<char>(h.size() & 0xFF);
    out += static_cast<char>(h.size() >> 8);
    return out + h + data;
}

std::string floats(std::initializer_list<float> v, bool big_endian = false) {
    std::string s;
    for (float f : v) {
        char b[4];
        std::memcpy(b, &f, 4);
        if (big_endian) std::reverse(b, b + 4);
        s.append(b, 4);
    }
    return s;
}

std::string npy_error(const std::string& bytes) {
    try {
        load_embeddings_bytes(bytes, "e.npy");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

// ---- 6. every stage finite -------------------------------------------------------------------------

TEST_CASE("hostile numerics: embeddings of ±3e38 fail naming the stage on every kind, never null in a trace") {
    const std::string dir = temp_dir();
    std::string a = "[", b = "[";
    for (int i = 0; i < 16; ++i) a += (i ? ",3e38" : "3e38"), b += (i ? ",-3e38" : "-3e38");
    write(dir + "/big.json", "[" + a + "]," + b + "]]");
    for (const auto& k : kinds()) {
        std::vector<std::string> args = {"show", "--kind", k.name, "--embeddings", "big.json", "a b", "--json", "t.json"};
        if (std::string(k.name) == "luong") args.insert(args.end(), {"--score", "concat"});
        if (k.options & opt_heads) args.insert(args.end(), {"--heads", "2"});
        INFO(k.name);
        const RunResult r = run_in(dir, args);
        CHECK(r.code == 1);
        CHECK(one_line(r).find("overflow float32") != std::string::npos);
        CHECK(::access((dir + "/t.json").c_str(), F_OK) != 0);
    }
    const RunResult add = run_in(dir, {"show", "--kind", "additive", "--embeddings", "big.json", "a b"});
    CHECK(add.err.find("the queries (x W_query) overflow float32 at row 0") != std::string::npos);
    const RunResult luong = run_in(dir, {"show", "--kind", "luong", "--score", "concat", "--embeddings", "big.json", "a b"});
    CHECK(luong.err.find("the queries (x W_query) overflow float32 at row 0") != std::string::npos);
    // values that stay finite through every stage still run, and the trace holds no null outside row_max
    write(dir + "/ok.json", "[[1e15, -1e15], [-1e15, 1e15]]");
    const RunResult fine = run_in(dir, {"show", "--kind", "simple", "--embeddings", "ok.json", "a b", "--json", "-"});
    REQUIRE(fine.code == 0);
    CHECK(fine.out.find("null") == std::string::npos);
}

// ---- 7. list options --------------------------------------------------------------------------------

TEST_CASE("hostile cli: --show takes exactly one comma-separated value") {
    const RunResult a = attn::test::run_attn({"show", "--show", "weights", "Your journey"});
    INFO(a.err);
    CHECK(a.code == 0);
    CHECK(a.out.find("tokens:   Your | journey") != std::string::npos);
    const RunResult b = attn::test::run_attn({"show", "--show=weights,scores", "Your journey"});
    CHECK(b.code == 0);
    CHECK(b.out.find("scores: raw scores q_i·k_j") != std::string::npos);
    const RunResult twice = attn::test::run_attn({"show", "--show", "a", "--show", "b", "hi"});
    CHECK(twice.code == 2);
    CHECK(one_line(twice) == "attn: error: --show is given 2 times; give it once (hint: see 'attn show --help')\n");
}

// ---- 8. wrong answers --------------------------------------------------------------------------------

TEST_CASE("hostile inputs: FLT_MAX as attn writes it is a finite float32, one past it is named") {
    const Embeddings e = load_embeddings_bytes("[[3.4028235e38, -3.4028235e38]]", "e.json");
    CHECK(e.x(0, 0) == FLT_MAX);
    CHECK(e.x(0, 1) == -FLT_MAX);
    std::string why;
    try {
        load_embeddings_bytes("[[1, 3.4028236e38]]", "e.json");
    } catch (const Error& err) {
        why = err.what();
    }
    CHECK(why == "e.json: row 0, column 1 is not a finite float32 value (3.4028236e38)");
    // float64 .npy: the same bound
    const double max = 3.4028235e38;
    std::string d(reinterpret_cast<const char*>(&max), 8);
    const Embeddings n =
        load_embeddings_bytes(npy_text("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", d), "e.npy");
    CHECK(n.x(0, 0) == FLT_MAX);
}

TEST_CASE("hostile inputs: .npy headers as numpy reads them, big-endian floats read") {
    const std::string data = floats({1.0f, 2.5f, -3.0f, 4.0f});
    const std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
    CHECK(npy_error(npy_text(ok, data)).empty());
    CHECK(npy_error(npy_text("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'shape': (4, 1), }", data)) ==
          "e.npy: not a valid .npy file: the header gives 'shape' twice");
    CHECK(npy_error(npy_text(ok, data, "\x01\x01")) == "e.npy: not a valid .npy file: unsupported format version 1.1");
    CHECK(npy_error(npy_text(ok, data, "\x02\x05")) == "e.npy: not a valid .npy file: unsupported format version 2.5");
    CHECK(npy_error(npy_text("'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)", data)).find(
              "the header is not a Python dict") != std::string::npos);
    const std::string nul =
        npy_error(npy_text("{'descr': '<f4" + std::string(1, '\0') + "', 'fortran_order': False, 'shape': (2, 2), }", data));
    CHECK(nul == "e.npy: not a valid .npy file: dtype '<f4\\x00' is not supported (use float32 or float64; bool or "
                 "uint8 for masks)");
    // >f4 and >f8 are float32 and float64 in the other byte order: the same matrix
    const Embeddings little = load_embeddings_bytes(npy_text(ok, data), "e.npy");
    const Embeddings big = load_embeddings_bytes(
        npy_text("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }", floats({1.0f, 2.5f, -3.0f, 4.0f}, true)),
        "e.npy");
    CHECK(big.x == little.x);
    std::string d8;
    for (double v : {1.0, 2.5, -3.0, 4.0}) {
        char b[8];
        std::memcpy(b, &v, 8);
        std::reverse(b, b + 8);
        d8.append(b, 8);
    }
    CHECK(load_embeddings_bytes(npy_text("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 2), }", d8), "e.npy").x ==
          little.x);
}

TEST_CASE("hostile inputs: embeddings tokens follow the tokeniser's rules, invisible characters are not kept") {
    auto token_error = [](const std::string& token) {
        try {
            load_embeddings_bytes(R"({"tokens": ["ok", )" + Json(token).dump() + R"(], "x": [[1], [2]]})", "e.json");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(token_error("") == "e.json: token 1 is empty");
    CHECK(token_error("   ") == "e.json: token 1 has white space at byte offset 0 (U+0020)");
    CHECK(token_error("a b") == "e.json: token 1 has white space at byte offset 1 (U+0020)");
    CHECK(token_error("a\u00a0b") == "e.json: token 1 has white space at byte offset 1 (U+00A0)");
    CHECK(token_error("\u200b") == "e.json: token 1 has an invisible character at byte offset 0 (U+200B)");
    CHECK(token_error("a\u2060") == "e.json: token 1 has an invisible character at byte offset 1 (U+2060)");
    CHECK(token_error("\ufeffa") == "e.json: token 1 has an invisible character at byte offset 0 (U+FEFF)");
    CHECK(token_error("a\uffff") == "e.json: token 1 has a noncharacter at byte offset 1 (U+FFFF)");
    CHECK(token_error("##ing").empty());  // subword pieces are fine: one word, nothing invisible
    // the tokeniser: U+200B separates, U+2060 and U+FEFF inside the text join, U+FFFE is refused
    CHECK(tokenize("a\u200bb") == std::vector<std::string>{"a", "b"});
    CHECK(tokenize("jour\u2060ney \ufeffstarts") == std::vector<std::string>{"journey", "starts"});
    CHECK(text_problem("a\xEF\xBF\xBE").value() == "has a noncharacter at byte offset 1 (U+FFFE)");
}

TEST_CASE("hostile inputs: --d-in 1 keeps every weight matrix a matrix in the JSON") {
    const RunResult r = attn::test::run_attn({"show", "--kind", "mha", "--d-in", "1", "--heads", "1", "--qkv-bias",
                                              "a b", "--json", "-"});
    REQUIRE(r.code == 0);
    const Json j = Json::parse(r.out);
    for (const char* w : {"W_query", "W_key", "W_value", "W_out"}) {
        INFO(w);
        REQUIRE(j["params"][w].is_array());
        CHECK(j["params"][w].size() == 1);
        CHECK(j["params"][w][0].is_array());
    }
    CHECK(j["params"]["b_query"][0].is_number());  // biases stay vectors
    const RunResult add = attn::test::run_attn({"show", "--kind", "additive", "--d-in", "1", "--d-out", "1", "a b",
                                                "--json", "-"});
    REQUIRE(add.code == 0);
    CHECK(Json::parse(add.out)["params"]["v"][0].is_number());
}

TEST_CASE("hostile cli: luong refuses the options its score does not use") {
    struct Case {
        std::vector<std::string> args;
        int code;
    };
    for (const Case& c : std::vector<Case>{{{"--score", "dot", "--d-out", "7"}, 2},
                                           {{"--score", "dot", "--init", "torch-rand"}, 2},
                                           {{"--score", "general", "--d-out", "7"}, 2},
                                           {{"--score", "general", "--init", "torch-rand"}, 0},
                                           {{"--score", "concat", "--d-out", "7", "--init", "torch-rand"}, 0}}) {
        std::vector<std::string> args = {"show", "--kind", "luong", "a b"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        INFO(c.args[1] << " " << c.args[2]);
        const RunResult r = attn::test::run_attn(args);
        CHECK(r.code == c.code);
        if (c.code == 2) CHECK(one_line(r).find("does not apply to kind 'luong' with --score " + c.args[1]) != std::string::npos);
    }
}

// ---- 9. documentation -------------------------------------------------------------------------------

TEST_CASE("hostile docs: kinds says s_i and local-m, the format says row_max is scaled") {
    const RunResult k = attn::test::run_attn({"kinds"});
    CHECK(k.out.find("s_{i-1}") != std::string::npos);
    CHECK(k.out.find("local-m") != std::string::npos);
    const std::string format = slurp(std::string(ATTN_SOURCE_DIR) + "/docs/trace-format.md");
    CHECK(format.find("`row_max` is in scaled units") != std::string::npos);
    const std::string guide = slurp(std::string(ATTN_SOURCE_DIR) + "/docs/kinds.md");
    CHECK(guide.find("rounded up to a multiple of H") != std::string::npos);
    CHECK(guide.find("at the default sizes") != std::string::npos);
    // the documented default d_out of multi-head kinds: d_in rounded up to a multiple of H
    const RunResult r = attn::test::run_attn({"show", "--kind", "mha", "--heads", "3", "--d-in", "4", "a b", "--json", "-"});
    REQUIRE(r.code == 0);
    CHECK(Json::parse(r.out)["config"]["d_out"] == 6);
}

// ---- 10. messages -----------------------------------------------------------------------------------

TEST_CASE("hostile messages: UTF-16, bounded echoes, standard input cut short") {
    const std::string dir = temp_dir();
    write(dir + "/bom16.txt", std::string("\xFF\xFEh\0i\0", 6));
    const RunResult bom = run_in(dir, {"show", "--file", "bom16.txt"});
    CHECK(bom.code == 1);
    CHECK(one_line(bom) == "attn: error: bom16.txt: the text looks like UTF-16 (hint: save it as UTF-8)\n");
    write(dir + "/m16.json", std::string("\xFF\xFE[\0[\0" "1\0]\0]\0", 12));
    const RunResult mask = run_in(dir, {"show", "--mask", "m16.json", "hi"});
    CHECK(mask.code == 1);
    CHECK(one_line(mask) == "attn: error: m16.json: the file looks like UTF-16 (hint: save it as UTF-8)\n");
    // a 5000-digit option value: the line stays short
    const RunResult lit = attn::test::run_attn({"show", "--d-in", std::string(5000, '9'), "hi"});
    CHECK(lit.code == 2);
    CHECK(one_line(lit).size() < 300);
    CHECK(lit.err.find("(5000 bytes)") != std::string::npos);
    const RunResult kind = attn::test::run_attn({"show", "--kind", std::string(5000, 'k'), "hi"});
    CHECK(kind.code == 2);
    CHECK(one_line(kind).size() < 400);
    // `yes word | attn show --file -`: stops once past --max-tokens
    std::string many;
    for (int i = 0; i < 200000; ++i) many += "word\n";
    const RunResult cut = attn::test::run_attn({"show", "--file", "-", "--max-tokens", "3"}, many);
    CHECK(cut.code == 1);
    CHECK(one_line(cut) == "attn: error: standard input: the text has more than 3 tokens (--max-tokens 3); attn stopped "
                           "reading there (hint: raise --max-tokens or shorten the text)\n");
}

TEST_CASE("hostile messages: bench and kinds take no sentence, bench --json is checked and written first") {
    const RunResult be = attn::test::run_attn({"bench", "extra"});
    CHECK(be.code == 2);
    CHECK(one_line(be) == "attn: error: unexpected argument 'extra' (hint: 'attn bench' takes no sentence; see 'attn bench "
                          "--help')\n");
    const RunResult empty = attn::test::run_attn({"bench", "--tokens", "4", "--json", ""});
    CHECK(empty.code == 2);
    const RunResult full = attn::test::run_attn({"bench", "--tokens", "4", "--d-in", "4", "--json", "/dev/full"});
    CHECK(full.code == 1);
    CHECK(full.out.empty());  // no report before the failure
    CHECK(one_line(full) == "attn: error: cannot write file '/dev/full': No space left on device\n");
    const RunResult twice = attn::test::run_attn({"kinds", "--json", "--json"});
    CHECK(twice.code == 2);
}

TEST_CASE("hostile messages: standard input for --embeddings and --mask, --precision 0 says what it hides") {
    const RunResult e = attn::test::run_attn({"show", "--embeddings", "-", "--json", "-"},
                                             R"({"tokens": ["a", "b"], "x": [[1, 2], [3, 4]]})");
    INFO(e.err);
    REQUIRE(e.code == 0);
    CHECK(Json::parse(e.out)["tokens"] == Json::array({"a", "b"}));
    const RunResult m = attn::test::run_attn({"show", "--kind", "self", "a b", "--mask", "-", "--json", "-"}, "[[1, 0], [0, 1]]");
    REQUIRE(m.code == 0);
    CHECK(Json::parse(m.out)["attention"][0]["layers"][0]["heads"][0]["weights"] == Json::parse("[[1.0, 0.0], [0.0, 1.0]]"));
    const RunResult p = attn::test::run_attn({"show", "--precision", "0", "--kind", "self", "a b c d e f"});
    REQUIRE(p.code == 0);
    CHECK(p.out.find("print as 0 at --precision 0") != std::string::npos);
    const RunResult p4 = attn::test::run_attn({"show", "--kind", "self", "a b c d e f"});
    CHECK(p4.out.find("print as 0") == std::string::npos);
    // very large finite values: exponent notation, not 31 digits
    const std::string dir = temp_dir();
    write(dir + "/e.json", "[[1e15, -1e15], [-1e15, 1e15]]");
    const RunResult big = run_in(dir, {"show", "--kind", "simple", "--embeddings", "e.json", "a b", "--show", "scores"});
    REQUIRE(big.code == 0);
    CHECK(big.out.find("2.0000e+30") != std::string::npos);
    CHECK(big.out.find("000000000000") == std::string::npos);
    const RunResult re = attn::test::run_attn({"show", "--renorm", "--no-causal", "hi"});
    CHECK(re.code == 2);
}
