// A restricted pickle interpreter for the pickles torch.save writes for a state dict
// (`torch.save(model.state_dict(), ...)`, PyTorch 1.13, pickle protocol 2). It runs no code: it
// understands only the opcodes such a pickle holds and only the globals a state dict needs
// (collections.OrderedDict, torch._utils._rebuild_tensor_v2 and _rebuild_parameter, and the storage
// types torch.FloatStorage, HalfStorage, BFloat16Storage, and LongStorage for int64 buffers such as
// BERT's embeddings.position_ids), and builds plain values from them. Any other
// global (os.system, builtins.eval, ...), any other opcode (INST, OBJ, NEWOBJ, STACK_GLOBAL, ...), a call
// of anything but those callables, or another storage type is refused by name with a one-line
// attn::Error (runtime): attn never runs code from a checkpoint.
//
// Objects live in one arena and refer to each other by index, so a pickle that shares or nests
// objects (BINGET of a container inside itself) costs no recursion and no reference cycles; every
// length and memo index is checked against the bytes left, and the stack, the marks, the memo and the
// arena are bounded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

// A storage a persistent id names: ('storage', torch.<Type>Storage, key, location, numel[, view_metadata]).
struct TorchStorageRef {
    std::string key;
    std::string dtype;          // the safetensors name: "F32" | "F16" | "BF16" | "F64" | "I64" | "I32" | "I16" | "I8" | "U8" | "BOOL"
    std::size_t elem_size = 0;  // bytes per element: 1, 2, 4 or 8
    std::uint64_t numel = 0;  // elements the persistent id declares
};

// _rebuild_tensor_v2(storage, offset, size, stride, ...): a strided view of a storage, in elements.
struct TorchView {
    std::size_t storage = 0;  // index into Pickle::storages
    std::uint64_t offset = 0;
    std::vector<std::uint64_t> size, stride;
};

struct PickleObject {
    enum class Kind { none, boolean, integer, big_integer, string, tuple, list, dict, global, storage, tensor, mark };
    Kind kind = Kind::none;
    std::int64_t integer = 0;   // boolean (0/1), integer; global: which (the interpreter's own numbering)
    std::string text;           // string; big_integer: its little-endian two's-complement bytes
    std::vector<std::size_t> items;  // tuple, list: elements; dict: key, value, key, value, ...
    std::size_t ref = 0;        // storage: index into Pickle::storages; tensor: index into Pickle::views
    bool ordered_dict = false;  // dict made by collections.OrderedDict()
};

struct Pickle {
    std::vector<PickleObject> objects;   // the arena
    std::size_t top = 0;                 // the object STOP returned
    std::size_t end = 0;                 // bytes read, STOP included
    std::vector<TorchStorageRef> storages;  // distinct storages by key, in order of first use
    std::vector<TorchView> views;
    const PickleObject& operator[](std::size_t i) const { return objects[i]; }
};

// Bounds of the interpreter (a state dict of 10,000 tensors uses about 20 objects per tensor and a
// stack and memo of the same order; these are two orders of magnitude above that).
constexpr std::size_t kMaxPickleStack = 1u << 20;
constexpr std::size_t kMaxPickleMarks = 1u << 10;   // torch nests MARK 3 deep
constexpr std::size_t kMaxPickleMemo = 1u << 22;
constexpr std::size_t kMaxPickleObjects = 1u << 24;
constexpr std::size_t kMaxTensorRank = 16;

// Runs one pickle from data[0, size) up to its STOP (the bytes after it are left for the caller).
// `path` names the file in errors. Throws attn::Error (runtime) for anything outside the subset.
Pickle read_torch_pickle(const std::uint8_t* data, std::size_t size, const std::string& path);

// The hint every refusal of a pickle's content carries.
extern const char* const kTorchPickleHint;

}  // namespace attn
