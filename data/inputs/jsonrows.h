// A streaming reader of JSON matrices: rows of numbers (embeddings) or of true/false/0/1 (masks).
//
// It reads with nlohmann's SAX parser straight into a flat float buffer: no document tree, so a
// file costs about four bytes per value, nesting deeper than kMaxJsonDepth is refused as soon as it
// is seen, and every error names the file and the byte offset (syntax) or the row and column (content).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

enum class JsonCells {
    number,  // any finite number that fits float32
    flag,    // true, false, 0 or 1 (stored as 1.0f / 0.0f)
};

struct JsonRows {
    std::vector<float> values;        // (rows, cols) row-major
    std::size_t rows = 0, cols = 0;
    bool has_tokens = false;          // the object form gave "tokens"
    std::vector<std::string> tokens;  // {"tokens": [...]} (raw strings; the caller checks them)
};

// Accepts a top-level array of rows, or (allow_object) an object whose "x" is the rows and whose
// "tokens" is an array of strings; other keys are ignored. Every row must be a non-empty array of
// the same length. Throws attn::Error (runtime) "name: ..." with `hint`.
JsonRows parse_json_rows(std::string_view bytes, const std::string& name, JsonCells cells, bool allow_object,
                         const std::string& hint);

}  // namespace attn
