// A run's outputs as a set, checked before the run: no two outputs on one path, no output over a file
// the run reads, and each --png/--svg/--npy folder left holding one consistent set of attn's files.
//
// attn's own file names in an output folder, for a prefix P (the kind or --prefix; a model's type and
// "model"), are listed in render/trace_io/file_names.h, where the renderers make them. In short:
//   --png, --svg: P-<figure>.png/.svg for every figure --figures names (scores, masked-scores, mask,
//          weights, zeroed, dropped-weights, tiles, queries, keys, values, context, output, query),
//          P-{positions,rope,alibi}, P-{decode-steps,decode-cache}, P-overview, P-l<N>-h<N>-<figure>,
//          P-{layer<N>,head<N>,layer<N>-head<N>}-<figure>
//   --npy: P-x.npy, P-source_x.npy, P-W_<name>.npy, P-b_<name>.npy, P-v.npy, P-output.npy,
//          P-h<N>-{queries,keys,values,scores,mask,weights,dropped_weights,context}.npy,
//          P-token_ids.npy, P-l<N>-h<N>-{scores,mask,weights}.npy, P-l<N>-{mean,rollout}.npy
// A run removes the files of these names for its prefix that it does not write itself (an earlier
// run's h3 files after a 2-head run, its masked-scores figure, its rope figure) that the same command
// writes (show, decode and render each have their own set: render::FileSet), and touches no other
// file in the folder (notes.png, P-scores-old.png, decode's figures after a show run stay).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "render/trace_io/file_names.h"

namespace attn::policy {

enum class Folder { png, npy, svg };

// True when `name` is one of the names above for `prefix` (render::is_attn_file_name).
bool is_output_name(Folder folder, const std::string& prefix, const std::string& name);

struct InputFile {
    std::string option;  // "--file", "--embeddings", "--mask"
    std::string path;    // "-" (standard input) is never an output
};

struct OutputRequest {
    std::optional<std::string> json, png, npy, svg, html;
    std::string prefix;      // --png/--svg file names start with it: the kind, --prefix, a model's type
    std::string npy_prefix;  // --npy file names start with it; empty = prefix
    std::vector<InputFile> inputs;
};

// Usage errors (exit 2), before anything runs or is created:
//   --png - / --npy - (standard output carries the JSON trace only);
//   two outputs on one path, or one inside the other (--json d --png d/x), after following links;
//   an output that is the same file (device and inode) as an input, or a folder output whose
//   attn-named files include an input.
void check_outputs(const OutputRequest& r);

// After a run has written `written` (file names) into dir: removes the other files of attn's names for
// `prefix` (see above): every command that writes into a --png, --svg or --npy folder calls it.
// Errors are ignored: a file that cannot be removed stays.
// `set`: the command's own names (render/trace_io/file_names.h), so decode's figures never remove show's.
void remove_stale(const std::string& dir, Folder folder, const std::string& prefix,
                  const std::vector<std::string>& written, render::FileSet set);

}  // namespace attn::policy
