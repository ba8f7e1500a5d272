// A model run (kind "model") for people and programs: the terminal view, the JSON trace's model
// fields, the .npy files, and the PNGs (the chosen head's heatmaps and the layers × heads overview).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/trace.h"
#include "render/json.h"
#include "render/npy.h"
#include "render/png.h"
#include "render/png_encode.h"
#include "render/svg.h"
#include "render/terminal.h"

namespace attn::render {

// The head a model view shows: layer (index into the run's layers) and head.
struct HeadChoice {
    std::size_t layer = 0, head = 0;
};

// A trace holding just the chosen head, titled "gpt2 · layer L" (for terminal_view and render_pngs).
Trace chosen_head_trace(const Trace& t, const HeadChoice& c);

// Mean attention distance of one head: over query rows i >= 1, the average of Σ_j w_ij · (i − j).
// About 1 for a previous-token head, large for heads that spread out or park on the first token.
double mean_attention_distance(const Mat& weights);

// Terminal: the model, the tokens, the chosen head's matrices (opt.show), the all-heads summary
// (mean attention distance, layers × heads) and the top predictions after the last position.
std::string model_terminal_view(const Trace& t, const HeadChoice& c, const TerminalOptions& opt);

// .npy: model-token_ids.npy, model-l<L>-h<H>-{scores,mask,weights}.npy, model-l<L>-mean.npy,
// model-l<L>-rollout.npy.
std::vector<NpyFile> model_npy_files(const Trace& t);

// PNG: gpt2-l<L>-h<H>-{scores,mask,weights}.png (the chosen head, as every kind draws a head) and
// gpt2-overview.png: every kept layer × every head as a small weight map, labelled.
// `o` as for every kind (scale, font, warn); its prefix is set here. The overview is drawn at o.scale.
std::vector<PngFile> model_pngs(const Trace& t, const HeadChoice& c, PngOptions o = {});
Image model_overview_image(const Trace& t, int scale = 1);

// SVG: the chosen head's figures as every kind draws them (gpt2-l<L>-h<H>-*.svg). The overview stays
// a PNG: its maps are pixel summaries (a 1024-token head is a million cells in 72 × 72 pixels).
std::vector<SvgFile> model_svgs(const Trace& t, const HeadChoice& c, SvgOptions o = {});

}  // namespace attn::render
