#include "data/inputs/params.h"

#include <cmath>

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

}  // namespace attn
