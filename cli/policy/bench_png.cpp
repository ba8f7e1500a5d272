#include "cli/policy/bench_png.h"

#include <chrono>

#include "data/base/error.h"
#include "render/outputs/figures.h"

namespace attn::policy {

// The weights heatmap of head 0 as one PNG, rendered and encoded in memory: a stage of its own.
void time_weights_png(BenchResult& r) {
    Trace one = std::move(r.trace);
    std::vector<HeadTrace>& heads = one.heads();
    if (heads.empty() || heads[0].weights.size() == 0)
        usage_error("--png needs the weights", "drop --no-weights");
    heads.resize(1);
    heads[0].scores = Mat(), heads[0].dropped_weights = Mat();
    one.tiles.clear();
    const auto t0 = std::chrono::steady_clock::now();
    std::size_t bytes = 0;
    render::FigureOptions opt;
    opt.weights_only = true;
    for (const auto& f : render::render_figures(one, opt, render::FileType::png)) bytes += f.bytes.size();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.stages.push_back({"png", seconds, 0.0, 0.0});
    r.png_bytes = bytes;
}

}  // namespace attn::policy
