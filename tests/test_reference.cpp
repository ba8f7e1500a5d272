// Every kind in the registry against tests/reference.h, an independent plain-loop reference in
// double precision, over many shapes; then the invariants attention must keep. Each comparison
// reports its largest difference (INFO on failure, MESSAGE per kind).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/ops.h"
#include "tests/ops_helpers.h"
#include "tests/helpers.h"
#include "tests/reference.h"

using namespace attn;

namespace {

// ---- plain copies of the trace's matrices --------------------------------------------------------

ref::M plain(const Mat& m) {
    ref::M out = ref::zeros(m.shape(0), m.shape(1));
    for (std::size_t i = 0; i < m.shape(0); ++i)
        for (std::size_t j = 0; j < m.shape(1); ++j) out[i][j] = static_cast<double>(m(i, j));
    return out;
}

ref::Bits plain(const Mask& m) {
    ref::Bits out(m.shape(0), std::vector<int>(m.shape(1), 0));
    for (std::size_t i = 0; i < m.shape(0); ++i)
        for (std::size_t j = 0; j < m.shape(1); ++j) out[i][j] = m(i, j) != 0;
    return out;
}

ref::Params plain(const std::vector<Param>& params) {
    ref::Params out;
    for (const auto& p : params) out[p.name] = plain(p.value);
    return out;
}

// ---- inputs --------------------------------------------------------------------------------------

// "and" and "on" repeat: the same token at different positions.
const std::vector<std::string> kSentence = {"your", "journey", "starts", "with", "one", "step", "and",
                                            "the",  "road",    "goes",   "ever", "on",  "and",  "on"};
const std::vector<std::string> kSource = {"dein", "weg", "beginnt", "mit", "einem", "schritt", "heute", "und"};

std::vector<std::string> words(const std::vector<std::string>& from, std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(from[i % from.size()]);
    return out;
}

enum class UserMask { none, sparse, row };

// One run to check: the kind, the shapes and the options. S = 0: the sentence is its own source.
struct Case {
    std::string kind;
    std::size_t T = 6, S = 0, d_in = 8, d_src = 0, d_out = 4, H = 1, G = 1;
    bool is_causal = false, bias = false, renorm_ = false;
    float p = 0.0f;
    std::optional<std::size_t> window_;
    std::string score_ = "dot", init_ = "torch";
    std::size_t bq = 2, bk = 2;
    std::uint64_t seed_ = 123;
    UserMask user_ = UserMask::none;
    std::size_t hidden_row = 2;

    explicit Case(std::string k) : kind(std::move(k)) {}
    Case& t(std::size_t n) { return T = n, *this; }
    Case& s(std::size_t n, std::size_t width = 0) { return S = n, d_src = width, *this; }
    Case& dims(std::size_t in, std::size_t out) { return d_in = in, d_out = out, *this; }
    Case& heads(std::size_t h, std::size_t g) { return H = h, G = g, *this; }
    Case& causal(bool on = true) { return is_causal = on, *this; }
    Case& qkv_bias() { return bias = true, *this; }
    Case& renorm() { return renorm_ = true, *this; }
    Case& dropout(float q) { return p = q, *this; }
    Case& window(std::size_t w) { return window_ = w, *this; }
    Case& score(std::string s) { return score_ = std::move(s), *this; }
    Case& init(std::string s) { return init_ = std::move(s), *this; }
    Case& blocks(std::size_t q, std::size_t k) { return bq = q, bk = k, *this; }
    Case& seed(std::uint64_t s) { return seed_ = s, *this; }
    Case& user(UserMask m, std::size_t row = 2) { return user_ = m, hidden_row = row, *this; }

    std::string label() const {
        std::ostringstream o;
        o << kind << " T=" << T << " S=" << (S ? S : T) << " d_in=" << d_in << " d_src=" << (d_src ? d_src : d_in)
          << " d_out=" << d_out << " H=" << H << " G=" << G << (is_causal ? " causal" : "") << (bias ? " qkv-bias" : "")
          << (renorm_ ? " renorm" : "") << " p=" << p << " window=" << (window_ ? std::to_string(*window_) : "-")
          << " score=" << score_ << " init=" << init_ << " blocks=" << bq << "x" << bk << " seed=" << seed_
          << " user-mask=" << (user_ == UserMask::none ? "none" : user_ == UserMask::sparse ? "sparse" : "row");
        return o.str();
    }
};

Inputs make_inputs(const Case& c) {
    Inputs in;
    in.tokens = words(kSentence, c.T);
    in.x = embed_tokens(in.tokens, c.d_in, c.seed_);
    if (c.S > 0) {
        in.has_source = true;
        in.source_tokens = words(kSource, c.S);
        in.source_x = embed_tokens(in.source_tokens, c.d_src ? c.d_src : c.d_in, c.seed_ + 1);
    } else {
        in.source_tokens = in.tokens, in.source_x = in.x;
    }
    const std::size_t S = in.source_x.shape(0);
    if (c.user_ != UserMask::none) {
        Mask m = Mask::from_shape({c.T, S});
        for (std::size_t i = 0; i < c.T; ++i)
            for (std::size_t j = 0; j < S; ++j)
                m(i, j) = c.user_ == UserMask::row ? i != c.hidden_row : (3 * i + 5 * j + 1) % 7 != 0;
        in.user_mask = m;
    }
    return in;
}

// The case's settings, resolved by the registry as the CLI resolves them (H and G where the kind takes them).
Settings make_config(const Case& c) {
    SettingsRequest r;
    r.kind = c.kind, r.seed = c.seed_, r.init = c.init_;
    r.d_out = c.d_out, r.heads = c.H, r.kv_heads = c.G;
    r.causal = c.is_causal, r.qkv_bias = c.bias, r.renorm = c.renorm_, r.dropout = c.p;
    r.window = c.window_, r.score = c.score_, r.block_q = c.bq, r.block_k = c.bk;
    return resolve_settings(r, RunShape{c.T, c.S ? c.S : c.T, c.d_in, c.d_src ? c.d_src : c.d_in});
}

// The reference's settings from the config the test asked for (not the trace's), plus the cells
// dropout kept, read from the trace.
ref::Settings settings_for(const Settings& c, const Inputs& in, const Trace& t) {
    ref::Settings s;
    s.d_out = c.d_out, s.heads = c.heads, s.kv_heads = c.kv_heads, s.causal = c.causal, s.renorm = c.renorm;
    s.window = c.window.value_or(2);  // local's documented default
    s.score = c.score, s.dropout = static_cast<double>(c.dropout);
    if (in.user_mask) s.user_mask = plain(*in.user_mask);
    for (const HeadTrace& h : t.heads) {
        ref::Bits kept(h.dropped_weights.shape(0), std::vector<int>(h.dropped_weights.shape(1), 0));
        for (std::size_t i = 0; i < h.dropped_weights.shape(0); ++i)
            for (std::size_t j = 0; j < h.dropped_weights.shape(1); ++j) kept[i][j] = h.dropped_weights(i, j) != 0.0f;
        s.kept.push_back(kept);
    }
    return s;
}

// ---- comparison ----------------------------------------------------------------------------------

constexpr double kTolerance = 1e-5;  // relative to the matrix's magnitude max(1, max |reference|)

// The largest relative difference seen per stage, across the cases of one kind.
struct Worst {
    std::map<std::string, double> stage;
    std::size_t cases = 0;
    void note(const std::string& name, double rel) { stage[name] = std::max(stage[name], rel); }
    std::string summary(const std::string& what) const {
        std::ostringstream o;
        o << what;
        if (cases > 0) o << " (" << cases << (cases == 1 ? " case)" : " cases)");
        o << ", largest difference relative to max(1, |reference|):";
        for (const auto& [name, rel] : stage) o << "  " << name << " " << rel;
        return o.str();
    }
};

void compare(const std::string& stage, const Mat& got, const ref::M& want, Worst& worst) {
    REQUIRE(got.shape(0) == ref::n_rows(want));
    REQUIRE(got.shape(1) == ref::n_cols(want));
    double diff = 0.0, magnitude = 1.0;
    bool finite = true;
    for (std::size_t i = 0; i < want.size(); ++i)
        for (std::size_t j = 0; j < want[i].size(); ++j) {
            const double g = static_cast<double>(got(i, j));
            finite = finite && std::isfinite(g);
            diff = std::max(diff, std::fabs(g - want[i][j]));
            magnitude = std::max(magnitude, std::fabs(want[i][j]));
        }
    const double rel = diff / magnitude;
    INFO(stage << ": largest |difference| " << diff << ", magnitude " << magnitude << ", relative " << rel);
    CHECK(finite);
    CHECK(rel <= kTolerance);
    worst.note(stage, rel);
}

bool close_rel(double got, double want) {
    if (std::isinf(want)) return got == want;
    return std::fabs(got - want) <= kTolerance * std::max(1.0, std::fabs(want));
}

// flash: the tiles it recorded against the reference's running max and sum after each tile.
void compare_tiles(const Trace& t, const ref::Result& r, const Settings& c, Worst& worst) {
    std::vector<ref::Tile> want;  // head by head, in order
    for (std::size_t h = 0; h < r.heads.size(); ++h)
        for (const ref::Tile& tile : ref::flash_tiles(r.heads[h], h, c.block_q, c.block_k)) want.push_back(tile);
    REQUIRE(t.tiles.size() == want.size());
    double diff = 0.0;
    for (std::size_t n = 0; n < want.size(); ++n) {
        const Tile& g = t.tiles[n];
        const ref::Tile& w = want[n];
        CAPTURE(n);
        CHECK(g.head == w.head);
        CHECK(g.q_block == w.q_block);
        CHECK(g.k_block == w.k_block);
        CHECK(g.q_begin == w.q_begin);
        CHECK(g.q_end == w.q_end);
        CHECK(g.k_begin == w.k_begin);
        CHECK(g.k_end == w.k_end);
        REQUIRE(g.row_max.size() == w.row_max.size());
        REQUIRE(g.row_sum.size() == w.row_sum.size());
        for (std::size_t i = 0; i < w.row_max.size(); ++i) {
            INFO("row " << w.q_begin + i << ": running max " << g.row_max[i] << " want " << w.row_max[i]
                        << ", running sum " << g.row_sum[i] << " want " << w.row_sum[i]);
            CHECK(close_rel(static_cast<double>(g.row_max[i]), w.row_max[i]));
            CHECK(close_rel(static_cast<double>(g.row_sum[i]), w.row_sum[i]));
            if (!std::isinf(w.row_max[i]))
                diff = std::max({diff, std::fabs(static_cast<double>(g.row_max[i]) - w.row_max[i]) /
                                           std::max(1.0, std::fabs(w.row_max[i])),
                                 std::fabs(static_cast<double>(g.row_sum[i]) - w.row_sum[i]) /
                                     std::max(1.0, w.row_sum[i])});
        }
    }
    worst.note("tiles", diff);
}

const Diagnostic* diagnostic(const Trace& t, const std::string& name) {
    for (const auto& d : t.diagnostics)
        if (d.name == name) return &d;
    return nullptr;
}

// Runs one config on one input and checks every stage of the trace against the reference.
void check_against_reference(const Inputs& in, const Settings& c, Worst& worst) {
    const Trace t = run_attention(in, c);
    const ref::Result want =
        ref::run(c.kind, plain(in.x), plain(in.source_x), plain(t.params), settings_for(c, in, t));
    ++worst.cases;
    REQUIRE(t.heads.size() == want.heads.size());
    for (std::size_t h = 0; h < want.heads.size(); ++h) {
        CAPTURE(h);
        const HeadTrace& g = t.heads[h];
        const ref::Head& w = want.heads[h];
        CHECK(g.head == h);
        CHECK(g.kv_head == w.kv_head);
        compare("queries", g.queries, w.queries, worst);
        compare("keys", g.keys, w.keys, worst);
        compare("values", g.values, w.values, worst);
        compare("scores", g.scores, w.scores, worst);
        CHECK(std::fabs(static_cast<double>(g.scale) - w.scale) <= 1e-7 * w.scale);
        CHECK(plain(g.mask) == w.mask);
        compare("weights", g.weights, w.weights, worst);
        if (c.dropout > 0.0f) compare("dropped weights", g.dropped_weights, w.dropped, worst);
        else CHECK(g.dropped_weights.size() == 0);
        compare("context", g.context, w.context, worst);
    }
    compare("output", t.output, want.output, worst);
    CHECK(t.empty_rows == want.empty_rows);
    if (c.kind == "flash") {
        compare_tiles(t, want, c, worst);
        const Diagnostic* d = diagnostic(t, "flash_max_abs_diff");
        REQUIRE(d != nullptr);
        CHECK(d->value <= 1e-5);
    }
    if (c.kind == "causal" && c.renorm) {
        const Diagnostic* d = diagnostic(t, "renorm_max_abs_diff");
        REQUIRE(d != nullptr);
        CHECK(d->value <= 1e-6);
    }
}

void check_cases(const std::string& what, const std::vector<Case>& cases) {
    Worst worst;
    for (const Case& c : cases) {
        INFO(c.label());
        check_against_reference(make_inputs(c), make_config(c), worst);
    }
    MESSAGE(worst.summary(what));
}

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
    for (const auto& h : t.heads)
        ok = ok && finite(h.queries) && finite(h.keys) && finite(h.values) && finite(h.scores) && finite(h.weights) &&
             finite(h.dropped_weights) && finite(h.context);
    return ok;
}

// One representative case per kind (and per luong score and causal method), T = 7, source S = 5.
std::vector<Case> every_kind(UserMask user, float p = 0.0f) {
    std::vector<Case> cases = {
        Case("simple").t(7).dims(6, 6),
        Case("simple").t(7).dims(6, 6).causal(),
        Case("self").t(7).dims(8, 6).qkv_bias(),
        Case("causal").t(7).dims(8, 6).causal(),
        Case("causal").t(7).dims(8, 6).causal().renorm(),
        Case("mha-wrapper").t(7).dims(8, 3).heads(2, 2).causal(),
        Case("mha").t(7).dims(8, 8).heads(4, 4).causal().qkv_bias(),
        Case("gqa").t(7).dims(8, 8).heads(4, 2).causal(),
        Case("mqa").t(7).dims(8, 8).heads(4, 1),
        Case("cross").t(7).s(5, 6).dims(8, 4),
        Case("cross").t(7).s(5, 6).dims(8, 4).causal(),
        Case("additive").t(7).s(5, 6).dims(8, 4),
        Case("luong").t(7).s(5, 8).dims(8, 4).score("dot"),
        Case("luong").t(7).s(5, 6).dims(8, 4).score("general"),
        Case("luong").t(7).s(5, 6).dims(8, 4).score("concat"),
        Case("local").t(7).dims(8, 4).window(1),
        Case("local").t(7).dims(8, 4).window(2).causal(),
    };
    for (Case& c : cases) c.user(user).dropout(p);
    if (p == 0.0f) {  // flash takes no --dropout
        cases.push_back(Case("flash").t(7).dims(8, 4).blocks(3, 2).user(user));
        cases.push_back(Case("flash").t(7).dims(8, 4).blocks(2, 3).causal().user(user));
    }
    return cases;
}

}  // namespace

// ==== every kind against the reference ==============================================================

TEST_CASE("reference: simple") {
    check_cases("simple", {
        Case("simple").t(6).dims(8, 8),
        Case("simple").t(1).dims(8, 8),
        Case("simple").t(7).dims(3, 3).causal(),
        Case("simple").t(13).dims(16, 16).seed(7),
        Case("simple").t(6).dims(5, 5).user(UserMask::sparse),
        Case("simple").t(6).dims(5, 5).causal().dropout(0.2f),
    });
}

TEST_CASE("reference: self") {
    check_cases("self", {
        Case("self").t(6).dims(8, 4),
        Case("self").t(1).dims(8, 4),
        Case("self").t(7).dims(5, 12).qkv_bias(),
        Case("self").t(13).dims(16, 16).causal(),
        Case("self").t(6).dims(3, 2).init("torch-rand"),
        Case("self").t(6).dims(3, 2).init("torch-rand").qkv_bias(),
        Case("self").t(7).dims(8, 4).qkv_bias().user(UserMask::sparse),
        Case("self").t(7).dims(8, 4).qkv_bias().dropout(0.1f),
    });
}

TEST_CASE("reference: causal, -inf masking and --renorm") {
    check_cases("causal", {
        Case("causal").t(6).dims(8, 4).causal(),
        Case("causal").t(1).dims(8, 4).causal(),
        Case("causal").t(7).dims(5, 12).causal().qkv_bias(),
        Case("causal").t(13).dims(16, 16).causal().seed(99),
        Case("causal").t(7).dims(8, 4).causal().user(UserMask::sparse),
        Case("causal").t(7).dims(8, 4).causal().dropout(0.3f),
        Case("causal").t(7).dims(8, 4).causal(false),  // --no-causal: plain self-attention
    });
    check_cases("causal --renorm", {
        Case("causal").t(6).dims(8, 4).causal().renorm(),
        Case("causal").t(1).dims(8, 4).causal().renorm(),
        Case("causal").t(13).dims(5, 12).causal().renorm().qkv_bias(),
        Case("causal").t(7).dims(8, 4).causal().renorm().user(UserMask::sparse),
        Case("causal").t(7).dims(8, 4).causal().renorm().user(UserMask::row),
        Case("causal").t(7).dims(8, 4).causal().renorm().dropout(0.3f),
    });
}

TEST_CASE("reference: mha-wrapper") {
    check_cases("mha-wrapper", {
        Case("mha-wrapper").t(6).dims(8, 4).heads(1, 1).causal(),
        Case("mha-wrapper").t(6).dims(8, 4).heads(2, 2).causal(),
        Case("mha-wrapper").t(7).dims(5, 3).heads(4, 4).causal().qkv_bias(),
        Case("mha-wrapper").t(1).dims(8, 2).heads(2, 2).causal(),
        Case("mha-wrapper").t(7).dims(8, 4).heads(2, 2),
        Case("mha-wrapper").t(7).dims(8, 4).heads(2, 2).causal().user(UserMask::sparse),
        Case("mha-wrapper").t(7).dims(8, 4).heads(2, 2).causal().dropout(0.25f),
    });
}

TEST_CASE("reference: mha") {
    check_cases("mha", {
        Case("mha").t(6).dims(8, 8).heads(1, 1).causal(),
        Case("mha").t(6).dims(8, 8).heads(2, 2).causal(),
        Case("mha").t(7).dims(8, 8).heads(4, 4).causal().qkv_bias(),
        Case("mha").t(7).dims(8, 16).heads(8, 8).causal(),
        Case("mha").t(13).dims(6, 8).heads(8, 8).qkv_bias(),
        Case("mha").t(1).dims(8, 8).heads(2, 2).causal(),
        Case("mha").t(7).dims(8, 8).heads(2, 2).causal().user(UserMask::sparse),
        Case("mha").t(7).dims(8, 8).heads(4, 4).causal().dropout(0.2f),
    });
}

TEST_CASE("reference: gqa") {
    std::vector<Case> cases;
    const std::vector<std::pair<std::size_t, std::size_t>> groups = {{2, 1}, {4, 1}, {4, 2}, {4, 4}, {6, 2},
                                                                     {6, 3}, {8, 1}, {8, 2}, {8, 4}, {8, 8}};
    for (const auto& [H, G] : groups) {
        cases.push_back(Case("gqa").t(7).dims(8, 2 * H).heads(H, G).causal());
        cases.push_back(Case("gqa").t(5).dims(6, 3 * H).heads(H, G).qkv_bias());
    }
    cases.push_back(Case("gqa").t(1).dims(8, 8).heads(4, 2).causal());
    cases.push_back(Case("gqa").t(7).dims(8, 8).heads(4, 2).causal().user(UserMask::sparse));
    cases.push_back(Case("gqa").t(7).dims(8, 8).heads(4, 2).causal().dropout(0.2f));
    check_cases("gqa", cases);
}

TEST_CASE("reference: mqa") {
    check_cases("mqa", {
        Case("mqa").t(6).dims(8, 8).heads(1, 1).causal(),
        Case("mqa").t(6).dims(8, 8).heads(2, 1).causal(),
        Case("mqa").t(7).dims(8, 8).heads(4, 1).causal().qkv_bias(),
        Case("mqa").t(7).dims(5, 16).heads(8, 1),
        Case("mqa").t(1).dims(8, 8).heads(4, 1).causal(),
        Case("mqa").t(7).dims(8, 8).heads(4, 1).causal().dropout(0.2f),
    });
}

TEST_CASE("reference: cross, T != S") {
    check_cases("cross", {
        Case("cross").t(5).s(3, 6).dims(8, 4),
        Case("cross").t(1).s(4, 6).dims(8, 4),
        Case("cross").t(4).s(1, 6).dims(8, 4),
        Case("cross").t(1).s(1, 3).dims(8, 4),
        Case("cross").t(6).dims(8, 5),                      // no source: the sentence itself
        Case("cross").t(3).s(6, 8).dims(8, 5).causal(),     // top-left aligned: j <= i
        Case("cross").t(7).s(3, 8).dims(8, 5).causal(),     // rows past S see every key
        Case("cross").t(6).s(4, 6).dims(8, 4).qkv_bias(),
        Case("cross").t(6).s(4, 6).dims(8, 4).user(UserMask::sparse),
        Case("cross").t(6).s(4, 6).dims(8, 4).dropout(0.2f),
    });
}

TEST_CASE("reference: additive (Bahdanau)") {
    check_cases("additive", {
        Case("additive").t(5).s(3, 6).dims(8, 4),
        Case("additive").t(1).s(4, 6).dims(8, 4),
        Case("additive").t(4).s(1, 6).dims(8, 4),
        Case("additive").t(6).dims(8, 10),
        Case("additive").t(5).s(7, 3).dims(4, 1),
        Case("additive").t(5).s(3, 6).dims(8, 4).init("torch-rand"),
        Case("additive").t(6).s(4, 6).dims(8, 4).user(UserMask::sparse),
        Case("additive").t(6).s(4, 6).dims(8, 4).dropout(0.2f),
    });
}

TEST_CASE("reference: luong dot, general and concat") {
    check_cases("luong dot", {
        Case("luong").t(5).s(3, 8).dims(8, 4),
        Case("luong").t(1).s(1, 8).dims(8, 4),
        Case("luong").t(4).s(1, 8).dims(8, 4),
        Case("luong").t(6).dims(8, 4),
        Case("luong").t(6).s(4, 8).dims(8, 4).user(UserMask::sparse),
        Case("luong").t(6).s(4, 8).dims(8, 4).dropout(0.2f),
    });
    check_cases("luong general", {
        Case("luong").t(5).s(3, 6).dims(8, 4).score("general"),
        Case("luong").t(1).s(5, 6).dims(8, 4).score("general"),
        Case("luong").t(4).s(1, 6).dims(8, 4).score("general"),
        Case("luong").t(6).dims(8, 4).score("general"),
        Case("luong").t(6).s(4, 6).dims(8, 4).score("general").dropout(0.2f),
    });
    check_cases("luong concat", {
        Case("luong").t(5).s(3, 6).dims(8, 7).score("concat"),
        Case("luong").t(1).s(1, 6).dims(8, 7).score("concat"),
        Case("luong").t(6).dims(8, 4).score("concat"),
        Case("luong").t(6).s(4, 6).dims(8, 4).score("concat").user(UserMask::sparse),
    });
}

TEST_CASE("reference: local, with and without a causal window") {
    std::vector<Case> cases;
    for (std::size_t w : {0u, 1u, 2u, 3u, 20u})
        for (bool causal : {false, true}) cases.push_back(Case("local").t(7).dims(8, 4).window(w).causal(causal));
    cases.push_back(Case("local").t(1).dims(8, 4).window(1));
    cases.push_back(Case("local").t(13).dims(5, 12).window(2).qkv_bias());
    cases.push_back(Case("local").t(7).dims(8, 4).window(2).user(UserMask::sparse));
    cases.push_back(Case("local").t(7).dims(8, 4).window(1).causal().dropout(0.2f));
    check_cases("local", cases);
}

TEST_CASE("reference: flash, blocks that do and do not divide T") {
    std::vector<Case> cases;
    const std::vector<std::pair<std::size_t, std::size_t>> blocks = {{1, 1}, {3, 3}, {64, 64}, {2, 3}, {3, 2}, {4, 5}};
    for (std::size_t T : {1u, 7u, 13u})
        for (const auto& [bq, bk] : blocks)
            for (bool causal : {false, true}) cases.push_back(Case("flash").t(T).dims(8, 4).blocks(bq, bk).causal(causal));
    cases.push_back(Case("flash").t(7).dims(5, 12).blocks(3, 3).qkv_bias());
    cases.push_back(Case("flash").t(7).dims(8, 4).blocks(3, 2).user(UserMask::sparse));
    cases.push_back(Case("flash").t(7).dims(8, 4).blocks(3, 2).causal().user(UserMask::row, 4));
    // --heads: the projection split into H heads of d_out / H, contexts side by side
    cases.push_back(Case("flash").t(7).dims(8, 8).heads(2, 2).blocks(3, 2).causal().qkv_bias());
    cases.push_back(Case("flash").t(13).dims(8, 8).heads(4, 4).blocks(5, 3).user(UserMask::sparse));
    check_cases("flash", cases);
}

TEST_CASE("reference: every kind under a user mask and under dropout") {
    std::vector<Case> cases = every_kind(UserMask::sparse);
    for (const Case& c : every_kind(UserMask::row)) cases.push_back(c);
    for (const Case& c : every_kind(UserMask::none, 0.5f)) cases.push_back(c);
    check_cases("every kind, masked or with dropout", cases);
}

TEST_CASE("reference: every kind in the registry, with the kind's own defaults") {
    // A kind added to the registry without a reference fails here (ref::run throws).
    Worst worst;
    for (const Kind& k : kinds()) {
        Case c = Case(k.name).t(7).dims(8, 8).heads(k.defaults.heads, k.defaults.kv_heads).causal(k.defaults.causal);
        if (k.options & opt_source) c.s(5, 8);
        if (k.options & opt_qkv_bias) c.qkv_bias();
        INFO(c.label());
        CHECK_NOTHROW(check_against_reference(make_inputs(c), make_config(c), worst));
    }
    CHECK(worst.cases == kinds().size());
    MESSAGE(worst.summary("every kind with its defaults"));
}

// ==== invariants ===================================================================================

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
            REQUIRE(t.heads.size() == want.heads.size());
            for (std::size_t h = 0; h < t.heads.size(); ++h)
                for (std::size_t i = 0; i < t.heads[h].weights.shape(0); ++i) {
                    double sum = 0.0;
                    bool any = false;
                    for (std::size_t j = 0; j < t.heads[h].weights.shape(1); ++j) {
                        sum += static_cast<double>(t.heads[h].weights(i, j));
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
                REQUIRE(t.heads.size() == want.heads.size());
                for (std::size_t h = 0; h < t.heads.size(); ++h) {
                    const HeadTrace& g = t.heads[h];
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
                REQUIRE(tg.heads.size() == tm.heads.size());
                for (std::size_t h = 0; h < tg.heads.size(); ++h) {
                    CHECK(tg.heads[h].kv_head == 0);
                    CHECK(tm.heads[h].kv_head == 0);
                    CHECK(identical(tg.heads[h].weights, tm.heads[h].weights));
                    CHECK(identical(tg.heads[h].context, tm.heads[h].context));
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
                REQUIRE(tg.heads.size() == tm.heads.size());
                for (std::size_t h = 0; h < tg.heads.size(); ++h) {
                    CHECK(tg.heads[h].kv_head == h);
                    CHECK(tm.heads[h].kv_head == h);
                    CHECK(identical(tg.heads[h].weights, tm.heads[h].weights));
                    CHECK(identical(tg.heads[h].context, tm.heads[h].context));
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
                    REQUIRE(tf.heads.size() == 1);
                    REQUIRE(ts.heads.size() == 1);
                    const double d_out = largest_diff(tf.output, ts.output);
                    const double d_ctx = largest_diff(tf.heads[0].context, ts.heads[0].context);
                    const double d_w = largest_diff(tf.heads[0].weights, ts.heads[0].weights);
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
        const double d_w = largest_diff(tr.heads[0].weights, tc.heads[0].weights);
        const double d_dropped = largest_diff(tr.heads[0].dropped_weights, tc.heads[0].dropped_weights);
        const double d_ctx = largest_diff(tr.heads[0].context, tc.heads[0].context);
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
        REQUIRE(t.heads.size() == H);
        // 1. the label
        for (std::size_t h = 0; h < H; ++h) CHECK(t.heads[h].kv_head == grouping.kv[h]);
        // 2. the numbers: keys and values of head h are kv head g's columns of x W_key + b_key
        const ref::Params p = plain(t.params);
        const ref::M k = ref::linear(plain(in.x), ref::param(p, "W_key"), ref::param_or_null(p, "b_key"));
        const ref::M v = ref::linear(plain(in.x), ref::param(p, "W_value"), ref::param_or_null(p, "b_value"));
        REQUIRE(ref::n_cols(k) == G * d_k);
        Worst worst;
        for (std::size_t h = 0; h < H; ++h) {
            CAPTURE(h);
            compare("keys", t.heads[h].keys, ref::columns(k, grouping.kv[h] * d_k, d_k), worst);
            compare("values", t.heads[h].values, ref::columns(v, grouping.kv[h] * d_k, d_k), worst);
            // 3. heads sharing a kv head hold the same keys exactly; others differ
            for (std::size_t o = 0; o < H; ++o) {
                CAPTURE(o);
                const bool shared = grouping.kv[h] == grouping.kv[o];
                CHECK(identical(t.heads[h].keys, t.heads[o].keys) == shared);
                CHECK(identical(t.heads[h].values, t.heads[o].values) == shared);
                CHECK(identical(t.heads[h].queries, t.heads[o].queries) == (h == o));
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
        CHECK(t.heads[0].weights(0, 0) == 1.0f);  // scores 1e30, -1e30, 0
        CHECK(t.heads[0].weights(2, 2) > t.heads[0].weights(2, 0));  // scores 1, -1, 2
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
            for (const HeadTrace& h : t.heads) {
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

TEST_CASE("invariant: dropout drops about p of the weights and scales the rest by 1/(1-p)") {
    for (float p : {0.1f, 0.3f, 0.7f}) {
        std::size_t dropped = 0, cells = 0;
        for (std::uint64_t seed : {5u, 6u, 7u}) {
            const Case c = Case("self").t(32).dims(8, 4).dropout(p).seed(seed);
            const Trace t = run_attention(make_inputs(c), make_config(c));
            const HeadTrace& h = t.heads[0];
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
    CHECK(run_attention(make_inputs(c), make_config(c)).heads[0].dropped_weights.size() == 0);
}
