// The encoder-decoder stack (T5, BART, Marian), as Hugging Face's modeling code computes it:
//
//   encoder on the source (S tokens):
//     x = E[src]·s + P[offset + i]      (T5: E[src] only)                 (S, C)    s = √C when scale_embedding
//     x = LayerNorm_e(x)                (BART only)
//     per layer (post-norm, BART/Marian):  x = LN_1(x + SelfAttn(x));  x = LN_2(x + MLP(x))
//               (pre-norm, T5):            x = x + SelfAttn(RMS_1(x));  x = x + MLP(RMS_2(x))
//     x = RMS_f(x)                       (T5 only)                         (S, C)  = enc
//   decoder on its input (T tokens: the start token, then the tokens chosen so far):
//     y as x, with the decoder's positions and norms; per layer a causal SelfAttn, then
//     CrossAttn(y, enc) (queries from y, keys and values from enc, nothing hidden), then the MLP
//     logits = y·Eᵀ (T5 tied: (y·C^-0.5)·Eᵀ; untied: y·W_headᵀ) + final_logits_bias      (T, V)
//   attention: BART/Marian q = (x·W_qᵀ + b_q)·d^-0.5; T5 scores q·kᵀ + position bias, unscaled; the
//   bias (H, rows, S) is computed once per stack from block 0's relative_attention_bias and shared by
//   every layer (bidirectional buckets in the encoder, causal in the decoder, none in cross-attention).
//
// Generation is greedy (core/model/generate.cpp picks each token); this file is the passes.
#include "core/model/seq2seq.h"

#include <algorithm>
#include <cmath>

#include "core/base/ops.h"
#include "core/model/layers.h"

namespace attn {
namespace {

using namespace layers;

struct Seq2SeqScratch {
    Buf a, q, k, v, ctx, y, hidden, gate, sum;
};

// x (n, C) = E[ids]·s + P[offset + i], then the embeddings' norm when the family has one.
void embed_stack(const ModelCheckpoint& m, const std::vector<std::int64_t>& ids, bool decoder, Buf& tmp, Buf& x) {
    const ModelConfig& cfg = m.config;
    const std::size_t n = ids.size(), C = cfg.n_embd;
    const Weight& E = m[Role::embed];
    const Weight& P = m[decoder ? Role::dec_positions : Role::positions];
    const float s = cfg.scale_embedding ? static_cast<float>(std::sqrt(static_cast<double>(C))) : 1.0f;
    tmp.resize(n * C);
    for (std::size_t i = 0; i < n; ++i) {
        const float* e = E.data + static_cast<std::size_t>(ids[i]) * C;
        const float* p = P.data ? P.data + (cfg.position_offset + i) * C : nullptr;
        for (std::size_t c = 0; c < C; ++c) tmp[i * C + c] = p ? e[c] * s + p[c] : e[c] * s;
    }
    const Weight& g = m[decoder ? Role::dec_embed_norm_w : Role::embed_norm_w];
    if (g.data) norm(m.family->recipe, tmp, g, m[decoder ? Role::dec_embed_norm_b : Role::embed_norm_b], cfg.norm_eps, n, C, x);
    else x = tmp;
}

// The roles of one attention: self (q, k, v, o) or cross (xq, xk, xv, xo).
struct AttnRoles {
    Role q_w, q_b, k_w, k_b, v_w, v_b, o_w, o_b;
};
constexpr AttnRoles kSelf = {Role::q_w, Role::q_b, Role::k_w, Role::k_b, Role::v_w, Role::v_b, Role::o_w, Role::o_b};
constexpr AttnRoles kCross = {Role::xq_w, Role::xq_b, Role::xk_w, Role::xk_b, Role::xv_w, Role::xv_b, Role::xo_w, Role::xo_b};

// y (n, C) = o(attention of q from a (n, C) over k, v from kv (S, C)); the heads' traces in `heads`.
void attend(const ModelCheckpoint& m, const LayerWeights& w, const AttnRoles& r, const Buf& a, std::size_t n, const Buf& kv,
            std::size_t S, bool causal, const std::vector<Mat>* bias, Seq2SeqScratch& b, Trace& t, std::vector<HeadTrace>& heads) {
    const ModelConfig& cfg = m.config;
    const std::size_t H = cfg.n_head, d = cfg.head_dim, Hd = H * d;
    auto W = [&](Role role) -> const Weight& { return w[static_cast<std::size_t>(role)]; };
    linear_t(a, W(r.q_w), W(r.q_b), n, b.q);   // (n, H·d)
    linear_t(kv, W(r.k_w), W(r.k_b), S, b.k);  // (S, H·d)
    linear_t(kv, W(r.v_w), W(r.v_b), S, b.v);  // (S, H·d)
    if (m.family->recipe.scale_at == ScaleAt::query) {  // BART, Marian: q·d^-0.5 before the product
        const float scaling = static_cast<float>(std::pow(static_cast<double>(d), -0.5));
        for (auto& v : b.q) v *= scaling;
    }
    MaskSpec mask;
    mask.causal = causal;
    const SharedMask materialised = mask.materialize(n, S);
    mask.cached = &materialised;
    HeadsSetup s{n, S, H, H, d, 0, 1.0f, &mask, nullptr};
    s.bias = bias;
    attention(Columns{&b.q, Hd, 0}, Columns{&b.k, Hd, 0}, Columns{&b.v, Hd, 0}, s, t, heads, b.ctx);  // (n, H·d)
    linear_t(b.ctx, W(r.o_w), W(r.o_b), n, b.y);  // (n, C)
}

// y (n, C) = MLP(a): down(act(up a)), or T5's gated down(act(gate a) ⊙ up a).
void mlp(const ModelCheckpoint& m, const LayerWeights& w, const Buf& a, std::size_t n, Seq2SeqScratch& b) {
    const ModelConfig& cfg = m.config;
    auto W = [&](Role role) -> const Weight& { return w[static_cast<std::size_t>(role)]; };
    linear_t(a, W(Role::up_w), W(Role::up_b), n, b.hidden);  // (n, I)
    if (cfg.gated_mlp) {
        linear_t(a, W(Role::gate_w), Weight{}, n, b.gate);  // (n, I)
        activate(cfg.mlp, b.gate);
        for (std::size_t i = 0; i < b.hidden.size(); ++i) b.hidden[i] = b.gate[i] * b.hidden[i];
    } else {
        activate(cfg.mlp, b.hidden);
    }
    linear_t(b.hidden, W(Role::down_w), W(Role::down_b), n, b.y);  // (n, C)
}

// One residual sublayer on x (n, C) in place: pre-norm x + f(norm(x)), or post-norm norm(x + f(x)).
// f reads its input and leaves its output in b.y.
template <class F>
void sublayer(const ModelCheckpoint& m, const Weight& g, const Weight& beta, Buf& x, std::size_t n, Seq2SeqScratch& b, F f) {
    const ModelConfig& cfg = m.config;
    const Recipe& r = m.family->recipe;
    const std::size_t C = cfg.n_embd;
    if (r.norm_place == NormPlace::pre) {
        norm(r, x, g, beta, cfg.norm_eps, n, C, b.a);
        f(b.a);
        for (std::size_t i = 0; i < n * C; ++i) x[i] += b.y[i];
    } else {
        f(x);
        b.sum.resize(n * C);
        for (std::size_t i = 0; i < n * C; ++i) b.sum[i] = x[i] + b.y[i];
        norm(r, b.sum, g, beta, cfg.norm_eps, n, C, x);
    }
}

// T5's bias per head (H) (n, S): block 0's relative_attention_bias at the bucket of key − query.
std::vector<Mat> position_bias(const ModelCheckpoint& m, std::size_t n, std::size_t S, bool bidirectional) {
    const ModelConfig& cfg = m.config;
    const Weight& rb = m[bidirectional ? Role::rel_bias : Role::dec_rel_bias];  // (buckets, H)
    std::vector<Mat> out(cfg.n_head, Mat::from_shape({n, S}));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < S; ++j) {
            const std::size_t bucket = t5_bucket(static_cast<std::int64_t>(j) - static_cast<std::int64_t>(i), bidirectional,
                                                 cfg.rel_buckets, cfg.rel_max_distance);
            for (std::size_t h = 0; h < cfg.n_head; ++h) out[h](i, j) = rb.data[bucket * cfg.n_head + h];
        }
    return out;
}

// A stack's start: its input's embeddings x (n, C) and, for T5, the position bias (H) (n, n) its layers
// share (bidirectional buckets in the encoder, causal in the decoder).
struct StackInput {
    Buf x;
    std::vector<Mat> bias;
    const std::vector<Mat>* shared_bias() const { return bias.empty() ? nullptr : &bias; }
};
StackInput stack_input(const ModelCheckpoint& m, const std::vector<std::int64_t>& ids, bool decoder) {
    StackInput in;
    Buf tmp;
    embed_stack(m, ids, decoder, tmp, in.x);
    if (m.family->recipe.positions == PosScheme::relative_buckets) in.bias = position_bias(m, ids.size(), ids.size(), !decoder);
    return in;
}

// x (n, C) through a stack's final norm, when the family has one (T5).
void final_norm(const ModelCheckpoint& m, Role g, Role b, Buf& x, std::size_t n) {
    if (!m[g].data) return;
    Buf out;
    norm(m.family->recipe, x, m[g], m[b], m.config.norm_eps, n, m.config.n_embd, out);
    x.swap(out);
}

bool keep(const ModelRunOptions& opt, std::size_t l) { return opt.keep_layers.empty() || (l < opt.keep_layers.size() && opt.keep_layers[l]); }

// Adds a layer's heads to a set (when kept) and its mean to the set's aggregates.
void record(AttentionSet* set, std::size_t l, std::vector<HeadTrace>&& heads, const ModelRunOptions& opt) {
    if (set == nullptr) return;
    set->layer_mean.push_back(head_mean(heads));
    if (keep(opt, l)) set->layers.push_back(LayerTrace{l, std::move(heads)});
}

}  // namespace

std::size_t t5_bucket(std::int64_t rel, bool bidirectional, std::size_t num_buckets, std::size_t max_distance) {
    std::size_t nb = num_buckets, bucket = 0;
    std::int64_t n;
    if (bidirectional) {
        nb /= 2;
        if (rel > 0) bucket += nb;
        n = rel < 0 ? -rel : rel;
    } else {
        n = rel < 0 ? -rel : 0;
    }
    const std::size_t max_exact = nb / 2;
    if (static_cast<std::size_t>(n) < max_exact) return bucket + static_cast<std::size_t>(n);
    // in float32, as torch computes it: log(n / max_exact) / log(max_distance / max_exact) · (nb − max_exact)
    const float ratio = static_cast<float>(n) / static_cast<float>(max_exact);
    const float denom = static_cast<float>(std::log(static_cast<double>(max_distance) / static_cast<double>(max_exact)));
    const float large = std::log(ratio) / denom * static_cast<float>(nb - max_exact);
    const std::size_t v = max_exact + static_cast<std::size_t>(large);
    return bucket + std::min(v, nb - 1);
}

Buf seq2seq_encode(const ModelCheckpoint& m, const std::vector<std::int64_t>& src, const ModelRunOptions& opt, Trace* t,
                   AttentionSet* set) {
    const ModelConfig& cfg = m.config;
    const std::size_t S = src.size();
    StackInput in = stack_input(m, src, false);
    Buf& x = in.x;
    Seq2SeqScratch b;
    Trace scratch_trace;
    Trace& tr = t ? *t : scratch_trace;
    for (std::size_t l = 0; l < cfg.n_layer; ++l) {
        const LayerWeights& w = m.layers[l];
        auto W = [&](Role role) -> const Weight& { return w[static_cast<std::size_t>(role)]; };
        std::vector<HeadTrace> heads;
        sublayer(m, W(Role::norm1_w), W(Role::norm1_b), x, S, b, [&](const Buf& a) {
            attend(m, w, kSelf, a, S, a, S, false, in.shared_bias(), b, tr, heads);
        });
        sublayer(m, W(Role::norm2_w), W(Role::norm2_b), x, S, b, [&](const Buf& a) { mlp(m, w, a, S, b); });
        record(set, l, std::move(heads), opt);
        if (opt.progress) opt.progress("encoder layers", l + 1, cfg.n_layer);
    }
    final_norm(m, Role::final_norm_w, Role::final_norm_b, x, S);
    return std::move(x);
}

Buf seq2seq_decode(const ModelCheckpoint& m, const Buf& enc, std::size_t S, const std::vector<std::int64_t>& dec,
                   bool last_only, const ModelRunOptions& opt, Trace* t, AttentionSet* self_set, AttentionSet* cross_set) {
    const ModelConfig& cfg = m.config;
    const std::size_t T = dec.size(), C = cfg.n_embd;
    StackInput in = stack_input(m, dec, true);
    Buf& x = in.x;
    Seq2SeqScratch b;
    Trace scratch_trace;
    Trace& tr = t ? *t : scratch_trace;
    for (std::size_t l = 0; l < cfg.n_decoder_layer; ++l) {
        const LayerWeights& w = m.decoder_layers[l];
        auto W = [&](Role role) -> const Weight& { return w[static_cast<std::size_t>(role)]; };
        std::vector<HeadTrace> self_heads, cross_heads;
        sublayer(m, W(Role::norm1_w), W(Role::norm1_b), x, T, b, [&](const Buf& a) {
            attend(m, w, kSelf, a, T, a, T, true, in.shared_bias(), b, tr, self_heads);
        });
        sublayer(m, W(Role::norm3_w), W(Role::norm3_b), x, T, b, [&](const Buf& a) {
            attend(m, w, kCross, a, T, enc, S, false, nullptr, b, tr, cross_heads);
        });
        sublayer(m, W(Role::norm2_w), W(Role::norm2_b), x, T, b, [&](const Buf& a) { mlp(m, w, a, T, b); });
        record(self_set, l, std::move(self_heads), opt);
        record(cross_set, l, std::move(cross_heads), opt);
    }
    // the output rows (the last, or every one) through the final norm and the head
    const std::size_t first = last_only ? T - 1 : 0, R = T - first;
    Buf rows(x.begin() + static_cast<std::ptrdiff_t>(first * C), x.end());
    final_norm(m, Role::dec_final_norm_w, Role::dec_final_norm_b, rows, R);
    if (cfg.scale_tied_head) {  // T5 ties the head to the embedding: y·C^-0.5 first
        const float s = static_cast<float>(std::pow(static_cast<double>(C), -0.5));
        for (auto& v : rows) v *= s;
    }
    Buf logits;
    linear_t(rows, m[Role::lm_head], m[Role::logits_bias], R, logits);  // (R, V)
    return logits;
}

}  // namespace attn
