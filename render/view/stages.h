// The stages of attention as a lecture shows them, one after the other, and what each one holds:
//   scores -> masked scores (scaled, -inf where hidden) -> weights (softmax) -> dropped -> context.
// Renderers (terminal, images) name and describe a stage through here, so every view says the same.
// Matrices a trace does not store are derived from it: masked scores, and for --renorm the softmax
// over every key with the hidden cells zeroed (before the rows are divided by their sums).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/kinds/kinds.h"  // has_source_axes, score_formula: facts of the kind's row
#include "core/base/trace.h"
#include "render/view/colour_scale.h"

namespace attn::render {

enum class Stage { scores, masked_scores, mask, weights, zeroed, dropped, context, queries, keys, values, output };

// The names --show takes, in the order a lecture shows them.
const std::vector<std::string>& stage_names();
std::optional<Stage> find_stage(const std::string& name);
const char* stage_name(Stage s);


// One line saying exactly what a stage's matrix holds for this trace (kind, scale, mask, dropout).
std::string stage_subtitle(const Trace& t, Stage s);

// "random weights (seed 123)" for a seeded kind whose weights an init draws (the kind table's --init):
// said by every figure's title, the terminal's first line and the page, so no one reads meaning into
// them; "weights from FILE" (the file's base name) for a run with --weights; "" for a model run, a kind
// without weights or attention read from a file.
std::string random_weights_note(const Trace& t);

// What the rows and the columns are: "query", "key" (self-attention kinds) or "target (query)",
// "source (key)" for kinds that attend over a --source.
std::string row_axis(const Trace& t);
std::string col_axis(const Trace& t);


ValueKind stage_value_kind(Stage s);

// Derived matrices. Empty when the trace has no scores for this head.
Mat masked_scores(const HeadTrace& h);   // (T, S) scale·scores where visible, -inf where hidden
// (T, S) --renorm's zeroed stage as the run computed it (HeadTrace::zeroed); for a run without --renorm,
// what that method would have given: softmax over every key of scale·scores, then 0 where hidden.
Mat zeroed_weights(const HeadTrace& h);

// A cell the dropout removed: visible, with a weight > 0 before dropout and exactly 0 after.
bool dropped_cell(const HeadTrace& h, std::size_t i, std::size_t j);

}  // namespace attn::render
