// tests/validation_run.h: the validation table's fixtures and the runs of its rows.
#include "tests/validation_run.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <thread>

#include "fuzz/harness.h"
#include "tests/model_fixtures.h"

namespace attn::test {
namespace {

using Json = nlohmann::json;

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

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

// A model trace of 2 layers keeping layer `layer` (twice when asked), with or without its aggregates,
// with or without seeded heads beside its layers.
std::string kept_layer_trace(const std::string& layer = "1", bool twice = false, bool aggregates = true, bool seeded = false) {
    const std::string head = R"([{"head": 0, "kv_head": 0, "weights": [[1, 0], [0.5, 0.5]]}])";
    const std::string one = R"({"layer": )" + layer + R"(, "heads": )" + head + "}";
    return R"({"format": "attn-trace", "version": 1, "kind": "model", "tokens": ["a", "b"],
        "model": {"type": "gpt2", "n_layer": 2, "n_head": 1}, "layers": [)" + one + (twice ? ", " + one : "") + "]" +
           (aggregates ? R"(, "aggregates": {"layer_mean": [[[1, 0], [0.5, 0.5]], [[1, 0], [0.5, 0.5]]],
                                             "rollout": [[[1, 0], [0.5, 0.5]], [[1, 0], [0.5, 0.5]]]})" : "") +
           (seeded ? R"(, "heads": )" + head : "") + "}";
}

// kept_layer_trace with `from` replaced by `to` (once).
std::string edited_trace(const std::string& from, const std::string& to) {
    std::string t = kept_layer_trace();
    const auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
}

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
        {"w2.json", R"({"params": {"W_query": [[1, 0], [0, 1]], "W_key": [[1, 0], [0, 1]], "W_value": [[1, 0], [0, 1]]}})"},
        {"w-missing.json", R"({"params": {"W_query": [[1, 0], [0, 1]], "W_value": [[1, 0], [0, 1]]}})"},
        {"w-shape.json", R"({"params": {"W_query": [[1, 0], [0, 1]], "W_key": [[1], [0]], "W_value": [[1, 0], [0, 1]]}})"},
        {"w-extra.json",
         R"({"params": {"W_query": [[1, 0], [0, 1]], "W_key": [[1, 0], [0, 1]], "W_value": [[1, 0], [0, 1]], "W_qeury": [[1, 0], [0, 1]]}})"},
        {"w-inf.json", R"({"params": {"W_query": [[1, 0], [0, 1]], "W_key": [[3.5e38, 0], [0, 1]], "W_value": [[1, 0], [0, 1]]}})"},
        {"w-twice.json", R"({"params": {"W_query": [[1, 0], [0, 1]], "W_key": [[1, 0], [0, 1]], "W_key": [[2, 0], [0, 1]], "W_value": [[1, 0], [0, 1]]}})"},
        {"w-format.json", R"({"format": "attn-traces", "params": {"W_query": [[1, 0], [0, 1]], "W_key": [[1, 0], [0, 1]], "W_value": [[1, 0], [0, 1]]}})"},
        {"w-big.json", R"({"params": {"W_query": [[1e20, 0], [0, 1e20]], "W_key": [[1e20, 0], [0, 1e20]], "W_value": [[1, 0], [0, 1]]}})"},
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
        {"trace-v3.json", R"({"format": "attn-trace", "version": 3})"},
        {"trace-kind.json", R"({"format": "attn-trace", "version": 1, "kind": ")" + std::string(200001, 'x') + R"(", "tokens": ["a"]})"},
        {"trace-long-token.json", R"({"format": "attn-trace", "version": 1, "kind": "causal", "tokens": [")" + std::string(1025, 'b') + R"("]})"},
        {"rank5.npy", npy("<f4", "(1, 1, 1, 1, 1)", raw({1.0f}))},
        {"tokens3.txt", "a\nb\nc\n"},
        {"small-em.ttf", dejavu_with_units_per_em(16)},
        {"nomagic.npy", R"({"format": "attn-trace", "version": 1, "kind": "causal", "tokens": ["a"]})"},
        {"trace-kl1.json", kept_layer_trace()},
        {"trace-layer-past.json", kept_layer_trace("2", false)},
        {"trace-layer-twice.json", kept_layer_trace("1", true)},
        {"trace-no-rollout.json", kept_layer_trace("1", false, false)},
        {"trace-model-heads.json", kept_layer_trace("1", false, true, true)},
        {"trace-hidden.json", edited_trace(R"("weights": [[1, 0])", R"("mask": [[true, false], [true, true]], "weights": [[0.5, 0.5])")},
        {"trace-weight-range.json", edited_trace("[0.5, 0.5]]}]", "[1.5, -0.5]]}]")},
        {"trace-row-sum.json", edited_trace("[0.5, 0.5]]}]", "[0.5, 0.25]]}]")},
        {"trace-head-twice.json", edited_trace(R"("n_head": 1}, "layers": [{"layer": 1, "heads": [)",
                                               R"("n_head": 2}, "layers": [{"layer": 1, "heads": [{"head": 0, "weights": [[1, 0], [0.5, 0.5]]}, )")},
        {"trace-head-past.json", edited_trace(R"({"head": 0, "kv_head": 0)", R"({"head": 1, "kv_head": 0)")},
        {"trace-kv-head.json", edited_trace(R"({"head": 0, "kv_head": 0)", R"({"head": 0, "kv_head": 1)")},
        {"trace-seeded-layers.json", R"({"format": "attn-trace", "version": 1, "kind": "causal", "tokens": ["a", "b"],
                                        "heads": [{"head": 0, "weights": [[1, 0], [0.5, 0.5]]}], "layers": []})"},
        {"trace-config-heads.json", R"({"format": "attn-trace", "version": 1, "kind": "causal", "tokens": ["a", "b"], "config": {"heads": 7},
                                       "heads": [{"head": 0, "weights": [[1, 0], [0.5, 0.5]]}]})"},
        {"trace-versions.json", edited_trace(R"("layers": [)", R"("attention": [], "layers": [)")},
        {"trace-dupkey.json", edited_trace(R"("n_head": 1})", R"("n_head": 1, "n_head": 2})")},
        {"trace-type.json", edited_trace(R"("type": "gpt2")", R"("type": "gpt2/../../x")")},
    };
    REQUIRE(::mkdir((dir + "/npy-out").c_str(), 0755) == 0);
    for (const auto& [name, bytes] : files) write(dir + "/" + name, bytes);
    REQUIRE(::mkdir((dir + "/folder").c_str(), 0755) == 0);
    attn::test::write_model_fixtures(dir);
    {
        auto huge = tiny_gpt2_tensors();
        for (auto& t : huge)
            if (t.name == "h.0.attn.c_attn.weight")
                for (std::size_t i = 0; i + 4 <= t.bytes.size(); i += 4) {
                    const float v = 1e30f;
                    std::memcpy(&t.bytes[i], &v, 4);
                }
        attn::test::write_model_folder(dir, "model-huge", tiny_gpt2_config(), safetensors_file(huge));
    }
    attn::test::write_model_folder(dir, "model-config-dir", "", safetensors_file(tiny_gpt2_tensors()));
    attn::test::write_model_folder(dir, "tok-merges-nul", tiny_gpt2_config(), safetensors_file(tiny_gpt2_tensors()), true,
                                   tiny_gpt2_vocab(), std::string("#version: 0.2\na\0b c\n", 20));
    {
        std::string vocab = tiny_gpt2_vocab();
        vocab.back() = ',';
        attn::test::write_model_folder(dir, "tok-merges-part", tiny_gpt2_config(), safetensors_file(tiny_gpt2_tensors()), true,
                                       vocab + R"("ab": 257, "abcd": 258})", "#version: 0.2\na b\nab cd\n");
    }
    REQUIRE(::mkdir((dir + "/model-config-dir/config.json").c_str(), 0755) == 0);
    {
        const auto t = tiny_llama_tensors();
        attn::test::write_llama_folder(dir, "llama-dynamic", tiny_llama_config(R"(, "rope_scaling": {"type": "dynamic", "factor": 2.0})"), t);
        attn::test::write_llama_folder(dir, "llama-shard-dir", tiny_llama_config(), t, 2);
        REQUIRE(::unlink((dir + "/llama-shard-dir/model-2.safetensors").c_str()) == 0);
        REQUIRE(::mkdir((dir + "/llama-shard-dir/model-2.safetensors").c_str(), 0755) == 0);
        attn::test::write_llama_folder(dir, "llama-tok-dir", tiny_llama_config(), t);
        REQUIRE(::unlink((dir + "/llama-tok-dir/tokenizer.json").c_str()) == 0);
        REQUIRE(::mkdir((dir + "/llama-tok-dir/tokenizer.json").c_str(), 0755) == 0);
        attn::test::write_llama_folder(dir, "llama-bom", tiny_llama_config(), t);
        write(dir + "/llama-bom/config.json", "\xEF\xBB\xBF" + tiny_llama_config());
        std::string callout = tiny_llama_tokenizer();
        callout.replace(callout.find(R"("pre_tokenizer": {"type": "ByteLevel"})"), 38,
                        R"("pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": {"Regex": "(?C1)\\p{L}+|\\s+"}, )"
                        R"("behavior": "Isolated", "invert": false}, {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]})");
        attn::test::write_llama_folder(dir, "llama-callout", tiny_llama_config(), t, 1, callout);
    }
    const int fd = ::open((dir + "/large.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);  // sparse: no disk used
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, 257LL << 20) == 0);
    ::close(fd);
    // File times come from the kernel's coarse clock (a tick of a few ms): from here on, any change
    // carries a later time than the fixtures' own, so snapshot() sees it
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

RunResult run(const std::vector<std::string>& args, const RunOptions& o) { return attn::test::run_attn(args, o); }

std::map<std::string, std::string> snapshot(const std::string& dir) {
    std::vector<std::string> paths;
    fuzz::list_tree(dir, "", paths);
    paths.push_back(".");  // the folder itself: an entry made and removed moves its times
    std::map<std::string, std::string> snap;
    for (const auto& p : paths) {
        struct stat st {};
        REQUIRE(::lstat((dir + "/" + p).c_str(), &st) == 0);
        // any write, rename over, truncation, chmod or entry added and removed moves the change time
        char times[96];
        std::snprintf(times, sizeof times, "modified %lld.%09ld, changed %lld.%09ld", static_cast<long long>(st.st_mtim.tv_sec),
                      static_cast<long>(st.st_mtim.tv_nsec), static_cast<long long>(st.st_ctim.tv_sec), static_cast<long>(st.st_ctim.tv_nsec));
        snap[p] = (S_ISDIR(st.st_mode) ? "folder" : std::to_string(st.st_size) + " bytes") + ", inode " +
                  std::to_string(st.st_ino) + ", mode " + std::to_string(st.st_mode) + ", " + times;
    }
    return snap;
}

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

namespace {

// The options a row runs with in `dir`.
RunOptions row_options(const ValidationRule& r, const std::string& dir) {
    RunOptions o;
    o.cwd = dir;
    o.remove_cwd = r.id == "output.vanished";  // the folder is deleted after attn is started in it
    if (r.id == "output.stdout") o.stdout_path = "/dev/full";
    if (r.id == "text.stdin-max-tokens") o.stdin_text = "a b c d";
    return o;
}

// Runs row r in dir and checks its exit code, error line and empty stdout.
void run_row(const ValidationRule& r, const RunOptions& o) {
    const RunResult res = run(r.example, o);
    CHECK(res.code == static_cast<int>(r.exit));
    check_error_line(res.err, r.error);
    CHECK(res.out.empty());
}

}  // namespace

void check_row(const ValidationRule& r) {
    INFO("row " << r.id);
    const std::string dir = temp_dir();
    const RunOptions o = row_options(r, dir);
    if (!o.remove_cwd) write_fixtures(dir);
    const auto before = snapshot(dir);
    run_row(r, o);
    if (!o.remove_cwd) CHECK(snapshot(dir) == before);
    fuzz::remove_tree(dir);
}

void check_rows(const std::vector<ValidationRule>& rules) {
    std::string dir = temp_dir();
    write_fixtures(dir);
    auto before = snapshot(dir);
    for (const ValidationRule& r : rules) {
        const RunOptions o = row_options(r, dir);
        if (o.remove_cwd) {
            check_row(r);
            continue;
        }
        INFO("row " << r.id);
        run_row(r, o);
        const bool same = snapshot(dir) == before;
        CHECK(same);
        if (!same) {  // the rows after it get the fixtures afresh
            fuzz::remove_tree(dir);
            dir = temp_dir();
            write_fixtures(dir);
            before = snapshot(dir);
        }
    }
    fuzz::remove_tree(dir);
}

Json run_json(const std::vector<std::string>& args, RunResult* result) {
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

}  // namespace attn::test
