// Everything a run reads, turned into tensors: the sentence (or a text file, the chapter's example,
// or an embeddings file), the source for cross-attention kinds, and a user mask.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/trace.h"

namespace attn {

struct InputRequest {
    std::optional<std::string> sentence;  // SENTENCE
    std::optional<std::string> text_file;  // --file PATH ("-" = stdin)
    std::optional<std::string> example;    // --example NAME
    std::optional<std::string> embeddings;  // --embeddings FILE
    std::optional<std::string> source;     // --source TEXT
    std::optional<std::string> mask_file;  // --mask FILE
    std::optional<std::size_t> d_in;       // --d-in, when given
    std::size_t default_d_in = 16;
    std::uint64_t seed = 123;
    std::size_t max_tokens = 4096;        // kDefaultMaxTokens
};

// Builds the inputs; usage errors for the command line's own text, runtime errors for files.
Inputs make_inputs(const InputRequest& r);

// A JSON (T, S) array of booleans or 0/1, or a .npy bool/uint8 array. Errors (runtime) name the file
// and the row and column, or the byte offset.
Mask load_mask(const std::string& path, std::size_t t, std::size_t s);

// The same from the file's bytes; `name` only names the file in errors. (The fuzzers call this.)
Mask load_mask_bytes(const std::string& bytes, const std::string& name, std::size_t t, std::size_t s);

}  // namespace attn
