#include "core/model/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace attn {

std::vector<double> sampling_distribution(const float* logits, std::size_t V, const SamplingOptions& s) {
    // 1. temperature, in float32 as Hugging Face divides the scores                        (V)
    std::vector<float> l(logits, logits + V);
    if (s.temperature != 1.0)
        for (float& x : l) x /= static_cast<float>(s.temperature);
    // 2. top-k: keep every logit at least the K-th largest
    constexpr float kDropped = -std::numeric_limits<float>::infinity();
    if (s.top_k > 0 && s.top_k < V) {
        std::vector<float> sorted = l;
        std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(s.top_k - 1), sorted.end(), std::greater<float>());
        const float kth = sorted[s.top_k - 1];
        for (float& x : l)
            if (x < kth) x = kDropped;
    }
    // softmax of what is left, in double (exp(l − max) / Σ)
    const float mx = *std::max_element(l.begin(), l.end());
    std::vector<double> p(V);
    double sum = 0.0;
    for (std::size_t v = 0; v < V; ++v) sum += p[v] = l[v] == kDropped ? 0.0 : std::exp(double(l[v]) - double(mx));
    for (double& x : p) x /= sum;
    // 3. top-p: the most likely first (ties: the lower id first), until their sum reaches P
    if (s.top_p < 1.0) {
        std::vector<std::size_t> order(V);
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
        double kept = 0.0;
        std::size_t n = 0;
        while (n < V && (n == 0 || kept < s.top_p)) kept += p[order[n++]];
        for (std::size_t i = n; i < V; ++i) p[order[i]] = 0.0;
        for (double& x : p) x /= kept;
    }
    return p;
}

std::int64_t draw_token(const std::vector<double>& probs, TorchGenerator& rng) {
    // u in [0, 1) with 53 random bits: 27 from one output, 26 from the next
    const std::uint64_t a = rng.next_u32() >> 5, b = rng.next_u32() >> 6;
    const double u = (double(a) * 67108864.0 + double(b)) / 9007199254740992.0;
    double cum = 0.0;
    std::int64_t last = -1;
    for (std::size_t v = 0; v < probs.size(); ++v) {
        if (probs[v] <= 0.0) continue;
        last = static_cast<std::int64_t>(v);
        cum += probs[v];
        if (u < cum) return last;
    }
    return last;  // rounding left u past the sum: the last possible id
}

std::int64_t argmax_token(const float* logits, std::size_t V) {
    std::size_t best = 0;
    for (std::size_t v = 1; v < V; ++v)
        if (logits[v] > logits[best]) best = v;
    return static_cast<std::int64_t>(best);
}

std::int64_t choose_token(const float* logits, std::size_t V, const SamplingOptions& s, TorchGenerator& rng) {
    if (!s.sample) return argmax_token(logits, V);
    return draw_token(sampling_distribution(logits, V, s), rng);
}

}  // namespace attn
