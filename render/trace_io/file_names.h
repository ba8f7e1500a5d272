// The names of the files attn writes into an output folder (--png, --svg, --npy), in one place: the
// renderers build their names from the words and prefixes here, and cli/policy/outputs.cpp asks
// is_attn_file_name which files of a folder are attn's (to refuse clashes before a run, and to
// remove an earlier run's files after it).
//
// For a prefix P (the kind, --prefix, the model's type, "model"):
//
// Figures: P-<rest>.png, and the same names ending in .svg (a name means the same figure in either
// format; render_figures draws the trace figures), <rest> one of
//   <figure>                        a trace figure, figure_names() (render/view/figure_views.h): scores,
//                                   masked-scores, mask, weights, zeroed, dropped-weights, tiles, queries,
//                                   keys, values, context, output, query (the --query strip), products
//                                   (a model head's query I times every key, show --model --query I)
//   positions, rope, alibi          attn show --pos (render/layout/position_charts.h)
//   decode-steps, decode-cache      attn decode (render/outputs/decode_view.h)
//   overview                        attn show --model: P is the model's type (render/outputs/model_figures.h)
//   l<N>-h<N>-<figure>, l<N>-<figure>, h<N>-<figure>
//                                   one head of layer N, layer N's heads, a head of a trace without layers:
//                                   attn show --model, attn render, attn heads --top (layer_head_prefix);
//                                   P is the model's type for a model's trace, else the trace's kind
//   l<N>-mean, l<N>-rollout         layer N's mean over heads, the rollout through it (show --model, render)
//   heads-<pattern>                 attn heads: one layers × heads map per pattern (P: the model's type)
//   <set>-<rest>                    an encoder-decoder's set <set> (encoder, decoder, cross) drawn as a
//                                   model's: <rest> as above (l<N>-h<N>-<figure>, overview, l<N>-mean, ...)
//                                   (render/view/set_view.h set_file_prefix)
//   align-l<N>-h<N>, align-l<N>-mean, align-mean, each + -input, + -words
//                                   an encoder-decoder's alignment figure (render/view/alignment.h)
// Arrays: P-<rest>.npy, <rest> one of
//   x, source_x, v, output, W_<letters>, b_<letters>,
//   h<N>-{queries,keys,values,scores,mask,weights,dropped_weights,context}       (render/trace_io/npy.h)
//   token_ids, l<N>-h<N>-{scores,mask,weights}, l<N>-{mean,rollout}              (attn show --model, P = model)
// <N> is a number as attn writes it: decimal digits, no leading zero.
//
// Which names a run may remove (it removes only files it would write itself): `attn show` (trace,
// position and overview figures, l<N>-h<N> heads; a model run asks with its head's prefix, so only that
// head's earlier figures go), `attn decode` (decode-steps, decode-cache), `attn render` (the trace
// figures, asked with each layer or head prefix it drew: "gpt2-l3", "gpt2-l3-h0"; nothing for a whole
// trace's own prefix) and `attn heads` (its heads-<pattern> maps). So show's, decode's, render's and
// heads' figures share a folder; clash checks ask about every name (FileSet::any).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace attn::render {

enum class FileType { png, svg, npy };

// ".png", ".svg", ".npy"
const char* file_extension(FileType type);

enum class FileSet { any, show, decode, render, heads };

// True when `name` (a file name, no folder) is one of the names above for prefix P, in `set`.
bool is_attn_file_name(FileType type, const std::string& prefix, const std::string& name,
                       FileSet set = FileSet::any);

// Figure words beside the trace figures (the <rest> of a name).
namespace figure_word {
inline constexpr const char* positions = "positions";  // the sinusoidal table
inline constexpr const char* rope = "rope";
inline constexpr const char* alibi = "alibi";
inline constexpr const char* decode_steps = "decode-steps";
inline constexpr const char* decode_cache = "decode-cache";
inline constexpr const char* overview = "overview";  // a model's layers × heads
}  // namespace figure_word

// When a figure name of prefix P (P-<figure>.png, P-rope.png, ...) would also be one of attn's names for
// a shorter prefix Q (P = "causal-l1-h0": "causal-l1-h0-weights.png" is a model head's name for
// "causal"; P = "causal-masked": "causal-masked-scores.png" is a figure of "causal"), that file name;
// else nothing. A --prefix like that is refused: a run of the shorter prefix would count P's files as
// its own and remove them.
std::optional<std::string> prefix_clash(const std::string& prefix);

// "P-word.png": a figure's file name.
std::string figure_file_name(const std::string& prefix, const std::string& word, FileType type = FileType::png);

// The prefix of the figures of one layer and/or head, for every command that draws them (show --model,
// render, heads): "gpt2-l5-h1" (a model's head), "gpt2-l5" (a layer's heads, mean and rollout),
// "causal-h1" (a head of a trace without layers); base "" is "attn", as in render_figures.
std::string layer_head_prefix(const std::string& base, std::optional<std::size_t> layer, std::optional<std::size_t> head);


// A model run's prefixes: its figures start with the model's type (ModelInfo::type: "gpt2", the one
// type attn runs, core/model/model.cpp), its arrays with "model".
inline constexpr const char* kModelFigurePrefix = "gpt2";
inline constexpr const char* kModelArrayPrefix = "model";

}  // namespace attn::render
