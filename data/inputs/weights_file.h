// --weights FILE: a seeded kind's parameters read from a file instead of drawn from --seed. Three formats,
// told apart by their first bytes:
//   safetensors  8-byte header length, then the JSON header (data/checkpoint/safetensors.h: F32, F16, BF16)
//   .npz         a zip of .npy files, stored or deflated (numpy.savez / savez_compressed); an entry's name
//                minus ".npy" is the parameter's name
//   attn trace   a JSON trace written by `attn show --json` (docs/trace-format.md): its "params"
// The names and orientation are the trace's own: W_query, W_key, W_value, W_out, b_*, v, stored (in, out)
// and applied as x @ W. Every value must be finite (float32); the file names each bad array.
#pragma once

#include <string>

#include "data/inputs/params.h"

namespace attn {

// Reads every array of the file at `path`; runtime errors name the file and the array.
GivenWeights read_weights_file(const std::string& path);

// The same from bytes held in memory; `path` names the file in errors and gives the base name.
GivenWeights read_weights_bytes(const std::string& bytes, const std::string& path);

}  // namespace attn
