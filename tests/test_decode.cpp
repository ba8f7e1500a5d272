// attn decode: every step's weights and output against the rows of the full causal pass, computed
// here independently in plain double loops (projections from the parameters, causal softmax, W_out),
// for every kind that decodes, with each position scheme; the cache's bytes from its formula.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/kinds/decode.h"
#include "data/inputs/embed.h"
#include "tests/helpers.h"

using namespace attn;

namespace {

using Rows = std::vector<std::vector<double>>;

Rows plain(const Mat& m) {
    Rows r(m.shape(0), std::vector<double>(m.shape(1)));
    for (std::size_t i = 0; i < m.shape(0); ++i)
        for (std::size_t j = 0; j < m.shape(1); ++j) r[i][j] = m(i, j);
    return r;
}

Rows linear(const Rows& x, const Trace& t, const std::string& name) {
    const Rows w = plain(t.param("W_" + name)->value);
    const Param* b = t.param("b_" + name);
    Rows y(x.size(), std::vector<double>(w[0].size(), 0.0));
    for (std::size_t i = 0; i < x.size(); ++i)
        for (std::size_t o = 0; o < w[0].size(); ++o) {
            double s = b ? double(b->value(0, o)) : 0.0;
            for (std::size_t k = 0; k < x[i].size(); ++k) s += x[i][k] * w[k][o];
            y[i][o] = s;
        }
    return y;
}

// Hugging Face's rotate_half at position p, in place on columns [c0, c0 + d).
void rope_half(std::vector<double>& v, std::size_t c0, std::size_t d, double p) {
    std::vector<double> out(d);
    for (std::size_t c = 0; c < d; ++c) {
        const std::size_t i = c % (d / 2);
        const double a = p / std::pow(10000.0, double(2 * i) / double(d));
        const double rot = c < d / 2 ? -v[c0 + c + d / 2] : v[c0 + c - d / 2];
        out[c] = v[c0 + c] * std::cos(a) + rot * std::sin(a);
    }
    std::copy(out.begin(), out.end(), v.begin() + std::ptrdiff_t(c0));
}

struct Expect {
    std::vector<Rows> weights;  // (H) of (T, T)
    Rows output;                // (T, d_out)
};

// The full causal pass from the formulas: H query heads of d_k over G kv heads, window W (local).
Expect reference(const Trace& t, const std::string& pos, std::size_t H, std::size_t G, std::size_t d_k, long window) {
    const std::size_t T = t.tokens.size();
    Rows x = plain(t.x);
    if (pos == "sinusoidal")
        for (std::size_t p = 0; p < T; ++p)
            for (std::size_t c = 0; c < x[p].size(); ++c)
                x[p][c] += c % 2 == 0 ? std::sin(double(p) / std::pow(10000.0, double(c) / double(x[p].size())))
                                      : std::cos(double(p) / std::pow(10000.0, double(c - 1) / double(x[p].size())));
    Rows q = linear(x, t, "query"), k = linear(x, t, "key"), v = linear(x, t, "value");
    if (pos == "rope")
        for (std::size_t p = 0; p < T; ++p) {
            for (std::size_t h = 0; h < H; ++h) rope_half(q[p], h * d_k, d_k, double(p));
            for (std::size_t g = 0; g < G; ++g) rope_half(k[p], g * d_k, d_k, double(p));
        }
    const std::size_t d_v = v[0].size() / G;
    Expect e;
    Rows context(T, std::vector<double>(H * d_v, 0.0));
    for (std::size_t h = 0; h < H; ++h) {
        const std::size_t g = h / (H / G);
        const double slope = std::pow(2.0, -8.0 * double(h + 1) / double(H));  // H a power of two here
        Rows w(T, std::vector<double>(T, 0.0));
        for (std::size_t i = 0; i < T; ++i) {
            std::vector<double> z(T, -INFINITY);
            double m = -INFINITY, sum = 0.0;
            for (std::size_t j = 0; j <= i; ++j) {
                if (window >= 0 && long(i) - long(j) > window) continue;
                double s = 0.0;
                for (std::size_t c = 0; c < d_k; ++c) s += q[i][h * d_k + c] * k[j][g * d_k + c];
                z[j] = s / std::sqrt(double(d_k)) + (pos == "alibi" ? slope * (double(j) - double(i)) : 0.0);
                m = std::max(m, z[j]);
            }
            for (std::size_t j = 0; j <= i; ++j) sum += z[j] == -INFINITY ? 0.0 : std::exp(z[j] - m);
            for (std::size_t j = 0; j <= i; ++j) {
                w[i][j] = z[j] == -INFINITY ? 0.0 : std::exp(z[j] - m) / sum;
                for (std::size_t c = 0; c < d_v; ++c) context[i][h * d_v + c] += w[i][j] * v[j][g * d_v + c];
            }
        }
        e.weights.push_back(w);
    }
    e.output = t.param("W_out") ? linear(context, t, "out") : context;
    return e;
}

}  // namespace

TEST_CASE("decode: every step equals the row of the full causal pass within 1e-6, from the formulas") {
    struct Case {
        std::string kind;
        std::size_t H, G, d_out;
        long window;
    };
    const std::vector<Case> cases = {{"causal", 1, 1, 8, -1}, {"self", 1, 1, 8, -1},   {"mha", 4, 4, 16, -1},
                                     {"gqa", 4, 2, 16, -1},   {"mqa", 4, 1, 16, -1},   {"mha-wrapper", 2, 2, 6, -1},
                                     {"local", 1, 1, 8, 2},   {"flash", 2, 2, 8, -1}};
    double worst = 0.0, worst_full = 0.0;
    for (const Case& k : cases)
        for (const char* pos : {"none", "sinusoidal", "rope", "alibi"}) {
            Inputs in;
            in.tokens = {"your", "journey", "starts", "with", "one", "step", "and", "on"};
            in.x = embed_tokens(in.tokens, 8, 5);
            in.source_tokens = in.tokens, in.source_x = in.x;
            Settings c;
            c.kind = k.kind, c.d_in = 8, c.d_out = k.d_out, c.heads = k.H, c.kv_heads = k.G, c.pos = pos, c.qkv_bias = true;
            if (k.window >= 0) c.window = std::size_t(k.window);
            const DecodeTrace d = run_decode(in, c);
            const std::size_t d_k = k.kind == "mha-wrapper" || k.H == 1 ? k.d_out : k.d_out / k.H;
            const Expect e = reference(d.full, pos, k.H, k.G, d_k, k.window);
            REQUIRE(d.steps.size() == in.tokens.size());
            double diff = 0.0;
            for (const DecodeStep& s : d.steps) {
                REQUIRE(s.heads.size() == k.H);
                for (const DecodeHeadStep& h : s.heads) {
                    REQUIRE(h.weights.size() == s.step + 1);  // the t + 1 cached keys
                    for (std::size_t j = 0; j <= s.step; ++j)
                        diff = std::max(diff, std::fabs(double(h.weights[j]) - e.weights[h.head][s.step][j]));
                }
                for (std::size_t o = 0; o < s.output.size(); ++o)
                    diff = std::max(diff, std::fabs(double(s.output[o]) - e.output[s.step][o]));
                // float32 keys and values of the G kv heads, t + 1 tokens
                CHECK(s.cache_bytes == (s.step + 1) * k.G * (d_k + d_k) * 4);
            }
            INFO(k.kind << " --pos " << pos);
            CHECK(diff <= 1e-6);
            CHECK(d.max_abs_diff <= 1e-6);
            worst = std::max(worst, diff), worst_full = std::max(worst_full, d.max_abs_diff);
        }
    MESSAGE("decode against the formulas: largest difference " << worst << "; against the full pass: " << worst_full);
}

TEST_CASE("decode: the cache per token is G (d_k + d_v) 4 bytes for MHA, GQA and MQA") {
    Inputs in;
    in.tokens = {"a", "b", "c"};
    in.x = embed_tokens(in.tokens, 16, 1);
    in.source_tokens = in.tokens, in.source_x = in.x;
    Settings c;
    c.kind = "gqa", c.d_in = 16, c.d_out = 32, c.heads = 8, c.kv_heads = 2;
    const DecodeTrace d = run_decode(in, c);
    REQUIRE(d.variants.size() == 3);
    CHECK(d.variants[0].name == "MHA");
    CHECK(d.variants[0].bytes_per_token == 8 * (4 + 4) * 4);
    CHECK(d.variants[1].bytes_per_token == 2 * (4 + 4) * 4);
    CHECK(d.variants[1].this_run);
    CHECK(d.variants[2].bytes_per_token == 1 * (4 + 4) * 4);
    CHECK(d.steps.back().cache_bytes == 3 * 2 * 8 * 4);
}

TEST_CASE("decode: the binary writes the steps as JSON and two PNGs, and prints the cache growing") {
    const std::string dir = attn::test::temp_dir();
    const auto r = attn::test::run_attn({"decode", "--kind", "mqa", "--heads", "4", "--pos", "rope", "one two three",
                                         "--json", dir + "/d.json", "--png", dir + "/png"});
    REQUIRE(r.code == 0);
    CHECK(r.out.find("MQA  G = 1") != std::string::npos);
    CHECK(r.out.find("this run") != std::string::npos);
    const std::string json = attn::test::slurp(dir + "/d.json");
    CHECK(json.find("\"format\":\"attn-decode\"") != std::string::npos);
    CHECK(json.find("\"cache_bytes\":96") != std::string::npos);  // 3 tokens · 1 kv head · (4 + 4) · 4
    CHECK(attn::test::slurp(dir + "/png/mqa-decode-steps.png").substr(1, 3) == "PNG");
    CHECK(attn::test::slurp(dir + "/png/mqa-decode-cache.png").substr(1, 3) == "PNG");
}
