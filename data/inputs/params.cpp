#include "data/inputs/params.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "data/base/error.h"

namespace attn {
namespace {

Param& find_or_add(std::vector<Param>& params, const std::string& name, std::size_t rows, std::size_t cols) {
    for (auto& p : params)
        if (p.name == name) return p;
    params.push_back({name, Mat::from_shape({rows, cols})});
    params.back().value.fill(0.0f);
    return params.back();
}

// nn.init.kaiming_uniform_(w, a=math.sqrt(5)) computes its bound in Python doubles, in this order.
double kaiming_bound(std::size_t fan_in) {
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1.0 + a * a));
    const double stdv = gain / std::sqrt(static_cast<double>(fan_in));
    return std::sqrt(3.0) * stdv;
}

}  // namespace

InitMode parse_init(const std::string& name) {
    if (name == "torch") return InitMode::torch;
    if (name == "torch-rand") return InitMode::torch_rand;
    usage_error("--init must be torch or torch-rand, not '" + name + "'");
}

std::vector<Param> init_params(const std::vector<LayerSpec>& layers, InitMode mode, TorchGenerator& gen) {
    std::vector<Param> params;
    for (const auto& l : layers) {
        const std::size_t cols = l.cols ? l.cols : l.out;
        // Reserve the weight's slot first so the stored order is W, b as PyTorch names them.
        find_or_add(params, l.weight, l.in, cols);
        if (!l.bias.empty()) find_or_add(params, l.bias, 1, cols);
        Mat& w = find_or_add(params, l.weight, l.in, cols).value;  // (in, cols)
        if (mode == InitMode::torch) {
            const double bound = kaiming_bound(l.in);
            for (std::size_t o = 0; o < l.out; ++o)       // weight [out, in], row-major
                for (std::size_t i = 0; i < l.in; ++i) w(i, l.col + o) = gen.next_uniform(-bound, bound);
        } else {
            for (std::size_t i = 0; i < l.in; ++i)        // torch.rand(in, out)
                for (std::size_t o = 0; o < l.out; ++o) w(i, l.col + o) = gen.next_unit();
        }
        if (!l.bias.empty()) {
            Mat& b = find_or_add(params, l.bias, 1, cols).value;  // (1, cols)
            const double bound = 1.0 / std::sqrt(static_cast<double>(l.in));
            for (std::size_t o = 0; o < l.out; ++o)
                b(0, l.col + o) = mode == InitMode::torch ? gen.next_uniform(-bound, bound) : gen.next_unit();
        }
    }
    return params;
}

namespace {

std::string shape_list_text(const std::vector<std::size_t>& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + (shape.size() == 1 ? ",)" : ")");
}

// What a --weights error ends with: where such a file comes from.
constexpr const char* kWeightsHint =
    "write the parameters from a run of the same kind and sizes: attn show --kind K ... --json trace.json, then "
    "--weights trace.json (or an .npz/.safetensors with the trace's names, shapes (in, out), x @ W)";

}  // namespace

std::vector<Param> given_params(const std::vector<LayerSpec>& layers, const GivenWeights& given, const std::string& kind) {
    // 1. the names and shapes init_params would draw, in its order
    std::vector<Param> params;
    for (const auto& l : layers) {
        const std::size_t cols = l.cols ? l.cols : l.out;
        find_or_add(params, l.weight, l.in, cols);
        if (!l.bias.empty()) find_or_add(params, l.bias, 1, cols);
    }
    const std::string of = "--weights " + given.file;
    // 2. every name in the file is one of them, once
    std::set<std::string> seen;
    for (const StoredArray& a : given.arrays) {
        const bool known = std::any_of(params.begin(), params.end(), [&](const Param& p) { return p.name == a.name; });
        if (!known) {
            std::string names;
            for (const Param& p : params) names += (names.empty() ? "" : ", ") + p.name;
            input_error(of + " holds '" + excerpt(a.name) + "', which kind '" + kind + "' does not take here",
                        params.empty() ? std::string("this kind has no parameters: drop --weights")
                                       : "its parameters are " + names + "; rename or remove '" + excerpt(a.name) + "'");
        }
        if (!seen.insert(a.name).second) input_error(of + " holds '" + excerpt(a.name) + "' twice", kWeightsHint);
    }
    // 3. each parameter present with its shape; the values copied row-major
    for (Param& p : params) {
        const std::size_t rows = p.value.shape(0), cols = p.value.shape(1);
        const auto at = std::find_if(given.arrays.begin(), given.arrays.end(), [&](const StoredArray& a) { return a.name == p.name; });
        if (at == given.arrays.end())
            input_error(of + " has no '" + p.name + "', which kind '" + kind + "' needs with shape " + shape_list_text({rows, cols}),
                        kWeightsHint);
        const bool fits = at->shape == std::vector<std::size_t>{rows, cols} ||
                          (at->shape.size() == 1 && at->shape[0] == rows * cols && (rows == 1 || cols == 1));
        if (!fits)
            input_error(of + ": '" + p.name + "' has shape " + shape_list_text(at->shape) + ", kind '" + kind + "' needs " +
                            shape_list_text({rows, cols}) + " here (in, out)",
                        "in is the embeddings' width (--d-in), out follows --d-out and --heads: give the options the file "
                        "was made for, or write the parameters from such a run with --json trace.json");
        std::copy(at->values.begin(), at->values.end(), p.value.begin());
    }
    return params;
}

}  // namespace attn
