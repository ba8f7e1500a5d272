// Step-by-step views: raw scores show every cell, masked scores show −∞ where hidden, the --renorm
// intermediate, one query's strip, dropped cells apart from small weights, and the terminal's width.
#include <algorithm>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "render/view/stages.h"
#include "render/terminal/terminal.h"
#include "tests/helpers.h"

using namespace attn;
using namespace attn::test;

namespace {

// The text of stdout between the line starting `from` and the next blank line.
std::string section(const std::string& out, const std::string& from) {
    const auto a = out.find("\n" + from);
    REQUIRE(a != std::string::npos);
    const auto b = out.find("\n\n", a + 1);
    return out.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}

}  // namespace

TEST_CASE("steps: causal raw scores show the future cells, masked scores show them as −∞") {
    const RunResult r = run_attn({"show", "--kind", "causal", "Your journey starts with", "--show", "scores,masked-scores"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    const std::string scores = section(r.out, "scores:"), masked = section(r.out, "masked-scores:");
    CHECK(scores.find("before the \xC3\x97" "0.25 scaling and the mask") != std::string::npos);
    const std::string scores_cells = scores.substr(scores.find("scores (4×4)"));
    const std::string masked_cells = masked.substr(masked.find("masked-scores (4×4)"));
    CHECK(count_of(scores_cells, "·") == 0);  // nothing hidden before the mask
    CHECK(count_of(scores_cells, "−∞") == 0);
    CHECK(count_of(masked_cells, "−∞") == 4 * 3 / 2);  // the strictly upper triangle of 4 x 4
}

TEST_CASE("steps: masked scores are scale·scores where visible and −∞ where hidden") {
    const Trace t = run_attention(journey(), journey_config("causal", 2, "torch", 123));
    const HeadTrace& h = t.heads()[0];
    const Mat m = render::masked_scores(h);
    for (std::size_t i = 0; i < 6; ++i)
        for (std::size_t j = 0; j < 6; ++j) {
            if (j > i) CHECK(m(i, j) == -std::numeric_limits<float>::infinity());
            else CHECK(m(i, j) == doctest::Approx(h.scores(i, j) / std::sqrt(2.0)).epsilon(1e-6));
        }
}

TEST_CASE("steps: the --renorm intermediate is the full softmax with the future zeroed, the weights are it renormalised") {
    Settings c = journey_config("causal", 2, "torch", 123);
    c.renorm = true;
    const Trace t = run_attention(journey(), c);
    const HeadTrace& h = t.heads()[0];
    const Mat z = render::zeroed_weights(h);
    for (std::size_t i = 0; i < 6; ++i) {
        // independent: softmax in double over all 6 keys of scores / sqrt(2)
        double mx = -1e300, sum = 0.0, kept = 0.0;
        for (std::size_t j = 0; j < 6; ++j) mx = std::max(mx, h.scores(i, j) / std::sqrt(2.0));
        for (std::size_t j = 0; j < 6; ++j) sum += std::exp(h.scores(i, j) / std::sqrt(2.0) - mx);
        for (std::size_t j = 0; j < 6; ++j) {
            const double p = std::exp(h.scores(i, j) / std::sqrt(2.0) - mx) / sum;
            CHECK(z(i, j) == doctest::Approx(j > i ? 0.0 : p).epsilon(1e-5));
            kept += j > i ? 0.0 : p;
        }
        if (i < 5) CHECK(kept < 1.0 - 1e-4);  // rows no longer sum to 1
        for (std::size_t j = 0; j <= i; ++j) CHECK(h.weights(i, j) == doctest::Approx(z(i, j) / kept).epsilon(1e-5));
    }
    const RunResult r = run_attn({"show", "--kind", "causal", "--renorm", "Your journey starts", "--show", "zeroed,weights"});
    REQUIRE(r.code == 0);
    CHECK(r.out.find("zeroed: softmax over every key (future ones too), then the hidden ones set to 0") != std::string::npos);
    CHECK(r.out.find("weights: softmax over every key, hidden ones zeroed, each row divided by its sum (--renorm)") !=
          std::string::npos);
}

TEST_CASE("steps: subtitles name the kind's score: additive vᵀtanh, Luong general, target and source axes") {
    const RunResult a = run_attn({"show", "--kind", "additive", "Wie geht es", "--source", "How are you", "--show", "scores"});
    REQUIRE(a.code == 0);
    CHECK(a.out.find("raw scores v\xE1\xB5\x80tanh(s_i W_q + h_j W_k)") != std::string::npos);
    CHECK(a.out.find("q_i\xC2\xB7k_j") == std::string::npos);
    CHECK(a.out.find("rows: target (query) tokens \xC2\xB7 columns: source (key) tokens") != std::string::npos);
    const RunResult l = run_attn(
        {"show", "--kind", "luong", "--score", "general", "Wie geht", "--source", "How are you", "--show", "scores"});
    REQUIRE(l.code == 0);
    CHECK(l.out.find("raw scores s_i\xC2\xB7(h_j W_k)") != std::string::npos);
    const RunResult s = run_attn({"show", "--kind", "self", "a b", "--show", "scores"});
    CHECK(s.out.find("rows: query tokens \xC2\xB7 columns: key tokens") != std::string::npos);
}

TEST_CASE("steps: --query I prints that query's scores, scaled, masked, softmax and its context") {
    const RunResult r = run_attn({"show", "--kind", "causal", "Your journey starts", "--query", "1", "--json", "q.json",
                                  "--precision", "4"},
                                 RunOptions{temp_dir(), "", false, ""});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("query 1 'journey'") != std::string::npos);
    for (const char* row : {"1 q_i\xC2\xB7k_j", "2 \xC3\x97" "0.25", "3 masked", "4 softmax", "5 context"})
        CHECK(r.out.find(row) != std::string::npos);
    // the softmax row is row 1 of the weights
    const std::string strip = r.out.substr(r.out.find("4 softmax"));
    const std::string line = strip.substr(0, strip.find('\n'));
    CHECK(count_of(line, "0.0000") == 1);  // the one future key of query 1
    CHECK(section(r.out, "3 masked").find("−∞") != std::string::npos);
}

TEST_CASE("steps: cells the dropout removed print as × apart from small weights") {
    const std::string dir = temp_dir();
    const RunResult r = run_attn({"show", "--kind", "self", "--dropout", "0.5", "The cat sat on the mat", "--show",
                                  "dropped", "--json", "t.json"},
                                 RunOptions{dir, "", false, ""});
    INFO(r.err);
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(slurp(dir + "/t.json"));
    std::size_t zeros = 0;
    for (const auto& row : j["attention"][0]["layers"][0]["heads"][0]["dropped_weights"])
        for (const auto& v : row) zeros += v.get<double>() == 0.0;
    REQUIRE(zeros > 0);
    const std::string cells = section(r.out, "dropped:").substr(section(r.out, "dropped:").find("dropped (6×6)") + 14);
    CHECK(count_of(cells, "×") == zeros);
}

TEST_CASE("terminal: a wider terminal shows more columns, and no line is wider than the terminal") {
    std::string sentence;
    for (int i = 0; i < 27; ++i) sentence += (i ? " " : "") + std::string("w") + std::to_string(i);
    const Trace t = [&] {
        Inputs in;
        Settings c;
        c.kind = "causal", c.causal = true, c.d_in = 4, c.d_out = 4;
        for (int i = 0; i < 27; ++i) in.tokens.push_back("w" + std::to_string(i));
        in.x = Mat::from_shape({27, 4});
        for (std::size_t k = 0; k < in.x.size(); ++k) in.x.data()[k] = static_cast<float>(std::sin(0.37 * double(k)));
        in.source_tokens = in.tokens, in.source_x = in.x;
        return run_attention(in, c);
    }();
    render::TerminalOptions opt;
    opt.width = 120;
    const std::string wide = terminal_view(t, opt);
    opt.width = 60;
    const std::string narrow = terminal_view(t, opt);
    const auto header_cols = [](const std::string& out) {
        const std::string w = out.substr(out.find("weights (27×27)"));
        const std::string head = w.substr(w.find('\n') + 1, w.find('\n', w.find('\n') + 1) - w.find('\n') - 1);
        return count_of(head, "w");
    };
    CHECK(header_cols(wide) >= 12);  // 3+3 before
    CHECK(header_cols(narrow) < header_cols(wide));
    for (const auto& [out, width] : {std::pair{wide, 120u}, std::pair{narrow, 60u}}) {
        std::size_t start = out.find("weights (27");
        for (std::size_t at = start; at < out.size();) {
            const auto nl = out.find('\n', at);
            const std::string line = out.substr(at, nl - at);
            if (line.empty()) break;
            CHECK(render::display_width(line) <= width);
            at = nl + 1;
        }
    }
}

TEST_CASE("terminal: heads side by side when they fit") {
    const Trace t = run_attention(journey(), [] {
        Settings c = journey_config("mha", 4, "torch", 123);
        c.heads = 2;
        return c;
    }());
    render::TerminalOptions opt;
    opt.width = 200;
    const std::string wide = terminal_view(t, opt);
    const auto line_of = [](const std::string& out, const std::string& needle) {
        const auto at = out.find(needle);
        REQUIRE(at != std::string::npos);
        return out.substr(out.rfind('\n', at) + 1, out.find('\n', at) - out.rfind('\n', at) - 1);
    };
    // MHA: each head has its own key/value head, so the titles name the head only
    CHECK(line_of(wide, "head 0 ").find("head 1 ") != std::string::npos);
    CHECK(wide.find(" kv ") == std::string::npos);
    opt.width = 60;
    const std::string narrow = terminal_view(t, opt);
    CHECK(line_of(narrow, "head 0 ").find("head 1") == std::string::npos);
}
