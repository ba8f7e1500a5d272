// The look of attn's figures, in one place: colours, text sizes, margins and limits.
#pragma once

#include <array>
#include <cstddef>

#include "render/view/colormaps.h"

namespace attn::render {

inline constexpr Rgb kBackground{255, 255, 255};
inline constexpr Rgb kInk{26, 26, 26};           // titles, labels
inline constexpr Rgb kSoftInk{90, 90, 90};       // subtitle, captions, ticks
inline constexpr Rgb kFrame{128, 128, 128};      // around heatmaps and the colour bar
inline constexpr Rgb kHiddenBase{205, 205, 205}; // a cell the mask hides: neutral grey ...
inline constexpr Rgb kHiddenLine{140, 140, 140}; // ... with "/" hatching (no map here is grey)
inline constexpr Rgb kMaskVisible{33, 102, 172}; // mask image: a visible key
inline constexpr Rgb kNonFinite{255, 0, 255};    // NaN or infinity (should not happen; never a map colour)
inline constexpr Rgb kDroppedBase{255, 255, 255};// a weight the dropout removed: white ...
inline constexpr Rgb kDroppedLine{214, 39, 40};  // ... with a red "X" cross-hatch
inline constexpr Rgb kTileLine{255, 85, 0};      // flash: tile boundaries
// A sentence pair (encoders): the line between segment A's last token and B's first on both axes, and
// the colours of the two segments' names in legends (the page's token strip uses the same three).
inline constexpr Rgb kSegmentLine{255, 255, 255};
inline constexpr Rgb kSegmentEdge{20, 20, 20};   // either side of kSegmentLine: it reads on dark and light cells
inline constexpr Rgb kSegmentA{31, 119, 180};
inline constexpr Rgb kSegmentB{214, 39, 40};
inline constexpr int kSegmentLineWidth = 2;      // kSegmentLine's width; an edge of 1 px either side
inline constexpr Rgb kSkippedShade{30, 30, 45};  // flash: tile never visited, shaded ...
inline constexpr Rgb kSkippedLine{235, 235, 235};// ... and hatched "\"
// Key/value groups (matplotlib's tab10).
inline constexpr std::array<Rgb, 10> kGroupColours{{{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40},
                                             {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
                                             {188, 189, 34}, {23, 190, 207}}};

inline constexpr float kTitlePx = 21.0f, kSubtitlePx = 14.0f, kPanelTitlePx = 15.0f, kLabelPx = 14.0f;
inline constexpr float kTickPx = 13.0f, kLegendPx = 13.0f, kCaptionPx = 12.0f;
inline constexpr int kMargin = 20;
inline constexpr int kHatch = 6;                 // hatching period, pixels
inline constexpr int kMaxHeatmapSide = 4096;     // pixels of heatmap per axis (grids share it); above: max-pool
inline constexpr int kMaxLabelWidth = 150;       // longer labels end in "…"
inline constexpr std::size_t kMaxValueCells = 16;// values printed in cells while T and S are at most this
inline constexpr int kBarWidth = 18, kSwatch = 16;

// Values in cells (--values): automatic draws them while they stay legible on a slide, always whenever
// they fit in the cells (kMaxValueCells a side at most), never leaves them out.
enum class CellValues { automatic, always, never };
// A figure fitted to a 1920 × 1080 slide is scaled by min(1920 / width, 1080 / height); automatic leaves
// the values out when their em size would fall under 14.5 px there. Measured on 6 tokens (weights,
// scores): 1 head 45, 37 px; 2 heads 35, 27 px; 4 heads (gqa, mqa) 19, 14.7 px; 8 heads 19, 14.7 px;
// 12 heads 14.0, 10.9 px. So every kind's default figure keeps its values (byte-identical), and a grid
// of 12 heads, whose digits a slide would show at about 10 px tall, is colour only.
inline constexpr double kSlideWidth = 1920.0, kSlideHeight = 1080.0, kMinSlideValuePx = 14.5;
// Every label, tick, caption and title of a figure fitted to a kSlideWidth × kSlideHeight slide is at
// least this many pixels (values in cells aside: kMinSlideValuePx and --values govern them).
inline constexpr double kMinSlideTextPx = 16.0;

}  // namespace attn::render
