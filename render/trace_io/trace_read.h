// Reading a run back: a saved JSON trace (format "attn-trace", version 2, or 1; docs/trace-format.md), or
// attention weights saved from another model as a NumPy .npy file, into the Trace every renderer reads
// (render/trace_io/trace_read_json.cpp and render/trace_io/attention_npy.cpp; render/trace_io/trace_read.cpp tells the two apart).
//
// Both readers are strict: a file that is not what it claims, a matrix of the wrong shape, a value that
// is not a finite number gives one attn::Error (runtime, exit 1) naming the file and what is wrong.
// Nothing is guessed: an unknown "version" is refused rather than half-read.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/base/trace.h"

namespace attn::render {

// A JSON trace's text, `name` naming it in errors. Seeded traces (heads, tiles, params) and model
// traces ("kind": "model": model, token_ids, layers, aggregates, predictions) alike. Writing the result
// with trace_json_text gives back the same bytes attn wrote.
Trace read_trace_json(const std::string& text, const std::string& name);

// Token labels from `text` (a file's bytes): a JSON array of strings, a JSON object
// {"tokens": [...T], "source_tokens": [...S]} (cross attention), or one token per line.
struct TokenLabels {
    std::vector<std::string> tokens;         // (T)
    std::vector<std::string> source_tokens;  // (S); empty = the same as tokens
};
TokenLabels read_token_labels(const std::string& text, const std::string& name);

// Attention weights from a .npy file's bytes: float32 or float64 of shape (L, H, T, S), (H, T, S) or
// (T, S), every value finite. Labels must give T query tokens and S key tokens (one list serves both
// when T = S); without labels the tokens are the positions "0", "1", ... A 4-D array fills
// Trace::layers, a 3-D or 2-D one Trace::heads. The kind is "npy"; there is no mask (every key visible).
Trace read_attention_npy(const std::string& bytes, const std::string& name, const std::optional<TokenLabels>& labels,
                         const std::string& labels_name);

// Reads the file at `path` (a trace or a .npy, told apart by the .npy magic string) and, for a .npy,
// the optional --tokens file.
Trace read_trace_file(const std::string& path, const std::optional<std::string>& tokens_path);

}  // namespace attn::render
