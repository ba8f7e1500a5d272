// Output files written whole or not at all: every file goes to a temporary name in its target
// folder and is renamed into place; a failed write removes the temporary and reports the OS's
// reason. An interrupt (SIGINT, SIGTERM, SIGHUP) removes the temporary being written.
#pragma once

#include <string>

namespace attn::render {

// Writes bytes to path ("-" = stdout). Devices such as /dev/null or /dev/full are written directly.
// Throws attn::Error (runtime) naming the path and the reason.
void write_file_atomic(const std::string& path, const std::string& bytes);

// Creates dir and its parents as needed; an existing non-directory is an error.
void ensure_dir(const std::string& dir);

// Joins a folder and a file name.
std::string join_path(const std::string& dir, const std::string& name);

// Installs the signal handlers that remove a temporary file on interrupt (idempotent).
void install_cleanup_handlers();

}  // namespace attn::render
