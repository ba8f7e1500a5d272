// A strict, memory-mapped reader of the safetensors format (Hugging Face):
//   8 bytes little-endian u64 N | N bytes of UTF-8 JSON (may end in spaces) | the data buffer.
// Each header entry is {"dtype", "shape", "data_offsets": [begin, end]} with offsets relative to the
// data buffer; "__metadata__" is an optional object of strings. Everything in the header is checked
// before any tensor is touched: the header length against the file and kMaxSafetensorsHeader, the JSON,
// each dtype, the byte count dtype × shape against the offsets, and the offsets against each other
// (sorted, contiguous from 0, ending exactly at the end of the file), as the reference implementation does.
// Tensors are read as float32: F32 as is, F16 and BF16 widened exactly (subnormals included); a value
// that is inf or NaN is refused with the tensor's name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attn {

constexpr std::uint64_t kMaxSafetensorsHeader = 100ull << 20;  // the reference implementation's limit

struct SafeTensor {
    std::string name;
    std::string dtype;                // "F32", "F16", "BF16", "I64", ... (any dtype the format defines)
    std::vector<std::size_t> shape;   // row-major
    std::size_t begin = 0, end = 0;   // absolute byte offsets in the file
    std::size_t count() const;        // elements: product of the shape (1 for a scalar)
};

struct SafetensorsHeader {
    std::vector<SafeTensor> tensors;               // sorted by offset
    std::map<std::string, std::string> metadata;   // "__metadata__"
};

// Bytes per element of a dtype the format defines; 0 when the name is not one.
std::size_t safetensors_dtype_size(const std::string& dtype);

// Parses and checks the header of a whole file held in [data, data + size); `path` names it in errors.
// Throws attn::Error (exit 1) with a one-line message and a hint.
SafetensorsHeader parse_safetensors_header(const std::uint8_t* data, std::size_t size, const std::string& path);

// Exact conversions to float32 (IEEE 754 binary16 and bfloat16 bit patterns).
float half_to_float(std::uint16_t h);
float bfloat16_to_float(std::uint16_t b);

// A safetensors file mapped read-only into memory.
class SafetensorsFile {
public:
    // mmap + parse_safetensors_header. Pages are read in as they are first touched: the header here,
    // the weights by the loader's finite check, whose parts fault them in on every pool thread at once
    // (MAP_POPULATE on one thread took 40 ms for GPT-2's 475 MiB, beside the tokeniser's reading).
    static SafetensorsFile open(const std::string& path);
    // For tests and fuzzing: the same checks on bytes held in memory (copied).
    static SafetensorsFile from_bytes(const std::string& bytes, const std::string& path);
    static SafetensorsFile from_bytes(std::string&& bytes, const std::string& path);  // the same, the bytes moved in

    const std::string& path() const { return path_; }
    std::size_t size() const { return size_; }
    const SafetensorsHeader& header() const { return header_; }
    const SafeTensor* find(const std::string& name) const;  // nullptr when absent
    const std::uint8_t* bytes(const SafeTensor& t) const { return base_ + t.begin; }

    // The tensor as float32 in `out` (count() values). F32 only when `out` must be a copy; throws for a
    // dtype other than F32/F16/BF16 and for inf/NaN, naming the tensor.
    void read_float(const SafeTensor& t, float* out) const;
    // F32 data straight from the mapping when it is 4-byte aligned (nullptr otherwise or for another
    // dtype); the values are checked to be finite first, unless the caller checks them later (check:
    // false), with all_finite on parts of them and check_finite for the error.
    const float* mapped_float(const SafeTensor& t, bool check = true) const;
    // Throws, naming the tensor and the first element, when a mapped F32 tensor holds inf or NaN.
    void check_finite(const SafeTensor& t) const;

    // Returns the tensor's whole pages of the mapping to the kernel (after widening it, its stored
    // bytes are no longer needed; they are read again from the file if touched).
    void release(const SafeTensor& t) const;

private:
    bool mapped_ = false;
    std::shared_ptr<void> keep_;  // the mapping (or the copied bytes)
    const std::uint8_t* base_ = nullptr;
    std::size_t size_ = 0;
    std::string path_;
    SafetensorsHeader header_;
};

}  // namespace attn
