// PyTorch checkpoints (`pytorch_model.bin`, written by torch.save(model.state_dict())) read without
// running any pickle code: the pickles go through the restricted interpreter of
// data/checkpoint/torch_pickle.h. Two file formats:
//   zip (PyTorch >= 1.6's default): one top folder (the file's stem, or `archive` when saved to a buffer)
//     holding data.pkl (the state dict's pickle) and data/<key> (each storage's bytes, little-endian);
//     read with libzip, stored or deflated entries.
//   legacy (_use_new_zipfile_serialization=False): five pickles in a row (the magic number
//     0x1950a86a20f9469cfc6c, the protocol version 1001, sys_info with little_endian True, the state dict,
//     the list of storage keys), then per key in the list's order an int64 element count and the bytes.
// Each tensor is a view _rebuild_tensor_v2(storage, offset, size, stride) of a storage; every offset,
// size and stride is checked against the storage (overflow-safe) and the view copied out row-major and
// contiguous (strided views and storages shared by several names, tied weights, included).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

struct TorchTensor {
    std::string name;
    std::string dtype;                // the safetensors name: "F32", "F16", "BF16", "F64", "I64", "I32", "I16", "I8", "U8", "BOOL"
    std::vector<std::size_t> shape;   // row-major
    std::string bytes;                // contiguous, little-endian: product(shape) × element size
};

// The largest file attn reads as a PyTorch checkpoint, and the largest data.pkl in a zip.
constexpr std::uint64_t kMaxTorchCheckpointBytes = 64ull << 30;
constexpr std::uint64_t kMaxTorchPickleBytes = 256ull << 20;

// The state dict of the checkpoint at `path`, in the pickle's order of names. One-line attn::Error
// (runtime) naming the file for anything that is not a state dict of F32/F16/BF16 (or I64) tensors.
std::vector<TorchTensor> read_torch_checkpoint(const std::string& path);
// The same for a file's bytes held in memory (tests and the fuzzer); `path` names it in errors.
std::vector<TorchTensor> torch_checkpoint_from_bytes(const std::string& bytes, const std::string& path);

// A safetensors file's bytes holding the tensors (an 8-aligned header; metadata {"format": "pt"}).
// Consumes the tensors' bytes as it goes. Two tensors of one name are refused.
std::string safetensors_image(std::vector<TorchTensor>&& tensors, const std::string& path);

}  // namespace attn
