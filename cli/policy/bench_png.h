// `attn bench --time-png`: the time to render and encode one weights heatmap, as a stage of its own; and
// `attn bench --small-run`: the chapter's small run (`attn show --kind causal "Your journey starts with
// one step" --json F --png D`) in memory, timed by part.
#pragma once

#include <cstddef>
#include <string>

#include "core/kinds/bench.h"

namespace attn::policy {

// Renders head 0's weights of r.trace as a PNG in memory; adds a "png" stage and r.png_bytes.
void time_weights_png(BenchResult& r);

// The small run's parts, each the fastest of `repeat` runs (seconds): the attention (inputs, settings and
// the run), the JSON trace's text, drawing the three figures (layout, text and pixels on a canvas at
// show's default --scale 2) and encoding them as PNGs; `total` is the fastest whole run. Nothing is written:
// a process adds its own start and the files' writes.
struct SmallRunTimes {
    std::string sentence;
    std::size_t repeat = 0;
    double compute = 0, json = 0, drawing = 0, encoding = 0, total = 0;
    double drawn_ahead = 0;  // the figures as show makes them (render::encode_all): laid out and kept, then drawn and deflated strip by strip
    std::size_t json_bytes = 0, png_bytes = 0, png_pixels = 0, figures = 0;
};
SmallRunTimes time_small_run(std::size_t repeat);

}  // namespace attn::policy
