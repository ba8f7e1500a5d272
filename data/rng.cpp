#include "data/rng.h"

namespace attn {

// The volatile keeps the product rounded to float before the sum, as PyTorch's kernel does
// (no fused multiply-add), so every draw matches bit for bit.
float TorchGenerator::next_uniform(double from, double to) {
    const float a = static_cast<float>(from);
    const float b = static_cast<float>(to);
    const float x = next_unit();
    volatile float scaled = x * (b - a);
    return scaled + a;
}

}  // namespace attn
