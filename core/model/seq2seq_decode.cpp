// attn decode --model for encoder-decoder models (core/model/seq2seq.h): the steps one at a time (greedy or sampled),
// each step's rows of one decoder layer, the caches, and the steps checked against the full pass.
#include <algorithm>
#include <cmath>

#include "core/model/seq2seq.h"

namespace attn {
namespace {

// The last row of a head's (n, S) weights.
std::vector<float> last_row(const Mat& w) {
    const std::size_t n = w.shape(0), S = w.shape(1);
    return std::vector<float>(w.data() + (n - 1) * S, w.data() + n * S);
}

std::size_t dtype_bytes(const std::string& dtype) { return dtype == "F32" ? 4 : 2; }

}  // namespace

Seq2SeqDecode run_seq2seq_decode(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& src,
                                 const ModelRunOptions& opt, std::size_t layer, std::optional<std::size_t> head) {
    const ModelConfig& cfg = m.config;
    const GenerationConfig& g = *opt.generation;
    const std::size_t S = src.size(), L = cfg.n_decoder_layer;
    Seq2SeqDecode out;
    out.layer = layer, out.dtype_bytes = dtype_bytes(m.dtype);
    for (auto id : src) out.source.push_back(tok.label(id));
    for (std::size_t h = 0; h < cfg.n_head; ++h)
        if (!head || *head == h) out.heads.push_back(h);
    // per token and layer: H heads × d × (k, v)
    const std::uint64_t per_token = std::uint64_t(L) * cfg.n_head * cfg.head_dim * 2 * out.dtype_bytes;
    out.cross_cache_bytes = per_token * S;
    ModelRunOptions step_opt = opt;  // the steps record only the chosen layer
    step_opt.keep_layers.assign(std::max(cfg.n_layer, L), false);
    step_opt.keep_layers[layer] = true;
    step_opt.progress = nullptr;
    // 1. the encoder once: the cross-attention's keys and values come from its output
    const std::vector<float> enc = seq2seq_encode(m, src, step_opt, nullptr, nullptr);
    // 2. the steps: the decoder over the tokens so far; its last row is the step's
    std::vector<std::int64_t> dec = {g.decoder_start};
    TorchGenerator rng(opt.sampling.seed);
    for (std::size_t step = 0; step < opt.max_new_tokens; ++step) {
        Trace t;
        AttentionSet self_set, cross_set;
        std::vector<float> logits = seq2seq_decode(m, enc, S, dec, true, step_opt, &t, &self_set, &cross_set);
        const std::int64_t next = next_choice(g, dec, opt.max_new_tokens, logits, opt.sampling, rng);
        Seq2SeqStep s;
        s.token_id = dec.back(), s.token = tok.label(dec.back()), s.next_id = next, s.next = tok.label(next);
        for (std::size_t h : out.heads) {
            s.self.push_back(last_row(self_set.layers.at(0).heads.at(h).weights));
            s.cross.push_back(last_row(cross_set.layers.at(0).heads.at(h).weights));
        }
        s.self_cache_bytes = per_token * dec.size();
        out.steps.push_back(std::move(s));
        if (opt.progress) opt.progress("decoding", step + 1, opt.max_new_tokens);
        if (generation_ends(g, next, step, opt.max_new_tokens)) break;
        dec.push_back(next);
    }
    // 3. the full pass over the final input: row t of its layer must equal step t's rows
    Trace t;
    AttentionSet self_set, cross_set;
    seq2seq_decode(m, enc, S, dec, true, step_opt, &t, &self_set, &cross_set);
    for (std::size_t i = 0; i < out.steps.size(); ++i)
        for (std::size_t k = 0; k < out.heads.size(); ++k) {
            const Mat& ws = self_set.layers.at(0).heads.at(out.heads[k]).weights;
            const Mat& wc = cross_set.layers.at(0).heads.at(out.heads[k]).weights;
            for (std::size_t j = 0; j <= i; ++j)
                out.max_abs_diff = std::max(out.max_abs_diff, double(std::fabs(ws(i, j) - out.steps[i].self[k][j])));
            for (std::size_t j = 0; j < S; ++j)
                out.max_abs_diff = std::max(out.max_abs_diff, double(std::fabs(wc(i, j) - out.steps[i].cross[k][j])));
        }
    return out;
}

}  // namespace attn
