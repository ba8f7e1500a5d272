// Positions: how attention learns word order. Three schemes, each exactly as its paper writes it.
//
//   sinusoidal (Vaswani et al. 2017): PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(p / 10000^(2i/D)),
//       added to the token embeddings before the projections.
//   rope (Su et al. 2021, RoFormer): each head's queries and keys rotated by angle p·θ_i after the
//       projections, θ_i = base^(−2i/d_k), i = 0 .. d_k/2 − 1. Two pairings of the d_k columns:
//         half        (x_i, x_{i + d_k/2}): Hugging Face's rotate_half, the Llama checkpoints' layout;
//         interleaved (x_{2i}, x_{2i+1}): the paper's pairs.
//       A pair (a, b) becomes (a cos pθ − b sin pθ, a sin pθ + b cos pθ).
//   alibi (Press et al. 2022): no change to q or k; head h adds m_h · (j − i) to its scaled scores,
//       m_h = 2^(−8(h+1)/H) for H a power of two; otherwise the slopes of the nearest lower power
//       of two n, then every other slope of 2n (the reference implementation's get_slopes).
//
// Positions are whole numbers counted from 0 (plus an offset, to test that RoPE depends on i − j only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/trace.h"

namespace attn {

enum class PosKind { none, sinusoidal, rope, alibi };
enum class RopeStyle { half, interleaved };

PosKind parse_pos(const std::string& name);          // "none" | "sinusoidal" | "rope" | "alibi"
RopeStyle parse_rope_style(const std::string& name);  // "half" | "interleaved"
const char* pos_formula(PosKind kind);               // one line, for titles and `attn kinds`

// PE (n, D): row r is position first + r.
Mat sinusoidal_table(std::size_t n, std::size_t d, std::int64_t first = 0);

// Rotates x (n, d_k) in place: row r sits at position first + r. d_k must be even.
void rope_rotate(Mat& x, std::int64_t first, double base, RopeStyle style);
// The same with the pairs' frequencies given: θ_i = inv_freq[i], i < d_k/2 (a model's rope_scaling
// changes them). rope_inv_freq(base, d_k)[i] = base^(−2i/d_k), the frequencies of the call above.
void rope_rotate(Mat& x, std::int64_t first, const std::vector<double>& inv_freq, RopeStyle style);
std::vector<double> rope_inv_freq(double base, std::size_t d_k);
// cos(p·θ_i) and sin(p·θ_i) in double for rows p = first .. first + n − 1 and pairs i < d_k/2:
// computed once and shared by every head and layer that rotates rows at those positions.
struct RopeTable {
    std::int64_t first = 0;
    std::size_t n = 0, half = 0;
    std::vector<double> cos, sin;  // (n, d_k/2) each
};
RopeTable rope_table(std::int64_t first, std::size_t n, const std::vector<double>& inv_freq);
// rope_rotate with the angles from a table; rows first .. first + x.rows − 1 must lie within it.
void rope_rotate(Mat& x, std::int64_t first, const RopeTable& table, RopeStyle style);

// The H slopes m_0 .. m_{H−1}.
std::vector<double> alibi_slopes(std::size_t heads);

// ALiBi's bias for one head without a (T, S) matrix: bias(i, j) = m · (key_pos(j) − query_pos(i)),
// key_pos(j) = k0 + j, query_pos(i) = q0 + i; both float operations fixed, so every path (softmax
// rows, flash tiles, the trace's matrix) adds bit-identical numbers.
struct LinearBias {
    float slope = 0.0f;
    std::int64_t q0 = 0, k0 = 0;
    float at(std::size_t i, std::size_t j) const {
        return slope * static_cast<float>((k0 + static_cast<std::int64_t>(j)) - (q0 + static_cast<std::int64_t>(i)));
    }
};
Mat bias_matrix(const LinearBias& b, std::size_t t, std::size_t s);  // (T, S) for the trace

// Where a run's positions start: query i is at q0 + i, key j at k0 + j. Both count from
// c.pos_offset; with c.bottom_right the T queries are the last T of the S key positions (q0 += S − T).
struct PositionFrame {
    std::int64_t q0 = 0, k0 = 0;
};
PositionFrame position_frame(const Settings& c, std::size_t t, std::size_t s);

// What one head's positions did: the unrotated q and k (rope), the bias (alibi).
struct HeadPositions {
    Mat queries_unrotated, keys_unrotated;  // (T, d_k), (S, d_k): rope only
    bool has_bias = false;
    LinearBias bias;                        // alibi only
};

// Head h of H under c.pos: rope rotates q (T, d_k) and k (S, d_k) in place; alibi gives the bias of
// slope m_h. Sinusoidal and none leave q and k alone (sinusoidal acts on the inputs, before).
HeadPositions position_head(Mat& q, Mat& k, const Settings& c, std::size_t h, std::size_t heads, PositionFrame f);

}  // namespace attn
