// A model layer's mean and rollout as full figures (show --model --show mean,rollout, render --show):
// the drawn numbers against a plain mean and rollout computed here from the trace's head weights, the
// file names show and render share, and the combinations refused. Also attn heads through the output
// routine: its maps and show's figures share a folder.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/helpers.h"
#include "tests/model_fixtures.h"

namespace {

using Json = nlohmann::json;
using Grid = std::vector<std::vector<double>>;

// A 3-layer, 2-head tiny GPT-2: the fixture's layer 0, and layers 1 and 2 with its attention weights
// in another order (so each layer attends differently).
std::string three_layer_model() {
    static const std::string dir = [] {
        const std::string d = attn::test::temp_dir();
        std::vector<attn::test::StEntry> t = attn::test::tiny_gpt2_tensors(8);
        const std::size_t n = t.size();
        for (int l = 1; l <= 2; ++l)
            for (std::size_t i = 0; i < n; ++i) {
                if (t[i].name.rfind("h.0.", 0) != 0) continue;
                attn::test::StEntry e = t[i];
                e.name = "h." + std::to_string(l) + "." + e.name.substr(4);
                if (e.name.find("c_attn.weight") != std::string::npos)  // floats rotated by l·5
                    std::rotate(e.bytes.begin(), e.bytes.begin() + 4 * 5 * l, e.bytes.end());
                t.push_back(e);
            }
        const std::string cfg = R"({"model_type": "gpt2", "n_layer": 3, "n_head": 2, "n_embd": 4, "n_positions": 8,)"
                                R"( "vocab_size": 257, "layer_norm_epsilon": 1e-05})";
        attn::test::write_model_folder(d, "m3", cfg, attn::test::safetensors_file(t));
        return d + "/m3";
    }();
    return dir;
}

bool exists(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0;
}

// Every head's weights of layer l in the JSON trace: (H) (T, T).
std::vector<Grid> head_weights(const Json& j, std::size_t l) {
    std::vector<Grid> out;
    for (const auto& h : j["attention"][0]["layers"][l]["heads"]) out.push_back(h["weights"].get<Grid>());
    return out;
}

// The plain mean over heads, in double.
Grid plain_mean(const std::vector<Grid>& heads) {
    const std::size_t T = heads[0].size();
    Grid m(T, std::vector<double>(T, 0.0));
    for (const Grid& w : heads)
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t k = 0; k < T; ++k) m[i][k] += w[i][k] / static_cast<double>(heads.size());
    return m;
}

// Abnar & Zuidema's rollout written out: Ã = (mean + I)/2 with rows renormalised; R_0 = Ã_0, R_l = Ã_l R_{l-1}.
Grid plain_rollout(const std::vector<Grid>& means) {
    Grid r;
    for (const Grid& m : means) {
        const std::size_t T = m.size();
        Grid a(T, std::vector<double>(T));
        for (std::size_t i = 0; i < T; ++i) {
            double s = 0;
            for (std::size_t k = 0; k < T; ++k) s += a[i][k] = 0.5 * m[i][k] + (i == k ? 0.5 : 0.0);
            for (std::size_t k = 0; k < T; ++k) a[i][k] /= s;
        }
        if (r.empty()) {
            r = a;
            continue;
        }
        Grid next(T, std::vector<double>(T, 0.0));
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t k = 0; k < T; ++k)
                for (std::size_t x = 0; x < T; ++x) next[i][k] += a[i][x] * r[x][k];
        r = next;
    }
    return r;
}

// The SVG's drawn cells: "query i … key j … weight v" in each cell's title; hidden cells stay -1.
Grid svg_cells(const std::string& svg, std::size_t T, std::size_t& drawn) {
    Grid g(T, std::vector<double>(T, -1.0));
    const std::regex cell(R"(<title>query (\d+) [^<]*key (\d+) [^<]*weight ([0-9.]+)</title>)");
    drawn = 0;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), cell); it != std::sregex_iterator(); ++it, ++drawn)
        g.at(std::stoul((*it)[1])).at(std::stoul((*it)[2])) = std::stod((*it)[3]);
    return g;
}

void check_cells(const Grid& drawn, const Grid& want) {
    const std::size_t T = want.size();
    double worst = 0;
    for (std::size_t i = 0; i < T; ++i)
        for (std::size_t k = 0; k < T; ++k) {
            if (k > i) {
                CHECK(drawn[i][k] == -1.0);  // hidden (causal): hatched, no value
                continue;
            }
            worst = std::max(worst, std::abs(drawn[i][k] - want[i][k]));
        }
    INFO("largest difference " << worst);
    CHECK(worst < 6e-5);  // drawn with 4 decimals
}

}  // namespace

TEST_CASE("layer figures: the mean and rollout drawn equal a plain mean and rollout of the trace's head weights") {
    const std::string dir = attn::test::temp_dir();
    const auto r = attn::test::run_in(dir, {"show", "--model", three_layer_model(), "--layer", "2", "--show", "mean,rollout", "--json",
                                            "t.json", "--svg", "s", "--png", "p", "abcde"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    const Json j = Json::parse(attn::test::slurp(dir + "/t.json"));
    std::vector<Grid> means;
    for (std::size_t l = 0; l < 3; ++l) means.push_back(plain_mean(head_weights(j, l)));
    const std::size_t T = means[0].size();
    REQUIRE(T == 5);
    std::size_t drawn = 0;
    check_cells(svg_cells(attn::test::slurp(dir + "/s/gpt2-l2-mean.svg"), T, drawn), means[2]);
    CHECK(drawn == T * (T + 1) / 2);
    check_cells(svg_cells(attn::test::slurp(dir + "/s/gpt2-l2-rollout.svg"), T, drawn), plain_rollout(means));
    // the titles say what each is; the terminal prints both
    const std::string mean_svg = attn::test::slurp(dir + "/s/gpt2-l2-mean.svg");
    CHECK(mean_svg.find("m3 \xC2\xB7 layer 2 \xC2\xB7 mean of 2 heads") != std::string::npos);  // the folder's name
    CHECK(attn::test::slurp(dir + "/s/gpt2-l2-rollout.svg").find("rollout through layers 0\xE2\x80\x93" "2") != std::string::npos);
    CHECK(mean_svg.find("class=\"key-label\"") != std::string::npos);  // token labels
    CHECK(mean_svg.find("class=\"hidden\"") != std::string::npos);     // hatched cells
    CHECK(mean_svg.find("keys every head hides (weight 0)") != std::string::npos);  // the legend says what hatching means here
    CHECK(attn::test::slurp(dir + "/s/gpt2-l2-rollout.svg").find("keys no path reaches (weight 0)") != std::string::npos);
    CHECK(r.out.find("m3 \xC2\xB7 layer 2 \xC2\xB7 mean of 2 heads (5\xC3\x97" "5)") != std::string::npos);
    CHECK(r.out.find("rollout = A\xCC\x83_2\xC2\xB7" "A\xCC\x83_1\xC2\xB7" "A\xCC\x83_0") != std::string::npos);
    for (const char* f : {"p/gpt2-l2-mean.png", "p/gpt2-l2-rollout.png", "p/gpt2-l2-h0-weights.png", "p/gpt2-overview.png"})
        CHECK_MESSAGE(exists(dir + "/" + f), f);
    // render of the saved trace draws the same files, byte for byte
    REQUIRE(attn::test::run_in(dir, {"render", "t.json", "--svg", "rs", "--layer", "2", "--show", "mean,rollout"}).code == 0);
    CHECK(attn::test::tree(dir + "/rs") == std::vector<std::string>{"gpt2-l2-mean.svg", "gpt2-l2-rollout.svg"});
    CHECK(attn::test::slurp(dir + "/rs/gpt2-l2-mean.svg") == mean_svg);
    CHECK(attn::test::slurp(dir + "/rs/gpt2-l2-rollout.svg") == attn::test::slurp(dir + "/s/gpt2-l2-rollout.svg"));
}

TEST_CASE("layer figures: show --model and render name a model head's files alike, with the same bytes") {
    const std::string dir = attn::test::temp_dir();
    REQUIRE(attn::test::run_in(dir, {"show", "--model", three_layer_model(), "--layer", "1", "--head", "1", "--png", "s", "--json", "t.json",
                                     "abcd"}).code == 0);
    REQUIRE(attn::test::run_in(dir, {"render", "t.json", "--png", "r", "--layer", "1", "--head", "1"}).code == 0);
    std::vector<std::string> shown;
    for (const std::string& f : attn::test::tree(dir + "/s"))
        if (f != "gpt2-overview.png") shown.push_back(f);
    REQUIRE(!shown.empty());
    CHECK(attn::test::tree(dir + "/r") == shown);
    for (const std::string& f : shown) CHECK_MESSAGE(attn::test::slurp(dir + "/r/" + f) == attn::test::slurp(dir + "/s/" + f), f);
    // render without --head: every layer's heads as gpt2-l<L>-<figure>, beside show's head in one folder
    REQUIRE(attn::test::run_in(dir, {"render", "t.json", "--png", "s"}).code == 0);
    for (const char* f : {"gpt2-l0-weights.png", "gpt2-l2-weights.png", "gpt2-l1-h1-weights.png", "gpt2-overview.png"})
        CHECK_MESSAGE(exists(dir + "/s/" + f), f);
}

TEST_CASE("layer figures: --show mean and rollout are refused where they cannot be drawn, with a hint") {
    const std::string dir = attn::test::temp_dir();
    REQUIRE(attn::test::run_in(dir, {"show", "--model", three_layer_model(), "--json", "t.json", "abc"}).code == 0);
    REQUIRE(attn::test::run_in(dir, {"show", "--kind", "mha", "--json", "k.json", "a b"}).code == 0);
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"show", "--kind", "causal", "--show", "weights,mean", "a b"},
         "--show mean: a layer's mean over heads belongs to a model run (hint: attn show --model DIR --show mean"},
        {{"render", "t.json", "--show", "rollout", "--html", "x.html"}, "--show rollout names figures, but no --png or --svg folder is given"},
        {{"render", "t.json", "--show", "mean", "--png", "o", "--head", "0"}, "--head picks one (hint: leave out --head, or --show heads)"},
        {{"render", "k.json", "--show", "mean", "--png", "o"}, "--show mean and rollout need a model's trace"},
        {{"render", "t.json", "--show", "context", "--png", "o"}, "--show context: render draws each layer's heads, mean or rollout (hint: "},
    };
    for (const auto& [args, message] : cases) {
        const auto r = attn::test::run_in(dir, args);
        INFO(args[0] << " " << args[1] << " " << args[2] << " " << args[3]);
        CHECK(r.code == 2);
        CHECK(attn::test::one_line(r).find(message) != std::string::npos);
    }
    CHECK(!exists(dir + "/o"));
}

TEST_CASE("heads: its maps and show's and render's figures share a folder, each run removes only files it would write") {
    const std::string dir = attn::test::temp_dir();
    const std::string m = three_layer_model();
    REQUIRE(attn::test::run_in(dir, {"show", "--model", m, "--layer", "1", "--head", "0", "--show", "mean", "--png", "slides", "abcab"}).code == 0);
    const std::vector<std::string> shown = attn::test::tree(dir + "/slides");
    attn::test::write(dir + "/slides/gpt2-heads-previous.png", "an earlier heads run's");
    attn::test::write(dir + "/slides/gpt2-heads-duplicate.png", "an earlier heads run's");
    // "abcd" repeats no token: no duplicate map this time, so the earlier one goes
    const auto h = attn::test::run_in(dir, {"heads", "--model", m, "--png", "slides", "--rank", "first", "--top", "1", "abcd"});
    INFO(h.err);
    REQUIRE(h.code == 0);
    CHECK(h.out.find("wrote PNGs to slides") != std::string::npos);
    for (const std::string& f : shown) CHECK_MESSAGE(exists(dir + "/slides/" + f), f);  // show's figures stay
    CHECK(attn::test::slurp(dir + "/slides/gpt2-heads-previous.png") != "an earlier heads run's");  // rewritten
    CHECK(!exists(dir + "/slides/gpt2-heads-duplicate.png"));                                       // its own stale map
    const std::vector<std::string> after_heads = attn::test::tree(dir + "/slides");
    // and back: show of the same head keeps heads' maps and its top head's figure
    REQUIRE(attn::test::run_in(dir, {"show", "--model", m, "--layer", "1", "--head", "0", "--png", "slides", "abcab"}).code == 0);
    CHECK(attn::test::tree(dir + "/slides") == after_heads);
    // heads refuses outputs as the routine does, and --max-memory as show --model
    auto r = attn::test::run_in(dir, {"heads", "--model", m, "--png", "-", "abc"});
    CHECK(r.code == 2);
    CHECK(attn::test::one_line(r).find("--png takes a folder; '-' (standard output) is for --json only") != std::string::npos);
    r = attn::test::run_in(dir, {"heads", "--model", m, "--json", "slides", "abc"});
    CHECK(r.code != 0);
    r = attn::test::run_in(dir, {"heads", "--model", m, "--max-memory", "1K", "abc"});
    CHECK(r.code == 2);
    CHECK(attn::test::one_line(r).find("more than --max-memory 1.0 KiB") != std::string::npos);
    r = attn::test::run_in(dir, {"heads", "--model", m, "--max-memory", "1x", "abc"});
    CHECK(r.code == 2);
}

TEST_CASE("heads: a model_type of a family (smollm, family llama) names its maps and their stale check by the family, as show does") {
    const std::string dir = attn::test::temp_dir();
    std::string cfg = attn::test::tiny_llama_config();
    cfg.replace(cfg.find("\"llama\""), 7, "\"smollm\"");
    attn::test::write_llama_folder(dir, "smol", cfg, attn::test::tiny_llama_tensors());
    ::mkdir((dir + "/d").c_str(), 0755);
    attn::test::write(dir + "/d/llama-heads-duplicate.png", "an earlier heads run's");
    const auto r = attn::test::run_in(dir, {"heads", "--model", "smol", "--png", "d", "abc"});  // no repeated token
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(exists(dir + "/d/llama-heads-previous.png"));
    CHECK(!exists(dir + "/d/llama-heads-duplicate.png"));
    // a --json over one of the folder's map names is refused before the run
    const auto clash = attn::test::run_in(dir, {"heads", "--model", "smol", "--png", "d", "--json", "d/llama-heads-first.png", "abc"});
    CHECK(clash.code == 2);
    CHECK(attn::test::one_line(clash).find("two outputs would both be written to 'd/llama-heads-first.png'") != std::string::npos);
}

// With the terminal alone a run holds only the chosen layer's heads, without raw scores; the mean-distance
// table is made as each layer is computed. Every line it prints is a full run's (--json keeps every layer
// with its scores), whichever layer, head, kept layers and views are asked for.
TEST_CASE("model terminal: a run holding the chosen layer alone prints what a run holding every layer prints") {
    const std::string m = three_layer_model(), out = attn::test::temp_dir();
    const std::vector<std::vector<std::string>> asks = {{},
                                                        {"--layer", "2", "--head", "1"},
                                                        {"--keep-layers", "0,2", "--layer", "2"},
                                                        {"--keep-layers", "1"},
                                                        {"--show", "weights,mean,rollout", "--layer", "1"},
                                                        {"--lens"},
                                                        {"--ablate", "1.0"}};
    for (const auto& ask : asks) {
        std::vector<std::string> run = {"show", "--model", m, "a b c"};
        run.insert(run.end() - 1, ask.begin(), ask.end());
        std::vector<std::string> with_json = run;
        with_json.insert(with_json.end() - 1, {"--json", out + "/t.json"});
        const auto terminal = attn::test::run_attn(run), full = attn::test::run_attn(with_json);
        INFO(full.out);
        REQUIRE_MESSAGE(terminal.code == 0, terminal.err);
        REQUIRE_MESSAGE(full.code == 0, full.err);
        CHECK(terminal.out.find("mean attention distance") != std::string::npos);
        CHECK(terminal.out + "wrote " + out + "/t.json\n" == full.out);
    }
    // the table's rows are the kept layers
    const auto two = attn::test::run_attn({"show", "--model", m, "--keep-layers", "0,2", "a b c"});
    CHECK(two.out.find("layer 0 ") != std::string::npos);
    CHECK(two.out.find("layer 1 ") == std::string::npos);
    CHECK(two.out.find("layer 2 ") != std::string::npos);
}
