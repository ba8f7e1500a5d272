// Numbers as every figure, chart and view prints them: without the locale, U+2212 for a minus sign,
// never "-0". One copy of each rule; the terminal, the figures and the charts all call these.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn::render {

// v with exactly `decimals` decimals: fixed(0.5, 2) = "0.50", fixed(-1, 1) = "−1.0", "nan", "inf".
std::string fixed(double v, int decimals);

// v with at most `decimals` decimals, trailing zeros dropped: trimmed(0.250, 3) = "0.25", "2", "−1.5".
std::string trimmed(double v, int decimals);

// A number for a label: at most 3 decimals, trailing zeros dropped (0.354, 0.1, 2, −1.5), and 3
// significant digits below 0.01 (0.00123).
std::string short_number(double v);

// "3x4": a matrix shape in messages.
std::string shape_str(std::size_t rows, std::size_t cols);

// 0, 1, 2, 5 -> "0–2, 5"
std::string head_ranges(const std::vector<std::size_t>& heads);

struct Tick {
    double value;
    std::string label;
};

// Round ticks (1, 2, 5 x 10^k apart), about five over [lo, hi]; none when the span is empty.
std::vector<Tick> ticks_for(double lo, double hi);

int nice_step(int k);  // smallest of 1, 2, 5, 10, 20, 50, ... >= k

}  // namespace attn::render
