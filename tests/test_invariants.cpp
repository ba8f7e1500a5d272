// The invariants attention must keep, whatever the kind: rows of weights sum to 1 (or 0), hidden cells
// are 0, gqa's grouping (G = 1 is mqa, G = H is mha), flash and --renorm equal plain softmax, softmax
// stays finite, pruned stages change nothing, dropout drops about p. On the cases of tests/reference_check.h.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/ops.h"
#include "tests/ops_helpers.h"
#include "tests/helpers.h"
#include "tests/reference.h"
#include "tests/reference_check.h"

using namespace attn;
using namespace attn::test;

namespace {

// ---- helpers for the invariants ------------------------------------------------------------------

// Largest |a - b|; -1 when the shapes differ.
double largest_diff(const Mat& a, const Mat& b) {
    if (a.shape(0) != b.shape(0) || a.shape(1) != b.shape(1)) return -1.0;
    double d = 0.0;
    for (std::size_t i = 0; i < a.shape(0); ++i)
        for (std::size_t j = 0; j < a.shape(1); ++j)
            d = std::max(d, std::fabs(static_cast<double>(a(i, j)) - static_cast<double>(b(i, j))));
    return d;
}

bool identical(const Mat& a, const Mat& b) { return largest_diff(a, b) == 0.0; }

bool finite(const Mat& m) {
    for (float v : m)
        if (!std::isfinite(v)) return false;
    return true;
}

bool all_finite(const Trace& t) {
    bool ok = finite(t.output);
    for (const auto& h : t.heads())
        ok = ok && finite(h.queries) && finite(h.keys) && finite(h.values) && finite(h.scores) && finite(h.weights) &&
             finite(h.dropped_weights) && finite(h.context);
    return ok;
}

}  // namespace

TEST_CASE("invariant: rows of weights sum to 1, or 0 when every key is hidden") {
    std::size_t full_rows = 0, empty_rows = 0;
    for (UserMask user : {UserMask::none, UserMask::sparse, UserMask::row})
        for (const Case& c : every_kind(user)) {
            INFO(c.label());
            const Inputs in = make_inputs(c);
            const Settings cfg = make_config(c);
            const Trace t = run_attention(in, cfg);
            const ref::Result want = ref::run(c.kind, plain(in.x), plain(in.source_x), plain(t.params),
                                              settings_for(cfg, in, t));
            REQUIRE(t.heads().size() == want.heads.size());
            for (std::size_t h = 0; h < t.heads().size(); ++h)
                for (std::size_t i = 0; i < t.heads()[h].weights.shape(0); ++i) {
                    double sum = 0.0;
                    bool any = false;
                    for (std::size_t j = 0; j < t.heads()[h].weights.shape(1); ++j) {
                        sum += static_cast<double>(t.heads()[h].weights(i, j));
                        any = any || want.heads[h].mask[i][j];
                    }
                    INFO("head " << h << ", row " << i << ": sum " << sum);
                    if (any) {
                        CHECK(std::fabs(sum - 1.0) <= 1e-6);
                        ++full_rows;
                    } else {
                        CHECK(sum == 0.0);
                        ++empty_rows;
                    }
                }
        }
    CHECK(empty_rows > 0);  // the row mask produced empty rows to check
    MESSAGE(full_rows << " rows sum to 1, " << empty_rows << " empty rows sum to 0");
}

TEST_CASE("invariant: hidden cells have weight exactly 0, before and after dropout") {
    std::size_t hidden = 0;
    for (float p : {0.0f, 0.5f})
        for (UserMask user : {UserMask::none, UserMask::sparse, UserMask::row})
            for (const Case& c : every_kind(user, p)) {
                INFO(c.label());
                const Inputs in = make_inputs(c);
                const Settings cfg = make_config(c);
                const Trace t = run_attention(in, cfg);
                const ref::Result want = ref::run(c.kind, plain(in.x), plain(in.source_x), plain(t.params),
                                                  settings_for(cfg, in, t));
                REQUIRE(t.heads().size() == want.heads.size());
                for (std::size_t h = 0; h < t.heads().size(); ++h) {
                    const HeadTrace& g = t.heads()[h];
                    for (std::size_t i = 0; i < want.heads[h].mask.size(); ++i)
                        for (std::size_t j = 0; j < want.heads[h].mask[i].size(); ++j) {
                            if (want.heads[h].mask[i][j]) continue;
                            ++hidden;
                            INFO("head " << h << ", cell (" << i << ", " << j << ")");
                            CHECK(g.weights(i, j) == 0.0f);
                            if (p > 0.0f) CHECK(g.dropped_weights(i, j) == 0.0f);
                        }
                }
            }
    CHECK(hidden > 0);
    MESSAGE(hidden << " hidden cells checked");
}

TEST_CASE("invariant: gqa with one kv head is mqa, number for number") {
    for (std::size_t H : {1u, 2u, 4u, 8u})
        for (bool bias : {false, true})
            for (bool causal : {false, true}) {
                Case g = Case("gqa").t(7).dims(8, 2 * H).heads(H, 1).causal(causal);
                Case m = Case("mqa").t(7).dims(8, 2 * H).heads(H, 1).causal(causal);
                if (bias) g.qkv_bias(), m.qkv_bias();
                INFO(g.label());
                const Trace tg = run_attention(make_inputs(g), make_config(g));
                const Trace tm = run_attention(make_inputs(m), make_config(m));
                REQUIRE(tg.params.size() == tm.params.size());
                for (std::size_t n = 0; n < tg.params.size(); ++n) {
                    CHECK(tg.params[n].name == tm.params[n].name);
                    CHECK(identical(tg.params[n].value, tm.params[n].value));
                }
                REQUIRE(tg.heads().size() == tm.heads().size());
                for (std::size_t h = 0; h < tg.heads().size(); ++h) {
                    CHECK(tg.heads()[h].kv_head == 0);
                    CHECK(tm.heads()[h].kv_head == 0);
                    CHECK(identical(tg.heads()[h].weights, tm.heads()[h].weights));
                    CHECK(identical(tg.heads()[h].context, tm.heads()[h].context));
                }
                INFO("largest output difference " << largest_diff(tg.output, tm.output));
                CHECK(identical(tg.output, tm.output));
            }
}

TEST_CASE("invariant: gqa with kv_heads = H is mha, number for number") {
    for (std::size_t H : {1u, 2u, 4u, 8u})
        for (bool bias : {false, true})
            for (bool causal : {false, true}) {
                Case g = Case("gqa").t(7).dims(8, 2 * H).heads(H, H).causal(causal);
                Case m = Case("mha").t(7).dims(8, 2 * H).heads(H, H).causal(causal);
                if (bias) g.qkv_bias(), m.qkv_bias();
                INFO(g.label());
                const Trace tg = run_attention(make_inputs(g), make_config(g));
                const Trace tm = run_attention(make_inputs(m), make_config(m));
                REQUIRE(tg.params.size() == tm.params.size());
                for (std::size_t n = 0; n < tg.params.size(); ++n) {
                    CHECK(tg.params[n].name == tm.params[n].name);
                    CHECK(identical(tg.params[n].value, tm.params[n].value));
                }
                REQUIRE(tg.heads().size() == tm.heads().size());
                for (std::size_t h = 0; h < tg.heads().size(); ++h) {
                    CHECK(tg.heads()[h].kv_head == h);
                    CHECK(tm.heads()[h].kv_head == h);
                    CHECK(identical(tg.heads()[h].weights, tm.heads()[h].weights));
                    CHECK(identical(tg.heads()[h].context, tm.heads()[h].context));
                }
                INFO("largest output difference " << largest_diff(tg.output, tm.output));
                CHECK(identical(tg.output, tm.output));
            }
}

TEST_CASE("invariant: flash equals self and causal within 1e-6, whatever the blocks") {
    double worst = 0.0;
    const std::vector<std::pair<std::size_t, std::size_t>> blocks = {{1, 1}, {3, 3}, {64, 64}, {1, 3}, {3, 1}, {5, 2}};
    for (std::size_t T : {7u, 13u})
        for (const auto& [bq, bk] : blocks)
            for (bool causal : {false, true})
                for (bool bias : {false, true}) {
                    Case f = Case("flash").t(T).dims(8, 6).blocks(bq, bk).causal(causal);
                    Case s = Case(causal ? "causal" : "self").t(T).dims(8, 6).causal(causal);
                    if (bias) f.qkv_bias(), s.qkv_bias();
                    INFO(f.label());
                    const Trace tf = run_attention(make_inputs(f), make_config(f));
                    const Trace ts = run_attention(make_inputs(s), make_config(s));
                    REQUIRE(tf.heads().size() == 1);
                    REQUIRE(ts.heads().size() == 1);
                    const double d_out = largest_diff(tf.output, ts.output);
                    const double d_ctx = largest_diff(tf.heads()[0].context, ts.heads()[0].context);
                    const double d_w = largest_diff(tf.heads()[0].weights, ts.heads()[0].weights);
                    INFO("output " << d_out << ", context " << d_ctx << ", weights " << d_w);
                    CHECK((d_out >= 0.0 && d_out <= 1e-6));
                    CHECK((d_ctx >= 0.0 && d_ctx <= 1e-6));
                    CHECK((d_w >= 0.0 && d_w <= 1e-6));
                    CHECK(!tf.tiles.empty());
                    worst = std::max({worst, d_out, d_ctx, d_w});
                }
    MESSAGE("flash vs self/causal: largest difference " << worst);
}

TEST_CASE("invariant: causal --renorm equals causal with -inf masking within 1e-6") {
    double worst = 0.0;
    std::vector<Case> cases = {
        Case("causal").t(1).dims(8, 4).causal(),
        Case("causal").t(6).dims(8, 4).causal(),
        Case("causal").t(13).dims(5, 12).causal().qkv_bias(),
        Case("causal").t(7).dims(8, 4).causal().user(UserMask::sparse),
        Case("causal").t(7).dims(8, 4).causal().user(UserMask::row),
        Case("causal").t(7).dims(8, 4).causal().dropout(0.3f),  // the same dropout draws either way
    };
    for (const Case& c : cases) {
        Case r = c;
        r.renorm();
        INFO(r.label());
        const Trace tc = run_attention(make_inputs(c), make_config(c));
        const Trace tr = run_attention(make_inputs(r), make_config(r));
        const double d_w = largest_diff(tr.heads()[0].weights, tc.heads()[0].weights);
        const double d_dropped = largest_diff(tr.heads()[0].dropped_weights, tc.heads()[0].dropped_weights);
        const double d_ctx = largest_diff(tr.heads()[0].context, tc.heads()[0].context);
        const double d_out = largest_diff(tr.output, tc.output);
        INFO("weights " << d_w << ", dropped weights " << d_dropped << ", context " << d_ctx << ", output " << d_out);
        CHECK((d_w >= 0.0 && d_w <= 1e-6));
        CHECK((d_dropped >= 0.0 && d_dropped <= 1e-6));
        CHECK((d_ctx >= 0.0 && d_ctx <= 1e-6));
        CHECK((d_out >= 0.0 && d_out <= 1e-6));
        CHECK(tr.empty_rows == tc.empty_rows);
        worst = std::max({worst, d_w, d_dropped, d_ctx, d_out});
    }
    MESSAGE("causal --renorm vs -inf masking: largest difference " << worst);
}

TEST_CASE("invariant: --renorm's zeroed stage is the softmax over every key with the hidden ones 0, and its rows renormalised are the weights") {
    for (const Case& c : {Case("causal").t(6).dims(8, 4).causal().renorm(), Case("causal").t(7).dims(8, 4).causal().renorm().user(UserMask::sparse)}) {
        INFO(c.label());
        const Trace t = run_attention(make_inputs(c), make_config(c));
        const HeadTrace& h = t.heads()[0];
        REQUIRE(h.zeroed.size() == h.weights.size());
        const std::size_t T = h.scores.shape(0), S = h.scores.shape(1);
        double worst = 0.0;
        for (std::size_t i = 0; i < T; ++i) {
            // a plain double softmax of scale·scores over every key, then 0 where hidden
            double m = -1e300, sum = 0.0, kept = 0.0;
            for (std::size_t j = 0; j < S; ++j) m = std::max(m, double(h.scale) * h.scores(i, j));
            for (std::size_t j = 0; j < S; ++j) sum += std::exp(double(h.scale) * h.scores(i, j) - m);
            for (std::size_t j = 0; j < S; ++j) {
                const double want = h.mask(i, j) ? std::exp(double(h.scale) * h.scores(i, j) - m) / sum : 0.0;
                worst = std::max(worst, std::fabs(want - h.zeroed(i, j)));
                kept += h.zeroed(i, j);
            }
            for (std::size_t j = 0; j < S; ++j)
                worst = std::max(worst, std::fabs((kept > 0 ? h.zeroed(i, j) / kept : 0.0) - h.weights(i, j)));
        }
        CHECK(worst <= 1e-6);
    }
}

TEST_CASE("invariant: gqa query head h reads kv head floor(h / (H/G)), by label and by numbers") {
    struct Grouping {
        std::size_t H, G;
        std::vector<std::size_t> kv;
    };
    for (const Grouping& grouping : {Grouping{6, 2, {0, 0, 0, 1, 1, 1}}, Grouping{8, 4, {0, 0, 1, 1, 2, 2, 3, 3}},
                                     Grouping{4, 1, {0, 0, 0, 0}}}) {
        const std::size_t H = grouping.H, G = grouping.G, d_k = 2;
        const Case c = Case("gqa").t(5).dims(8, H * d_k).heads(H, G).causal().qkv_bias();
        INFO(c.label());
        const Inputs in = make_inputs(c);
        const Trace t = run_attention(in, make_config(c));
        REQUIRE(t.heads().size() == H);
        // 1. the label
        for (std::size_t h = 0; h < H; ++h) CHECK(t.heads()[h].kv_head == grouping.kv[h]);
        // 2. the numbers: keys and values of head h are kv head g's columns of x W_key + b_key
        const ref::Params p = plain(t.params);
        const ref::M k = ref::linear(plain(in.x), ref::param(p, "W_key"), ref::param_or_null(p, "b_key"));
        const ref::M v = ref::linear(plain(in.x), ref::param(p, "W_value"), ref::param_or_null(p, "b_value"));
        REQUIRE(ref::n_cols(k) == G * d_k);
        Worst worst;
        for (std::size_t h = 0; h < H; ++h) {
            CAPTURE(h);
            compare("keys", t.heads()[h].keys, ref::columns(k, grouping.kv[h] * d_k, d_k), worst);
            compare("values", t.heads()[h].values, ref::columns(v, grouping.kv[h] * d_k, d_k), worst);
            // 3. heads sharing a kv head hold the same keys exactly; others differ
            for (std::size_t o = 0; o < H; ++o) {
                CAPTURE(o);
                const bool shared = grouping.kv[h] == grouping.kv[o];
                CHECK(identical(t.heads()[h].keys, t.heads()[o].keys) == shared);
                CHECK(identical(t.heads()[h].values, t.heads()[o].values) == shared);
                CHECK(identical(t.heads()[h].queries, t.heads()[o].queries) == (h == o));
            }
        }
    }
}

TEST_CASE("invariant: a token's embedding is the same at every position and in every sentence") {
    const std::size_t d = 8;
    const Mat a = embed_tokens({"the", "cat", "sat", "on", "the", "mat"}, d, 123);
    const Mat b = embed_tokens({"mat", "the"}, d, 123);
    const Mat other_seed = embed_tokens({"the"}, d, 124);
    CHECK(identical(rows(a, 0, 1), rows(a, 4, 1)));  // "the" at positions 0 and 4
    CHECK(identical(rows(a, 0, 1), rows(b, 1, 1)));  // "the" in another sentence
    CHECK(identical(rows(a, 5, 1), rows(b, 0, 1)));  // "mat" at position 5 and position 0
    CHECK(!identical(rows(a, 0, 1), rows(a, 1, 1)));  // different tokens differ
    CHECK(!identical(rows(a, 0, 1), other_seed));     // another seed, another vector
    for (float v : a) CHECK((v >= -1.0f && v < 1.0f));
    // and through a run: the trace's x repeats the repeated tokens of the test sentence
    const Case c = Case("self").t(14).dims(8, 4);
    const Trace t = run_attention(make_inputs(c), make_config(c));
    REQUIRE(t.tokens[6] == "and");
    REQUIRE(t.tokens[12] == "and");
    CHECK(identical(rows(t.x, 6, 1), rows(t.x, 12, 1)));
    CHECK(identical(rows(t.x, 11, 1), rows(t.x, 13, 1)));  // "on"
}

TEST_CASE("invariant: softmax stays finite and correct on rows with very different maxima") {
    SUBCASE("attn::masked_softmax on scores up to ±1e30") {
        Mat scores = {{1e30f, -1e30f, 0.0f, 1.0f},
                      {-1e30f, -1e30f, -1e30f, -1e30f},  // every score huge and negative: uniform
                      {1.0f, 2.0f, 3.0f, 4.0f},
                      {-1e30f, 5.0f, 1e30f, 1e30f},
                      {3e38f, -3e38f, 0.0f, 1e-30f},
                      {-1e30f, 0.0f, 0.0f, 0.0f}};      // every visible key hidden below
        Mask mask = full_mask(6, 4);
        mask(3, 3) = 0, mask(5, 1) = 0, mask(5, 2) = 0, mask(5, 3) = 0;
        for (float scale : {1.0f, 0.5f}) {
            CAPTURE(scale);
            Mat w;
            std::vector<std::size_t> empty;
            masked_softmax(scores, scale, mask, w, empty);
            Worst worst;
            compare("weights", w, ref::masked_softmax(plain(scores), static_cast<double>(scale), plain(mask)), worst);
            CHECK(finite(w));
            CHECK(empty.empty());
            CHECK(w(1, 0) == doctest::Approx(0.25));
            CHECK(w(0, 0) == 1.0f);
            CHECK(w(3, 2) == 1.0f);  // the other 1e30 is hidden
            CHECK(w(3, 3) == 0.0f);
            CHECK(w(5, 0) == 1.0f);  // the only visible key, however small its score
            MESSAGE("masked_softmax at scale " << scale << ": " << worst.summary("extreme scores"));
        }
    }
    SUBCASE("luong dot on embeddings of size 1e15, next to a row of small scores") {
        Inputs in;
        in.tokens = {"big", "minus", "small"}, in.source_tokens = {"p", "n", "q"};
        in.x = {{1e15f, 0.0f}, {-1e15f, 1e15f}, {1e-15f, 2e-15f}};      // (T, 2)
        in.source_x = {{1e15f, 0.0f}, {-1e15f, 0.0f}, {0.0f, 1e15f}};  // (S, 2)
        in.has_source = true;
        Settings c;
        c.kind = "luong", c.score = "dot", c.d_in = 2, c.d_out = 2, c.heads = 1, c.kv_heads = 1, c.causal = false;
        Worst worst;
        check_against_reference(in, c, worst);
        const Trace t = run_attention(in, c);
        CHECK(all_finite(t));
        CHECK(t.heads()[0].weights(0, 0) == 1.0f);  // scores 1e30, -1e30, 0
        CHECK(t.heads()[0].weights(2, 2) > t.heads()[0].weights(2, 0));  // scores 1, -1, 2
        MESSAGE(worst.summary("luong dot with scores of ±1e30"));
    }
}

TEST_CASE("invariant: a user mask hiding a whole row gives weights 0, context 0 and lists the row") {
    for (float p : {0.0f, 0.5f})
        for (Case c : every_kind(UserMask::row, p)) {
            c.t(5).user(UserMask::row, 2);
            INFO(c.label());
            const Trace t = run_attention(make_inputs(c), make_config(c));
            CHECK(all_finite(t));
            CHECK(t.empty_rows == std::vector<std::size_t>{2});
            for (const HeadTrace& h : t.heads()) {
                CAPTURE(h.head);
                for (std::size_t j = 0; j < h.weights.shape(1); ++j) CHECK(h.weights(2, j) == 0.0f);
                if (p > 0.0f)
                    for (std::size_t j = 0; j < h.dropped_weights.shape(1); ++j) CHECK(h.dropped_weights(2, j) == 0.0f);
                for (std::size_t d = 0; d < h.context.shape(1); ++d) CHECK(h.context(2, d) == 0.0f);
            }
            // the output row: 0 where it is the context, b_out where an output projection follows
            const Param* b_out = t.param("b_out");
            for (std::size_t d = 0; d < t.output.shape(1); ++d)
                CHECK(t.output(2, d) == (b_out ? b_out->value(0, d) : 0.0f));
        }
}

TEST_CASE("invariant: keeping only what the output needs computes the same output") {
    std::vector<Case> cases = every_kind(UserMask::none);
    for (const Case& c : every_kind(UserMask::row)) cases.push_back(c);
    for (const Case& c : cases) {
        INFO(c.label());
        Settings lean = make_config(c);
        lean.keep_weights = false;
        const Trace full = run_attention(make_inputs(c), make_config(c));
        const Trace slim = run_attention(make_inputs(c), lean);
        const double diff = largest_diff(slim.output, full.output);
        INFO("largest output difference " << diff);
        CHECK((diff >= 0.0 && diff <= 1e-6));  // -1: the shapes differ
        CHECK(slim.empty_rows == full.empty_rows);
    }
}

// Bytes equal: the same floats, cell by cell (xtensor's == on shapes and values).
bool same_bytes(const Mat& a, const Mat& b) {
    return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST_CASE("invariant: without raw scores (bench's run) every kind's weights, contexts and output are the same bytes") {
    // each head's softmax then runs in its scores' buffer, and a block's product covers only the keys its
    // rows see: the cells a causal, local or shifted mask hides are never computed, and must never be read
    std::vector<Case> cases = every_kind(UserMask::none);
    for (const Case& c : every_kind(UserMask::row)) cases.push_back(c);
    cases.push_back(Case("mha").t(600).dims(16, 8).heads(2, 2).causal());            // three 256-row blocks
    cases.push_back(Case("gqa").t(300).dims(16, 8).heads(4, 2).causal().user(UserMask::row, 280));
    cases.push_back(Case("local").t(520).dims(8, 4).window(40));                      // a band: lo > 0
    cases.push_back(Case("cross").t(300).s(530, 8).dims(8, 4).causal());             // T != S
    std::vector<std::pair<Case, Settings>> runs;
    for (const Case& c : cases) runs.emplace_back(c, make_config(c));
    runs.emplace_back(cases[cases.size() - 4], make_config(cases[cases.size() - 4]));
    runs.back().second.pos = "alibi";  // the bias added inside the computed keys only
    runs.emplace_back(cases.back(), make_config(cases.back()));
    runs.back().second.bottom_right = true;  // query i at key i + S - T
    for (const auto& [c, settings] : runs) {
        INFO(c.label() << " pos " << settings.pos << (settings.bottom_right ? " bottom-right" : ""));
        Settings lean = settings;
        lean.keep_scores = false;
        const Trace full = run_attention(make_inputs(c), settings);
        const Trace slim = run_attention(make_inputs(c), lean);
        REQUIRE(slim.heads().size() == full.heads().size());
        for (std::size_t h = 0; h < full.heads().size(); ++h) {
            CAPTURE(h);
            CHECK(same_bytes(slim.heads()[h].weights, full.heads()[h].weights));
            CHECK(same_bytes(slim.heads()[h].context, full.heads()[h].context));
            CHECK(slim.heads()[h].mask == full.heads()[h].mask);
        }
        CHECK(same_bytes(slim.output, full.output));
        CHECK(slim.empty_rows == full.empty_rows);
    }
}

TEST_CASE("invariant: dropout drops about p of the weights and scales the rest by 1/(1-p)") {
    for (float p : {0.1f, 0.3f, 0.7f}) {
        std::size_t dropped = 0, cells = 0;
        for (std::uint64_t seed : {5u, 6u, 7u}) {
            const Case c = Case("self").t(32).dims(8, 4).dropout(p).seed(seed);
            const Trace t = run_attention(make_inputs(c), make_config(c));
            const HeadTrace& h = t.heads()[0];
            REQUIRE(h.dropped_weights.shape(0) == 32);
            REQUIRE(h.dropped_weights.shape(1) == 32);
            // one torch.rand draw per cell, row-major, after the 3 · 8 · 4 weight draws: dropped iff < p
            std::mt19937 stream(static_cast<std::mt19937::result_type>(seed));
            stream.discard(3 * 8 * 4);
            for (std::size_t i = 0; i < 32; ++i)
                for (std::size_t j = 0; j < 32; ++j) {
                    const float u = static_cast<float>(stream() & 0xFFFFFFu) / 16777216.0f;
                    const double w = static_cast<double>(h.weights(i, j));
                    const double d = static_cast<double>(h.dropped_weights(i, j));
                    const double want = u < p ? 0.0 : w / (1.0 - static_cast<double>(p));
                    INFO("seed " << seed << ", cell (" << i << ", " << j << "): draw " << u << ", weight " << w
                                 << ", dropped weight " << d);
                    CHECK(std::fabs(d - want) <= 1e-6 * std::max(1.0, want));
                    dropped += d == 0.0, ++cells;
                }
        }
        // binomial: within 5 standard deviations of cells · p
        const double n = static_cast<double>(cells), q = static_cast<double>(p);
        INFO("p " << p << ": dropped " << dropped << " of " << cells);
        CHECK(std::fabs(static_cast<double>(dropped) - n * q) <= 5.0 * std::sqrt(n * q * (1.0 - q)));
    }
    // p = 0: no dropout at all, and no dropped weights in the trace
    const Case c = Case("self").t(6).dims(8, 4);
    CHECK(run_attention(make_inputs(c), make_config(c)).heads()[0].dropped_weights.size() == 0);
}
