// Everything a run reads, turned into tensors: the sentence (or a text file, the chapter's example,
// or an embeddings file), the source for cross-attention kinds, and a user mask.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <vector>

#include "data/base/defaults.h"
#include "data/base/tensor.h"
#include "data/inputs/params.h"
#include "data/text/tokenize.h"

namespace attn {

// What a kind reads. S = T and source_* = the sentence's own when no source is given.
struct Inputs {
    std::vector<std::string> tokens;         // (T)
    Mat x;                                   // (T, d_in)
    std::vector<std::string> source_tokens;  // (S)
    Mat source_x;                            // (S, d_src)
    bool has_source = false;
    std::optional<Mask> user_mask;           // (T, S) 1 = visible; combined with the kind's own mask
    std::optional<GivenWeights> weights;     // --weights FILE: the parameters, instead of drawing them
};

struct InputRequest {
    std::optional<std::string> sentence;  // SENTENCE
    std::optional<std::string> text_file;  // --file PATH ("-" = stdin)
    std::optional<std::string> example;    // --example NAME
    std::optional<std::string> embeddings;  // --embeddings FILE
    std::optional<std::string> source;     // --source TEXT
    std::optional<std::string> mask_file;  // --mask FILE
    std::optional<std::size_t> d_in;       // --d-in, when given
    std::size_t default_d_in = kDefaultDIn;
    std::uint64_t seed = kDefaultSeed;
    std::size_t max_tokens = kDefaultMaxTokens;
    Split split = Split::words;           // --split
    std::string command = "show";         // the command whose hints name it: "show", "decode"
};

// A text file's whole content (--file PATH, '-' = standard input) for the commands that tokenise it
// themselves (show --model, decode --model, heads): a UTF-8 byte order mark dropped; UTF-16, invalid
// UTF-8, a control character other than tab and newline refused as input errors (exit 1) naming the
// file and the byte offset in it (after the mark), as show's --file errors do.
std::string read_text_file(const std::string& path);

// Builds the inputs; usage errors for the command line's own text, runtime errors for files.
Inputs make_inputs(const InputRequest& r);

// A JSON (T, S) array of booleans or 0/1, or a .npy bool/uint8 array. Errors (runtime) name the file
// and the row and column, or the byte offset.
Mask load_mask(const std::string& path, std::size_t t, std::size_t s);

// The same from the file's bytes; `name` only names the file in errors. (The fuzzers call this.)
Mask load_mask_bytes(const std::string& bytes, const std::string& name, std::size_t t, std::size_t s);

}  // namespace attn
