// Output files written whole or not at all.
//
// Every file goes to a temporary name in its target folder (".attn-XXXXXX") and is renamed into
// place only when every file of the run has been written; a failure (a full disk, a folder that
// vanished, no permission) removes every temporary and every folder the run created, and reports the
// OS's reason. An interrupt (SIGINT, SIGTERM, SIGHUP) removes the temporaries being written and the
// folders created for them. Nothing is written outside the named paths: no other files, no folders
// but the ones on those paths.
//
// A path that is a symbolic link is written through: the temporary goes beside the file the link
// names, which is replaced (the link stays). A path naming the same file as standard output or
// standard error (/dev/stdout, /dev/fd/2, or the file stdout is redirected to) is written through
// that descriptor; devices, pipes and kernel paths (/proc/..., /dev/fd/...) are written in place. An
// overwritten file keeps its permissions (a 0600 trace stays 0600).
#pragma once

#include <streambuf>
#include <string>
#include <utility>
#include <vector>

namespace attn::policy {

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


// True when path names the same file as open descriptor fd ("-" is standard output's).
bool same_file_as_fd(const std::string& path, int fd);

// True for /proc/..., /dev/fd/... and /dev/std{in,out,err}: written in place, never renamed over.
bool is_kernel_path(const std::string& path);

// The path a chain of symbolic links ends at (the path itself when it is no link); the end may not
// exist yet.
std::string link_target(const std::string& path);

// Joins a folder and a file name.
std::string join_path(const std::string& dir, const std::string& name);

// A folder's own name, as a page or report heads it: "gpt2-small" for "models/gpt2-small/".
std::string folder_name(std::string dir);

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

// A folder's share of a run's outputs: the files to write and the names written (for remove_stale).
struct FolderFiles {
    explicit FolderFiles(std::string folder) : dir(std::move(folder)) {}
    std::string dir;
    std::vector<std::string> names;
    // Adds render's files (anything with .name and .bytes: OutputFile, NpyFile) into dir.
    template <typename Files>
    void add(std::vector<OutputFile>& files, Files&& made) {
        for (auto& f : made) {
            names.push_back(f.name);
            files.push_back({join_path(dir, f.name), std::move(f.bytes)});
        }
    }
};

}  // namespace attn::policy
