// attn show --model end to end on the validation table's tiny GPT-2 folder: the trace's shape and
// invariants, the files written, --keep-layers / --layer / --head, and --head on a seeded kind.
#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>

#include <nlohmann/json.hpp>

#include "tests/helpers.h"
#include "tests/model_fixtures.h"

namespace {

using Json = nlohmann::json;
using attn::test::model_fixtures_dir;


bool exists(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0;
}

}  // namespace

TEST_CASE("model: the trace holds every head's causal weights, the aggregates and 5 predictions per token") {
    const auto r = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--json", "-", "a b"});
    REQUIRE(r.code == 0);
    const Json j = Json::parse(r.out);
    CHECK(j["kind"] == "model");
    CHECK(j["model"]["n_params"] == 257 * 4 + 4 * 4 + 4 * 2 * 2 + 4 * 12 + 12 + 16 + 4 + 4 * 16 + 16 + 16 * 4 + 4 + 4 * 2);
    CHECK(j["token_ids"] == Json::array({'a', ' ', 'b'}));  // no merges: one token per byte
    CHECK(j["tokens"] == Json::array({"a", "\xC2\xB7", "b"}));
    REQUIRE(j["attention"][0]["layers"].size() == 1);
    REQUIRE(j["attention"][0]["layers"][0]["heads"].size() == 2);
    for (const auto& h : j["attention"][0]["layers"][0]["heads"]) {
        CHECK(h["scale"].get<double>() == doctest::Approx(1.0 / std::sqrt(2.0)));
        for (std::size_t i = 0; i < 3; ++i) {
            double row = 0;
            for (std::size_t k = 0; k < 3; ++k) {
                const double w = h["weights"][i][k];
                if (k > i) CHECK(w == 0.0);  // causal
                CHECK(h["mask"][i][k] == (k <= i));
                row += w;
            }
            CHECK(row == doctest::Approx(1.0).epsilon(1e-6));
        }
    }
    CHECK(j["aggregates"]["layer_mean"].size() == 1);
    CHECK(j["aggregates"]["rollout"].size() == 1);
    REQUIRE(j["predictions"].size() == 3);
    for (const auto& row : j["predictions"]) {
        REQUIRE(row.size() == 5);
        for (std::size_t k = 1; k < 5; ++k) CHECK(row[k]["p"].get<double>() <= row[k - 1]["p"].get<double>());
    }
}

TEST_CASE("model: --png writes the chosen head's heatmaps and the overview, --npy every head, mean and rollout") {
    const std::string out = attn::test::temp_dir();
    const auto r = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--head", "1", "--png", out + "/png",
                                         "--npy", out + "/npy", "a b"});
    REQUIRE(r.code == 0);
    CHECK(exists(out + "/png/gpt2-l0-h1-weights.png"));
    CHECK(exists(out + "/png/gpt2-overview.png"));
    CHECK(exists(out + "/npy/model-l0-h1-weights.npy"));
    CHECK(exists(out + "/npy/model-l0-mean.npy"));
    CHECK(exists(out + "/npy/model-l0-rollout.npy"));
    CHECK(exists(out + "/npy/model-token_ids.npy"));
    CHECK(r.out.find("weights (") != std::string::npos);
    CHECK(r.out.find("head 1 of layer 0") != std::string::npos);
    CHECK(r.out.find("next token after \"b\"") != std::string::npos);
}

namespace {
// A PNG's width and height from its IHDR chunk.
std::pair<unsigned, unsigned> png_size(const std::string& bytes) {
    REQUIRE(bytes.size() > 24);
    const auto at = [&](std::size_t i) {
        return (unsigned(static_cast<unsigned char>(bytes[i])) << 24) | (unsigned(static_cast<unsigned char>(bytes[i + 1])) << 16) |
               (unsigned(static_cast<unsigned char>(bytes[i + 2])) << 8) | unsigned(static_cast<unsigned char>(bytes[i + 3]));
    };
    return {at(16), at(20)};
}
}  // namespace

TEST_CASE("model: --svg writes the chosen head's figures as SVG, --scale sizes every PNG, the overview too") {
    const std::string out = attn::test::temp_dir();
    const auto r = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--head", "1", "--svg", out + "/svg",
                                         "--png", out + "/s2", "a b"});
    REQUIRE(r.code == 0);
    for (const char* name : {"scores", "mask", "weights"}) {
        const std::string svg = attn::test::slurp(out + "/svg/gpt2-l0-h1-" + std::string(name) + ".svg");
        CHECK(svg.find("<svg") != std::string::npos);
        CHECK(svg.find("</svg>") != std::string::npos);
    }
    CHECK(r.out.find("wrote SVGs to") != std::string::npos);
    const auto r1 = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--head", "1", "--scale", "1",
                                          "--png", out + "/s1", "a b"});
    REQUIRE(r1.code == 0);
    // the default --scale 2 draws every image at twice the size of --scale 1, text and all (a line
    // of text measured at twice the size may differ by a pixel or two)
    for (const std::string name : {"gpt2-overview.png", "gpt2-l0-h1-weights.png"}) {
        INFO(name);
        const auto one = png_size(attn::test::slurp(out + "/s1/" + name));
        const auto two = png_size(attn::test::slurp(out + "/s2/" + name));
        CHECK(std::abs(int(two.first) - 2 * int(one.first)) <= 2);
        CHECK(std::abs(int(two.second) - 2 * int(one.second)) <= 2);
    }
    const auto font = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--font", out + "/none.ttf",
                                            "--png", out + "/f", "a b"});
    CHECK(font.code != 0);
    CHECK(font.err.find("none.ttf") != std::string::npos);
}

TEST_CASE("model: a grouped-query model's figures name each query head's key/value head and the overview frames the groups") {
    const std::string out = attn::test::temp_dir();
    // llama-ok: H = 2 query heads share G = 1 key/value head
    const auto r = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/llama-ok", "--head", "1", "--svg", out + "/l", "a b"});
    REQUIRE(r.code == 0);
    const std::string head = attn::test::slurp(out + "/l/llama-l0-h1-weights.svg");
    CHECK(head.find(">llama-ok \xC2\xB7 layer 0 \xC2\xB7 head 1 (reads kv head 0 of 1) \xC2\xB7 weights</text>") != std::string::npos);
    const std::string overview = attn::test::slurp(out + "/l/llama-overview.svg");
    CHECK(overview.find("2 heads \xC2\xB7 1 key/value head (2 query heads each) \xC2\xB7 attention weights</text>") != std::string::npos);
    CHECK(overview.find(">kv 0</text>") != std::string::npos);
    // G = H (GPT-2, or a Llama with as many key/value heads as heads): no groups anywhere
    auto mha = attn::test::tiny_llama_tensors();  // k_proj and v_proj as wide as q_proj
    for (auto& e : mha)
        if (e.name.find("k_proj") != std::string::npos || e.name.find("v_proj") != std::string::npos) e.shape[0] = 4, e.bytes += e.bytes;
    attn::test::write_llama_folder(out, "llama-mha", attn::test::tiny_llama_config("", 2), mha);
    for (const std::string m : {"model-ok", "llama-mha"}) {
        INFO(m);
        const std::string folder = (m == "model-ok" ? model_fixtures_dir() : out) + "/" + m;
        const auto g = attn::test::run_attn({"show", "--model", folder, "--head", "1", "--svg", out + "/svg-" + m, "a b"});
        REQUIRE(g.code == 0);
        const std::string type = m == "model-ok" ? "gpt2" : "llama";
        const std::string one = attn::test::slurp(out + "/svg-" + m + "/" + type + "-l0-h1-weights.svg");
        const std::string all = attn::test::slurp(out + "/svg-" + m + "/" + type + "-overview.svg");
        CHECK(one.find("head 1 \xC2\xB7 weights</text>") != std::string::npos);
        CHECK(one.find("kv") == std::string::npos);
        CHECK(all.find("key/value") == std::string::npos);
        CHECK(all.find(">kv ") == std::string::npos);
    }
}

TEST_CASE("model: --layer, --head and --keep-layers outside the model are usage errors") {
    const std::string m = model_fixtures_dir() + "/model-ok";
    CHECK(attn::test::run_attn({"show", "--model", m, "--head", "2", "a"}).code == 2);
    CHECK(attn::test::run_attn({"show", "--model", m, "--layer", "1", "a"}).code == 2);
    CHECK(attn::test::run_attn({"show", "--model", m, "--keep-layers", "x", "a"}).code == 2);
    CHECK(attn::test::run_attn({"show", "--layer", "0", "a b"}).code == 2);  // --layer needs --model
    CHECK(attn::test::run_attn({"show", "--model", m, "--dropout", "0.5", "a"}).code == 2);
}

TEST_CASE("--head on a seeded multi-head kind prints only that head") {
    const auto r = attn::test::run_attn({"show", "--kind", "mha", "--heads", "3", "--head", "2", "a b c"});
    REQUIRE(r.code == 0);
    CHECK(r.out.find("head 2") != std::string::npos);
    CHECK(r.out.find("head 0") == std::string::npos);
    CHECK(attn::test::run_attn({"show", "--kind", "mha", "--heads", "3", "--head", "3", "a b c"}).code == 2);
}

TEST_CASE("model: --max-memory counts the weights, and the text may come from standard input") {
    const std::string m = model_fixtures_dir() + "/model-ok";
    const auto small = attn::test::run_attn({"show", "--model", m, "--max-memory", "1000", "a"});
    CHECK(small.code == 2);
    CHECK(small.err.find("more than --max-memory") != std::string::npos);
    const auto piped = attn::test::run_attn({"show", "--model", m, "--file", "-", "--json", "-"}, "a b");
    REQUIRE(piped.code == 0);
    CHECK(Json::parse(piped.out)["token_ids"] == Json::array({'a', ' ', 'b'}));
}

TEST_CASE("model: a Llama folder runs with its query heads on their key/value heads, and its sharded copy gives the same trace") {
    const auto one = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/llama-ok", "--json", "-", "a b"});
    const auto two = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/llama-sharded", "--json", "-", "a b"});
    REQUIRE(one.code == 0);
    REQUIRE(two.code == 0);
    Json sharded = Json::parse(two.out);  // the same trace but for the folder's name
    CHECK(sharded["model"]["name"] == "llama-sharded");
    sharded["model"]["name"] = "llama-ok";
    CHECK(sharded == Json::parse(one.out));
    const Json j = Json::parse(one.out);
    CHECK(j["model"]["type"] == "llama");
    REQUIRE(j["attention"][0]["layers"][0]["heads"].size() == 2);
    for (const auto& h : j["attention"][0]["layers"][0]["heads"]) CHECK(h["kv_head"] == 0);  // 2 query heads share key/value head 0
    const auto term = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/llama-ok", "--head", "1", "a b"});
    REQUIRE(term.code == 0);
    CHECK(term.out.find("2 query heads share 1 key/value heads, 2 each") != std::string::npos);
    CHECK(term.out.find("(query head 1 reads key/value head 0, shared by query heads 0\xE2\x80\x93" "1)") != std::string::npos);
}

TEST_CASE("decode --model: every step's rows equal the full pass's, and the cache per token is layers x G x head_dim x 2 x dtype beside MHA's") {
    const auto r = attn::test::run_attn({"decode", "--model", model_fixtures_dir() + "/llama-ok", "a b"});
    REQUIRE(r.code == 0);
    // 1 layer, G = 1 of H = 2 heads, head_dim 2, F32: 1 · 1 · 2 · 2 · 4 = 16 bytes; MHA 32
    CHECK(r.out.find("key/value cache per token: 1 layers \xC3\x97 1 key/value heads \xC3\x97 2 head_dim \xC3\x97 2 (k, v) \xC3\x97 4 bytes "
                     "(F32) = 16 bytes") != std::string::npos);
    CHECK(r.out.find("as multi-head attention (2 key/value heads): 32 bytes") != std::string::npos);
    CHECK(r.out.find("the same top predictions") != std::string::npos);
    const auto at = r.out.find("full pass within ");
    REQUIRE(at != std::string::npos);
    CHECK(std::stod(r.out.substr(at + 17)) <= 1e-6);
    const auto gpt2 = attn::test::run_attn({"decode", "--model", model_fixtures_dir() + "/model-ok", "a b"});
    REQUIRE_MESSAGE(gpt2.code == 0, gpt2.err);
    CHECK(gpt2.out.find("= 32 bytes") != std::string::npos);  // GPT-2: G = H = 2, head_dim 2, 1 layer, F32
    const auto bad = attn::test::run_attn({"decode", "--model", model_fixtures_dir() + "/llama-ok", "--kind", "mha", "a"});
    CHECK(bad.code == 2);
    CHECK(attn::test::one_line(bad) == "attn: error: --kind does not apply to --model (hint: a model brings its own tokens, weights, heads and "
                                       "positions: drop --kind)\n");
}

TEST_CASE("decode --model --json: each step's rows equal show --model's weights, with the cache and the top prediction") {
    const std::string text = "ab b";
    const auto show = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/llama-ok", "--json", "-", text});
    REQUIRE_MESSAGE(show.code == 0, show.err);
    const Json full = Json::parse(show.out);
    const Json& heads = full["attention"][0]["layers"][0]["heads"];
    const std::size_t T = full["tokens"].size();
    // every head of layer 0, then --head 1 alone
    for (const std::vector<std::string>& extra : {std::vector<std::string>{}, std::vector<std::string>{"--head", "1"}}) {
        std::vector<std::string> args = {"decode", "--model", model_fixtures_dir() + "/llama-ok", "--json", "-", text};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto r = attn::test::run_attn(args);
        REQUIRE_MESSAGE(r.code == 0, r.err);
        const Json j = Json::parse(r.out);  // standard output holds the JSON alone
        CHECK(j["format"] == "attn-decode");
        CHECK(j["model"]["type"] == "llama");
        CHECK(j["model"]["layer"] == 0);
        CHECK(j["cache"]["dtype"] == "F32");
        CHECK(j["token_ids"] == full["token_ids"]);
        REQUIRE(j["steps"].size() == T);
        double largest = 0;
        for (std::size_t t = 0; t < T; ++t) {
            const Json& s = j["steps"][t];
            CHECK(s["token"] == full["tokens"][t]);
            CHECK(s["token_id"] == full["token_ids"][t]);
            CHECK(s["next"]["id"] == full["predictions"][t][0]["id"]);  // the full pass's top prediction
            CHECK(s["cache_bytes"] == 16 * (t + 1));  // 1 layer × G 1 × head_dim 2 × (k, v) × 4 bytes per token
            CHECK(s.count("output") == 0);
            REQUIRE(s["heads"].size() == (extra.empty() ? 2u : 1u));
            for (const Json& h : s["heads"]) {
                const std::size_t head = h["head"];
                CHECK(head == (extra.empty() ? head : 1u));
                CHECK(h["kv_head"] == 0);
                REQUIRE(h["weights"].size() == t + 1);
                for (std::size_t k = 0; k <= t; ++k)
                    largest = std::max(largest, std::abs(h["weights"][k].get<double>() - heads[head]["weights"][t][k].get<double>()));
            }
        }
        CHECK(largest <= 1e-6);
        CHECK(j["diagnostics"]["top_changed"] == false);
        // MHA (G = H = 2) and MQA (G = 1, this model): 32 and 16 bytes per token
        REQUIRE(j["cache_variants"].size() == 2);
        CHECK(j["cache_variants"][0] == Json({{"name", "MHA"}, {"kv_heads", 2}, {"bytes_per_token", 32}, {"this_run", false}}));
        CHECK(j["cache_variants"][1] == Json({{"name", "MQA"}, {"kv_heads", 1}, {"bytes_per_token", 16}, {"this_run", true}}));
    }
}

TEST_CASE("decode --model: the figures are <family>-decode-{steps,cache} or --prefix's, beside the JSON and the page") {
    const std::string out = attn::test::temp_dir();
    const auto r = attn::test::run_attn({"decode", "--model", model_fixtures_dir() + "/llama-ok", "--png", out + "/png", "--svg", out + "/svg",
                                         "--json", out + "/d.json", "--html", out + "/d.html", "a b"});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    CHECK(attn::test::slurp(out + "/png/llama-decode-steps.png").substr(1, 3) == "PNG");
    CHECK(attn::test::slurp(out + "/png/llama-decode-cache.png").substr(1, 3) == "PNG");
    CHECK(attn::test::slurp(out + "/svg/llama-decode-steps.svg").find("<svg") != std::string::npos);
    CHECK(attn::test::slurp(out + "/svg/llama-decode-cache.svg").find("(this model)") != std::string::npos);
    CHECK(Json::parse(attn::test::slurp(out + "/d.json"))["format"] == "attn-decode");
    CHECK(attn::test::slurp(out + "/d.html").find("<!DOCTYPE html>") != std::string::npos);
    CHECK(r.out.find("wrote PNGs to " + out + "/png") != std::string::npos);
    CHECK(r.out.find("wrote " + out + "/d.json") != std::string::npos);
    const auto gpt2 = attn::test::run_attn({"decode", "--model", model_fixtures_dir() + "/model-ok", "--png", out + "/png", "--prefix", "tiny", "a b"});
    REQUIRE_MESSAGE(gpt2.code == 0, gpt2.err);
    CHECK(exists(out + "/png/tiny-decode-steps.png"));
    CHECK(exists(out + "/png/tiny-decode-cache.png"));
    CHECK(exists(out + "/png/llama-decode-steps.png"));  // another prefix's figures stay
}

TEST_CASE("decode --model: refused combinations exit 2 with a hint, and write nothing") {
    const std::string out = attn::test::temp_dir();
    const std::string dir = model_fixtures_dir() + "/llama-ok";
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"decode", "--model", dir, "--layer", "1", "a"},
         "attn: error: --layer 1 is past the model's last layer 0 (hint: layers count from 0)\n"},
        {{"decode", "--model", dir, "--head", "2", "a"},
         "attn: error: --head 2 is past the model's last head 1 (hint: heads count from 0)\n"},
        {{"decode", "--layer", "0", "a"},
         "attn: error: --layer applies to --model (hint: a seeded decode records every head: drop --layer)\n"},
        {{"decode", "--model", dir, "--prefix", "x", "a"},
         "attn: error: --prefix names images, but no --png folder is given (hint: add --png DIR)\n"},
        {{"decode", "--model", dir, "--split", "chars", "a"},
         "attn: error: --split does not apply to --model (hint: a model brings its own tokens, weights, heads and positions: drop --split)\n"},
        {{"decode", "--model", dir, "--json", out + "/same", "--html", out + "/same", "a"}, ""},
        {{"decode", "--model", dir, "--json", dir + "/config.json", "a"}, ""},
    };
    for (const auto& [args, message] : cases) {
        const auto r = attn::test::run_attn(args);
        CAPTURE(args.back());
        CHECK(r.code == 2);
        if (!message.empty()) CHECK(attn::test::one_line(r) == message);
        else CHECK(attn::test::one_line(r).find("(hint: ") != std::string::npos);
    }
    CHECK(!exists(out + "/same"));
    CHECK(attn::test::slurp(dir + "/config.json").find("llama") != std::string::npos);
}

TEST_CASE("model: the terminal's next tokens are the same whether the run predicts after every position (--json) or the last only") {
    const std::string out = attn::test::temp_dir();
    for (const char* folder : {"/model-ok", "/llama-ok"}) {
        const auto last_only = attn::test::run_attn({"show", "--model", model_fixtures_dir() + folder, "b a"});
        const auto every = attn::test::run_attn({"show", "--model", model_fixtures_dir() + folder, "--json", out + "/t.json", "b a"});
        REQUIRE_MESSAGE(last_only.code == 0, last_only.err);
        REQUIRE_MESSAGE(every.code == 0, every.err);
        const auto line = [](const std::string& text) {
            const auto at = text.find("next token after");
            return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
        };
        CHECK(!line(last_only.out).empty());
        CHECK(line(last_only.out) == line(every.out));
        const Json j = Json::parse(attn::test::slurp(out + "/t.json"));
        CHECK(j["predictions"].size() == j["tokens"].size());  // the JSON holds every position's
    }
}

// A run whose outputs show no raw scores (the terminal's weights, means and rollout) keeps none: each
// head's weights are computed in its scores' place. Every number it prints is the same as a run keeping them.
TEST_CASE("model: a terminal-only run, which keeps no raw scores, prints what a run keeping them (--json) prints") {
    const std::string out = attn::test::temp_dir();
    for (const std::string folder : {"/model-ok", "/llama-ok"}) {
        INFO(folder);
        const std::vector<std::string> run = {"show", "--model", model_fixtures_dir() + folder, "--show", "weights,mean,rollout", "b a"};
        auto with_json = run;
        with_json.insert(with_json.end() - 1, {"--json", out + "/t.json"});
        const auto plain = attn::test::run_attn(run), kept = attn::test::run_attn(with_json);
        REQUIRE_MESSAGE(plain.code == 0, plain.err);
        REQUIRE_MESSAGE(kept.code == 0, kept.err);
        CHECK(plain.out.find("weights") != std::string::npos);
        CHECK(plain.out + "wrote " + out + "/t.json\n" == kept.out);
        CHECK(Json::parse(attn::test::slurp(out + "/t.json"))["attention"][0]["layers"][0]["heads"][0].contains("scores"));
    }
}

TEST_CASE("model: a Llama run's figures start with its family, so --json cannot take one of their names") {
    const std::string out = attn::test::temp_dir();
    const auto r = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/llama-ok", "--png", out, "--json", out + "/llama-overview.png", "a b"});
    CHECK(r.code == 2);
    CHECK(r.err.find("two outputs would both be written to '" + out + "/llama-overview.png'") != std::string::npos);
    const auto ok = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/llama-ok", "--png", out, "a b"});
    REQUIRE(ok.code == 0);
    CHECK(exists(out + "/llama-overview.png"));
    CHECK(exists(out + "/llama-l0-h0-weights.png"));
}

TEST_CASE("model: a config.json or model.safetensors that is a folder, a pipe, a device or a looping link is named as such") {
    const std::string dir = attn::test::temp_dir();
    attn::test::write_model_fixtures(dir);
    const std::string ok = dir + "/model-ok";
    int n = 0;
    const auto swap_in = [&](const std::string& name, const std::function<void(const std::string&)>& make) {
        const std::string m = dir + "/m" + std::to_string(n++);
        std::filesystem::copy(ok, m, std::filesystem::copy_options::recursive);
        std::filesystem::remove(m + "/" + name);
        make(m + "/" + name);
        return m;
    };
    struct Case {
        std::string file, why;
        std::function<void(const std::string&)> make;
    };
    const std::vector<Case> cases = {
        {"config.json", "is a folder, not a regular file (hint: put the model's config.json file there)",
         [](const std::string& p) { std::filesystem::create_directory(p); }},
        {"config.json", "is a pipe (FIFO), not a regular file (hint: put the model's config.json file there)",
         [](const std::string& p) { REQUIRE(::mkfifo(p.c_str(), 0600) == 0); }},
        {"model.safetensors", "is a device, not a regular file (hint: put the model's model.safetensors file there)",
         [](const std::string& p) { std::filesystem::create_symlink("/dev/zero", p); }},
        {"config.json", "Too many levels of symbolic links (hint: put the model's config.json file there)",
         [](const std::string& p) { std::filesystem::create_symlink(p, p); }},
    };
    for (const Case& c : cases) {
        const std::string m = swap_in(c.file, c.make);
        INFO(c.file << ": " << c.why << " in " << m);
        const attn::test::RunResult r = attn::test::run_attn({"show", "--model", m, "a b"});
        CHECK(r.code == 1);
        CHECK(r.err.find("attn: error: ") == 0);
        CHECK(r.err.find(c.file) != std::string::npos);
        CHECK(r.err.find(c.why + "\n") != std::string::npos);
        CHECK(r.err.find("no config.json") == std::string::npos);
    }
}

TEST_CASE("model: scores that overflow float32 blame the checkpoint's weights, not the embeddings") {
    const std::string dir = attn::test::temp_dir();
    auto tensors = attn::test::tiny_gpt2_tensors();
    for (auto& t : tensors)
        if (t.name == "h.0.attn.c_attn.weight")
            for (std::size_t i = 0; i + 4 <= t.bytes.size(); i += 4) {
                const float huge = 1e30f;
                std::memcpy(&t.bytes[i], &huge, 4);
            }
    attn::test::write_model_folder(dir, "huge", attn::test::tiny_gpt2_config(), attn::test::safetensors_file(tensors));
    const attn::test::RunResult r = attn::test::run_attn({"show", "--model", dir + "/huge", "a b"});
    CHECK(r.code == 1);
    CHECK(r.err.find("overflow float32") != std::string::npos);
    CHECK(r.err.find("in the model's forward pass (hint: the checkpoint's weights are too large for float32 arithmetic") !=
          std::string::npos);
    CHECK(r.err.find("embeddings") == std::string::npos);
}

TEST_CASE("model: --show takes the stages a model run keeps and refuses the others by name, nothing prints as 0x0") {
    const auto ok = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--show", "scores,mask,weights", "a b"});
    REQUIRE(ok.code == 0);
    CHECK(ok.out.find("scores (") != std::string::npos);
    CHECK(ok.out.find("0\xC3\x97" "0") == std::string::npos);
    for (const char* stage : {"context", "values", "output"}) {
        const auto bad = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--show", std::string("queries,keys,") + stage, "a b"});
        CHECK(bad.code == 2);
        CHECK(attn::test::one_line(bad).find(std::string("--show ") + stage +
                                             ": a model run keeps each head's scores, mask and weights, and the chosen head's queries and keys, not its " +
                                             stage) != std::string::npos);
        CHECK(bad.out.empty());
    }
}

TEST_CASE("model: --show queries,keys keeps the chosen head's q and k, whose product is its raw scores, and query I's products sum to its scores row") {
    const auto r = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--show", "queries,keys", "--head", "1", "--query", "2",
                                         "--json", "-", "a b"});
    REQUIRE(r.code == 0);
    const Json j = Json::parse(r.out);
    REQUIRE(j.contains("neuron"));
    const Json& n = j["neuron"];
    CHECK(n["layer"] == 0);
    CHECK(n["head"] == 1);
    CHECK(n["kv_head"] == 1);
    CHECK(n["rotary"] == false);
    CHECK(n["query"] == 2);
    const Json& head = j["attention"][0]["layers"][0]["heads"][1];
    CHECK(n["scaled_by"].get<double>() == doctest::Approx(head["scale"].get<double>()));
    REQUIRE(n["queries"].size() == 3);  // (T, d) = (3, 2)
    REQUIRE(n["keys"].size() == 3);
    REQUIRE(n["products"].size() == 3);  // (S, d)
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t k = 0; k < 3; ++k) {  // q_i · k_k is the head's raw score
            double dot = 0;
            for (std::size_t c = 0; c < 2; ++c) dot += n["queries"][i][c].get<double>() * n["keys"][k][c].get<double>();
            CHECK(dot == doctest::Approx(head["scores"][i][k].get<double>()).epsilon(1e-5));
        }
    for (std::size_t k = 0; k < 3; ++k) {
        double sum = 0;
        for (std::size_t c = 0; c < 2; ++c) {
            const double p = n["products"][k][c];
            CHECK(p == doctest::Approx(n["queries"][2][c].get<double>() * n["keys"][k][c].get<double>()).epsilon(1e-6));
            sum += p;
        }
        CHECK(sum == doctest::Approx(head["scores"][2][k].get<double>()).epsilon(1e-5));
    }
    // head 0's queries are another head's: the comparison above can fail
    const auto h0 = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--show", "queries", "--json", "-", "a b"});
    REQUIRE(h0.code == 0);
    const Json n0 = Json::parse(h0.out)["neuron"];
    CHECK(n0["queries"] != n["queries"]);
    CHECK(n0["query"].is_null());
    CHECK(n0["products"].is_null());
    // a plain run keeps no queries or keys
    const auto plain = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--json", "-", "a b"});
    REQUIRE(plain.code == 0);
    CHECK_FALSE(Json::parse(plain.out).contains("neuron"));
}

TEST_CASE("model: the terminal prints Q[I], the products and each row's sum beside the model's own score") {
    const auto r = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--show", "queries,keys", "--query", "1", "a b"});
    REQUIRE(r.code == 0);
    for (const char* words : {"neuron view (layer 0, head 0)", "queries and keys after the bias, before the scale", "Q[1]",
                              "products Q[1][c]\xC2\xB7K[j][c]", "\xCE\xA3 products", "model's q\xC2\xB7k", "hidden"})
        CHECK_MESSAGE(r.out.find(words) != std::string::npos, words);
    const auto none = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--show", "keys", "a b"});
    REQUIRE(none.code == 0);
    CHECK(none.out.find("add --query I for query I's products with every key") != std::string::npos);
}

TEST_CASE("model: the neuron view's figures are <type>-l<L>-h<H>-queries, -keys and, with --query, -products") {
    const std::string out = attn::test::temp_dir();
    const auto r = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--show", "queries,keys", "--head", "1", "--query", "2",
                                         "--png", out, "--svg", out, "a b"});
    REQUIRE(r.code == 0);
    for (const char* stem : {"queries", "keys", "products", "weights"})
        for (const char* ext : {".png", ".svg"}) CHECK_MESSAGE(exists(out + "/gpt2-l0-h1-" + stem + ext), stem << ext);
    const std::string svg = attn::test::slurp(out + "/gpt2-l0-h1-products.svg");
    CHECK(svg.find("\xCE\xA3") != std::string::npos);  // each row's sum labelled
    const std::string only = attn::test::temp_dir();
    REQUIRE(attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--figures", "products", "--query", "1", "--png", only, "a b"})
                .code == 0);
    CHECK(exists(only + "/gpt2-l0-h0-products.png"));
    CHECK_FALSE(exists(only + "/gpt2-l0-h0-queries.png"));
    CHECK_FALSE(exists(only + "/gpt2-l0-h0-weights.png"));
}

TEST_CASE("model: --figures products without --query, a seeded kind's products and --query past the text are usage errors that write nothing") {
    const std::string out = attn::test::temp_dir() + "/figs";
    const auto no_query = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--figures", "products", "--png", out, "a b"});
    CHECK(no_query.code == 2);
    CHECK(attn::test::one_line(no_query).find("--figures products draws query I's products with every key, but no --query is given") !=
          std::string::npos);
    CHECK_FALSE(exists(out));
    const auto seeded = attn::test::run_attn({"show", "--kind", "mha", "--figures", "products", "--png", out, "a b"});
    CHECK(seeded.code == 2);
    CHECK(attn::test::one_line(seeded).find("--figures products draws a model head's query-key products, and a seeded kind has no model") !=
          std::string::npos);
    const auto past = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--show", "queries,keys", "--query", "3", "a b"});
    CHECK(past.code == 2);
    CHECK(attn::test::one_line(past).find("--query 3 is past the last query (3 tokens)") != std::string::npos);
    CHECK_FALSE(exists(out));
}

TEST_CASE("model: --prefix, --figures, --range, --colormap and --query shape the chosen head's figures, and another head's stay in the folder") {
    const std::string out = attn::test::temp_dir();
    const auto r = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--png", out, "--prefix", "slide", "--figures",
                                         "weights,query", "--query", "2", "--colormap", "magma", "--range", "0,0.5", "a b"});
    REQUIRE(r.code == 0);
    CHECK(exists(out + "/slide-l0-h0-weights.png"));
    CHECK(exists(out + "/slide-l0-h0-query.png"));
    CHECK(exists(out + "/slide-overview.png"));
    CHECK_FALSE(exists(out + "/slide-l0-h0-scores.png"));  // --figures chose
    CHECK_FALSE(exists(out + "/gpt2-overview.png"));
    // the colour scale reaches the figure: another --colormap gives other bytes
    const std::string magma = attn::test::slurp(out + "/slide-l0-h0-weights.png");
    REQUIRE(attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--png", out, "--prefix", "slide", "--figures", "weights",
                                  "--range", "0,0.5", "a b"}).code == 0);
    CHECK(attn::test::slurp(out + "/slide-l0-h0-weights.png") != magma);
    // head 1 into the same folder: head 0's figures stay
    REQUIRE(attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--png", out, "--prefix", "slide", "--head", "1", "a b"}).code == 0);
    CHECK(exists(out + "/slide-l0-h1-weights.png"));
    CHECK(exists(out + "/slide-l0-h0-weights.png"));
    CHECK_FALSE(exists(out + "/slide-l0-h0-query.png"));  // head 0's own earlier figure, gone with its second run
    const auto past = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--png", out, "--query", "3", "a b"});
    CHECK(past.code == 2);
    CHECK(attn::test::one_line(past).find("--query 3 is past the last query (3 tokens)") != std::string::npos);
    const auto no_png = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--prefix", "slide", "a b"});
    CHECK(no_png.code == 2);
    CHECK(attn::test::one_line(no_png).find("--prefix names images, but no --png or --svg folder is given") != std::string::npos);
}

TEST_CASE("model: with every head zero-ablated a position's predictions do not depend on the tokens before it, and the loss is the mean of the positions' losses") {
    const std::string dir = model_fixtures_dir() + "/model-ok";
    auto run = [&](const std::string& text, const std::string& ablate) {
        std::vector<std::string> args = {"show", "--model", dir, "--json", "-", text};
        if (!ablate.empty()) args.insert(args.end(), {"--ablate", ablate});
        const auto r = attn::test::run_attn(args);
        REQUIRE(r.code == 0);
        return Json::parse(r.out);
    };
    // the one layer's two heads zeroed: position 1 ("b" after "a" or after "c") sees only itself
    const Json a = run("ab", "0.0,0.1"), c = run("cb", "0.0,0.1");
    CHECK(a["predictions"][1] == c["predictions"][1]);
    // without the ablation the token before matters (the check above can fail)
    const Json pa = run("ab", ""), pc = run("cb", "");
    CHECK(pa["predictions"][1][0]["p"] != pc["predictions"][1][0]["p"]);
    // the ablation object: the plain run's top tokens before, the ablated run's after, the mean loss
    const Json& s = a["ablation"];
    CHECK(s["heads"] == Json::parse("[[0, 0], [0, 1]]"));
    CHECK(s["mode"] == "zero");
    REQUIRE(s["positions"].size() == 1);  // "ab": position 0 predicts "b"
    const Json& p = s["positions"][0];
    CHECK(p["top_before"] == pa["predictions"][0][0]["id"]);
    CHECK(p["p_before"] == pa["predictions"][0][0]["p"]);
    CHECK(p["top_after"] == a["predictions"][0][0]["id"]);
    CHECK(s["loss_before"].get<double>() == doctest::Approx(p["loss_before"].get<double>()));
    CHECK(s["loss_after"].get<double>() == doctest::Approx(p["loss_after"].get<double>()));
    CHECK(std::abs(p["loss_after"].get<double>() - p["loss_before"].get<double>()) > 1e-6);
    CHECK(!pa.contains("ablation"));
    CHECK(!pa.contains("lens"));
}

TEST_CASE("model: the terminal shows the loss before and after --ablate and the lens's rows emb and layer 0") {
    const auto r = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--ablate", "0.1", "--ablate-mode", "mean",
                                         "--lens", "--precision", "3", "abc"});
    REQUIRE(r.code == 0);
    CHECK(r.out.find("ablated (mean): heads 0.1 (layer.head), their context vectors set to their mean over the text\n") != std::string::npos);
    CHECK(r.out.find("loss of the text (mean next-token cross-entropy, nats): ") != std::string::npos);
    CHECK(r.out.find("positions changed their top prediction") != std::string::npos);
    CHECK(r.out.find("logit lens: the top next token") != std::string::npos);
    CHECK(r.out.find("\nemb  ") != std::string::npos);
    CHECK(r.out.find("\nlayer 0  ") != std::string::npos);
    CHECK(r.out.find("\nlayer 1") == std::string::npos);  // one layer
}

TEST_CASE("model: a --json or --html named like a figure of another format in the figure folder is refused in show --model, decode --model and heads") {
    const std::string m = model_fixtures_dir() + "/model-ok";
    struct Case {
        std::vector<std::string> args;
        std::string option, path, folder;
    };
    const std::vector<Case> cases = {
        {{"show", "--model", m, "--html", "q/gpt2-overview.svg", "--png", "q", "a b"}, "--html", "q/gpt2-overview.svg", "--png 'q'"},
        {{"show", "--model", m, "--json", "q/gpt2-l0-h1-weights.png", "--svg", "q", "a b"}, "--json", "q/gpt2-l0-h1-weights.png", "--svg 'q'"},
        {{"show", "--model", m, "--json", "q/model-token_ids.npy", "--png", "q", "a b"}, "--json", "q/model-token_ids.npy", "--png 'q'"},
        {{"decode", "--model", m, "--html", "q/gpt2-decode-steps.svg", "--png", "q", "a b"}, "--html", "q/gpt2-decode-steps.svg", "--png 'q'"},
        {{"heads", "--model", m, "--json", "q/gpt2-heads-first.svg", "--png", "q", "a b"}, "--json", "q/gpt2-heads-first.svg", "--png 'q'"},
    };
    for (const Case& c : cases) {
        const std::string dir = attn::test::temp_dir();
        std::vector<std::string> args = c.args;
        for (auto& a : args)
            if (a.compare(0, 2, "q/") == 0 || a == "q") a = dir + "/" + a;
        INFO(c.path);
        const auto r = attn::test::run_attn(args);
        CHECK(r.code == 2);
        CHECK(attn::test::one_line(r) == "attn: error: " + c.option + " '" + dir + "/" + c.path + "' has one of attn's file names inside " +
                                             c.folder.substr(0, 7) + dir + "/q': a later run writing that folder as --png, --svg or --npy "
                                             "would overwrite or remove it (hint: give " + c.option + " a name attn does not write there, or another folder)\n");
        CHECK(!exists(dir + "/q"));
    }
}

TEST_CASE("model: decode --model refuses --max-tokens by name, as show --model does") {
    const std::string m = model_fixtures_dir() + "/model-ok";
    for (const char* command : {"show", "decode"}) {
        const auto r = attn::test::run_attn({command, "--model", m, "--max-tokens", "3", "a b"});
        CHECK(r.code == 2);
        CHECK(attn::test::one_line(r).rfind("attn: error: --max-tokens does not apply to --model (hint: a model brings its own tokens", 0) == 0);
    }
}

TEST_CASE("model: the context refusal names each family's own config field, n_positions for GPT-2 and max_position_embeddings for Llama") {
    const auto gpt2 = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "abcde"});
    CHECK(gpt2.code == 2);
    CHECK(attn::test::one_line(gpt2) == "attn: error: the text has more than 4 tokens, the model's context (n_positions) (hint: shorten the "
                                        "text to at most 4 tokens)\n");
    for (const char* command : {"show", "decode"}) {
        const auto llama = attn::test::run_attn({command, "--model", model_fixtures_dir() + "/llama-ok", "abcde"});
        CHECK(llama.code == 2);
        CHECK(attn::test::one_line(llama) == "attn: error: the text has more than 4 tokens, the model's context "
                                             "(max_position_embeddings) (hint: shorten the text to at most 4 tokens)\n");
    }
}

TEST_CASE("model: a shard, tokenizer.json or generation_config.json that is a folder, a pipe or a device is not a regular file, never missing") {
    const std::string dir = attn::test::temp_dir();
    attn::test::write_model_fixtures(dir);
    int n = 0;
    const auto swap_in = [&](const std::string& from, const std::string& name, const std::function<void(const std::string&)>& make) {
        const std::string m = dir + "/s" + std::to_string(n++);
        std::filesystem::copy(dir + "/" + from, m, std::filesystem::copy_options::recursive);
        std::filesystem::remove(m + "/" + name);
        make(m + "/" + name);
        return m;
    };
    const auto folder = [](const std::string& p) { std::filesystem::create_directory(p); };
    const auto fifo = [](const std::string& p) { REQUIRE(::mkfifo(p.c_str(), 0600) == 0); };
    const auto device = [](const std::string& p) { std::filesystem::create_symlink("/dev/zero", p); };
    struct Case {
        std::string from, file, what;
        std::function<void(const std::string&)> make;
        std::vector<std::string> args;
    };
    const std::vector<Case> cases = {
        {"llama-sharded", "model-2.safetensors", "a pipe (FIFO)", fifo, {"show"}},
        {"llama-sharded", "model-1.safetensors", "a folder", folder, {"show"}},
        {"llama-sharded", "model-2.safetensors", "a device", device, {"show"}},
        {"llama-ok", "tokenizer.json", "a pipe (FIFO)", fifo, {"show"}},
        {"model-ok", "tokenizer.json", "a folder", folder, {"show"}},
        {"model-ok", "vocab.json", "a device", device, {"show"}},
        {"llama-ok", "generation_config.json", "a pipe (FIFO)", fifo, {"decode", "--max-new-tokens", "1"}},
        {"llama-ok", "generation_config.json", "a folder", folder, {"decode", "--max-new-tokens", "1"}},
    };
    for (const Case& c : cases) {
        const std::string m = swap_in(c.from, c.file, c.make);
        std::vector<std::string> args = c.args;
        args.insert(args.begin() + 1, {"--model", m});
        args.push_back("a b");
        INFO(c.file << " as " << c.what);
        const attn::test::RunResult r = attn::test::run_attn(args);  // a pipe with no writer must not block
        CHECK(r.code == 1);
        const std::string line = attn::test::one_line(r);
        CHECK(line.rfind("attn: error: '" + m + "/" + c.file + "' is " + c.what + ", not a regular file (hint: ", 0) == 0);
        CHECK(line.find("missing") == std::string::npos);
    }
}

TEST_CASE("model: tensors the config's model does not have are ignored with one warning naming the first three and the count") {
    const std::string dir = attn::test::temp_dir();
    auto t = attn::test::tiny_llama_tensors();
    const std::string l = "model.layers.0.self_attn.";
    for (const char* p : {"q_proj", "k_proj", "v_proj", "o_proj"})
        t.push_back({l + p + ".bias", "F32", {p[0] == 'q' || p[0] == 'o' ? 4u : 2u}, std::string(p[0] == 'q' || p[0] == 'o' ? 16 : 8, '\0')});
    t.push_back({"model.layers.0.self_attn.rotary_emb.inv_freq", "F32", {1}, std::string(4, '\0')});  // a buffer HF drops silently
    attn::test::write_llama_folder(dir, "bias", attn::test::tiny_llama_config(R"(, "attention_bias": false)"), t);
    const auto r = attn::test::run_attn({"show", "--model", dir + "/bias", "a b"});
    REQUIRE(r.code == 0);
    CHECK(r.err == "attn: warning: " + dir + "/bias/model.safetensors: 4 tensors are not used by the Llama model config.json describes, "
                   "and ignored (as Hugging Face ignores them, with a warning): model.layers.0.self_attn.k_proj.bias, "
                   "model.layers.0.self_attn.o_proj.bias, model.layers.0.self_attn.q_proj.bias and 1 more\n");
    // the numbers are those of the folder without them
    const auto with = attn::test::run_attn({"show", "--model", dir + "/bias", "--json", "-", "a b"});
    const auto without = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/llama-ok", "--json", "-", "a b"});
    REQUIRE(with.code == 0);
    REQUIRE(without.code == 0);
    CHECK(Json::parse(with.out)["attention"] == Json::parse(without.out)["attention"]);
    // a folder without unused tensors says nothing; a failing run's stderr stays its one error line
    CHECK(attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/llama-ok", "a b"}).err.empty());
    const auto failed = attn::test::run_attn({"show", "--model", dir + "/bias", "abcdef"});
    CHECK(failed.code == 2);
    CHECK(failed.err.find("warning") == std::string::npos);
}

TEST_CASE("model name: show --model's trace, figures and page name the checkpoint's folder, the family stays in file names") {
    const std::string out = attn::test::temp_dir();
    // the folder's base name, whatever its family: a Llama-family folder and a GPT-2 one
    for (const auto& [folder, family] : {std::pair{"llama-ok", "llama"}, std::pair{"model-ok", "gpt2"}}) {
        const std::string o = out + "/" + folder;
        const auto r = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/" + folder, "--head", "1", "--json", o + ".json", "--svg",
                                             o, "--html", o + ".html", "a b"});
        REQUIRE_MESSAGE(r.code == 0, r.err);
        const Json j = Json::parse(attn::test::slurp(o + ".json"));
        CHECK(j["model"]["name"] == folder);
        CHECK(j["model"]["type"] == family);
        const std::string prefix = o + "/" + family + "-l0-h1-";
        const std::string weights = attn::test::slurp(prefix + "weights.svg");
        CHECK(weights.find(std::string(folder) + " \xC2\xB7 layer 0") != std::string::npos);
        if (std::string(family) != "gpt2") CHECK(weights.find("gpt2") == std::string::npos);  // before: "gpt2 · layer 0" for every folder
        CHECK(attn::test::slurp(o + "/" + family + "-overview.svg").find(std::string(folder) + " \xC2\xB7 ") != std::string::npos);
        CHECK(attn::test::slurp(o + ".html").find("\"name\":\"" + std::string(folder) + "\"") != std::string::npos);
    }
    // --model . names the folder it stands for, not "."
    attn::test::RunOptions here;
    here.cwd = model_fixtures_dir() + "/llama-ok";
    const auto dot = attn::test::run_attn({"show", "--model", ".", "--json", "-", "a b"}, here);
    REQUIRE_MESSAGE(dot.code == 0, dot.err);
    CHECK(Json::parse(dot.out)["model"]["name"] == "llama-ok");
}

TEST_CASE("decode --model --json carries the model's facts and name, not a seeded run's config") {
    for (const auto& [folder, family] : {std::pair{"model-ok", "gpt2"}, std::pair{"llama-ok", "llama"}}) {
        const auto show = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/" + folder, "--json", "-", "a b"});
        REQUIRE_MESSAGE(show.code == 0, show.err);
        const Json facts = Json::parse(show.out)["model"];
        const auto r = attn::test::run_attn({"decode", "--model", model_fixtures_dir() + "/" + folder, "--json", "-", "a b"});
        REQUIRE_MESSAGE(r.code == 0, r.err);
        const Json j = Json::parse(r.out);
        // before: "config": {"seed": 123, "init": "torch", "qkv_bias": false, ...} for a GPT-2 whose c_attn has a bias
        CHECK(j.count("config") == 0);
        CHECK(r.out.find("\"seed\"") == std::string::npos);
        CHECK(r.out.find("qkv_bias") == std::string::npos);
        Json model = j["model"];
        CHECK(model["layer"] == 0);
        model.erase("layer");
        CHECK(model == facts);  // the same facts as show --model's trace: type, name, dtype, sizes, eps
        CHECK(model["name"] == folder);
        CHECK(model["type"] == family);
    }
}

TEST_CASE("decode --model: step labels join the step and a token starting with the space mark without a doubled separator") {
    const std::string out = attn::test::temp_dir();
    const auto r = attn::test::run_attn({"decode", "--model", model_fixtures_dir() + "/model-ok", "--svg", out, "--json", out + "/d.json", "a b"});
    REQUIRE_MESSAGE(r.code == 0, r.err);
    const Json j = Json::parse(attn::test::slurp(out + "/d.json"));
    REQUIRE(j["steps"].size() == 3);  // a, the space, b: the folder's vocabulary is the 256 bytes
    const std::string token = j["steps"][1]["token"];
    REQUIRE(token.rfind("\xC2\xB7", 0) == 0);  // "·": the token's own space mark
    const std::string svg = attn::test::slurp(out + "/gpt2-decode-steps.svg");
    CHECK(svg.find("step 1: " + token) != std::string::npos);
    CHECK(svg.find("step 0: a") != std::string::npos);
    CHECK(svg.find("\xC2\xB7 \xC2\xB7") == std::string::npos);  // before: "step 1 · ·"
    CHECK(svg.find("Decoding model-ok (gpt2), layer 0") != std::string::npos);
    CHECK(attn::test::slurp(out + "/gpt2-decode-cache.svg").find("KV cache of model-ok (gpt2)") != std::string::npos);
}

TEST_CASE("model: --query I walks the query to its softmax, with no empty context: a model run keeps no values") {
    const std::string out = attn::test::temp_dir();
    const auto r = attn::test::run_attn({"show", "--model", model_fixtures_dir() + "/model-ok", "--query", "1", "--svg", out,
                                         "--figures", "query", "a b"});
    REQUIRE(r.code == 0);
    CHECK(r.out.find("query 1: ") != std::string::npos);
    CHECK(r.out.find("\xCE\xA3_j w_ij v_j") == std::string::npos);  // no "Σ_j w_ij v_j", no empty context block
    const std::string svg = attn::test::slurp(out + "/gpt2-l0-h0-query.svg");
    CHECK(svg.find("softmax") != std::string::npos);
    CHECK(svg.find("context =") == std::string::npos);
}
