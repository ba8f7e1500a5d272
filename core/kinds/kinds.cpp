#include "core/kinds/kinds.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "core/kinds/attention.h"
#include "core/base/ops.h"
#include "core/base/positions.h"
#include "data/base/error.h"
#include "data/base/strings.h"

namespace attn {
namespace {

constexpr std::array<const char*, kOptionCount> kOptionFlags = {
    "--heads", "--kv-heads", "--window", "--score", "--block-q/--block-k", "--renorm",
    "--causal/--no-causal", "--source", "--qkv-bias", "--d-out", "--init", "--dropout",
    "--pos/--rope-base/--rope-style", "--align"};
static_assert(kOptionFlags.size() == kOptionCount, "one flag name per Option bit");

void check(bool ok, const std::string& message, const std::string& hint = {}) {
    if (!ok) usage_error(message, hint);
}

// ---- head geometry: H, G, d_k, d_v ---------------------------------------------------------------

HeadGeometry geometry_embeddings(const Settings& s, std::size_t) { return {1, 1, s.d_in, s.d_in}; }
HeadGeometry geometry_one(const Settings& s, std::size_t) { return {1, 1, s.d_out, s.d_out}; }
HeadGeometry geometry_side_by_side(const Settings& s, std::size_t) { return {s.heads, s.heads, s.d_out, s.d_out}; }
HeadGeometry geometry_split(const Settings& s, std::size_t) {
    const std::size_t d_k = s.d_out / std::max<std::size_t>(s.heads, 1);
    return {s.heads, s.kv_heads, d_k, d_k};
}
HeadGeometry geometry_additive(const Settings& s, std::size_t d_src) { return {1, 1, s.d_out, d_src}; }
HeadGeometry geometry_luong(const Settings& s, std::size_t d_src) {
    return s.score == "concat" ? geometry_additive(s, d_src) : HeadGeometry{1, 1, s.d_in, d_src};
}

// ---- the kinds' own checks -------------------------------------------------------------------------

void check_nothing(const Settings&, const RunShape&) {}

void check_split_heads(const Settings& s, const RunShape&) {
    check(s.d_out % s.heads == 0,
          "--d-out " + std::to_string(s.d_out) + " does not divide into --heads " + std::to_string(s.heads),
          "pick --d-out as a multiple of --heads");
}

void check_luong(const Settings& s, const RunShape& shape) {
    if (s.score == "dot")
        check(shape.d_src == s.d_in, "luong --score dot needs the source and sentence vectors of equal width",
              "use --score general");
}

// ---- FLOPs: 2 per multiply-add, full counts; projections x (rows, in) · W (in, out) -------------

double product(double rows, std::size_t in, std::size_t out) { return 2.0 * rows * double(in) * double(out); }

StageFlops flops_attention(const RunShape& r, const HeadGeometry& g) {  // scores q kᵀ, context w v, per head
    StageFlops f{};
    const double TS = double(r.T) * double(r.S), H = double(g.heads);
    f[std::size_t(ProfileStage::scores)] = 2.0 * TS * double(g.d_k) * H;
    f[std::size_t(ProfileStage::context)] = 2.0 * TS * double(g.d_v) * H;
    return f;
}

StageFlops flops_embeddings(const Settings&, const RunShape& r, const HeadGeometry& g) { return flops_attention(r, g); }

StageFlops flops_qkv_width(const Settings& s, const RunShape& r, const HeadGeometry& g, std::size_t width) {
    StageFlops f = flops_attention(r, g);
    f[std::size_t(ProfileStage::projections)] = product(double(r.T), s.d_in, width) + 2.0 * product(double(r.S), r.d_src, width);
    return f;
}
StageFlops flops_qkv(const Settings& s, const RunShape& r, const HeadGeometry& g) { return flops_qkv_width(s, r, g, s.d_out); }
StageFlops flops_side_by_side(const Settings& s, const RunShape& r, const HeadGeometry& g) {
    return flops_qkv_width(s, r, g, s.heads * s.d_out);
}

StageFlops flops_split(const Settings& s, const RunShape& r, const HeadGeometry& g) {  // q (T, H·d_k), k, v (S, G·d_k), W_out
    StageFlops f = flops_attention(r, g);
    f[std::size_t(ProfileStage::projections)] =
        product(double(r.T), s.d_in, s.d_out) + 2.0 * product(double(r.S), r.d_src, g.kv_heads * g.d_k);
    f[std::size_t(ProfileStage::output)] = product(double(r.T), s.d_out, s.d_out);
    return f;
}

StageFlops flops_additive(const Settings& s, const RunShape& r, const HeadGeometry& g) {  // the v · tanh is not counted
    StageFlops f = flops_attention(r, g);
    f[std::size_t(ProfileStage::projections)] = product(double(r.T), s.d_in, s.d_out) + product(double(r.S), r.d_src, s.d_out);
    return f;
}

StageFlops flops_luong(const Settings& s, const RunShape& r, const HeadGeometry& g) {
    if (s.score == "concat") return flops_additive(s, r, g);
    StageFlops f = flops_attention(r, g);
    if (s.score == "general") f[std::size_t(ProfileStage::projections)] = product(double(r.S), r.d_src, s.d_in);
    return f;
}

StageFlops flops_flash(const Settings& s, const RunShape& r, const HeadGeometry& g) {
    StageFlops f = flops_qkv(s, r, g);
    // the tiles do the scores and the context; with a trace kept, the unblocked pass does both again
    f[std::size_t(ProfileStage::tiles)] = f[std::size_t(ProfileStage::scores)] + f[std::size_t(ProfileStage::context)];
    if (!s.keep_weights) f[std::size_t(ProfileStage::scores)] = f[std::size_t(ProfileStage::context)] = 0.0;
    return f;
}

// ---- the table ------------------------------------------------------------------------------------

// Kinds with Q/K/V projections; their dot-product queries and keys take positions (opt_pos).
constexpr unsigned kProj = opt_d_out | opt_init | opt_qkv_bias | opt_dropout | opt_pos;
constexpr std::optional<std::size_t> kNoWindow = std::nullopt;
using L = HeadLayout;

// Score formulas, as the views title them (render/view/stages.h).
const char* score_embeddings(const Settings&) { return "x_i\xC2\xB7x_j"; }
const char* score_qk(const Settings&) { return "q_i\xC2\xB7k_j"; }
const char* score_additive(const Settings&) { return "v\xE1\xB5\x80tanh(s_i W_q + h_j W_k)"; }
const char* score_luong(const Settings& s) {
    if (s.score == "concat") return score_additive(s);
    return s.score == "general" ? "s_i\xC2\xB7(h_j W_k)" : "s_i\xC2\xB7h_j";
}

// The score stages' names, as the page labels them; the scale's is nullptr where the kind does not scale.
ScoreStages stages_embeddings(const Settings&) { return {"x\xC2\xB7x", nullptr}; }
ScoreStages stages_qk(const Settings&) { return {"q\xC2\xB7k", "\xC3\x97 1/\xE2\x88\x9A" "d_k"}; }
ScoreStages stages_additive(const Settings&) { return {"v\xE1\xB5\x80tanh(q + k)", nullptr}; }  // q = s W_q, k = h W_k
ScoreStages stages_luong(const Settings& s) {
    if (s.score == "concat") return stages_additive(s);
    return {s.score == "general" ? "s\xC2\xB7(h W_k)" : "s\xC2\xB7h", nullptr};
}

constexpr std::array<Kind, kKindCount> kKinds = {{
    {KindId::simple, "simple", "dot-product attention on the embeddings themselves, no weights",
     "w = softmax(x xᵀ); context = w x", "Raschka, Build a Large Language Model (From Scratch), §3.3",
     opt_causal | opt_dropout, SourceRule::sentence, score_embeddings, stages_embeddings, {false, 1, KvHeads::as_heads, 1, L::one, kNoWindow, false},
     check_nothing, geometry_embeddings, flops_embeddings, layers_none, run_simple},
    {KindId::self, "self", "scaled dot-product self-attention with Q/K/V projections",
     "w = softmax(q kᵀ / sqrt(d_k)); q = x W_q, k = x W_k, v = x W_v; context = w v",
     "Vaswani et al. 2017, Attention Is All You Need", kProj | opt_causal, SourceRule::sentence, score_qk, stages_qk,
     {false, 1, KvHeads::as_heads, 1, L::one, kNoWindow, false}, check_nothing, geometry_one, flops_qkv, layers_qkv,
     run_self},
    {KindId::causal, "causal", "self-attention that hides future tokens (-inf before the softmax)",
     "w = softmax(mask(q kᵀ / sqrt(d_k))), mask: j > i -> -inf", "Vaswani et al. 2017; Radford et al. 2018 (GPT)",
     kProj | opt_causal | opt_renorm, SourceRule::sentence, score_qk, stages_qk, {true, 1, KvHeads::as_heads, 1, L::one, kNoWindow, false}, check_nothing,
     geometry_one, flops_qkv, layers_qkv, run_causal},
    {KindId::mha_wrapper, "mha-wrapper", "H independent causal heads of width d_out, outputs concatenated",
     "out = [head_1 | ... | head_H], head_h = causal(x; W_q^h, W_k^h, W_v^h)",
     "Vaswani et al. 2017; Raschka ch. 3 MultiHeadAttentionWrapper", kProj | opt_causal | opt_heads, SourceRule::sentence, score_qk, stages_qk,
     {true, 2, KvHeads::as_heads, 2, L::side_by_side, kNoWindow, false}, check_nothing, geometry_side_by_side,
     flops_side_by_side, layers_wrapper, run_mha_wrapper},
    {KindId::mha, "mha", "one projection split into H heads of d_out/H, then an output projection",
     "out = [head_1 | ... | head_H] W_o + b_o, head_h = softmax(q_h k_hᵀ / sqrt(d_k)) v_h",
     "Vaswani et al. 2017; Raschka ch. 3 MultiHeadAttention", kProj | opt_causal | opt_heads, SourceRule::sentence, score_qk, stages_qk,
     {true, 2, KvHeads::as_heads, 2, L::split, kNoWindow, false}, check_split_heads, geometry_split, flops_split,
     layers_mha, run_mha},
    {KindId::cross, "cross", "queries from the sentence, keys and values from --source",
     "w = softmax(q kᵀ / sqrt(d_k)); q = x W_q, k = src W_k, v = src W_v",
     "Vaswani et al. 2017 (encoder-decoder attention)", kProj | opt_causal | opt_source | opt_align, SourceRule::required, score_qk, stages_qk,
     {false, 1, KvHeads::as_heads, 1, L::one, kNoWindow, false}, check_nothing, geometry_one, flops_qkv, layers_qkv,
     run_cross},
    {KindId::additive, "additive", "Bahdanau attention: a small network scores each (query, source) pair",
     "e_ij = vᵀ tanh(s_i W_q + h_j W_k); w = softmax_j(e); context = w h. s_i is sentence token i's vector; "
     "the paper scores with the previous decoder state s_{i-1}, and attn has no decoder",
     "Bahdanau, Cho, Bengio 2014, Neural Machine Translation by Jointly Learning to Align and Translate",
     opt_d_out | opt_init | opt_source | opt_dropout, SourceRule::optional, score_additive, stages_additive, {false, 1, KvHeads::as_heads, 1, L::one, kNoWindow, false},
     check_nothing, geometry_additive, flops_additive, layers_additive, run_additive},
    {KindId::luong, "luong", "Luong attention: dot, general or concat scores over the source",
     "dot: e_ij = s_i · h_j; general: s_i · (h_j W_k); concat: vᵀ tanh(s_i W_q + h_j W_k)",
     "Luong, Pham, Manning 2015, Effective Approaches to Attention-based NMT",
     opt_d_out | opt_init | opt_source | opt_score | opt_dropout, SourceRule::optional, score_luong, stages_luong,
     {false, 1, KvHeads::as_heads, 1, L::one, kNoWindow, false}, check_luong, geometry_luong, flops_luong,
     layers_luong, run_luong},
    {KindId::mqa, "mqa", "multi-query attention: H query heads share one key/value head",
     "head_h = softmax(q_h k_0ᵀ / sqrt(d_k)) v_0; out = [heads] W_o + b_o",
     "Shazeer 2019, Fast Transformer Decoding: One Write-Head is All You Need", kProj | opt_causal | opt_heads, SourceRule::sentence, score_qk, stages_qk,
     {true, 4, KvHeads::one, 1, L::split, kNoWindow, false}, check_split_heads, geometry_split, flops_split,
     layers_mha, run_gqa},
    {KindId::gqa, "gqa", "grouped-query attention: H query heads share G key/value heads",
     "head_h uses kv head floor(h / (H/G)); out = [heads] W_o + b_o",
     "Ainslie et al. 2023, GQA: Training Generalized Multi-Query Transformer Models",
     kProj | opt_causal | opt_heads | opt_kv_heads, SourceRule::sentence, score_qk, stages_qk, {true, 4, KvHeads::option, 2, L::split, kNoWindow, false},
     check_split_heads, geometry_split, flops_split, layers_mha, run_gqa},
    {KindId::local, "local", "windowed self-attention: query i sees keys within W positions (Luong's local-m, not local-p)",
     "mask: |i - j| <= W (causal: i - W <= j <= i); w = softmax(mask(q kᵀ / sqrt(d_k)))",
     "Luong et al. 2015 (local attention); Beltagy et al. 2020 (Longformer)", kProj | opt_causal | opt_window, SourceRule::sentence, score_qk, stages_qk,
     {false, 1, KvHeads::as_heads, 1, L::one, kDefaultWindow, false}, check_nothing, geometry_one, flops_qkv,
     layers_qkv, run_local},
    {KindId::flash, "flash", "self/causal attention tile by tile with the online softmax (H heads: split, side by side)",
     "per tile: m' = max(m, rowmax S); l = e^(m-m') l + rowsum e^(S-m'); O = e^(m-m') O + e^(S-m') V; O / l",
     "Dao et al. 2022, FlashAttention; Dao 2023, FlashAttention-2; Milakov & Gimelshein 2018",
     (kProj & ~opt_dropout) | opt_causal | opt_blocks | opt_heads, SourceRule::sentence, score_qk, stages_qk,
     {false, 1, KvHeads::as_heads, 1, L::split, kNoWindow, true}, check_split_heads, geometry_split, flops_flash,
     layers_qkv, run_flash},
}};

constexpr bool rows_in_enum_order() {
    for (std::size_t i = 0; i < kKinds.size(); ++i)
        if (static_cast<std::size_t>(kKinds[i].id) != i) return false;
    return true;
}
static_assert(kKinds.size() == kKindCount, "one row per KindId");
static_assert(rows_in_enum_order(), "the table's rows follow KindId's order");

// --pos and its settings, from the row: the kind must take opt_pos (opt_align for --align), and
// rope needs an even head width d_k (the row's geometry).
void check_positions(const Kind& k, const Settings& s, const RunShape& shape) {
    const bool known = s.pos == "none" || s.pos == "sinusoidal" || s.pos == "rope" || s.pos == "alibi";
    check(known, "--pos must be none, sinusoidal, rope or alibi, not '" + s.pos + "'");
    check(s.pos == "none" || (k.options & opt_pos), "--pos does not apply to kind '" + s.kind + "'",
          "it applies to: " + kinds_taking(opt_pos));
    check(!s.bottom_right || (k.options & opt_align), "--align does not apply to kind '" + s.kind + "'",
          "it applies to: " + kinds_taking(opt_align));
    check(s.rope_style == "half" || s.rope_style == "interleaved",
          "--rope-style must be half or interleaved, not '" + s.rope_style + "'");
    check(s.rope_base > 1.0 && std::isfinite(s.rope_base), "--rope-base must be a number above 1");
    const HeadGeometry g = k.geometry(s, shape.d_src);
    if (s.pos == "rope")
        check(g.d_k % 2 == 0, "--pos rope needs an even head width, and d_k is " + std::to_string(g.d_k),
              g.heads > 1 && k.defaults.layout == HeadLayout::split ? "pick --d-out as an even multiple of --heads"
                                                                    : "pick an even --d-out");
}

// --pos sinusoidal: the inputs the kind reads are x + PE (and the source + its own PE); the trace
// keeps x and the tables apart.
Inputs add_sinusoidal(const Inputs& in, const Settings& s, Trace& t) {
    if (s.pos != "sinusoidal") return {};
    Inputs out = in;
    const std::size_t T = in.x.shape(0), S = in.source_x.shape(0);
    const PositionFrame f = position_frame(s, T, S);
    t.positions = sinusoidal_table(T, in.x.shape(1), f.q0);  // (T, d_in)
    out.x = in.x + t.positions;
    const Mat source_pe = sinusoidal_table(S, in.source_x.shape(1), f.k0);  // (S, d_src)
    out.source_x = in.source_x + source_pe;
    if (in.has_source) t.source_positions = source_pe;
    return out;
}

// Tiles of 2 for a short sentence (a picture of every step), 64 otherwise.
std::size_t default_block(std::size_t positions) { return positions <= 16 ? 2 : 64; }

}  // namespace

std::string option_flags(unsigned options) {
    std::vector<std::string> names;
    for (unsigned b = 0; b < kOptionCount; ++b)
        if (options & (1u << b)) names.emplace_back(kOptionFlags[b]);
    return join(names);
}

const std::array<Kind, kKindCount>& kinds() { return kKinds; }

unsigned variant_options(const Kind& kind, const std::string& score) {
    if (kind.id != KindId::luong) return kind.options;
    if (score == "dot") return kind.options & ~(opt_d_out | opt_init);
    if (score == "general") return kind.options & ~opt_d_out;
    return kind.options;
}

const Kind& kind(KindId id) { return kKinds[static_cast<std::size_t>(id)]; }

const Kind* find_kind(const std::string& name) {
    for (const auto& k : kKinds)
        if (name == k.name) return &k;
    return nullptr;
}

const Kind& kind_named(const std::string& name) {
    const Kind* k = find_kind(name);
    if (k == nullptr) {
        std::vector<std::string> names;
        for (const Kind& kind : kKinds) names.push_back(kind.name);
        const std::string near = nearest_name(name, names);  // "did you mean", as for option names
        usage_error("unknown kind '" + excerpt(name) + "'",
                    (near.empty() ? "" : "did you mean '" + near + "'? ") + "choose one of: " + kind_names() + " (see 'attn kinds')");
    }
    return *k;
}

bool has_source_axes(const Trace& t) {
    const Kind* k = find_kind(t.kind);
    return t.has_source || (k != nullptr && k->source != SourceRule::sentence);
}

std::string score_formula(const Trace& t) {
    const Kind* k = find_kind(t.kind);
    return k != nullptr ? k->score_formula(t.config) : score_qk(t.config);
}

std::string kind_names() {
    std::vector<std::string> names;
    for (const auto& k : kKinds) names.emplace_back(k.name);
    return join(names);
}

std::string kinds_taking(unsigned option) {
    std::vector<std::string> names;
    for (const auto& k : kKinds)
        if (k.options & option) names.emplace_back(k.name);
    return join(names);
}

Settings resolve_settings(const SettingsRequest& r, const RunShape& shape) {
    const Kind& k = kind_named(r.kind);
    const KindDefaults& d = k.defaults;
    const auto takes = [&](unsigned option) { return (k.options & option) != 0; };
    Settings s;
    // 1. what is recorded as asked (a dropout of -0 is recorded as 0)
    s.kind = k.name, s.seed = r.seed, s.init = r.init, s.d_in = shape.d_in;
    s.qkv_bias = r.qkv_bias, s.renorm = r.renorm, s.score = r.score, s.keep_weights = r.keep_weights;
    s.dropout = r.dropout == 0.0f ? 0.0f : r.dropout;
    s.dropout_seed = r.dropout_seed;
    s.pos = r.pos, s.rope_base = r.rope_base, s.rope_style = r.rope_style, s.bottom_right = r.bottom_right;
    // 2. heads: H, then G = H, 1 or --kv-heads
    s.heads = takes(opt_heads) && r.heads ? *r.heads : d.heads;
    s.kv_heads = d.kv == KvHeads::one ? 1 : d.kv == KvHeads::as_heads ? s.heads : r.kv_heads.value_or(d.kv_heads);
    // 3. the projection width: d_in unless given; split heads round the default up to a multiple of H
    s.d_out = r.d_out.value_or(shape.d_in);
    if (d.layout == HeadLayout::split && !r.d_out && s.d_out % s.heads != 0)
        s.d_out = s.heads * ((s.d_out + s.heads - 1) / s.heads);
    // 4. masking and tiling
    s.causal = r.causal.value_or(d.causal);
    if (takes(opt_window)) s.window = r.window ? r.window : d.window;
    if (d.tiled) {
        s.block_q = r.block_q.value_or(default_block(shape.T));
        s.block_k = r.block_k.value_or(default_block(shape.S));
    }
    return s;
}

void check_settings(const Settings& s, const RunShape& shape) {
    const Kind& k = kind_named(s.kind);
    check(s.d_in == shape.d_in, "--d-in does not match the embeddings' width");
    check(s.d_out >= 1, "--d-out must be at least 1");
    check(s.heads >= 1, "--heads must be at least 1");
    check(s.kv_heads >= 1, "--kv-heads must be at least 1");
    check(s.dropout >= 0.0f && s.dropout < 1.0f, "--dropout must be in [0, 1)");
    k.check(s, shape);
    const std::size_t G = k.defaults.kv == KvHeads::one ? 1 : s.heads;
    check(k.defaults.kv == KvHeads::option || s.kv_heads == G,
          "kind '" + s.kind + "' has " + std::to_string(G) + " key/value head(s), not " + std::to_string(s.kv_heads));
    check(s.heads % s.kv_heads == 0 && s.kv_heads <= s.heads,
          "--heads " + std::to_string(s.heads) + " does not divide by --kv-heads " + std::to_string(s.kv_heads),
          "pick --kv-heads as a divisor of --heads");
    check(s.block_q >= 1 && s.block_k >= 1, "--block-q and --block-k must be at least 1");
    check(s.score == "dot" || s.score == "general" || s.score == "concat",
          "--score must be dot, general or concat, not '" + s.score + "'");
    check(!k.defaults.window || s.window.has_value(), "kind '" + s.kind + "' needs a --window");
    check_positions(k, s, shape);
}

Trace run_attention(const Inputs& in, const Settings& s, const RunHooks& hooks) {
    const Kind& k = kind_named(s.kind);
    const RunShape shape{in.x.shape(0), in.source_x.shape(0), in.x.shape(1), in.source_x.shape(1)};
    // 1. the inputs and the settings, as usage errors
    check(shape.T > 0 && shape.d_in > 0, "there are no tokens to attend over", "give a non-empty sentence");
    check(in.tokens.size() == shape.T && in.source_tokens.size() == shape.S && shape.S > 0,
          "tokens and embedding rows differ in count");
    check_settings(s, shape);
    check(!in.user_mask || (in.user_mask->shape(0) == shape.T && in.user_mask->shape(1) == shape.S),
          "the mask's shape does not match (T, S) = (" + std::to_string(shape.T) + ", " + std::to_string(shape.S) + ")");

    // 2. the trace's inputs, then the parameters in PyTorch's construction order
    Trace t;
    t.kind = s.kind;
    t.tokens = in.tokens;
    t.source_tokens = in.source_tokens;
    t.has_source = in.has_source;
    t.x = in.x;
    if (in.has_source) t.source_x = in.source_x;
    const Inputs positioned = add_sinusoidal(in, s, t);  // --pos sinusoidal: x + PE; else unused
    TorchGenerator gen(s.seed);
    {
        StageTimer timer(hooks.profile, ProfileStage::init);
        // --weights: the file's parameters, checked against the names and shapes the kind would draw
        t.params = in.weights ? given_params(k.layers(s, shape.d_src), *in.weights, s.kind)
                              : init_params(k.layers(s, shape.d_src), parse_init(s.init), gen);
    }
    t.config = s;
    if (in.weights) t.config.weights = in.weights->file.substr(in.weights->file.rfind('/') + 1);  // titles name the file, not its folder
    // one attention set with one layer, which the kind fills with its heads
    t.sets = {AttentionSet{has_source_axes(t) ? "cross" : "self", t.tokens, t.source_tokens, {LayerTrace{}}, false, {}, {}}};

    // 3. the kind itself; the generator continues for dropout, or starts again from --dropout-seed
    if (s.dropout_seed) gen = TorchGenerator(*s.dropout_seed);
    try {
        k.run(s.pos == "sinusoidal" ? positioned : in, s, hooks, gen, t);
        // 4. no stage holds inf or NaN (a flash tile's running maximum may be -inf: documented): the heads
        //    read on both cores, then the first bad matrix in order named with its cell
        const auto stages = [](const HeadTrace& h) {
            return std::array<std::pair<const Mat*, const char*>, 7>{{{&h.queries, "queries"}, {&h.keys, "keys"},
                                                                      {&h.values, "values"}, {&h.scores, "scores"},
                                                                      {&h.weights, "weights"},
                                                                      {&h.dropped_weights, "dropped weights"},
                                                                      {&h.context, "context"}}};
        };
        const auto& heads = t.heads();
        std::vector<std::uint8_t> finite(heads.size(), 1);
        std::size_t per_head = 1;  // values a head's check reads
        if (!heads.empty())
            for (const auto& [m, stage] : stages(heads[0])) per_head += m->size();
        parallel_each(heads.size(), per_head, [&](std::size_t i) {
            for (const auto& [m, stage] : stages(heads[i]))
                if (!all_finite(m->data(), m->size())) finite[i] = 0;
        });
        for (std::size_t i = 0; i < heads.size(); ++i)
            if (!finite[i]) {
                const std::string of = heads.size() > 1 ? " of head " + std::to_string(heads[i].head) : "";
                for (const auto& [m, stage] : stages(heads[i])) check_finite(*m, stage + of);
            }
        check_finite(t.output, "output");
        for (const Tile& tile : t.tiles)
            for (float l : tile.row_sum)
                if (!std::isfinite(l)) check_finite(Mat{{l}}, "flash running sums");
    } catch (const Error& e) {
        // an overflow with --weights: the file's parameters are as likely a cause as the embeddings
        if (!in.weights || e.kind() != ErrorKind::runtime) throw;
        throw Error(ErrorKind::runtime, e.what(),
                    "the parameters of --weights " + in.weights->file + " or the embeddings are too large for float32 "
                    "arithmetic: scale them down");
    }
    std::sort(t.empty_rows.begin(), t.empty_rows.end());
    t.empty_rows.erase(std::unique(t.empty_rows.begin(), t.empty_rows.end()), t.empty_rows.end());
    return t;
}

}  // namespace attn
