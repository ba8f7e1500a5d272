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

// A file of a model folder that is there but is not a regular file (a folder, a pipe, a device such as
// /dev/zero, a socket, a link that loops): an input error "'PATH' is a pipe (FIFO), not a regular file"
// with `hint`. Nothing when it is a regular file or absent (the caller says what is missing). Never opens
// the path, so a pipe with no writer cannot block.
void refuse_odd_file(const std::string& path, const std::string& hint);

// A JSON file that starts with a UTF-8 byte order mark (EF BB BF): an input error naming `name`, as
// Python's json and serde_json (Hugging Face's readers) refuse it, where nlohmann/json would skip it.
void refuse_json_bom(const std::string& text, const std::string& name);
// Standard input, stopping (cut = true) once more than max_words white-space separated words arrived.
std::string read_stdin_words(const std::string& what, std::size_t max_words, bool& cut);

}  // namespace attn
