// The registry of kinds (core/kinds/kinds.h) and what reads it: resolution, checks, FLOPs, the memory
// estimate; and the command line cases a hostile user tried (flash tiles, --max-memory sizes, bench
// taking show's options, dropout's float32 rounding, -0).
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "core/kinds/budget.h"
#include "core/kinds/kinds.h"
#include "data/inputs/embed.h"
#include "tests/helpers.h"
#include "tests/peak_slack.h"

using namespace attn;
using namespace attn::test;

namespace {

Inputs inputs(std::size_t T, std::size_t S, std::size_t d_in, std::size_t d_src) {
    Inputs in;
    for (std::size_t i = 0; i < T; ++i) in.tokens.push_back("t" + std::to_string(i));
    in.x = embed_tokens(in.tokens, d_in, 1);
    for (std::size_t j = 0; j < S; ++j) in.source_tokens.push_back("s" + std::to_string(j));
    in.source_x = embed_tokens(in.source_tokens, d_src, 2);
    in.has_source = true;
    return in;
}

// FLOPs counted independently of the registry: from the parameters the run actually drew (by
// their PyTorch names) and the matrices each head actually holds.
StageFlops counted_flops(const Trace& t) {
    StageFlops f{};
    const double T = double(t.tokens.size()), S = double(t.source_tokens.size());
    for (const auto& p : t.params) {
        const double rows = p.name == "W_query" ? T : (p.name == "W_key" || p.name == "W_value") ? S : 0.0;
        f[std::size_t(ProfileStage::projections)] += 2.0 * rows * double(p.value.shape(0)) * double(p.value.shape(1));
        if (p.name == "W_out") f[std::size_t(ProfileStage::output)] += 2.0 * T * double(p.value.shape(0)) * double(p.value.shape(1));
    }
    for (const auto& h : t.heads()) {
        f[std::size_t(ProfileStage::scores)] += 2.0 * T * S * double(h.queries.shape(1));
        f[std::size_t(ProfileStage::context)] += 2.0 * T * S * double(h.values.shape(1));
    }
    return f;
}

Settings settings_for(const Kind& k, std::size_t heads, const RunShape& shape, const std::string& score = "dot") {
    SettingsRequest r;
    r.kind = k.name, r.heads = heads, r.score = score;
    if (k.defaults.kv == KvHeads::option) r.kv_heads = 2;
    return resolve_settings(r, shape);
}

}  // namespace

TEST_CASE("registry: one row per KindId, in order, with unique names and the options its layout needs") {
    std::set<std::string> names;
    for (std::size_t i = 0; i < kKindCount; ++i) {
        const Kind& k = kinds()[i];
        CAPTURE(k.name);
        CHECK(static_cast<std::size_t>(k.id) == i);
        CHECK(&kind(k.id) == &k);
        CHECK(find_kind(k.name) == &k);
        CHECK(names.insert(k.name).second);
        // a kind with more than one head takes --heads; one with --kv-heads has them as an option
        CHECK(((k.options & opt_heads) != 0) == (k.defaults.layout != HeadLayout::one));
        CHECK(((k.options & opt_kv_heads) != 0) == (k.defaults.kv == KvHeads::option));
        CHECK(((k.options & opt_window) != 0) == k.defaults.window.has_value());
        CHECK(((k.options & opt_blocks) != 0) == k.defaults.tiled);
    }
    CHECK(find_kind("nope") == nullptr);
}

TEST_CASE("registry: resolving fills each kind's defaults, and checking refuses what a kind cannot run") {
    const RunShape shape{20, 20, 16, 16};
    auto resolve = [&](const std::string& kind, std::optional<std::size_t> heads = std::nullopt) {
        SettingsRequest r;
        r.kind = kind, r.heads = heads;
        return resolve_settings(r, shape);
    };
    CHECK(resolve("mqa").kv_heads == 1);                 // one key/value head, whatever H
    CHECK(resolve("mqa", 8).heads == 8);
    CHECK(resolve("mha", 3).kv_heads == 3);              // G = H
    CHECK(resolve("mha", 3).d_out == 18);                // d_in 16 rounded up to a multiple of H
    CHECK(resolve("mha-wrapper", 3).d_out == 16);        // each head is d_out wide: no rounding
    CHECK(resolve("gqa").kv_heads == 2);
    CHECK(resolve("local").window == std::optional<std::size_t>(2));
    CHECK(!resolve("self").window.has_value());
    CHECK(resolve("flash").block_q == 64);               // 20 positions: tiles of 64 (clamped when run)
    CHECK(resolve("causal").causal);
    CHECK(!resolve("self").causal);
    CHECK(resolve("self", 4).heads == 1);                // a kind without --heads keeps one head
    SettingsRequest neg;
    neg.kind = "self", neg.dropout = -0.0f;
    CHECK(!std::signbit(resolve_settings(neg, shape).dropout));  // -0 is recorded as 0

    Settings s = resolve("mha", 4);
    s.d_out = 6;
    const Settings before = s;
    CHECK_THROWS_WITH(check_settings(s, shape), "--d-out 6 does not divide into --heads 4");
    CHECK(s.d_out == before.d_out);
    s = resolve("mha", 4);
    s.kv_heads = 2;  // mha has G = H: settings that were not resolved are refused, not repaired
    CHECK_THROWS(check_settings(s, shape));
    CHECK_THROWS(run_attention(inputs(20, 20, 16, 16), s));
    s = resolve("local");
    s.window.reset();
    CHECK_THROWS(check_settings(s, shape));
}

TEST_CASE("registry: each kind's FLOPs equal a count from the parameters and heads it really has") {
    for (const Kind& k : kinds()) {
        const bool source = (k.options & opt_source) != 0;
        const RunShape shape{5, source ? 4u : 5u, 8, source ? 6u : 8u};
        const Inputs in = inputs(shape.T, shape.S, shape.d_in, shape.d_src);
        const std::vector<std::string> scores = k.id == KindId::luong ? std::vector<std::string>{"general", "concat"}
                                                                      : std::vector<std::string>{"dot"};
        for (const std::string& score : scores) {
            const Settings s = settings_for(k, (k.options & opt_heads) ? 4 : 1, shape, score);
            CAPTURE(k.name);
            CAPTURE(score);
            const Trace t = run_attention(in, s);
            const StageFlops want = counted_flops(t);
            const StageFlops got = k.flops(s, shape, k.geometry(s, shape.d_src));
            for (ProfileStage st : {ProfileStage::projections, ProfileStage::scores, ProfileStage::context, ProfileStage::output}) {
                CAPTURE(kStageNames[std::size_t(st)]);
                CHECK(got[std::size_t(st)] == want[std::size_t(st)]);
            }
            const bool tiled = k.defaults.tiled;
            CHECK(got[std::size_t(ProfileStage::tiles)] == (tiled ? want[std::size_t(ProfileStage::scores)] + want[std::size_t(ProfileStage::context)] : 0.0));
            // the geometry agrees with the heads the run kept
            const HeadGeometry g = k.geometry(s, shape.d_src);
            CHECK(g.heads == t.heads().size());
            CHECK(g.d_k == t.heads()[0].queries.shape(1));
            CHECK(g.d_v == t.heads()[0].values.shape(1));
        }
    }
}

TEST_CASE("registry: flash's tile is clamped to (T, S), in the kernel and in the estimate") {
    const RunShape shape{3, 3, 16, 16};
    SettingsRequest r;
    r.kind = "flash", r.block_q = 32768, r.block_k = 32768;
    const Settings big = resolve_settings(r, shape);
    r.block_q = 3, r.block_k = 3;
    const Settings fit = resolve_settings(r, shape);
    CHECK(estimate_run(big, shape).tiles == estimate_run(fit, shape).tiles);
    CHECK(estimate_run_bytes(big, shape) < (std::size_t(20) << 20));  // 16 MiB of program, the rest small
    const Inputs in = inputs(3, 3, 16, 16);
    const Trace a = run_attention(in, big), b = run_attention(in, fit);
    CHECK(a.output == b.output);
    REQUIRE(a.tiles.size() == 1);
    CHECK(a.tiles[0].q_end == 3);
    CHECK(a.tiles[0].k_end == 3);
    // (64, 64) tiles over 1024 positions: 2 cores hold a (64, 64) tile, 64 rows of d_v and 2 × 64 running values
    const RunShape longer{1024, 1024, 16, 16};
    r.block_q = r.block_k = 64;
    r.keep_weights = false;
    CHECK(estimate_run(resolve_settings(r, longer), longer).tiles == 2.0 * (64 * 64 + 64 * 16 + 2 * 64) * 4.0);
}

TEST_CASE("registry: every head of a multi-head run holds the one mask, and the estimate counts it once and raw scores only when kept") {
    const RunShape shape{40, 40, 16, 16};
    for (const char* kind : {"mha", "gqa", "flash", "mha-wrapper"}) {
        CAPTURE(kind);
        SettingsRequest r;
        r.kind = kind, r.heads = 4, r.causal = true;
        if (std::string(kind) == "gqa") r.kv_heads = 2;
        const Settings s = resolve_settings(r, shape);
        const Trace t = run_attention(inputs(40, 40, 16, 16), s);
        REQUIRE(t.heads().size() == 4);
        for (const HeadTrace& h : t.heads()) {
            CHECK(&h.mask.get() == &t.heads()[0].mask.get());  // one buffer, not four copies
            CHECK(h.mask(3, 4) == 0);
            CHECK(h.mask(4, 3) == 1);
        }
        // without raw scores: 4 heads × (40, 40) floats fewer in the estimate, and none in the trace
        Settings lean = s;
        lean.keep_scores = false;
        CHECK(estimate_run(s, shape).total - estimate_run(lean, shape).total == 4.0 * 40 * 40 * 4);
        const Trace u = run_attention(inputs(40, 40, 16, 16), lean);
        for (const HeadTrace& h : u.heads()) CHECK((h.scores.size() == 0 && h.weights.size() == 40 * 40));
    }
}

TEST_CASE("cli: flash with 32768-wide blocks on 3 tokens runs small") {
    const RunResult r = run_attn({"show", "--kind", "flash", "--block-q", "32768", "--block-k", "32768", "--max-memory",
                                  "100M", "Your journey starts", "--json", "-"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["config"]["block_q"] == 32768);  // recorded as asked
    REQUIRE(j["tiles"].size() == 1);         // one tile of (3, 3)
    const RunResult b = run_attn({"bench", "--kind", "flash", "--tokens", "3", "--d-in", "16", "--block-q", "32768",
                                  "--block-k", "32768", "--max-memory", "100M", "--json", "-"});
    INFO(b.err);
    REQUIRE(b.code == 0);
    CHECK(nlohmann::json::parse(b.out)["peak_rss_bytes"].get<double>() < 100e6 * kPeakSlack);  // 101.7 MB under ASan at -O1
}

TEST_CASE("cli: a run refused for its flash tiles names --block-q, exit 2") {
    const RunResult r = run_attn({"bench", "--kind", "flash", "--tokens", "65536", "--d-in", "8", "--no-weights",
                                  "--block-q", "65536", "--block-k", "65536", "--max-memory", "1G"});
    CHECK(r.code == 2);
    CHECK(r.err.find("lower --block-q or --block-k") != std::string::npos);
    CHECK(r.out.empty());
}

TEST_CASE("cli: --max-memory is one size syntax: digits, a fraction, units K to E") {
    struct Case {
        const char* size;
        const char* error;  // "" = accepted
    };
    const std::vector<Case> cases = {
        {"0.4", "is too small"},         {"0", "is too small"},          {"0.0001K", "is too small"},
        {"0x10", "is not a size"},       {" 1G", "is not a size"},       {"1G ", "is not a size"},
        {"+1G", "is not a size"},        {"-1G", "is not a size"},       {"1e3", "is not a size"},
        {".5G", "is not a size"},        {"5.G", "is not a size"},       {"1Z", "has an unknown unit"},
        {"1GG", "has an unknown unit"},  {"16E", "is too large"},        {"1E", ""},
        {"1P", ""},                      {"2t", ""},                     {"1.5GiB", ""},
        {"8GB", ""},                     {"1000000000", ""},             {"1e", ""},
    };
    for (const Case& c : cases) {
        CAPTURE(c.size);
        const RunResult r = run_attn({"show", "hi", "--max-memory", c.size});
        if (*c.error == 0) {
            CHECK(r.code == 0);
        } else {
            CHECK(r.code == 2);
            CHECK(r.err.find(std::string("--max-memory '") + c.size + "' " + c.error) != std::string::npos);
        }
    }
    // the units are powers of 1024, the same for K, KB and KiB: 1.5K is refused as 1.5 KiB
    for (const char* size : {"1.5K", "1.5KB", "1.5kib", "1536"}) {
        const RunResult r = run_attn({"show", "hi", "--max-memory", size});
        CHECK(r.err.find("more than --max-memory 1.5 KiB") != std::string::npos);
    }
}

TEST_CASE("cli: bench takes show's options, with show's checks and messages") {
    const std::vector<std::vector<std::string>> refused = {
        {"--kind", "mqa", "--kv-heads", "2"},
        {"--kind", "simple", "--heads", "4"},
        {"--kind", "mha", "--kv-heads", "2"},
        {"--kind", "self", "--window", "3"},
        {"--kind", "flash", "--dropout", "0.1"},
        {"--causal", "--no-causal"},
        {"--kind", "nope"},
        {"--kind", "mha", "--heads", "3", "--d-out", "4"},
    };
    for (const auto& args : refused) {
        std::vector<std::string> bench = {"bench", "--tokens", "8", "--d-in", "8"}, show = {"show", "--d-in", "8", "hi"};
        bench.insert(bench.end(), args.begin(), args.end());
        show.insert(show.end(), args.begin(), args.end());
        const RunResult b = run_attn(bench), s = run_attn(show);
        CAPTURE(s.err);
        CHECK(b.code == 2);
        CHECK(s.code == 2);
        CHECK(b.err == s.err);
    }
    for (const char* seed : {"-1", "99999999999999999999999", "abc"}) {
        const RunResult b = run_attn({"bench", "--tokens", "8", "--seed", seed}), s = run_attn({"show", "hi", "--seed", seed});
        CHECK(b.code == 2);
        const std::string want = std::string("attn: error: --seed: '") + seed + "' is not a whole number from 0 to "
                                 "18446744073709551615";
        CHECK(b.err == want + " (hint: see 'attn bench --help')\n");
        CHECK(s.err == want + " (hint: see 'attn show --help')\n");
    }
    // what bench runs is what it asked for, and its JSON says so
    const RunResult r = run_attn({"bench", "--kind", "gqa", "--heads", "6", "--kv-heads", "3", "--d-in", "12",
                                  "--tokens", "8", "--seed", "7", "--json", "-"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["seed"] == 7);
    CHECK(j["heads"] == 6);
    CHECK(j["kv_heads"] == 3);
    CHECK(j["d_out"] == 12);
}

TEST_CASE("cli: --dropout says when a number rounds to 1 in float32, and -0 is recorded as 0") {
    const RunResult r = run_attn({"show", "--dropout", "0.99999999", "hi"});
    CHECK(r.code == 2);
    CHECK(r.err.find("rounds to 1 in float32") != std::string::npos);
    CHECK(run_attn({"show", "--dropout", "0.99999994", "hi"}).code == 0);  // the largest float32 below 1
    const RunResult z = run_attn({"show", "--dropout", "-0", "hi"});
    REQUIRE(z.code == 0);
    CHECK(z.out.find("dropout=0.0") != std::string::npos);
    CHECK(z.out.find("-0") == std::string::npos);
    const RunResult j = run_attn({"show", "--dropout", "-0", "hi", "--json", "-"});
    CHECK(nlohmann::json::parse(j.out)["config"]["dropout"].dump() == "0.0");
}

TEST_CASE("registry: where keys come from is the row's: axes, --source required or optional, by the CLI too") {
    for (const Kind& k : kinds()) {
        INFO(k.name);
        Trace t;
        t.kind = k.name;
        t.config.score = "dot";
        CHECK(has_source_axes(t) == (k.source != SourceRule::sentence));
        CHECK(((k.options & opt_source) != 0) == (k.source != SourceRule::sentence));
        const RunResult r = run_attn({"show", "--kind", k.name, "Your journey starts"});
        if (k.source == SourceRule::required) {
            CHECK(r.code == 2);
            CHECK(r.err.find("kind '" + std::string(k.name) + "' needs --source") != std::string::npos);
        } else {
            CHECK(r.code == 0);
            const bool noted = r.err.find("without --source: the sentence attends over itself") != std::string::npos;
            CHECK(noted == (k.source == SourceRule::optional));
        }
    }
    Trace model;  // a trace not run by a kind is self-attention
    model.kind = "model";
    CHECK_FALSE(has_source_axes(model));
    model.has_source = true;
    CHECK(has_source_axes(model));
}

TEST_CASE("registry: the score formula is the row's, luong's by its --score") {
    Trace t;
    const auto formula = [&](const char* kind, const char* score) {
        t.kind = kind, t.config.score = score;
        return score_formula(t);
    };
    CHECK(formula("simple", "dot") == "x_i\xC2\xB7x_j");
    CHECK(formula("causal", "dot") == "q_i\xC2\xB7k_j");
    CHECK(formula("model", "dot") == "q_i\xC2\xB7k_j");
    CHECK(formula("additive", "dot") == "v\xE1\xB5\x80tanh(s_i W_q + h_j W_k)");
    CHECK(formula("luong", "dot") == "s_i\xC2\xB7h_j");
    CHECK(formula("luong", "general") == "s_i\xC2\xB7(h_j W_k)");
    CHECK(formula("luong", "concat") == formula("additive", "dot"));
}
