#include "data/base/rng.h"

#include <cmath>

namespace attn {

// PyTorch's CPU kernel computes x * (to - from) + from in float, and its vectorised builds contract
// that into one fused multiply-add (a single rounding). std::fma rounds the same way on every machine,
// with or without an FMA instruction, so every draw matches bit for bit (checked against PyTorch 1.13
// by tests/pytorch/torch_check.py).
float TorchGenerator::next_uniform(double from, double to) {
    const float a = static_cast<float>(from);
    const float b = static_cast<float>(to);
    return std::fma(next_unit(), b - a, a);
}

}  // namespace attn
