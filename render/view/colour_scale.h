// The colour scale every renderer shares (terminal and images): which value gets which colour, and
// what the ends of the colour bar mean.
//
// What "auto" means, per kind of matrix (docs/trace-format.md, "Colour scales"):
//   - probabilities (weights, dropped weights, the renorm softmax): 0 .. 1, always. A weight is a share
//     of one query's attention, so 0 and 1 mean the same thing on every slide: near-uniform weights
//     (0.07-0.11 over 12 keys) look near-uniform instead of being stretched into full contrast.
//     Dropped weights can exceed 1 (kept ones are scaled by 1/(1-p)); values above the top are clipped
//     to the top colour and the bar's top label says so ("≥ 1").
//   - signed values (scores, masked scores, queries, keys, values, context, output): a diverging map
//     centred at 0, from -M to +M with M the largest visible |value| over every head drawn together.
// --range MIN,MAX fixes the scale of probabilities (so two runs colour 0.25 alike); --range data uses
// the matrix's own smallest..largest visible value. --log colours probabilities by log10: from
// --range's MIN (or, for auto, 10^floor(log10(smallest visible positive weight)), at least 1e-6) to
// MAX; a weight below the bottom (0, a dropped cell) takes the bottom colour.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "render/view/colormaps.h"

namespace attn::render {

// What a matrix holds, for its colour scale.
enum class ValueKind {
    probability,  // weights: share of a query's attention
    signed_value, // scores, vectors: diverging around 0
};

// The user's choices (--range, --log, --colormap).
struct ColourSpec {
    enum class Range { automatic, data, fixed } range = Range::automatic;
    float min = 0.0f, max = 1.0f;  // Range::fixed
    bool log = false;              // probabilities only
    std::string colormap = "viridis";  // sequential map of probabilities: viridis, magma, cividis, gray
};

// Parses --range: "auto", "data" or "MIN,MAX" (MIN < MAX, finite). Throws a usage error otherwise.
ColourSpec::Range parse_range(const std::string& text, float& min, float& max);

// The sequential maps --colormap names, and the diverging one scores use.
const std::vector<std::string>& colormap_names();
const Colormap* find_colormap(const std::string& name);  // nullptr when unknown

// The one value -> colour rule of every view (matplotlib's, for a map of 256 entries):
// floor((v - lo) / (hi - lo) * 256), clipped to 0..255; NaN -> 0. Inline, so that row loops vectorise.
inline int colour_index(float v, float lo, float hi) {
    const float t = (v - lo) / (hi - lo) * 256.0f;
    if (!(t > 0.0f)) return 0;
    if (t >= 255.0f) return 255;
    return static_cast<int>(t);
}

// One scale: a value -> an entry 0..255 of `cmap`.
struct ColourScale {
    float lo = 0.0f, hi = 1.0f;    // the values at the bottom and top entries (log: the values, not logs)
    bool log = false;
    const Colormap* cmap = &kViridis;
    std::string cmap_name = "viridis";
    bool clipped_low = false, clipped_high = false;  // some visible value lies beyond an end
    std::string caption;           // what the colours mean: "weight, fixed 0–1" ...

    // colour_index's rule; on a log scale, on the logs.
    int index(float v) const {
        if (!log) return colour_index(v, lo, hi);
        const float t = log_position(v);
        if (!(t > 0.0f)) return 0;
        if (t >= 255.0f) return 255;
        return static_cast<int>(t);
    }
    float log_position(float v) const;  // (log10 v - log10 lo) / (log10 hi - log10 lo) * 256
    Rgb colour(float v) const { return (*cmap)[static_cast<std::size_t>(index(v))]; }
    // The labels for the bottom and top of a colour bar: the numbers, with "≤"/"≥" when values were clipped.
    std::string low_label() const;
    std::string high_label() const;
};

// The range of the visible, finite values of a matrix (or several drawn on one scale).
struct ValueRange {
    float lo = 0.0f, hi = 0.0f, mag = 0.0f;  // smallest, largest, largest |value|
    float min_positive = 0.0f;               // smallest value > 0 (0: none)
    bool any = false;
    void add(float v);
    // Every x[i] with vis[i] != 0, n of them, vectorised; min_positive only when positive_too.
    void add_visible(const float* x, const std::uint8_t* vis, std::size_t n, bool positive_too);
};

// The scale of a matrix of kind `kind` whose visible values span `r`, under the user's `spec`.
// `what` names the values for the caption ("weight", "score", "value").
ColourScale make_scale(ValueKind kind, const ValueRange& r, const ColourSpec& spec, const std::string& what);

// Whether black text reads better than white on c (WCAG relative luminance above 0.179).
bool wants_dark_text(Rgb c);

}  // namespace attn::render
