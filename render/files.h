// Output files written whole or not at all.
//
// Every file goes to a temporary name in its target folder (".NAME.tmp-XXXXXX") and is renamed into
// place only when every file of the run has been written; a failure (a full disk, a folder that
// vanished, no permission) removes every temporary and every folder the run created, and reports the
// OS's reason. An interrupt (SIGINT, SIGTERM, SIGHUP) removes the temporaries being written. Nothing
// is written outside the named paths: no other files, no folders but the ones on those paths.
#pragma once

#include <streambuf>
#include <string>
#include <vector>

namespace attn::render {

struct OutputFile {
    std::string path;   // "-" = standard output; an existing device (/dev/null, /dev/full) is written directly
    std::string bytes;
};

// Checks an output path before the run, so a mistake costs nothing and leaves nothing:
// `--json PATH` must name a file (not empty, not ending in '/', not an existing folder);
// `--png DIR` must name a folder (not empty, not an existing file). Throws attn::Error: usage for an
// empty path or a trailing '/', runtime for what is on disk.
void check_output_file(const std::string& path, const std::string& option);
void check_output_dir(const std::string& dir, const std::string& option);

// Writes every file, all or nothing (see above). Throws attn::Error (runtime) naming the path and
// the reason; "-" is written last, after the files are in place.
void write_files_atomic(const std::vector<OutputFile>& files);

// One file, the same way.
void write_file_atomic(const std::string& path, const std::string& bytes);


// Joins a folder and a file name.
std::string join_path(const std::string& dir, const std::string& name);

// Installs the signal handlers that remove temporaries on interrupt (idempotent).
void install_cleanup_handlers();

// While alive, std::cout writes straight to file descriptor 1 through its own buffer and remembers
// the first failure's errno (stdio forgets it by the time anyone asks).
class CheckedStdout {
public:
    CheckedStdout();
    ~CheckedStdout();
    CheckedStdout(const CheckedStdout&) = delete;
    CheckedStdout& operator=(const CheckedStdout&) = delete;
    int flush();  // flushes; 0, or the errno of the first failed write
private:
    struct Buf;
    Buf* buf_;
    std::streambuf* old_;
};

}  // namespace attn::render
