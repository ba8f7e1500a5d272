// --model NAME: a folder, or a Hugging Face repo id found in the cache (or pulled into it). An existing
// folder wins, as in transformers; attn says on stderr which snapshot a repo id used.
#pragma once

#include <memory>
#include <string>

namespace attn {
struct ModelCheckpoint;
}

namespace attn::cli {

// load_model_checkpoint (data/checkpoint/model_checkpoint.h), then a warning among the notes below
// when the checkpoint holds tensors the model does not use ("attn: warning: model.safetensors: 2 tensors
// are not used ..."), as Hugging Face warns when it loads them.
std::unique_ptr<ModelCheckpoint> load_model(const std::string& dir);

// The folder to read for `--model name`: `name` itself when it is a folder (or not a repo id: the
// loader then says what is wrong); else the repo's snapshot in the cache, pulled first when files are
// missing and the hub may be used (not `offline`, HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE).
std::string model_folder(const std::string& name, bool offline);

// The notes model_folder kept back because stderr is not a terminal ("attn: gpt2 from the Hugging Face
// cache: …"): printed when the command succeeded, so that a failing command's stderr is its one error line.
void print_deferred_notes();

// How a model folder is named on screen, in titles and in traces (ModelInfo::name): the repo id for a
// snapshot in the cache ("HuggingFaceTB/SmolLM2-135M"), else the folder's base name (the folder "."
// stands for, for "."), control characters and invalid UTF-8 replaced by U+FFFD (render::printable_name).
std::string model_display_name(const std::string& folder);

// attn pull NAME[@REV]: downloads into the cache with progress on stderr (a terminal only); Ctrl-C
// stops it leaving no partial file. Returns the snapshot folder.
std::string pull_model_files(const std::string& name, bool print_summary);

}  // namespace attn::cli
