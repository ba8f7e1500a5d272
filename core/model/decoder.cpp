// The decoder stack (GPT-2, Llama, Mistral, Qwen2): pre-norm layers over a key/value cache, causal,
// shared by the full pass (attn show --model) and the step-by-step decode (attn decode --model).
//
//   x = E[ids] (+ P[0..T) with learned positions)                        (T, C)
//   per layer l:
//     a = norm_1(x)                                                     (T, C)   LayerNorm | RMSNorm
//     q, k, v = a·W_qkv + b (fused Conv1D) | a·W_qᵀ, a·W_kᵀ, a·W_vᵀ (+ b)  (T, H·d), (T, G·d), (T, G·d)
//     head h, g = kv_head_of(h): q_h, k_g rotated by position (rotary); causal (and a window)
//     ablated heads' contexts set to 0 or to their mean over the rows (--ablate)   (T, d) each
//     x += concat(contexts)·W_o (+ b)                                  (T, C)
//     x += mlp(norm_2(x))                                              (T, C)
//   logits = norm_f(x)·W_headᵀ                                           (T, V)
//   the logit lens (--lens): the same head on x after the embeddings and after every layer
#include "core/model/stacks.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/base/ops.h"
#include "core/model/layers.h"
#include "core/model/sampling.h"
#include "core/model/seq2seq.h"

namespace attn {
namespace {

using namespace layers;

// Buffers a layer reuses between calls.
struct Scratch {
    Buf a, q, k, v, ctx, y, hidden, up;
};

// The ablated heads of layer l in the contexts ctx (n, H·d): each one's d columns set to 0 (zero) or,
// in every row, to their mean over the n rows (mean).
void ablate_heads(const HeadAblation& a, std::size_t l, std::size_t n, std::size_t H, std::size_t d, Buf& ctx) {
    for (const auto& [layer, h] : a.heads) {
        if (layer != l) continue;
        float* col = ctx.data() + h * d;
        for (std::size_t k = 0; k < d; ++k) {
            double mean = 0.0;
            if (a.mode == AblationMode::mean) {
                for (std::size_t i = 0; i < n; ++i) mean += col[i * H * d + k];
                mean /= static_cast<double>(n);
            }
            for (std::size_t i = 0; i < n; ++i) col[i * H * d + k] = static_cast<float>(mean);
        }
    }
}

// One layer on n rows at positions p0 .. p0 + n − 1 of x (n, C), in place. The layer's cache gains the
// rows' keys (rotated at their positions) and values; their queries attend over every cached row.
void layer_forward(const ModelCheckpoint& m, std::size_t l, Buf& x, std::size_t n, std::size_t p0, LayerCache& cache,
                   const RopeTable* rope, const ModelRunOptions& opt, Scratch& b, Trace& t,
                   std::vector<HeadTrace>& heads) {
    const ModelConfig& cfg = m.config;
    const Recipe& r = m.family->recipe;
    const std::size_t C = cfg.n_embd, H = cfg.n_head, G = cfg.n_kv_head, d = cfg.head_dim, Hd = H * d, Gd = G * d;
    const LayerWeights& w = m.layers[l];
    auto W = [&](Role role) -> const Weight& { return w[static_cast<std::size_t>(role)]; };
    {
        Timer timer(opt.timing, &ModelTiming::layer_norm);
        norm(r, x, W(Role::norm1_w), W(Role::norm1_b), cfg.norm_eps, n, C, b.a);
    }
    // 1. q (n, H·d), k and v (n, G·d): fused q | k | v columns, or three nn.Linear
    Columns cq{&b.q, 3 * C, 0}, ck{&b.q, 3 * C, C}, cv{&b.q, 3 * C, 2 * C};
    {
        Timer timer(opt.timing, &ModelTiming::qkv);
        if (r.attention == AttnLayout::fused_conv1d) {
            conv1d(b.a, W(Role::qkv_w), W(Role::qkv_b), n, b.q);  // (n, 3C)
        } else {
            linear_t(b.a, W(Role::q_w), W(Role::q_b), n, b.q);  // (n, H·d)
            linear_t(b.a, W(Role::k_w), W(Role::k_b), n, b.k);  // (n, G·d)
            linear_t(b.a, W(Role::v_w), W(Role::v_b), n, b.v);  // (n, G·d)
            cq = {&b.q, Hd, 0}, ck = {&b.k, Gd, 0}, cv = {&b.v, Gd, 0};
        }
        // 2. the new keys, rotated at their positions (once per key/value head), and values into the cache
        const std::size_t S = cache.rows + n;
        cache.k.resize(S * Gd), cache.v.resize(S * Gd);
        for (std::size_t g = 0; g < G; ++g) {
            Mat kg = ck.head(n, g, d);  // (n, d)
            if (rope != nullptr) rope_rotate(kg, static_cast<std::int64_t>(p0), *rope, RopeStyle::half);
            const Mat vg = cv.head(n, g, d);
            for (std::size_t i = 0; i < n; ++i) {
                std::copy_n(kg.data() + i * d, d, cache.k.data() + (cache.rows + i) * Gd + g * d);
                std::copy_n(vg.data() + i * d, d, cache.v.data() + (cache.rows + i) * Gd + g * d);
            }
        }
        cache.rows = S;
    }
    // 3. the heads over the cache: causal (bottom-right: row i stands at key p0 + i), Mistral's window
    //    lets a query see its last W keys (i − j ≤ W − 1); scale 1/√d (GPT-2: or 1, and / (l + 1))
    {
        Timer timer(opt.timing, &ModelTiming::attention);
        MaskSpec mask;
        mask.causal = true, mask.shift = static_cast<std::int64_t>(p0);
        if (cfg.sliding_window) mask.window = *cfg.sliding_window - 1;
        const SharedMask materialised = mask.materialize(n, cache.rows);
        mask.cached = &materialised;
        float scale = cfg.scale_attn_weights ? 1.0f / std::sqrt(static_cast<float>(d)) : 1.0f;
        if (cfg.scale_attn_by_inverse_layer_idx) scale /= static_cast<float>(l + 1);
        HeadsSetup s{n, cache.rows, H, G, d, static_cast<std::int64_t>(p0), scale, &mask, rope};
        s.keep_scores = opt.keep_scores;
        if (opt.neuron && opt.neuron->layer == l && t.neuron) s.keep = &*t.neuron, s.keep_head = opt.neuron->head;
        attention(cq, Columns{&cache.k, Gd, 0}, Columns{&cache.v, Gd, 0}, s, t, heads, b.ctx);  // (n, H·d)
        ablate_heads(opt.ablation, l, n, H, d, b.ctx);
    }
    // 4. x += o(contexts)
    {
        Timer timer(opt.timing, &ModelTiming::attn_proj);
        project(r, b.ctx, W(Role::o_w), W(Role::o_b), n, b.y);  // (n, C)
        for (std::size_t i = 0; i < n * C; ++i) x[i] += b.y[i];
    }
    // 5. x += mlp(norm_2(x))
    {
        Timer timer(opt.timing, &ModelTiming::mlp);
        norm(r, x, W(Role::norm2_w), W(Role::norm2_b), cfg.norm_eps, n, C, b.a);
        if (cfg.mlp == MlpKind::swiglu) {
            linear_t(b.a, W(Role::gate_w), Weight{}, n, b.hidden);  // (n, I)
            linear_t(b.a, W(Role::up_w), W(Role::up_b), n, b.up);   // (n, I)
            silu_times(b.hidden, b.up);
        } else {
            project(r, b.a, W(Role::up_w), W(Role::up_b), n, b.hidden);  // (n, I)
            if (cfg.mlp == MlpKind::gelu_tanh) gelu_tanh(b.hidden);
            else gelu_erf(b.hidden);
        }
        project(r, b.hidden, W(Role::down_w), W(Role::down_b), n, b.y);  // (n, C)
        for (std::size_t i = 0; i < n * C; ++i) x[i] += b.y[i];
    }
}

// x (n, C) = E[ids[p0 .. p0 + n)] (+ P[p0 .. p0 + n) with learned positions)
void embed(const ModelCheckpoint& m, const std::vector<std::int64_t>& ids, std::size_t p0, std::size_t n, Buf& x) {
    const std::size_t C = m.config.n_embd;
    const Weight &E = m[Role::embed], &P = m[Role::positions];
    const bool learned = m.family->recipe.positions == PosScheme::learned;
    x.resize(n * C);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < C; ++c)
            x[i * C + c] = learned ? E.data[static_cast<std::size_t>(ids[p0 + i]) * C + c] + P.data[(p0 + i) * C + c]
                                   : E.data[static_cast<std::size_t>(ids[p0 + i]) * C + c];
}

// logits (T, V) = norm_f(x) · W_headᵀ for the T rows of x (T, C); the normed rows in b.a.
void output_logits(const ModelCheckpoint& m, const Buf& x, std::size_t T, Scratch& b, Buf& logits) {
    const std::size_t C = m.config.n_embd, V = m[Role::lm_head].rows;
    norm(m.family->recipe, x, m[Role::final_norm_w], m[Role::final_norm_b], m.config.norm_eps, T, C, b.a);
    logits.resize(T * V);
    gemm(b.a.data(), C, m[Role::lm_head].data, C, logits.data(), V, T, V, C, true);
}

// The logit lens on the residual stream x (T, C): each row's top token (ties: the lower id) and its
// probability under the final norm and the output head.
LensRow lens_row(const ModelCheckpoint& m, const Tokenizer& tok, const Buf& x, std::size_t T, std::string label, Scratch& b) {
    const std::size_t V = m[Role::lm_head].rows;
    Buf logits;
    output_logits(m, x, T, b, logits);  // (T, V)
    LensRow row{std::move(label), {}, {}, {}};
    for (std::size_t i = 0; i < T; ++i) {
        float* r = logits.data() + i * V;
        const std::size_t top = static_cast<std::size_t>(std::max_element(r, r + V) - r);
        row.ids.push_back(static_cast<std::int64_t>(top));
        row.tokens.push_back(tok.text(static_cast<std::int64_t>(top)));
        row.p.push_back(static_cast<float>(1.0 / static_cast<double>(exp_shift_sum(r, V, r[top]))));
    }
    return row;
}

// −log softmax(logits[i])[ids[i + 1]] for i < T − 1 (natural log, as F.cross_entropy per position).
std::vector<double> next_token_losses(const Buf& logits, std::size_t V, const std::vector<std::int64_t>& ids) {
    std::vector<double> out;
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
        const float* r = logits.data() + i * V;
        const float mx = *std::max_element(r, r + V);
        double sum = 0.0;
        for (std::size_t v = 0; v < V; ++v) sum += std::exp(static_cast<double>(r[v]) - mx);
        out.push_back(std::log(sum) + mx - static_cast<double>(r[static_cast<std::size_t>(ids[i + 1])]));
    }
    return out;
}

}  // namespace

Trace decoder_forward(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids,
                      const ModelRunOptions& opt) {
    const ModelConfig& cfg = m.config;
    const std::size_t T = ids.size(), C = cfg.n_embd, L = cfg.n_layer, V = m[Role::lm_head].rows;
    Trace t = model_trace_header(m, tok, ids);
    // 1. token embeddings (+ learned positions)                              (T, C)
    Buf x;
    {
        Timer timer(opt.timing, &ModelTiming::embed);
        embed(m, ids, 0, T, x);
    }
    Scratch b;
    if (opt.neuron) t.neuron = NeuronTrace{opt.neuron->layer, opt.neuron->head, 0, 1.0f, false, {}, {}, opt.neuron->query, {}};
    if (opt.lens) t.lens.push_back(lens_row(m, tok, x, T, "emb", b));
    // the rotary angles of positions 0 .. T − 1, once for every layer and head
    const RopeTable rope =
        m.family->recipe.positions == PosScheme::rotary ? rope_table(0, T, model_inv_freq(cfg)) : RopeTable();
    // 2. the layers, every row at once (each layer's cache holds only this pass); the lens after each
    for (std::size_t l = 0; l < L; ++l) {
        LayerCache cache;
        LayerTrace lt;
        lt.layer = l;
        layer_forward(m, l, x, T, 0, cache, rope.n ? &rope : nullptr, opt, b, t, lt.heads);
        {
            Timer timer(opt.timing, &ModelTiming::attention);
            t.layer_mean.push_back(head_mean(lt.heads));
        }
        if (opt.on_layer) opt.on_layer(lt);
        if (opt.keep_layers.empty() || opt.keep_layers.at(l)) t.layers().push_back(std::move(lt));
        if (opt.lens) t.lens.push_back(lens_row(m, tok, x, T, std::to_string(l), b));
        if (opt.progress) opt.progress("layers", l + 1, L);
    }
    t.rollout = attention_rollout(t.layer_mean);
    // 3. logits = norm_f(x) · W_headᵀ at the positions whose predictions are shown: every position, or
    //    only the last (predict_last_only)                                     (P, V), P = T or 1
    const std::size_t P = opt.predict_last_only && !opt.token_losses ? 1 : T;
    Buf logits(P * V);
    {
        Timer timer(opt.timing, &ModelTiming::logits);
        norm(m.family->recipe, x, m[Role::final_norm_w], m[Role::final_norm_b], cfg.norm_eps, T, C, b.a);
        if (P == 1) matvec_t(m[Role::lm_head].data, C, b.a.data() + (T - 1) * C, logits.data(), V, C);
        else gemm(b.a.data(), C, m[Role::lm_head].data, C, logits.data(), V, T, V, C, true);
    }
    // 4. the top k next tokens after each of those positions (and the loss of each true next token)
    Timer timer(opt.timing, &ModelTiming::predictions);
    if (opt.token_losses) t.token_losses = next_token_losses(logits, V, ids);
    t.predictions = top_predictions(logits, P, V, opt.top_k, tok);
    t.output = Mat::from_shape({T, C});  // the final hidden state (after the final norm)
    std::copy(b.a.begin(), b.a.end(), t.output.begin());
    return t;
}

namespace {

// The model's own probabilities of one row of logits (V): the chosen id's, and the top 5.
void model_probabilities(const Buf& logits, std::size_t V, const Tokenizer& tok, GeneratedToken& out) {
    const float mx = *std::max_element(logits.begin(), logits.end());
    double sum = 0.0;
    for (float l : logits) sum += std::exp(double(l) - double(mx));
    out.p = std::exp(double(logits[static_cast<std::size_t>(out.id)]) - double(mx)) / sum;
    Buf row = logits;
    out.top = top_predictions(row, 1, V, 5, tok).at(0);
}

}  // namespace

DecodeTrace run_model_decode(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids,
                             const ModelDecodeOptions& opt) {
    const ModelConfig& cfg = m.config;
    const std::size_t T = ids.size(), C = cfg.n_embd, L = cfg.n_layer, H = cfg.n_head, G = cfg.n_kv_head, d = cfg.head_dim;
    const std::size_t V = m[Role::lm_head].rows, N = opt.max_new_tokens;
    DecodeTrace out;
    out.layers = L, out.heads = H, out.kv_heads = G, out.d_k = out.d_v = d;
    // the cache one token costs: every layer's G keys and values of head_dim, in the checkpoint's dtype
    DecodeModel info;
    info.layer = opt.layer, info.dtype = m.dtype, info.dtype_bytes = safetensors_dtype_size(m.dtype);
    out.variants = cache_variants(L, H, G, d, d, info.dtype_bytes);
    const std::uint64_t per_token = cache_bytes_per_token(L, G, d, d, info.dtype_bytes);
    DecodeGeneration gen;
    gen.sample = opt.sampling.sample, gen.temperature = opt.sampling.temperature, gen.top_k = opt.sampling.top_k;
    gen.top_p = opt.sampling.top_p, gen.sample_seed = opt.sampling.seed, gen.max_new_tokens = N, gen.prompt = T;
    // the rotary angles of every position a fed token can take (the text and N − 1 generated tokens)
    std::vector<std::int64_t> fed = ids;                   // the text, then each generated token but the last
    const std::size_t most = T + (N ? N - 1 : 0);
    const RopeTable rope =
        m.family->recipe.positions == PosScheme::rotary ? rope_table(0, most, model_inv_freq(cfg)) : RopeTable();
    // 1. the tokens one at a time through the caches. Every layer's and head's row is checked against the
    //    full pass's: at once when the fed tokens are known (the text only), else kept until generation ends
    const bool known = N == 0;
    if (known) out.full = run_model(m, tok, fed, ModelRunOptions{});
    auto compare = [&](std::size_t p, std::size_t l, std::size_t h, const std::vector<float>& got) {
        const Mat& full = out.full.layers()[l].heads[h].weights;  // (F, F)
        for (std::size_t j = 0; j < full.shape(1); ++j) {
            const double w = j <= p ? static_cast<double>(got[j]) : 0.0;
            out.max_abs_diff = std::max(out.max_abs_diff, std::abs(w - static_cast<double>(full(p, j))));
        }
    };
    std::vector<LayerCache> caches(L);
    std::vector<std::vector<std::vector<float>>> rows;     // (steps) (L·H) (t + 1), while generating
    Scratch b;
    Buf x, logits(V);
    TorchGenerator rng(opt.sampling.seed);
    for (std::size_t p = 0; p < fed.size(); ++p) {
        DecodeStep s;
        s.step = p, s.token_id = fed[p];
        embed(m, fed, p, 1, x);  // (1, C)
        Trace step = model_trace_header(m, tok, ids);
        if (!known) rows.emplace_back(L * H);
        for (std::size_t l = 0; l < L; ++l) {
            std::vector<HeadTrace> heads;
            layer_forward(m, l, x, 1, p, caches[l], rope.n ? &rope : nullptr, ModelRunOptions{}, b, step, heads);
            for (const HeadTrace& h : heads) {  // (1, p + 1)
                std::vector<float> row(h.weights.begin(), h.weights.begin() + static_cast<std::ptrdiff_t>(p + 1));
                if (l == opt.layer && (!opt.head || *opt.head == h.head)) s.heads.push_back({h.head, h.kv_head, row});
                if (known) compare(p, l, h.head, row);
                else rows.back()[l * H + h.head] = std::move(row);
            }
        }
        norm(m.family->recipe, x, m[Role::final_norm_w], m[Role::final_norm_b], cfg.norm_eps, 1, C, b.a);
        gemm(b.a.data(), C, m[Role::lm_head].data, C, logits.data(), V, 1, V, C, true);
        s.next_id = argmax_token(logits.data(), V);
        s.next = tok.label(s.next_id);
        s.cache_bytes = caches[0].rows * per_token;
        out.steps.push_back(std::move(s));
        // 2. generation: after the text's last step, each step chooses the token the next one feeds
        if (N == 0 || p + 1 < T) continue;
        GeneratedToken chosen;
        chosen.row = p;
        std::vector<float> processed(logits.begin(), logits.end());
        if (opt.generation) process_logits(*opt.generation, fed, N, processed.data(), V, T);
        if (opt.sampling.sample) {
            const std::vector<double> probs = sampling_distribution(processed.data(), V, opt.sampling);
            chosen.id = draw_token(probs, rng);
            chosen.p_sample = probs[static_cast<std::size_t>(chosen.id)];
        } else {
            chosen.id = argmax_token(processed.data(), V);
        }
        chosen.token = tok.label(chosen.id);
        model_probabilities(logits, V, tok, chosen);
        gen.tokens.push_back(std::move(chosen));
        const std::int64_t next = gen.tokens.back().id;
        if (opt.generation && std::find(opt.generation->eos.begin(), opt.generation->eos.end(), next) != opt.generation->eos.end()) {
            gen.stopped_at_eos = true;
            break;
        }
        if (gen.tokens.size() == N) break;
        fed.push_back(next);
    }
    // 3. after generation, the full pass over every fed token: step t's kept rows against its row t
    if (!known) out.full = run_model(m, tok, fed, ModelRunOptions{});
    for (std::size_t p = 0; p < fed.size(); ++p) {
        DecodeStep& s = out.steps[p];
        s.token = out.full.tokens[p];
        if (s.next_id != out.full.predictions[p][0].id) info.top_changed = true;
        if (!known)
            for (std::size_t l = 0; l < L; ++l)
                for (std::size_t h = 0; h < H; ++h) compare(p, l, h, rows[p][l * H + h]);
    }
    if (N) info.generation = std::move(gen);
    out.model = info;
    return out;
}

}  // namespace attn
