// Interventions on a decoder's heads (core/model/model.h): the text's loss, an ablated run beside the
// plain one, and every head's effect on the loss when it alone is zero-ablated (attn heads --effect).
// The ablation itself happens inside the forward pass (core/model/decoder.cpp ablate_heads).
#include <cstddef>
#include <numeric>

#include "core/model/model.h"

namespace attn {

double text_loss(const std::vector<double>& token_losses) {
    if (token_losses.empty()) return 0.0;
    return std::accumulate(token_losses.begin(), token_losses.end(), 0.0) / static_cast<double>(token_losses.size());
}

AblationSummary compare_ablation(const Trace& plain, const Trace& ablated, const HeadAblation& a) {
    AblationSummary s;
    s.heads = a.heads;
    s.mode = a.mode == AblationMode::zero ? "zero" : "mean";
    s.loss_before = text_loss(plain.token_losses), s.loss_after = text_loss(ablated.token_losses);
    // position i predicts token i + 1: T − 1 positions, each with both runs' top token and losses
    for (std::size_t i = 0; i < plain.token_losses.size(); ++i) {
        const Prediction &before = plain.predictions.at(i).at(0), &after = ablated.predictions.at(i).at(0);
        s.positions.push_back({before.id, after.id, before.p, after.p, plain.token_losses[i], ablated.token_losses.at(i),
                               before.token, after.token});
    }
    return s;
}

std::vector<std::vector<double>> head_effects(
    const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::vector<std::int64_t>>& texts,
    const std::function<void(const char* stage, std::size_t done, std::size_t total)>& progress) {
    const std::size_t L = m.config.n_layer, H = m.config.n_head;
    std::vector<std::vector<double>> effect(L, std::vector<double>(H, 0.0));  // (L, H)
    ModelRunOptions run;
    run.token_losses = true, run.top_k = 1;
    run.keep_layers.assign(L, false);  // only the losses are read: no head's matrices kept
    const std::size_t total = texts.size() * (1 + L * H);
    std::size_t done = 0;
    for (const auto& ids : texts) {
        run.ablation.heads.clear();
        const double plain = text_loss(run_model(m, tok, ids, run).token_losses);
        if (progress) progress("ablating heads", ++done, total);
        for (std::size_t l = 0; l < L; ++l)
            for (std::size_t h = 0; h < H; ++h) {
                run.ablation.heads = {{l, h}};
                const double ablated = text_loss(run_model(m, tok, ids, run).token_losses);
                effect[l][h] += (ablated - plain) / static_cast<double>(texts.size());
                if (progress) progress("ablating heads", ++done, total);
            }
    }
    return effect;
}

}  // namespace attn
