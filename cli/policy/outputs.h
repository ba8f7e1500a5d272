// A run's outputs as a set, checked before the run: no two outputs on one path, no output over a file
// the run reads, and each --png/--npy folder left holding one consistent set of attn's files.
//
// attn's own file names in an output folder, for a run of kind K (render/png.cpp, render/npy.cpp):
//   --png (and --svg, as .svg): K-scores.png, K-mask.png, K-weights.png, K-dropped-weights.png, K-tiles.png
//   --npy: K-x.npy, K-source_x.npy, K-W_<name>.npy, K-b_<name>.npy, K-v.npy, K-output.npy,
//          K-h<N>-{queries,keys,values,scores,mask,weights,dropped_weights,context}.npy
// A run removes the files of these names for its kind K that it does not write itself (an earlier
// run's h3 files after a 2-head run, say), and touches no other file in the folder.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace attn::policy {

enum class Folder { png, npy, svg };

// True when `name` is one of the names above for kind `prefix`.
bool is_output_name(Folder folder, const std::string& prefix, const std::string& name);

struct InputFile {
    std::string option;  // "--file", "--embeddings", "--mask"
    std::string path;    // "-" (standard input) is never an output
};

struct OutputRequest {
    std::optional<std::string> json, png, npy, svg, html;
    std::string prefix;  // the kind: the folders' file names start with it
    std::vector<InputFile> inputs;
};

// Usage errors (exit 2), before anything runs or is created:
//   --png - / --npy - (standard output carries the JSON trace only);
//   two outputs on one path, or one inside the other (--json d --png d/x), after following links;
//   an output that is the same file (device and inode) as an input, or a folder output whose
//   attn-named files include an input.
void check_outputs(const OutputRequest& r);

// After a run has written `written` (file names) into dir: removes the other files of attn's names for
// `prefix` (see above). Errors are ignored: a file that cannot be removed stays.
void remove_stale(const std::string& dir, Folder folder, const std::string& prefix,
                  const std::vector<std::string>& written);

}  // namespace attn::policy
