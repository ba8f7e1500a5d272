// The JSON trace (format "attn-trace", version 2; docs/trace-format.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/trace.h"
#include "core/kinds/kinds.h"

namespace attn::render {

// Version 2 keeps every head in "attention": a list of sets, each with its layers of heads (version 1 had
// "heads" for seeded kinds and "layers" for models; `attn render` still reads it).
inline constexpr int kTraceVersion = 2;

// Numbers are float32 and print as the shortest decimal that reads back to the same float.
using Json = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t,
                                  std::uint64_t, float>;

Json matrix(const Mat& m);         // (R, C) -> an array of R rows; every matrix keeps its rank
Json bool_matrix(const Mask& m);    // (T, S) -> rows of booleans, true = visible
Json config_json(const Settings& c);
// A model run's facts (render/trace_io/json_model.cpp): {"type", "name" (when known), "dtype", "n_layer",
// "n_head", "n_embd", "n_positions", "vocab_size", "n_params", "layer_norm_epsilon"}: a model trace's
// "model", and a model decode's (which adds "layer").
Json model_info_json(const ModelInfo& m);
// The registry as `attn kinds --json` prints it: per kind its name, description, formula, score_stages,
// paper, options, default_causal, positions and whether attn decode takes it.
Json kinds_json();
// A kind's score stages as the page reads them: {"scores": "q·k", "scale": "× 1/√d_k" or null (no scale)}.
Json score_stages_json(const ScoreStages& s);
// The trace as compact JSON text, written straight from the matrices (render/trace_io/json_out.h): the bytes
// of dumping the document as one nlohmann::json, without building it.
std::string trace_json_text(const Trace& t);

}  // namespace attn::render
