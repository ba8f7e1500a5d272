// What every model stack shares: the dispatch to the stack's forward (core/model/stacks.h), the layer
// aggregates (mean, rollout), the memory estimate and the rotary frequencies.
#include "core/model/model.h"

#include <algorithm>
#include <cmath>

#include "core/base/ops.h"
#include "core/base/positions.h"
#include "core/model/seq2seq.h"
#include "core/model/stacks.h"
#include "data/base/error.h"

namespace attn {

// A value that overflows float32 in a model run comes from the checkpoint's weights (its embeddings
// are the model's own too): the message says so, not "use embeddings with smaller values".
Trace run_model(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids,
                const ModelRunOptions& opt) {
    try {
        Trace t;
        switch (m.family->recipe.stack) {
            case Stack::encoder: t = encoder_forward(m, tok, ids, opt); break;
            case Stack::encoder_decoder: return seq2seq_forward(m, tok, ids, opt);
            case Stack::decoder: t = decoder_forward(m, tok, ids, opt); break;
        }
        // the neuron view's products of query I with every key (the forward kept the head's q and k)
        if (t.neuron && t.neuron->query && t.neuron->queries.size())
            t.neuron->products = neuron_products(t.neuron->queries, t.neuron->keys, *t.neuron->query);
        return t;
    } catch (const Error& e) {
        const std::string what = e.what();
        if (e.kind() != ErrorKind::runtime || what.find("overflow float32") == std::string::npos) throw;
        throw Error(ErrorKind::runtime, what + " in the model's forward pass",
                    "the checkpoint's weights are too large for float32 arithmetic: check model.safetensors, or use "
                    "the checkpoint as Hugging Face saved it");
    }
}

Mat neuron_products(const Mat& queries, const Mat& keys, std::size_t i) {
    const std::size_t S = keys.shape(0), d = keys.shape(1);
    Mat p = Mat::from_shape({S, d});
    for (std::size_t j = 0; j < S; ++j)
        for (std::size_t c = 0; c < d; ++c) p(j, c) = queries(i, c) * keys(j, c);
    return p;
}

Mat head_mean(const std::vector<HeadTrace>& heads) {
    const std::size_t T = heads.at(0).weights.shape(0), S = heads.at(0).weights.shape(1);
    Mat m = Mat::from_shape({T, S});
    const float inv = 1.0f / static_cast<float>(heads.size());
    // rows over the pool; each cell sums the heads in order, then scales: the same bytes on any threads
    parallel_for(T, S * heads.size(), [&](std::size_t r0, std::size_t r1) {
        float* out = m.data() + r0 * S;
        const std::size_t n = (r1 - r0) * S;
        std::fill(out, out + n, 0.0f);
        for (const auto& h : heads) {
            const float* w = h.weights.data() + r0 * S;
            for (std::size_t i = 0; i < n; ++i) out[i] += w[i];
        }
        for (std::size_t i = 0; i < n; ++i) out[i] *= inv;
    });
    return m;
}

std::vector<Mat> attention_rollout(const std::vector<Mat>& means) {
    std::vector<Mat> out;
    for (const Mat& a : means) {
        // 1. Ã = 0.5·mean + 0.5·I, rows renormalised                         (T, T)
        const std::size_t T = a.shape(0);
        Mat r = Mat::from_shape({T, T});
        for (std::size_t i = 0; i < T; ++i) {
            float sum = 0.0f;
            for (std::size_t j = 0; j < T; ++j) sum += (r(i, j) = 0.5f * a(i, j) + (i == j ? 0.5f : 0.0f));
            for (std::size_t j = 0; j < T; ++j) r(i, j) /= sum;
        }
        // 2. through this layer: Ã_l · rollout[l-1]                            (T, T)
        out.push_back(out.empty() ? std::move(r) : matmul(r, out.back()));
    }
    return out;
}

double model_run_bytes(const ModelConfig& c, std::size_t t, std::size_t kept_layers, double cell_bytes) {
    const double T = static_cast<double>(t), C = static_cast<double>(c.n_embd), H = static_cast<double>(c.n_head);
    const double Hd = static_cast<double>(c.n_head * c.head_dim), Gd = static_cast<double>(c.n_kv_head * c.head_dim);
    const double I = static_cast<double>(c.n_inner);
    const double activations = 4.0 * T * (C * 3 + Hd + 2 * Gd + Hd + 2 * I);  // x, a, y, q, k, v, ctx, mlp
    const double logits = 4.0 * T * static_cast<double>(c.vocab_size);
    const double per_layer = T * T * cell_bytes * H;                     // scores (unless dropped), weights, mask per head
    const double aggregates = 2.0 * 4.0 * T * T * static_cast<double>(c.n_layer);
    return activations + logits + per_layer * (static_cast<double>(kept_layers) + 1) + aggregates;
}

std::vector<double> model_inv_freq(const ModelConfig& c) {
    const std::size_t d = c.head_dim;
    std::vector<double> inv = rope_inv_freq(c.rope_theta, d);
    if (c.rope_scaling == RopeScaling::linear)
        for (auto& f : inv) f /= c.rope_factor;
    if (c.rope_scaling == RopeScaling::llama3) {
        // Llama 3.1: long wavelengths slowed by factor, short ones kept, the band between blended
        const double pi = 3.14159265358979323846, old = static_cast<double>(c.rope_original_max_positions);
        const double low_wavelen = old / c.rope_low_freq_factor, high_wavelen = old / c.rope_high_freq_factor;
        for (auto& f : inv) {
            const double wavelen = 2.0 * pi / f;
            if (wavelen > low_wavelen) f /= c.rope_factor;
            else if (!(wavelen < high_wavelen)) {
                const double smooth = (old / wavelen - c.rope_low_freq_factor) / (c.rope_high_freq_factor - c.rope_low_freq_factor);
                f = (1.0 - smooth) * f / c.rope_factor + smooth * f;
            }
        }
    }
    return inv;
}

}  // namespace attn
