// Parameter initialisation: PyTorch's numbers, bit for bit, for a given seed.
//
// A kind declares its nn.Linear layers in the order its PyTorch module builds them. `torch` draws
// each as nn.Linear(in, out) does: the weight [out, in] uniform in ±1/sqrt(in) (kaiming_uniform
// with a = sqrt(5)), row-major, then the bias, `out` draws uniform in ±1/sqrt(in). `torch-rand`
// draws each weight as torch.rand(in, out) (the chapter's SelfAttention_v1), then the bias as
// torch.rand(out). Weights are stored in x @ W orientation: (in, out).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "data/base/rng.h"
#include "data/base/tensor.h"

namespace attn {

// A named matrix parameter, in x @ W orientation: (in, out). Biases are (1, out).
struct Param {
    std::string name;
    Mat value;
};

// One nn.Linear. Several layers may fill column blocks of one stored parameter: layer k of a
// multi-head wrapper writes columns [col, col + out) of "W_query", so heads sit side by side.
struct LayerSpec {
    std::string weight;     // stored parameter name, e.g. "W_query"
    std::string bias;       // stored bias name, or empty for bias=False
    std::size_t in = 0;     // fan_in
    std::size_t out = 0;    // this layer's output width
    std::size_t col = 0;    // first column of the stored parameter this layer fills
    std::size_t cols = 0;   // total columns of the stored parameter (0: = out)
};

enum class InitMode { torch, torch_rand };

InitMode parse_init(const std::string& name);

// Draws every layer in order from `gen` and returns the parameters in the order first named.
std::vector<Param> init_params(const std::vector<LayerSpec>& layers, InitMode mode, TorchGenerator& gen);

// An array as a weights file holds it (--weights): its name, shape (any rank) and finite values, row-major.
struct StoredArray {
    std::string name;
    std::vector<std::size_t> shape;
    std::vector<float> values;
};

// The parameters of a --weights file (data/inputs/weights_file.h reads one): `file` is its path as given,
// which errors name; titles and the trace's config carry its base name ("weights from FILE").
struct GivenWeights {
    std::string file;
    std::vector<StoredArray> arrays;
};

// The parameters `layers` need, taken from `given` in the order init_params names them, with the shapes
// init_params would draw: a weight (in, out), a bias (1, out) and v (d, 1); a 1-D array of n values
// fits a (1, n) or (n, 1) parameter. A missing parameter, a wrong shape or a name the layers do not
// take is an input error naming it (`kind` says whose parameters they are).
std::vector<Param> given_params(const std::vector<LayerSpec>& layers, const GivenWeights& given, const std::string& kind);

}  // namespace attn
