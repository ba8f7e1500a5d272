// attn bench --model DIR: the stages of a model run (load, tokenise, forward by part, predictions).
#include <chrono>
#include <cstdio>
#include <string>

#include "cli/model_source.h"
#include "cli/show_model.h"
#include "core/model/model.h"
#include "data/base/error.h"
#include "data/checkpoint/model_checkpoint.h"
#include "data/text/tokenizer.h"

namespace attn::cli {

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
    std::printf("attn bench · model %s · %s · %zu layers × %zu heads · %zu wide · T=%zu · every layer's weights kept\n",
                dir.c_str(), model->dtype.c_str(), c.n_layer, c.n_head, c.n_embd, tokens);
    std::printf("%-22s %10s\n", "stage", "seconds");
    const std::pair<const char*, double> rows[] = {
        {"read tokeniser", t_tok_load}, {"map + check weights", t_load}, {"tokenise", t_encode},
        {"embeddings", best.embed}, {"layer norms", best.layer_norm}, {"qkv projection", best.qkv},
        {"attention (heads)", best.attention}, {"output projection", best.attn_proj}, {"mlp", best.mlp},
        {"logits (ln_f · wteᵀ)", best.logits}, {"top-5 predictions", best.predictions}};
    for (const auto& [name, s] : rows) std::printf("%-22s %10.4f\n", name, s);
    std::printf("%-22s %10.4f (fastest of %zu)\n", "forward total", best_total, repeat);
}

}  // namespace attn::cli
