// How a model run names its checkpoint in titles and headers: the checkpoint's name (ModelInfo::name:
// the folder's base name or the Hugging Face repo id) made printable, or the family (ModelInfo::type)
// for a trace that has no name. The name is text from a file system or a hand-edited trace: it goes only
// into titles and the page's header (as text), never into a file name.
#pragma once

#include <string>
#include <string_view>

#include "core/base/trace.h"

namespace attn::render {

// `text` with every invalid UTF-8 sequence and every control character (C0, DEL, C1, and the
// bidirectional embedding, override and isolate controls U+202A-U+202E, U+2066-U+2069, which reorder
// what follows them) replaced by U+FFFD.
std::string printable_name(std::string_view text);

// "tiny-llama": the printable name, or the type ("gpt2") when the trace has none.
std::string model_title(const ModelInfo& m);

// "tiny-llama (llama)": the name with the family when they differ; the type alone without a name.
std::string model_title_with_family(const ModelInfo& m);

}  // namespace attn::render
