// A run's outputs as a set, checked before the run: no two outputs on one path, no output over a file
// the run reads, and each --png/--svg/--npy folder left holding one consistent set of attn's files.
//
// attn's own file names in an output folder, for a prefix P (the kind or --prefix; a model's type and
// "model"), are listed in render/trace_io/file_names.h, where the renderers make them. In short:
//   --png, --svg: P-<figure>.png/.svg for every figure --figures names (scores, masked-scores, mask,
//          weights, zeroed, dropped-weights, tiles, queries, keys, values, context, output, query),
//          P-{positions,rope,alibi}, P-{decode-steps,decode-cache}, P-overview, P-l<N>-h<N>-<figure>,
//          P-l<N>-<figure>, P-h<N>-<figure>, P-l<N>-{mean,rollout}, P-heads-<pattern>
//   --npy: P-x.npy, P-source_x.npy, P-W_<name>.npy, P-b_<name>.npy, P-v.npy, P-output.npy,
//          P-h<N>-{queries,keys,values,scores,mask,weights,dropped_weights,context}.npy,
//          P-token_ids.npy, P-l<N>-h<N>-{scores,mask,weights}.npy, P-l<N>-{mean,rollout}.npy
// A run removes the files of these names for its prefix that it does not write itself (an earlier
// run's h3 files after a 2-head run, its masked-scores figure, its rope figure) among the names it
// would write (show, decode, render and heads each have their own set: render::FileSet; a model head's
// and render's layer and head figures are asked per prefix), and touches no other file in the folder
// (notes.png, P-scores-old.png, decode's figures after a show run, show's heads after attn heads stay).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/policy/files.h"
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
    // The command, when it takes a sentence ("show", "decode", "heads"): an output path that reads like
    // one (`--png "The cat sat"`) is then refused with a hint instead of becoming a folder of that name.
    std::string sentence_command;
};

// Every command that writes files (show, show --model, decode, decode --model, render, heads) goes through
// the routine below, in this order:
//   check_outputs(r) before the run           each path alone, then the set
//   RunOutputs out(r); out.json(...), out.png.add(out.files, ...), ...   the run's bytes
//   write_outputs(r, out, set)                 all files or none, then each folder's stale files go
//   say_written(r, std::cout)                  "wrote ..." per output, when the terminal view is printed

// Each output path alone (check_output_file/check_output_dir, cli/policy/files.h): --json and --html
// name files, --png, --svg and --npy folders. A command that must read its input before it knows the
// prefix (render) calls this first and check_outputs once it knows.
// Each path alone: a file or folder attn may write, and not a sentence given as an output
// (see OutputRequest::sentence_command).
void check_output_paths(const OutputRequest& r);

// check_output_paths, then the set. Usage errors (exit 2), before anything runs or is created:
//   --png - / --npy - (standard output carries the JSON trace only);
//   two outputs on one path, or one inside the other (--json d --png d/x), after following links;
//   an output that is the same file (device and inode) as an input, or a folder output whose
//   attn-named files include an input.
void check_outputs(const OutputRequest& r);

// True when --json goes to standard output ("-", or the file standard output is): the terminal view
// and the "wrote" lines then stay out of the way of the JSON.
bool json_to_stdout(const OutputRequest& r);

// A run's files before they are written: the JSON and the page by path, each folder's by name.
struct RunOutputs {
    explicit RunOutputs(const OutputRequest& r)
        : png(r.png.value_or("")), svg(r.svg.value_or("")), npy(r.npy.value_or("")) {}
    std::vector<OutputFile> files;
    FolderFiles png, svg, npy;
};

// Writes out.files all or nothing (write_files_atomic), then removes from each --png, --svg and --npy
// folder attn's files of the request's prefix that this run did not write (remove_stale, `set`).
void write_outputs(const OutputRequest& r, RunOutputs& out, render::FileSet set);

// The same for a run whose figures have several prefixes (attn render: one per layer or head drawn,
// "gpt2-l3", "gpt2-l3-h0"): the stale figures of each of `figure_prefixes` go (none when empty), the
// arrays' as above.
void write_outputs(const OutputRequest& r, RunOutputs& out, render::FileSet set, const std::vector<std::string>& figure_prefixes);

// One line per output written: "wrote FILE", "wrote PNGs to DIR", "wrote SVGs to DIR",
// "wrote .npy files to DIR", in the order --json, --png, --svg, --npy, --html.
void say_written(const OutputRequest& r, std::ostream& os);

// After a run has written `written` (file names) into dir: removes the other files of attn's names for
// `prefix` (see above): every command that writes into a --png, --svg or --npy folder calls it.
// Errors are ignored: a file that cannot be removed stays.
// `set`: the command's own names (render/trace_io/file_names.h), so decode's figures never remove show's.
void remove_stale(const std::string& dir, Folder folder, const std::string& prefix,
                  const std::vector<std::string>& written, render::FileSet set);

}  // namespace attn::policy
