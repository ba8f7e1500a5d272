// Tokens to vectors: seeded embeddings, the chapter's example, and embeddings files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/base/tensor.h"

namespace attn {

// The same token string gets the same vector for the same seed, wherever it stands and in whatever
// sentence: each row is drawn uniform in [-1, 1) from a generator seeded by (seed, token bytes).
Mat embed_tokens(const std::vector<std::string>& tokens, std::size_t d_in, std::uint64_t seed);  // (T, d_in)

struct Embeddings {
    std::vector<std::string> tokens;  // empty when the file gives rows only
    Mat x;                            // (T, d_in)
};

// "journey": "Your journey starts with one step" with the chapter's 3-wide rows.
Embeddings example(const std::string& name);

// A JSON array of rows, a JSON object {"tokens": [...], "x": [[...]]}, or a 2-D float32/float64 .npy.
// Every row must have the same width (at most kMaxWidth); every value must be a finite float32;
// tokens must be non-empty strings without control characters, one per row. Errors (runtime) name
// the file and the row and column, or the byte offset.
Embeddings load_embeddings(const std::string& path);

// The same from the file's bytes; `name` only names the file in errors. (The fuzzers call this.)
Embeddings load_embeddings_bytes(const std::string& bytes, const std::string& name);

}  // namespace attn
