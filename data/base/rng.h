// A random stream that reproduces PyTorch's CPU generator bit for bit.
//
// torch.manual_seed(s) seeds a 32-bit Mersenne Twister exactly as std::mt19937(s) does. A float32
// draw takes the low 24 bits of one 32-bit output: x = (u & 0xFFFFFF) * 2^-24, and uniform_(a, b)
// returns x * (b - a) + a computed in float. Tensors are filled one draw per element, row-major.
#pragma once

#include <cstdint>
#include <random>

namespace attn {

class TorchGenerator {
public:
    explicit TorchGenerator(std::uint64_t seed) : mt_(static_cast<std::mt19937::result_type>(seed)) {}

    std::uint32_t next_u32() { return static_cast<std::uint32_t>(mt_()); }

    // torch.rand: a float in [0, 1) with 24 random bits.
    float next_unit() { return static_cast<float>(next_u32() & 0xFFFFFFu) * (1.0f / 16777216.0f); }

    // Tensor.uniform_(from, to) for float32; from and to arrive as Python doubles.
    float next_uniform(double from, double to);

private:
    std::mt19937 mt_;
};

}  // namespace attn
