// How a generated token is chosen from the next token's logits (V): greedy (the first maximum, as
// torch.argmax), or a draw as Hugging Face's sampling warpers shape it, in their order:
//   1. temperature T: logits / T
//   2. top-k K: logits below the K-th largest to −∞ (ties with the K-th stay, as TopKLogitsWarper)
//   3. top-p P: the smallest set of the most likely tokens whose probabilities (softmax after 1 and 2)
//      reach P; always at least one (TopPLogitsWarper)
//   4. a draw from softmax(what is left) with attn's own seeded generator (data/base/rng.h): one double
//      in [0, 1) from two 32-bit outputs, walked over the ids in order (the inverse of the CDF).
// The draw does not reproduce torch.multinomial's stream; it follows the same distribution.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "data/base/rng.h"

namespace attn {

struct SamplingOptions {
    bool sample = false;      // false: greedy (the other fields are unused)
    double temperature = 1.0;  // > 0, finite
    std::size_t top_k = 0;     // 0: off
    double top_p = 1.0;        // (0, 1]; 1: off
    std::uint64_t seed = 0;    // --sample-seed
};

// The distribution step 4 draws from (V): zero outside top-k and the nucleus, summing to 1.
std::vector<double> sampling_distribution(const float* logits, std::size_t V, const SamplingOptions& s);

// A draw from `probs` (V, summing to 1): the first id whose cumulative probability passes u.
std::int64_t draw_token(const std::vector<double>& probs, TorchGenerator& rng);

// The first maximum (torch.argmax).
std::int64_t argmax_token(const float* logits, std::size_t V);

// Greedy, or a draw from sampling_distribution: the step's choice.
std::int64_t choose_token(const float* logits, std::size_t V, const SamplingOptions& s, TorchGenerator& rng);

}  // namespace attn
