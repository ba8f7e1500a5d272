// The reference check of tests/reference_check.h.
#include "tests/reference_check.h"

#include <cmath>

#include "tests/helpers.h"

namespace attn::test {
namespace {

// "and" and "on" repeat: the same token at different positions.
const std::vector<std::string> kSentence = {"your", "journey", "starts", "with", "one", "step", "and",
                                            "the",  "road",    "goes",   "ever", "on",  "and",  "on"};
const std::vector<std::string> kSource = {"dein", "weg", "beginnt", "mit", "einem", "schritt", "heute", "und"};

std::vector<std::string> words(const std::vector<std::string>& from, std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(from[i % from.size()]);
    return out;
}

bool close_rel(double got, double want) {
    if (std::isinf(want)) return got == want;
    return std::fabs(got - want) <= kTolerance * std::max(1.0, std::fabs(want));
}

const Diagnostic* diagnostic(const Trace& t, const std::string& name) {
    for (const auto& d : t.diagnostics)
        if (d.name == name) return &d;
    return nullptr;
}

}  // namespace

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

std::string Case::label() const {
    std::ostringstream o;
    o << kind << " T=" << T << " S=" << (S ? S : T) << " d_in=" << d_in << " d_src=" << (d_src ? d_src : d_in)
      << " d_out=" << d_out << " H=" << H << " G=" << G << (is_causal ? " causal" : "") << (bias ? " qkv-bias" : "")
      << (renorm_ ? " renorm" : "") << " p=" << p << " window=" << (window_ ? std::to_string(*window_) : "-")
      << " score=" << score_ << " init=" << init_ << " blocks=" << bq << "x" << bk << " seed=" << seed_
      << " user-mask=" << (user_ == UserMask::none ? "none" : user_ == UserMask::sparse ? "sparse" : "row");
    return o.str();
}

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

Settings make_config(const Case& c) {
    SettingsRequest r;
    r.kind = c.kind, r.seed = c.seed_, r.init = c.init_;
    r.d_out = c.d_out, r.heads = c.H, r.kv_heads = c.G;
    r.causal = c.is_causal, r.qkv_bias = c.bias, r.renorm = c.renorm_, r.dropout = c.p;
    r.window = c.window_, r.score = c.score_, r.block_q = c.bq, r.block_k = c.bk;
    return resolve_settings(r, RunShape{c.T, c.S ? c.S : c.T, c.d_in, c.d_src ? c.d_src : c.d_in});
}

ref::Settings settings_for(const Settings& c, const Inputs& in, const Trace& t) {
    ref::Settings s;
    s.d_out = c.d_out, s.heads = c.heads, s.kv_heads = c.kv_heads, s.causal = c.causal, s.renorm = c.renorm;
    s.window = c.window.value_or(2);  // local's documented default
    s.score = c.score, s.dropout = static_cast<double>(c.dropout);
    if (in.user_mask) s.user_mask = plain(*in.user_mask);
    for (const HeadTrace& h : t.heads()) {
        ref::Bits kept(h.dropped_weights.shape(0), std::vector<int>(h.dropped_weights.shape(1), 0));
        for (std::size_t i = 0; i < h.dropped_weights.shape(0); ++i)
            for (std::size_t j = 0; j < h.dropped_weights.shape(1); ++j) kept[i][j] = h.dropped_weights(i, j) != 0.0f;
        s.kept.push_back(kept);
    }
    return s;
}

std::vector<Case> every_kind(UserMask user, float p) {
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

void check_against_reference(const Inputs& in, const Settings& c, Worst& worst) {
    const Trace t = run_attention(in, c);
    const ref::Result want =
        ref::run(c.kind, plain(in.x), plain(in.source_x), plain(t.params), settings_for(c, in, t));
    ++worst.cases;
    REQUIRE(t.heads().size() == want.heads.size());
    for (std::size_t h = 0; h < want.heads.size(); ++h) {
        CAPTURE(h);
        const HeadTrace& g = t.heads()[h];
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

}  // namespace attn::test
