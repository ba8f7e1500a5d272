// `attn bench --png`: the time to render and encode one weights heatmap, as a stage of its own.
#pragma once

#include "core/kinds/bench.h"

namespace attn::policy {

// Renders head 0's weights of r.trace as a PNG in memory; adds a "png" stage and r.png_bytes.
void time_weights_png(BenchResult& r);

}  // namespace attn::policy
