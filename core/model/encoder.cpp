// The encoder stack (BERT, RoBERTa, DistilBERT), as Hugging Face's modeling code computes it:
//
//   x = E[ids] + P[offset + i] (+ TT[type_i])                            (T, C)   offset: RoBERTa's pad + 1
//   x = LayerNorm_e(x)                                                   (T, C)
//   per layer l (post-norm):
//     q, k, v = x·W_qᵀ + b_q, x·W_kᵀ + b_k, x·W_vᵀ + b_v               (T, H·d) each
//     head h: softmax(q_h·k_hᵀ / √d) over every key (nothing hidden)    (T, T)   DistilBERT: (q_h / √d)·k_hᵀ
//     x = LayerNorm_1(x + concat(contexts)·W_oᵀ + b_o)                  (T, C)
//     x = LayerNorm_2(x + act(x·W_upᵀ + b_up)·W_downᵀ + b_down)         (T, C)
//   masked-LM head at the mask positions m (when the folder has one):
//     h = LayerNorm_m(act(x_m·W_dᵀ + b_d));  logits = h·Eᵀ + bias       (M, V)
#include "core/model/stacks.h"

#include <algorithm>
#include <cmath>

#include "core/base/ops.h"
#include "core/model/layers.h"

namespace attn {
namespace {

using namespace layers;

// x (T, C) = LayerNorm_e(E[ids] + P[offset + i] + TT[type_i]): the embeddings, before the first layer.
void embed_tokens(const ModelCheckpoint& m, const std::vector<std::int64_t>& ids, const std::vector<std::int64_t>& types,
                  Buf& tmp, Buf& x) {
    const ModelConfig& cfg = m.config;
    const Recipe& r = m.family->recipe;
    const std::size_t T = ids.size(), C = cfg.n_embd;
    const Weight &E = m[Role::embed], &P = m[Role::positions], &TT = m[Role::token_types];
    const float scale = r.embed_scale ? std::sqrt(static_cast<float>(C)) : 1.0f;
    tmp.resize(T * C);
    for (std::size_t i = 0; i < T; ++i) {
        const float* e = E.data + static_cast<std::size_t>(ids[i]) * C;
        const float* p = P.data + (cfg.position_offset + i) * C;
        const float* tt = TT.data ? TT.data + static_cast<std::size_t>(types.empty() ? 0 : types[i]) * C : nullptr;
        for (std::size_t c = 0; c < C; ++c) {
            // in Hugging Face's order: (inputs_embeds + token_type_embeddings) + position_embeddings
            const float v = tt ? e[c] * scale + tt[c] : e[c] * scale;
            tmp[i * C + c] = v + p[c];
        }
    }
    if (r.embed_norm) norm(r, tmp, m[Role::embed_norm_w], m[Role::embed_norm_b], cfg.norm_eps, T, C, x);
    else x = tmp;
}

// Buffers a layer reuses.
struct EncoderScratch {
    Buf q, k, v, ctx, y, hidden, sum;
};

// One post-norm layer on x (T, C), in place; its heads' traces in `heads`.
void encoder_layer(const ModelCheckpoint& m, std::size_t l, Buf& x, const ModelRunOptions& opt, EncoderScratch& b, Trace& t,
                   std::vector<HeadTrace>& heads) {
    const ModelConfig& cfg = m.config;
    const Recipe& r = m.family->recipe;
    const std::size_t T = x.size() / cfg.n_embd, C = cfg.n_embd, H = cfg.n_head, d = cfg.head_dim, Hd = H * d;
    const LayerWeights& w = m.layers[l];
    auto W = [&](Role role) -> const Weight& { return w[static_cast<std::size_t>(role)]; };
    // 1. q, k, v (T, H·d) each: three nn.Linear with biases
    float scale = 1.0f / std::sqrt(static_cast<float>(d));
    {
        Timer timer(opt.timing, &ModelTiming::qkv);
        linear_t(x, W(Role::q_w), W(Role::q_b), T, b.q);
        linear_t(x, W(Role::k_w), W(Role::k_b), T, b.k);
        linear_t(x, W(Role::v_w), W(Role::v_b), T, b.v);
        if (r.scale_at == ScaleAt::query) {  // DistilBERT: q = q / √d before the product
            const float root = std::sqrt(static_cast<float>(d));
            for (auto& v : b.q) v /= root;
            scale = 1.0f;
        }
    }
    // 2. every head over every key: nothing is hidden in one unpadded text
    {
        Timer timer(opt.timing, &ModelTiming::attention);
        MaskSpec mask;
        const SharedMask materialised = mask.materialize(T, T);
        mask.cached = &materialised;
        HeadsSetup s{T, T, H, H, d, 0, scale, &mask, nullptr};
        s.keep_scores = opt.keep_scores;
        if (opt.neuron && opt.neuron->layer == l && t.neuron) s.keep = &*t.neuron, s.keep_head = opt.neuron->head;
        attention(Columns{&b.q, Hd, 0}, Columns{&b.k, Hd, 0}, Columns{&b.v, Hd, 0}, s, t, heads, b.ctx);  // (T, H·d)
    }
    // 3. x = LayerNorm_1(x + o(contexts))
    {
        Timer timer(opt.timing, &ModelTiming::attn_proj);
        linear_t(b.ctx, W(Role::o_w), W(Role::o_b), T, b.y);  // (T, C)
        b.sum.resize(T * C);
        for (std::size_t i = 0; i < T * C; ++i) b.sum[i] = b.y[i] + x[i];
        norm(r, b.sum, W(Role::norm1_w), W(Role::norm1_b), cfg.norm_eps, T, C, x);
    }
    // 4. x = LayerNorm_2(x + down(act(up(x))))
    {
        Timer timer(opt.timing, &ModelTiming::mlp);
        linear_t(x, W(Role::up_w), W(Role::up_b), T, b.hidden);  // (T, I)
        activate(cfg.mlp, b.hidden);
        linear_t(b.hidden, W(Role::down_w), W(Role::down_b), T, b.y);  // (T, C)
        for (std::size_t i = 0; i < T * C; ++i) b.sum[i] = b.y[i] + x[i];
        norm(r, b.sum, W(Role::norm2_w), W(Role::norm2_b), cfg.norm_eps, T, C, x);
    }
}

// The masked-LM head's top k at the positions whose id is the mask token.
std::vector<MaskPrediction> mask_predictions(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids,
                                             const Buf& x, const ModelRunOptions& opt) {
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (opt.mask_id >= 0 && ids[i] == opt.mask_id) at.push_back(i);
    if (at.empty() || !m.has_head()) return {};
    const ModelConfig& cfg = m.config;
    const std::size_t M = at.size(), C = cfg.n_embd, V = m[Role::lm_head].rows;
    // 1. the mask rows of x                                                   (M, C)
    Buf xm(M * C), h, hn;
    for (std::size_t r = 0; r < M; ++r) std::copy_n(x.data() + at[r] * C, C, xm.data() + r * C);
    // 2. the transform: LayerNorm_m(act(x·W_dᵀ + b_d))                          (M, C)
    linear_t(xm, m[Role::mlm_dense_w], m[Role::mlm_dense_b], M, h);
    activate(cfg.head_act, h);
    norm(m.family->recipe, h, m[Role::mlm_norm_w], m[Role::mlm_norm_b], cfg.norm_eps, M, C, hn);
    // 3. logits = h·Eᵀ + bias, and their top k                               (M, V)
    Buf logits;
    {
        Timer timer(opt.timing, &ModelTiming::logits);
        linear_t(hn, m[Role::lm_head], m[Role::mlm_bias], M, logits);
    }
    Timer timer(opt.timing, &ModelTiming::predictions);
    std::vector<std::vector<Prediction>> top = top_predictions(logits, M, V, opt.top_k, tok);
    std::vector<MaskPrediction> out;
    for (std::size_t r = 0; r < M; ++r) out.push_back({at[r], std::move(top[r])});
    return out;
}

}  // namespace

Trace encoder_forward(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids,
                      const ModelRunOptions& opt) {
    const ModelConfig& cfg = m.config;
    const std::size_t T = ids.size(), L = cfg.n_layer;
    Trace t = model_trace_header(m, tok, ids);
    t.config.causal = false;
    t.model->stack = "encoder";
    t.token_type_ids = opt.type_ids.empty() ? std::vector<std::int64_t>(T, 0) : opt.type_ids;
    if (!m.family->recipe.token_types) t.token_type_ids.clear();  // DistilBERT takes none
    t.segments = opt.segments;
    // 1. the embeddings                                                          (T, C)
    Buf x, tmp;
    {
        Timer timer(opt.timing, &ModelTiming::embed);
        embed_tokens(m, ids, t.token_type_ids, tmp, x);
    }
    // 2. the layers (one head's queries and keys kept with --show queries,keys)
    EncoderScratch b;
    if (opt.neuron) t.neuron = NeuronTrace{opt.neuron->layer, opt.neuron->head, 0, 1.0f, false, {}, {}, opt.neuron->query, {}};
    for (std::size_t l = 0; l < L; ++l) {
        LayerTrace lt;
        lt.layer = l;
        encoder_layer(m, l, x, opt, b, t, lt.heads);
        {
            Timer timer(opt.timing, &ModelTiming::attention);
            t.layer_mean.push_back(head_mean(lt.heads));
        }
        if (opt.on_layer) opt.on_layer(lt);
        if (opt.keep_layers.empty() || opt.keep_layers.at(l)) t.layers().push_back(std::move(lt));
        if (opt.progress) opt.progress("layers", l + 1, L);
    }
    t.rollout = attention_rollout(t.layer_mean);
    // 3. the masked-LM head at the mask positions
    t.mask_predictions = mask_predictions(m, tok, ids, x, opt);
    t.output = Mat::from_shape({T, cfg.n_embd});  // the last layer's hidden state
    std::copy(x.begin(), x.end(), t.output.begin());
    return t;
}

}  // namespace attn
