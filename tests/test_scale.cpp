// Long inputs and large outputs: --file, --npy, --max-memory, the JSON size guard, attn bench.
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "data/inputs/npy.h"
#include "tests/helpers.h"

using namespace attn::test;

namespace {

// A multi-paragraph text of about `words` words, with punctuation and blank lines.
std::string paragraphs(std::size_t words) {
    static const char* kWords[] = {"attention", "is", "a", "weighted", "average", "of", "values", "whose",
                                   "weights", "come", "from", "queries", "and", "keys"};
    std::string s;
    for (std::size_t i = 0; i < words; ++i) {
        s += kWords[i % 14];
        s += (i % 11 == 10) ? ". " : (i % 7 == 6) ? ", " : " ";
        if (i % 60 == 59) s += "\n\n";
    }
    return s;
}

double npy_at(const attn::NpyArray& a, std::size_t r, std::size_t c) { return attn::npy_float_at(a, r, c); }

}  // namespace

TEST_CASE("scale: --file reads a multi-paragraph text, and the terminal view summarises it") {
    const std::string d = temp_dir();
    std::ofstream(d + "/essay.txt") << paragraphs(300);
    const RunResult r = run_attn({"show", "--kind", "causal", "--file", d + "/essay.txt", "--d-in", "8"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("⋮") != std::string::npos);  // rows around an ellipsis, as NumPy prints
    CHECK(r.out.find("…") != std::string::npos);
    const RunResult j = run_attn({"show", "--kind", "causal", "--file", "-", "--d-in", "8", "--json", "-"},
                                 paragraphs(300));
    REQUIRE(j.code == 0);
    const auto trace = nlohmann::json::parse(j.out);
    CHECK(trace["tokens"].size() > 300);  // words and punctuation
    CHECK(trace["tokens"][7] == ",");  // "attention is a weighted average of values ,"
}

TEST_CASE("scale: --npy files read back equal to the JSON numbers") {
    const std::string d = temp_dir();
    const RunResult r = run_attn({"show", "--kind", "gqa", "--heads", "4", "--kv-heads", "2", "--d-out", "8",
                                  "--dropout", "0.1", "Your journey starts with one step", "--json", d + "/t.json",
                                  "--npy", d + "/npy"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(slurp(d + "/t.json"));
    for (const char* m : {"weights", "scores", "dropped_weights", "context", "queries"}) {
        INFO(m);
        const auto a = attn::parse_npy(slurp(d + "/npy/gqa-h3-" + m + ".npy"), m);
        const auto& want = j["attention"][0]["layers"][0]["heads"][3][m];
        REQUIRE(a.shape.size() == 2);
        REQUIRE(a.shape[0] == want.size());
        REQUIRE(a.shape[1] == want[0].size());
        CHECK(a.descr == "<f4");
        for (std::size_t i = 0; i < a.shape[0]; ++i)
            for (std::size_t k = 0; k < a.shape[1]; ++k) CHECK(npy_at(a, i, k) == want[i][k].get<float>());
    }
    const auto mask = attn::parse_npy(slurp(d + "/npy/gqa-h0-mask.npy"), "mask");
    CHECK(mask.descr == "|b1");
    CHECK(mask.data[1] == 0);  // causal: token 0 does not see token 1
    CHECK(mask.data[6] == 1);  // token 1 sees token 0
    const auto out = attn::parse_npy(slurp(d + "/npy/gqa-output.npy"), "output");
    CHECK(npy_at(out, 5, 7) == j["output"][5][7].get<float>());
    const auto wq = attn::parse_npy(slurp(d + "/npy/gqa-W_query.npy"), "W_query");
    CHECK(npy_at(wq, 2, 3) == j["params"]["W_query"][2][3].get<float>());
}

TEST_CASE("scale: --max-memory refuses a run that would exceed it, before allocating") {
    const RunResult r = run_attn({"show", "--kind", "mha", "--heads", "8", "--d-in", "64", "--max-tokens", "100000",
                                  "--file", "-", "--max-memory", "64M"},
                                 paragraphs(3000));
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find("--max-memory") != std::string::npos);
    CHECK(r.err.find("hint:") != std::string::npos);
    const RunResult b = run_attn({"bench", "--kind", "mha", "--tokens", "4096", "--d-in", "64", "--heads", "8",
                                  "--max-memory", "100M"});
    CHECK(b.code == 2);
    CHECK(b.err.find("--no-weights") != std::string::npos);  // the hint says what to drop
    const RunResult bad = run_attn({"show", "hi", "--max-memory", "lots"});
    CHECK(bad.code == 2);
}

TEST_CASE("scale: a JSON trace estimated above 256 MiB is refused unless --force") {
    const std::string d = temp_dir();
    const RunResult r = run_attn({"show", "--kind", "mha", "--heads", "16", "--d-in", "16", "--file", "-",
                                  "--json", d + "/big.json"},
                                 paragraphs(2600));
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find("--npy") != std::string::npos);
    CHECK(r.err.find("--force") != std::string::npos);
    struct stat st {};
    CHECK(::stat((d + "/big.json").c_str(), &st) != 0);  // nothing written
}

TEST_CASE("scale: attn bench runs and its JSON has every documented field") {
    for (const char* kind : {"mha", "gqa", "flash", "causal"}) {
        INFO(kind);
        std::vector<std::string> args = {"bench", "--kind", kind, "--tokens", "64", "--d-in", "32", "--json", "-"};
        if (std::string(kind) != "causal") args.insert(args.end(), {"--heads", "4"});
        if (std::string(kind) == "flash") args.push_back("--no-weights");
        const RunResult r = run_attn(args);
        INFO(r.err);
        REQUIRE(r.code == 0);
        const auto j = nlohmann::json::parse(r.out);
        for (const char* key : {"kind", "tokens", "d_in", "heads", "kv_heads", "stages", "total", "sgemm_gflops",
                                "ratio", "peak_rss_bytes", "kv_cache_bytes_per_token"})
            CHECK(j.contains(key));
        CHECK(j["tokens"] == 64);
        double flops = 0;
        for (const auto& s : j["stages"]) {
            CHECK(s["seconds"].get<double>() >= 0.0);
            flops += s["flops"].get<double>();
        }
        CHECK(flops == doctest::Approx(j["total"]["flops"].get<double>()));
        CHECK(j["sgemm_gflops"].get<double>() > 0.0);
    }
    // the key/value cache per token: MHA 2·d_out floats, GQA 2·G·d_k, MQA 2·d_k
    auto kv = [](const std::vector<std::string>& extra) {
        std::vector<std::string> a = {"bench", "--tokens", "16", "--d-in", "32", "--heads", "4", "--json", "-"};
        a.insert(a.end(), extra.begin(), extra.end());
        return nlohmann::json::parse(run_attn(a).out)["kv_cache_bytes_per_token"].get<int>();
    };
    CHECK(kv({"--kind", "mha"}) == 2 * 32 * 4);
    CHECK(kv({"--kind", "gqa", "--kv-heads", "2"}) == 2 * 2 * 8 * 4);
    CHECK(kv({"--kind", "mqa"}) == 2 * 8 * 4);
}

TEST_CASE("scale: bench --small-run times show's small run by part, and its JSON and PNG bytes are show's own") {
    const std::string d = temp_dir();
    const RunResult b = run_attn({"bench", "--small-run", "--repeat", "2", "--json", d + "/bench.json"});
    INFO(b.err);
    REQUIRE(b.code == 0);
    for (const char* part : {"compute", "json", "drawing", "encoding", "figures", "total"}) CHECK(b.out.find(std::string("\n") + part) != std::string::npos);
    const nlohmann::json j = nlohmann::json::parse(slurp(d + "/bench.json"));
    CHECK(j["small_run"]["repeat"] == 2);
    const auto& s = j["seconds"];
    for (const char* part : {"compute", "json", "drawing", "encoding", "figures"}) CHECK(s[part].get<double>() > 0);
    // the total is show's path in the fastest run: the run, its JSON and the figures drawn ahead of their
    // encoding, so at least the sum of each part's best, up to the JSON's rounding: each number is written
    // as a float32 (a relative error of at most 6e-8 each), and when the fastest run holds every part's
    // best the four roundings can put the total under the sum (3 ns under it at 0.118 s)
    const double parts = s["compute"].get<double>() + s["json"].get<double>() + s["figures"].get<double>();
    CHECK(s["total"].get<double>() >= parts * (1.0 - 2e-7));
    // the same run through show, written to files: the bench measured exactly those bytes
    const RunResult r = run_attn({"show", "--kind", "causal", "Your journey starts with one step", "--json", d + "/t.json", "--png", d + "/figs"});
    REQUIRE(r.code == 0);
    CHECK(j["json_bytes"] == slurp(d + "/t.json").size());
    std::size_t png = 0, pixels = 0;
    for (const char* name : {"causal-scores.png", "causal-mask.png", "causal-weights.png"}) {
        const std::string bytes = slurp(d + "/figs/" + name);
        png += bytes.size();
        const auto u32 = [&](std::size_t at) {
            std::uint32_t v = 0;
            for (std::size_t k = 0; k < 4; ++k) v = v << 8 | static_cast<unsigned char>(bytes.at(at + k));
            return v;
        };
        pixels += std::size_t{u32(16)} * u32(20);  // IHDR's width and height
    }
    CHECK(j["figures"] == 3);
    CHECK(j["png_bytes"] == png);
    CHECK(j["png_pixels"] == pixels);
    const RunResult bad = run_attn({"bench", "--small-run", "--kind", "mha"});
    CHECK(bad.code == 2);
    CHECK(one_line(bad) == "attn: error: --kind does not apply to --small-run (hint: attn bench --small-run [--repeat R] [--json PATH])\n");
}
