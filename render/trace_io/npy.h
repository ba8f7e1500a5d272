// Every matrix of a trace as a NumPy .npy file (xt::dump_npy), for traces too large for JSON.
// Names: <prefix>-x.npy, <prefix>-source_x.npy, <prefix>-<param>.npy, <prefix>-h<h>-<matrix>.npy
// (queries, keys, values, scores, mask as bool, weights, dropped_weights, context), <prefix>-output.npy.
#pragma once

#include <string>
#include <vector>

#include "core/base/trace.h"

namespace attn::render {

struct NpyFile {
    std::string name;
    std::string bytes;
};

std::vector<NpyFile> npy_files(const Trace& t, const std::string& prefix);

// A model run's arrays: model-token_ids.npy, model-l<L>-h<H>-{scores,mask,weights}.npy,
// model-l<L>-mean.npy, model-l<L>-rollout.npy.
std::vector<NpyFile> model_npy_files(const Trace& t);

}  // namespace attn::render
