// attn bench --model DIR: the stages of a model run (load, tokenise, forward by part, predictions).
#include <chrono>
#include <cstdio>
#include <iterator>
#include <string>

#include "cli/model_source.h"
#include "cli/show_model.h"
#include "core/kinds/bench.h"
#include "core/model/model.h"
#include "data/base/error.h"
#include "data/checkpoint/model_checkpoint.h"
#include "data/text/tokenizer.h"

namespace attn::cli {

namespace {

// The multiply-adds (× 2) of a model run's products on T tokens, full (unmasked) counts as `attn bench`
// counts a kind's: q/k/v 2·T·C·(H + 2G)·d, the heads' scores and contexts 2·2·H·T·T·d, the output
// projection 2·T·H·d·C, the MLP 2·T·C·I per matrix (3 for SwiGLU), the logits 2·T·C·V. A decoder or an
// encoder only; an encoder-decoder's stacks are not counted (0).
struct StageWork {
    double qkv = 0, attention = 0, attn_proj = 0, mlp = 0, logits = 0;
    double total() const { return qkv + attention + attn_proj + mlp + logits; }
};

StageWork stage_work(const ModelCheckpoint& m, std::size_t tokens) {
    const ModelConfig& c = m.config;
    StageWork w;
    if (m.family->recipe.stack == Stack::encoder_decoder) return w;
    const double T = double(tokens), C = double(c.n_embd), H = double(c.n_head), G = double(c.n_kv_head);
    const double d = double(c.head_dim), I = double(c.n_inner), L = double(c.n_layer);
    w.qkv = L * 2 * T * C * (H + 2 * G) * d;
    w.attention = L * 2 * 2 * H * T * T * d;
    w.attn_proj = L * 2 * T * H * d * C;
    w.mlp = L * 2 * T * C * I * (c.mlp == MlpKind::swiglu ? 3 : 2);
    if (m.family->recipe.stack == Stack::decoder) w.logits = 2 * T * C * double(m[Role::lm_head].rows);
    return w;
}

void print_stage(const char* name, double seconds, double flops, double sgemm) {
    if (flops <= 0 || seconds <= 0) {
        std::printf("%-22s %10.4f\n", name, seconds);
        return;
    }
    const double rate = flops / seconds / 1e9;
    std::printf("%-22s %10.4f %8.2f %8.1f %7.0f%%\n", name, seconds, flops / 1e9, rate, 100.0 * rate / sgemm);
}

}  // namespace

void run_bench_model(const std::string& dir, std::size_t tokens, std::size_t repeat) {
    using Clock = std::chrono::steady_clock;
    auto since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    // 1. the folder
    auto t0 = Clock::now();
    const Tokenizer tok = Tokenizer::load_dir(dir);
    const double t_tok_load = since(t0);
    t0 = Clock::now();
    const auto model = load_model(dir);
    const double t_load = since(t0);
    const ModelConfig& c = model->config;
    if (tokens > context_length(c)) usage_error("--tokens " + std::to_string(tokens) + " is more than the model's " + context_field(c) + " " + std::to_string(context_length(c)));
    // 2. a text of `tokens` tokens: a sentence repeated, cut to length
    std::string text;
    t0 = Clock::now();
    std::vector<std::int64_t> ids;
    while (ids.size() < tokens) {
        text += "Your journey starts with one step, and the animal didn't cross the street because it was too tired. ";
        ids = tok.ids(text, tokens);
    }
    ids.resize(tokens);
    const double t_encode = since(t0);
    // 3. the forward pass, fastest of `repeat`
    ModelTiming best;
    double best_total = 1e30;
    for (std::size_t r = 0; r < repeat; ++r) {
        ModelTiming timing;
        ModelRunOptions opt;
        opt.timing = &timing;
        t0 = Clock::now();
        const Trace t = run_model(*model, tok, ids, opt);
        const double total = since(t0);
        if (total < best_total) best_total = total, best = timing;
    }
    const double sgemm = sgemm_gflops(2048);
    std::printf("attn bench · model %s · %s · %zu layers × %zu heads · %zu wide · T=%zu · every layer's weights kept\n",
                dir.c_str(), model->dtype.c_str(), c.n_layer, c.n_head, c.n_embd, tokens);
    const StageWork work = stage_work(*model, tokens);
    std::printf("%-22s %10s %8s %8s %8s\n", "stage", "seconds", "GFLOP", "GFLOP/s", "sgemm %");
    const std::pair<const char*, double> rows[] = {
        {"read tokeniser", t_tok_load}, {"map + check weights", t_load}, {"tokenise", t_encode},
        {"embeddings", best.embed}, {"layer norms", best.layer_norm}, {"qkv projection", best.qkv},
        {"attention (heads)", best.attention}, {"output projection", best.attn_proj}, {"mlp", best.mlp},
        {"logits (ln_f · wteᵀ)", best.logits}, {"top-5 predictions", best.predictions}};
    const double flops[] = {0, 0, 0, 0, 0, work.qkv, work.attention, work.attn_proj, work.mlp, work.logits, 0};
    for (std::size_t i = 0; i < std::size(rows); ++i) print_stage(rows[i].first, rows[i].second, flops[i], sgemm);
    print_stage("forward total", best_total, work.total(), sgemm);
    std::printf("(fastest of %zu) · sgemm 2048³ on this machine: %.1f GFLOP/s\n", repeat, sgemm);
}

}  // namespace attn::cli
