#include "core/kinds.h"

#include <algorithm>
#include <array>

#include "core/attention.h"
#include "core/budget.h"
#include "core/profile.h"
#include "data/error.h"
#include "data/validation.h"

namespace attn {
namespace {

constexpr std::array<const char*, kOptionCount> kOptionFlags = {
    "--heads", "--kv-heads", "--window", "--score", "--block-q/--block-k", "--renorm",
    "--causal/--no-causal", "--source", "--qkv-bias", "--d-out", "--init", "--dropout"};
static_assert(kOptionFlags.size() == kOptionCount, "one flag name per Option bit");

constexpr unsigned kProj = opt_d_out | opt_init | opt_qkv_bias | opt_dropout;  // kinds with Q/K/V projections

const std::vector<KindInfo> kKinds = {
    {"simple", "dot-product attention on the embeddings themselves, no weights",
     "w = softmax(x xᵀ); context = w x", "Raschka, Build a Large Language Model (From Scratch), §3.3",
     opt_causal | opt_dropout, false, 1, 1, layers_none, run_simple},
    {"self", "scaled dot-product self-attention with Q/K/V projections",
     "w = softmax(q kᵀ / sqrt(d_k)); q = x W_q, k = x W_k, v = x W_v; context = w v",
     "Vaswani et al. 2017, Attention Is All You Need", kProj | opt_causal, false, 1, 1, layers_qkv, run_self},
    {"causal", "self-attention that hides future tokens (-inf before the softmax)",
     "w = softmax(mask(q kᵀ / sqrt(d_k))), mask: j > i -> -inf",
     "Vaswani et al. 2017; Radford et al. 2018 (GPT)", kProj | opt_causal | opt_renorm, true, 1, 1, layers_qkv,
     run_causal},
    {"mha-wrapper", "H independent causal heads of width d_out, outputs concatenated",
     "out = [head_1 | ... | head_H], head_h = causal(x; W_q^h, W_k^h, W_v^h)",
     "Vaswani et al. 2017; Raschka ch. 3 MultiHeadAttentionWrapper", kProj | opt_causal | opt_heads, true, 2, 2,
     layers_wrapper, run_mha_wrapper},
    {"mha", "one projection split into H heads of d_out/H, then an output projection",
     "out = [head_1 | ... | head_H] W_o + b_o, head_h = softmax(q_h k_hᵀ / sqrt(d_k)) v_h",
     "Vaswani et al. 2017; Raschka ch. 3 MultiHeadAttention", kProj | opt_causal | opt_heads, true, 2, 2,
     layers_mha, run_mha},
    {"cross", "queries from the sentence, keys and values from --source",
     "w = softmax(q kᵀ / sqrt(d_k)); q = x W_q, k = src W_k, v = src W_v",
     "Vaswani et al. 2017 (encoder-decoder attention)", kProj | opt_causal | opt_source, false, 1, 1, layers_qkv,
     run_cross},
    {"additive", "Bahdanau attention: a small network scores each (query, source) pair",
     "e_ij = vᵀ tanh(s_i W_q + h_j W_k); w = softmax_j(e); context = w h",
     "Bahdanau, Cho, Bengio 2014, Neural Machine Translation by Jointly Learning to Align and Translate",
     opt_d_out | opt_init | opt_source | opt_dropout, false, 1, 1, layers_additive, run_additive},
    {"luong", "Luong attention: dot, general or concat scores over the source",
     "dot: e_ij = s_i · h_j; general: s_i · (h_j W_k); concat: vᵀ tanh(s_i W_q + h_j W_k)",
     "Luong, Pham, Manning 2015, Effective Approaches to Attention-based NMT",
     opt_d_out | opt_init | opt_source | opt_score | opt_dropout, false, 1, 1, layers_luong, run_luong},
    {"mqa", "multi-query attention: H query heads share one key/value head",
     "head_h = softmax(q_h k_0ᵀ / sqrt(d_k)) v_0; out = [heads] W_o + b_o",
     "Shazeer 2019, Fast Transformer Decoding: One Write-Head is All You Need",
     kProj | opt_causal | opt_heads, true, 4, 1, layers_mha, run_gqa},
    {"gqa", "grouped-query attention: H query heads share G key/value heads",
     "head_h uses kv head floor(h / (H/G)); out = [heads] W_o + b_o",
     "Ainslie et al. 2023, GQA: Training Generalized Multi-Query Transformer Models",
     kProj | opt_causal | opt_heads | opt_kv_heads, true, 4, 2, layers_mha, run_gqa},
    {"local", "windowed self-attention: query i sees keys within W positions",
     "mask: |i - j| <= W (causal: i - W <= j <= i); w = softmax(mask(q kᵀ / sqrt(d_k)))",
     "Luong et al. 2015 (local attention); Beltagy et al. 2020 (Longformer)",
     kProj | opt_causal | opt_window, false, 1, 1, layers_qkv, run_local},
    {"flash", "self/causal attention tile by tile with the online softmax (H heads: split, side by side)",
     "per tile: m' = max(m, rowmax S); l = e^(m-m') l + rowsum e^(S-m'); O = e^(m-m') O + e^(S-m') V; O / l",
     "Dao et al. 2022, FlashAttention; Dao 2023, FlashAttention-2; Milakov & Gimelshein 2018",
     (kProj & ~opt_dropout) | opt_causal | opt_blocks | opt_heads, false, 1, 1, layers_qkv, run_flash},
};

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

void check(bool ok, const std::string& message, const std::string& hint = {}) {
    if (!ok) usage_error(message, hint);
}

}  // namespace

const char* option_flag(unsigned option) {
    for (unsigned b = 0; b < kOptionCount; ++b)
        if (option == (1u << b)) return kOptionFlags[b];
    return "?";
}

std::string option_flags(unsigned options) {
    std::vector<std::string> names;
    for (unsigned b = 0; b < kOptionCount; ++b)
        if (options & (1u << b)) names.emplace_back(kOptionFlags[b]);
    return join(names);
}

const std::vector<KindInfo>& kinds() { return kKinds; }

const KindInfo* find_kind(const std::string& name) {
    for (const auto& k : kKinds)
        if (name == k.name) return &k;
    return nullptr;
}

std::string kind_names() {
    std::vector<std::string> names;
    for (const auto& k : kKinds) names.emplace_back(k.name);
    return join(names);
}

Trace run_attention(const Inputs& in, const Config& config) {
    const KindInfo* kind = find_kind(config.kind);
    check(kind != nullptr, "unknown kind '" + config.kind + "'", "choose one of: " + kind_names());
    Config c = config;
    const std::size_t T = in.x.shape(0), S = in.source_x.shape(0), d_src = in.source_x.shape(1);
    // 1. the inputs and the settings, as usage errors
    check(T > 0 && in.x.shape(1) > 0, "there are no tokens to attend over", "give a non-empty sentence");
    check(in.tokens.size() == T && in.source_tokens.size() == S && S > 0, "tokens and embedding rows differ in count");
    check(in.x.shape(1) == c.d_in, "--d-in does not match the embeddings' width");
    check(c.d_out >= 1, "--d-out must be at least 1");
    check(c.heads >= 1, "--heads must be at least 1");
    check(c.kv_heads >= 1, "--kv-heads must be at least 1");
    check(c.dropout >= 0.0f && c.dropout < 1.0f, "--dropout must be in [0, 1)");
    if (std::string(kind->name) == "mqa") c.kv_heads = 1;
    if (!(kind->options & opt_kv_heads) && std::string(kind->name) != "mqa") c.kv_heads = c.heads;
    if (kind->layers == layers_mha || kind->run == run_flash)
        check(c.d_out % c.heads == 0,
              "--d-out " + std::to_string(c.d_out) + " does not divide into --heads " + std::to_string(c.heads),
              "pick --d-out as a multiple of --heads");
    check(c.heads % c.kv_heads == 0 && c.kv_heads <= c.heads,
          "--heads " + std::to_string(c.heads) + " does not divide by --kv-heads " + std::to_string(c.kv_heads),
          "pick --kv-heads as a divisor of --heads");
    check(c.block_q >= 1 && c.block_k >= 1, "--block-q and --block-k must be at least 1");
    check(c.score == "dot" || c.score == "general" || c.score == "concat",
          "--score must be dot, general or concat, not '" + c.score + "'");
    if (std::string(kind->name) == "luong" && c.score == "dot")
        check(d_src == c.d_in, "luong --score dot needs the source and sentence vectors of equal width",
              "use --score general");
    if (std::string(kind->name) == "local" && !c.window) c.window = 2;
    check(!in.user_mask || (in.user_mask->shape(0) == T && in.user_mask->shape(1) == S),
          "the mask's shape does not match (T, S) = (" + std::to_string(T) + ", " + std::to_string(S) + ")");

    // 2. the trace's inputs, then the parameters in PyTorch's construction order
    Trace t;
    t.kind = c.kind;
    t.tokens = in.tokens;
    t.source_tokens = in.source_tokens;
    t.has_source = in.has_source;
    t.x = in.x;
    if (in.has_source) t.source_x = in.source_x;
    TorchGenerator gen(c.seed);
    {
        StageTimer timer(c.profile, Stage::init);
        t.params = init_params(kind->layers(c, d_src), parse_init(c.init), gen);
    }
    t.config = c;

    // 3. the kind itself; the generator continues for dropout
    kind->run(in, c, gen, t);
    std::sort(t.empty_rows.begin(), t.empty_rows.end());
    t.empty_rows.erase(std::unique(t.empty_rows.begin(), t.empty_rows.end()), t.empty_rows.end());
    return t;
}

}  // namespace attn
