// attn page [OPTIONS] FILE [SENTENCE]: show's run options through show's binding, the page opening on that
// run (the same data as attn show's --html page of it), show's other options refused by name; and the
// kinds table's score stages, each name checked against what the kind's scores stage holds.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/kinds/kinds.h"
#include "data/inputs/inputs.h"
#include "tests/helpers.h"
#include "tests/page_helpers.h"

using namespace attn::test;

namespace {

void check_usage_line(const RunResult& r, const std::string& line) {
    INFO("stderr: " << r.err);
    CHECK(r.code == 2);
    CHECK(r.err == "attn: error: " + line + "\n");
    CHECK(r.out.empty());
}

// The page's data with what names the command that wrote it ("settings.input": attn page, attn show) left out.
nlohmann::json page_json_without_input(const std::string& path, const std::string& input) {
    PageData d = page_data(slurp(path));
    CHECK(d.json["settings"]["input"] == input);
    d.json["settings"].erase("input");
    d.json["blob_text"] = d.blob;  // the cells too
    return d.json;
}

}  // namespace

TEST_CASE("page: attn page refuses attn show's outputs, terminal view, model-run options and input files by name, writing nothing") {
    const std::string dir = temp_dir(), path = dir + "/lab.html";
    const std::map<std::string, std::vector<std::string>> outputs = {
        {"--json", {"--json", dir + "/t.json"}}, {"--png", {"--png", dir + "/png"}},       {"--svg", {"--svg", dir + "/svg"}},
        {"--npy", {"--npy", dir + "/npy"}},      {"--html", {"--html", dir + "/x.html"}}, {"--no-live", {"--no-live"}},
        {"--figures", {"--figures", "weights"}}, {"--prefix", {"--prefix", "lab"}},       {"--font", {"--font", dir + "/f.ttf"}},
        {"--scale", {"--scale", "1"}},           {"--values", {"--values", "always"}},     {"--force", {"--force"}}};
    for (const auto& [name, words] : outputs) {
        std::vector<std::string> args = {"page"};
        args.insert(args.end(), words.begin(), words.end());
        args.insert(args.end(), {path, "The cat sat"});
        INFO(name);
        check_usage_line(run_attn(args), name + " is an output of attn show; attn page writes only its FILE (hint: run attn show "
                                                "with the same options and " + name + ")");
    }
    const std::map<std::string, std::vector<std::string>> terminal = {
        {"--show", {"--show", "scores"}}, {"--precision", {"--precision", "2"}}, {"--full", {"--full"}},
        {"--query", {"--query", "0"}},    {"--head", {"--head", "0"}}};
    for (const auto& [name, words] : terminal) {
        std::vector<std::string> args = {"page"};
        args.insert(args.end(), words.begin(), words.end());
        args.insert(args.end(), {path, "The cat sat"});
        INFO(name);
        check_usage_line(run_attn(args), name + " chooses what attn show prints in the terminal; the page shows every stage, head "
                                                "and query (hint: drop " + name +
                                                ": the page's stage and head pickers choose, a click pins a query)");
    }
    const std::map<std::string, std::vector<std::string>> model_run = {
        {"--layer", {"--layer", "1"}},          {"--keep-layers", {"--keep-layers", "0"}}, {"--pair", {"--pair", "b"}},
        {"--target", {"--target", "b"}},        {"--max-new-tokens", {"--max-new-tokens", "3"}},
        {"--align-at", {"--align-at", "input"}}, {"--words", {"--words"}},                 {"--ablate", {"--ablate", "0.1"}},
        {"--ablate-mode", {"--ablate-mode", "mean"}}, {"--lens", {"--lens"}}};
    for (const auto& [name, words] : model_run) {
        std::vector<std::string> args = {"page"};
        args.insert(args.end(), words.begin(), words.end());
        args.insert(args.end(), {path, "The cat sat"});
        INFO(name);
        check_usage_line(run_attn(args), name + " applies to a model run, and attn page --model DIR only carries the folder for "
                                                "the page to run (hint: attn show --model DIR " + name +
                                                " ... \"text\" --html FILE writes that run's page)");
    }
    for (const char* name : {"--weights", "--embeddings", "--mask"}) {
        INFO(name);
        check_usage_line(run_attn({"page", name, dir + "/in.json", path, "The cat sat"}),
                         std::string(name) + " reads a file into the run, and the page's live panel reruns typed text with "
                         "seeded vectors (hint: attn show " + name + " FILE ... --html PAGE writes that run's page)");
    }
    CHECK(tree(dir).empty());
}

TEST_CASE("page: attn page --help lists show's run options, examples with options and a sentence, and --model as a carried folder") {
    const RunResult r = run_attn({"page", "--help"});
    REQUIRE(r.code == 0);
    for (const char* want : {"The HTML file to write", "sentence", "--kind", "--heads", "--kv-heads", "--source", "--dropout-seed", "--range", "--colormap",
                             "--example", "attn page --kind gqa --heads 4 --kv-heads 2 lab.html \"The cat sat on the mat\"",
                             "to carry in the page, at most 64 MiB of files"})
        CHECK_MESSAGE(r.out.find(want) != std::string::npos, want);
    CHECK(r.out.find("A Hugging Face model folder, or a repo id") == std::string::npos);  // show's meaning of --model
    for (const char* refused : {"--json", "--png", "--show", "--query", "--layer", "--lens", "--weights", "--mask"})
        CHECK_MESSAGE(r.out.find(std::string("  ") + refused + " ") == std::string::npos, refused);  // refused, so not listed
}

#ifdef ATTN_WASM_BUILT

TEST_CASE("page: attn page with show's run options holds the data of attn show's --html page of that run, its panel preset to the same words") {
    const std::string dir = temp_dir();
    const std::vector<std::vector<std::string>> runs = {
        {"--kind", "gqa", "--heads", "4", "--kv-heads", "2"},
        {"--kind", "additive", "--source", "How are you", "--range", "data", "--colormap", "gray"},
        {"--kind", "luong", "--score", "general", "--source", "How are you", "--log"},
        {"--kind", "causal", "--dropout", "0.5", "--dropout-seed", "7", "--pos", "rope", "--d-in", "8"}};
    for (const auto& options : runs) {
        std::vector<std::string> page = {"page"}, show = {"show"};
        page.insert(page.end(), options.begin(), options.end());
        page.insert(page.end(), {dir + "/lab.html", "some words here"});
        show.insert(show.end(), options.begin(), options.end());
        show.insert(show.end(), {"some words here", "--html", dir + "/x.html"});
        const RunResult p = run_attn(page), s = run_attn(show);
        INFO(p.err << s.err);
        REQUIRE(p.code == 0);
        REQUIRE(s.code == 0);
        CHECK(p.out == "wrote " + dir + "/lab.html\n");
        const nlohmann::json pj = page_json_without_input(dir + "/lab.html", "attn page");
        const nlohmann::json sj = page_json_without_input(dir + "/x.html", "attn show");
        CHECK(pj["kind"] == options[1]);
        CHECK(pj["live"]["argv"] == sj["live"]["argv"]);  // the panel preset to the run
        CHECK(pj == sj);
        CHECK(slurp(dir + "/lab.html").find("var AttnCore") != std::string::npos);
    }
}

TEST_CASE("page: attn page with no options is the causal run of the chapter's sentence, as attn show's page of it") {
    const std::string dir = temp_dir();
    REQUIRE(run_attn({"page", dir + "/lab.html"}).code == 0);
    REQUIRE(run_attn({"show", "--kind", "causal", "Your journey starts with one step", "--html", dir + "/x.html"}).code == 0);
    const nlohmann::json pj = page_json_without_input(dir + "/lab.html", "attn page");
    CHECK(pj["live"]["argv"] == nlohmann::json({"--kind", "causal", "Your journey starts with one step"}));
    CHECK(pj["tokens"] == nlohmann::json({"Your", "journey", "starts", "with", "one", "step"}));
    CHECK(pj == page_json_without_input(dir + "/x.html", "attn show"));
    // options without a sentence: the chapter's sentence through them
    REQUIRE(run_attn({"page", "--kind", "mha", "--heads", "2", dir + "/mha.html"}).code == 0);
    const nlohmann::json mj = page_data(slurp(dir + "/mha.html")).json;
    CHECK(mj["live"]["argv"] == nlohmann::json({"--kind", "mha", "--heads", "2", "Your journey starts with one step"}));
    CHECK(mj["layers"][0]["heads"].size() == 2);
    // --example is the input: no sentence in the panel's words
    REQUIRE(run_attn({"page", "--example", "journey", "--kind", "self", dir + "/ex.html"}).code == 0);
    CHECK(page_data(slurp(dir + "/ex.html")).json["live"]["argv"] == nlohmann::json({"--kind", "self", "--example", "journey"}));
}

TEST_CASE("page: attn page checks a run's options as attn show does and never writes over its --file text") {
    const std::string dir = temp_dir(), path = dir + "/lab.html";
    check_usage_line(run_attn({"page", "--kind", "mha", "--heads", "3", "--d-out", "8", path, "a b"}),
                     "--d-out 8 does not divide into --heads 3 (hint: pick --d-out as a multiple of --heads)");
    check_usage_line(run_attn({"page", "--kind", "cross", path, "a b"}),
                     "kind 'cross' needs --source (its keys and values) (hint: give the text to attend over, e.g. attn show "
                     "--kind cross \"Wie geht es\" --source \"How are you\")");
    check_usage_line(run_attn({"page", "--offline", path}), "--offline applies to --model NAME (hint: drop --offline)");
    const std::string text = dir + "/text.txt";
    {
        std::ofstream(text) << "the cat sat";
    }
    check_usage_line(run_attn({"page", "--file", text, text}),
                     "'" + text + "' is the --file text; attn page would overwrite it (hint: write the page elsewhere)");
    CHECK(slurp(text) == "the cat sat");
    CHECK(!std::filesystem::exists(path));
    REQUIRE(run_attn({"page", "--file", text, path}).code == 0);
    CHECK(page_data(slurp(path)).json["live"]["argv"] == nlohmann::json({"--kind", "causal", "the cat sat"}));
}

#endif

// ---- the score stages of the kinds table ----------------------------------------------------------------

namespace {

using attn::Mat;

double dot_row(const Mat& a, std::size_t i, const Mat& b, std::size_t j) {
    double s = 0.0;
    for (std::size_t d = 0; d < a.shape(1); ++d) s += double(a(i, d)) * double(b(j, d));
    return s;
}

// x (n, in) · W (in, out): sums in double, stored as float
Mat times(const Mat& x, const Mat& w) {
    Mat y = Mat::from_shape({x.shape(0), w.shape(1)});
    for (std::size_t i = 0; i < x.shape(0); ++i)
        for (std::size_t o = 0; o < w.shape(1); ++o) {
            double s = 0.0;
            for (std::size_t d = 0; d < x.shape(1); ++d) s += double(x(i, d)) * double(w(d, o));
            y(i, o) = float(s);
        }
    return y;
}

}  // namespace

TEST_CASE("kinds: each kind's score stages name what its scores hold, and a scale exactly where the run scales by 1/sqrt(d_k)") {
    using namespace attn;
    // every name the table gives a score, with the score it claims from the trace's vectors (double precision)
    const std::map<std::string, std::function<double(const Trace&, const HeadTrace&, std::size_t, std::size_t)>> claims = {
        {"q\xC2\xB7k", [](const Trace&, const HeadTrace& h, std::size_t i, std::size_t j) { return dot_row(h.queries, i, h.keys, j); }},
        {"x\xC2\xB7x", [](const Trace& t, const HeadTrace&, std::size_t i, std::size_t j) { return dot_row(t.x, i, t.x, j); }},
        {"s\xC2\xB7h", [](const Trace& t, const HeadTrace&, std::size_t i, std::size_t j) { return dot_row(t.x, i, t.source_x, j); }},
        {"s\xC2\xB7(h W_k)", [](const Trace& t, const HeadTrace&, std::size_t i, std::size_t j) {
             return dot_row(t.x, i, times(t.source_x, t.param("W_key")->value), j);
         }},
        {"v\xE1\xB5\x80tanh(q + k)", [](const Trace& t, const HeadTrace&, std::size_t i, std::size_t j) {
             // q = s W_q, k = h W_k: from the inputs and the parameters, not the trace's own q and k
             const Mat q = times(t.x, t.param("W_query")->value), k = times(t.source_x, t.param("W_key")->value);
             const Mat& v = t.param("v")->value;  // (d_out, 1)
             double e = 0.0;
             for (std::size_t d = 0; d < q.shape(1); ++d) e += double(v(d, 0)) * std::tanh(double(q(i, d)) + double(k(j, d)));
             return e;
         }}};
    std::size_t checked = 0;
    for (const Kind& kind : kinds())
        for (const char* score : {"dot", "general", "concat"}) {
            if (!(kind.options & opt_score) && std::string(score) != "dot") continue;
            InputRequest req;
            req.sentence = "the cat sat on the mat";
            req.d_in = 8;
            if (kind.source != SourceRule::sentence) req.source = "a dog ran off";
            const Inputs in = make_inputs(req);
            SettingsRequest sr;
            sr.kind = kind.name, sr.score = score;
            const RunShape shape{in.x.shape(0), in.source_x.shape(0), in.x.shape(1), in.source_x.shape(1)};
            const Trace t = run_attention(in, resolve_settings(sr, shape));
            const ScoreStages st = kind.score_stages(t.config);
            INFO(kind.name << " --score " << score << ": " << st.score);
            REQUIRE(claims.count(st.score) == 1);
            const HeadTrace& h = t.heads()[0];
            REQUIRE(h.keys.shape(1) > 1);  // a width of 1 would scale by 1 too
            if (st.scale == nullptr) CHECK(h.scale == 1.0f);
            else {
                CHECK(std::string(st.scale) == "\xC3\x97 1/\xE2\x88\x9A" "d_k");
                CHECK(h.scale == doctest::Approx(1.0 / std::sqrt(double(h.keys.shape(1)))).epsilon(1e-6));
            }
            double worst = 0.0, top = 0.0;
            for (std::size_t i = 0; i < h.scores.shape(0); ++i)
                for (std::size_t j = 0; j < h.scores.shape(1); ++j) {
                    const double want = claims.at(st.score)(t, h, i, j);
                    worst = std::max(worst, std::abs(want - double(h.scores(i, j))));
                    top = std::max(top, std::abs(want));
                }
            CHECK(top > 0.1);
            CHECK(worst <= 1e-5 * std::max(1.0, top));
            ++checked;
        }
    CHECK(checked == kKindCount + 2);  // luong's three scores
}

TEST_CASE("kinds: attn kinds --json gives each kind's score stages, luong's by score, and a seeded page carries its run's") {
    const RunResult r = run_attn({"kinds", "--json"});
    REQUIRE(r.code == 0);
    std::map<std::string, nlohmann::json> by_kind;
    for (const auto& k : nlohmann::json::parse(r.out)) by_kind[k["kind"]] = k["score_stages"];
    REQUIRE(by_kind.size() == attn::kKindCount);
    CHECK(by_kind["gqa"] == nlohmann::json({{"scores", "q\xC2\xB7k"}, {"scale", "\xC3\x97 1/\xE2\x88\x9A" "d_k"}}));
    CHECK(by_kind["additive"] == nlohmann::json({{"scores", "v\xE1\xB5\x80tanh(q + k)"}, {"scale", nullptr}}));
    CHECK(by_kind["simple"]["scale"].is_null());
    CHECK(by_kind["luong"]["scores"] == "s\xC2\xB7h");
    CHECK(by_kind["luong"]["by_score"]["general"] == nlohmann::json({{"scores", "s\xC2\xB7(h W_k)"}, {"scale", nullptr}}));
    CHECK(by_kind["luong"]["by_score"]["concat"] == by_kind["additive"]);
    const std::string dir = temp_dir();
    REQUIRE(run_attn({"show", "--kind", "luong", "--score", "general", "a b c", "--source", "d e", "--html", dir + "/l.html", "--no-live"}).code == 0);
    CHECK(page_data(slurp(dir + "/l.html")).json["score_stages"] == by_kind["luong"]["by_score"]["general"]);
}
