// Reading whole input files and standard input, bounded: every reader of attn's inputs (text, .npy,
// JSON, model folders, fonts) goes through these, so one limit and one set of messages hold for all.
#pragma once

#include <cstddef>
#include <string>

namespace attn {

// Reads a whole file, at most kMaxInputFileBytes (checked before reading when the size is known);
// errors (runtime) name the path and the OS's reason, or say it is a folder or too large.
std::string read_file(const std::string& path, const std::string& what);
std::string read_stdin(const std::string& what);  // the same for standard input
// Standard input, stopping (cut = true) once more than max_words white-space separated words arrived.
std::string read_stdin_words(const std::string& what, std::size_t max_words, bool& cut);

}  // namespace attn
