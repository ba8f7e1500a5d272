#include "cli/policy/bench_png.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "core/kinds/kinds.h"
#include "data/base/defaults.h"
#include "data/base/error.h"
#include "data/inputs/inputs.h"
#include "render/backends/canvas.h"
#include "render/backends/encode.h"
#include "render/backends/png_encode.h"
#include "render/outputs/figures.h"
#include "render/text/font.h"
#include "render/trace_io/json.h"
#include "render/view/style.h"

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

SmallRunTimes time_small_run(std::size_t repeat) {
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    SmallRunTimes best;
    best.sentence = "Your journey starts with one step";
    best.repeat = repeat;
    best.compute = best.json = best.drawing = best.encoding = best.total = best.drawn_ahead = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < repeat; ++k) {
        SmallRunTimes now;
        // 1. the run, as `attn show --kind causal SENTENCE` makes it
        const Clock::time_point start = Clock::now();
        InputRequest req;
        req.sentence = best.sentence;
        const Inputs in = make_inputs(req);
        SettingsRequest s;
        s.kind = "causal";
        const RunShape shape{in.x.shape(0), in.source_x.shape(0), in.x.shape(1), in.source_x.shape(1)};
        const Trace t = run_attention(in, resolve_settings(s, shape));
        now.compute = since(start);
        // 2. the JSON trace
        Clock::time_point t0 = Clock::now();
        now.json_bytes = render::trace_json_text(t).size();
        now.json = since(t0);
        // 3. the figures: laid out and drawn, then encoded
        t0 = Clock::now();
        render::FigureOptions fopt;
        fopt.scale = 2;  // show's default --scale
        render::Font font("");
        const std::vector<render::Drawing> drawings = render::figure_drawings(t, fopt, render::FileType::png, font);
        now.drawing += since(t0);
        for (const render::Drawing& d : drawings) {
            t0 = Clock::now();
            render::Canvas cv(d.width, d.height, render::kBackground, fopt.scale);
            d.draw(cv);
            render::Image img = cv.take();
            now.drawing += since(t0);
            now.png_pixels += img.rgb.size() / 3;
            t0 = Clock::now();
            now.png_bytes += render::encode_png(std::move(img)).size();
            now.encoding += since(t0);
            ++now.figures;
        }
        // 4. the figures again as show makes them: kept once, then drawn and deflated strip by strip
        t0 = Clock::now();
        std::size_t bytes = 0;
        for (const std::string& png : render::encode_all(render::figure_drawings(t, fopt, render::FileType::png, font), fopt.scale,
                                                         render::FileType::png))
            bytes += png.size();
        now.drawn_ahead = since(t0);
        if (bytes != now.png_bytes) throw std::logic_error("bench --small-run: the figures drawn in strips differ from those drawn whole");
        now.total = now.compute + now.json + now.drawn_ahead;
        best.drawn_ahead = std::min(best.drawn_ahead, now.drawn_ahead);
        best.compute = std::min(best.compute, now.compute), best.json = std::min(best.json, now.json);
        best.drawing = std::min(best.drawing, now.drawing), best.encoding = std::min(best.encoding, now.encoding);
        best.total = std::min(best.total, now.total);
        best.json_bytes = now.json_bytes, best.png_bytes = now.png_bytes, best.png_pixels = now.png_pixels, best.figures = now.figures;
    }
    return best;
}

}  // namespace attn::policy
