#include "data/checkpoint/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/base/json_strict.h"
#include "data/base/tensor.h"
#include "data/base/threads.h"

namespace attn {
namespace {

const char* kRefetch = "the file is damaged or incomplete: download it again";

[[noreturn]] void refuse_header(const std::string& path, const std::string& what, const std::string& hint = kRefetch) {
    input_error(path + ": " + what, hint);
}

std::uint64_t read_u64_le(const std::uint8_t* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
    return v;
}

// A whole number that fits in std::size_t, or a one-line error about `what`.
std::size_t whole(const nlohmann::json& v, const std::string& path, const std::string& what) {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
        refuse_header(path, what + " is not a whole number");
    const std::uint64_t u = v.get<std::uint64_t>();
    if (u > std::numeric_limits<std::size_t>::max()) refuse_header(path, what + " is too large");
    return static_cast<std::size_t>(u);
}

// The JSON header, nested at most four levels ({"name": {"shape": [...]}}), so a hostile header
// cannot make the parser or its destructor recurse deeply; a tensor named twice is refused (which of
// the two would a reader load?).
nlohmann::json parse_json(const std::uint8_t* p, std::size_t n, const std::string& path) {
    constexpr int kMaxDepth = 4;
    const std::string text(reinterpret_cast<const char*>(p), n);
    return parse_json_strict(text, kMaxDepth, [&](const std::string& where, const std::string& why) {
        if (!where.empty()) refuse_header(path, "the header names '" + where + "' twice (which one would a reader load?)");
        if (why.rfind("nested", 0) == 0) refuse_header(path, "the header nests deeper than a safetensors header does");
        refuse_header(path, "the header is " + why, "is this a safetensors file? its first 8 bytes give the JSON header's length");
    });
}

SafeTensor entry(const std::string& name, const nlohmann::json& v, std::size_t data_start, std::size_t data_len,
                 const std::string& path) {
    const std::string where = "tensor '" + excerpt(name, 80) + "'";
    if (!v.is_object()) refuse_header(path, where + " is not an object");
    SafeTensor t;
    t.name = name;
    // 1. dtype: a name the format defines
    const auto dt = v.find("dtype");
    if (dt == v.end() || !dt->is_string()) refuse_header(path, where + " has no dtype");
    t.dtype = dt->get<std::string>();
    const std::size_t item = safetensors_dtype_size(t.dtype);
    if (item == 0) refuse_header(path, where + " has an unknown dtype '" + excerpt(t.dtype, 32) + "'");
    // 2. shape: whole numbers; the element count must not overflow
    const auto sh = v.find("shape");
    if (sh == v.end() || !sh->is_array()) refuse_header(path, where + " has no shape");
    std::size_t bytes = item;
    for (const auto& d : *sh) {
        const std::size_t n = whole(d, path, where + ": a dimension");
        t.shape.push_back(n);
        if (n != 0 && bytes > std::numeric_limits<std::size_t>::max() / n) refuse_header(path, where + " is impossibly large");
        bytes *= n;
    }
    // 3. data_offsets [begin, end] inside the data buffer, end - begin = dtype × shape
    const auto off = v.find("data_offsets");
    if (off == v.end() || !off->is_array() || off->size() != 2) refuse_header(path, where + " has no data_offsets [begin, end]");
    const std::size_t b = whole((*off)[0], path, where + ": data_offsets"), e = whole((*off)[1], path, where + ": data_offsets");
    if (b > e) refuse_header(path, where + ": data_offsets begin after they end");
    if (e > data_len)
        refuse_header(path, where + ": data_offsets [" + std::to_string(b) + ", " + std::to_string(e) + "] run past the end of the file (" +
                      std::to_string(data_len) + " data bytes)");
    if (e - b != bytes)
        refuse_header(path, where + ": " + t.dtype + " × shape needs " + std::to_string(bytes) + " bytes but data_offsets hold " +
                      std::to_string(e - b));
    t.begin = data_start + b, t.end = data_start + e;
    return t;
}

void refuse_non_finite(const float* v, std::size_t n, const SafeTensor& t, const std::string& path) {
    if (all_finite(v, n)) return;
    for (std::size_t i = 0; i < n; ++i)  // only then, which one
        if (!std::isfinite(v[i]))
            refuse_header(path, "tensor '" + excerpt(t.name, 80) + "' holds " + (std::isnan(v[i]) ? "NaN" : "inf") + " at element " + std::to_string(i),
                "the checkpoint is broken: a trained model's weights are finite");
}

}  // namespace

std::size_t SafeTensor::count() const {
    std::size_t n = 1;
    for (std::size_t d : shape) n *= d;
    return n;
}

std::size_t safetensors_dtype_size(const std::string& d) {
    if (d == "F64" || d == "I64" || d == "U64") return 8;
    if (d == "F32" || d == "I32" || d == "U32") return 4;
    if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
    if (d == "I8" || d == "U8" || d == "BOOL" || d == "F8_E4M3" || d == "F8_E5M2") return 1;
    return 0;
}

SafetensorsHeader parse_safetensors_header(const std::uint8_t* data, std::size_t size, const std::string& path) {
    // 1. the header length, within the file and the format's limit
    if (size == 0) refuse_header(path, "the file is empty");
    if (size < 8) refuse_header(path, "the file is shorter than the 8-byte header length");
    const std::uint64_t n = read_u64_le(data);
    if (n > kMaxSafetensorsHeader)
        refuse_header(path, "the header length " + std::to_string(n) + " is over the format's limit of 100 MB");
    if (n > size - 8)
        refuse_header(path, "the header length " + std::to_string(n) + " runs past the end of the file (" + std::to_string(size) +
                      " bytes)");
    // 2. the JSON: an object of tensors and an optional __metadata__
    const nlohmann::json j = parse_json(data + 8, static_cast<std::size_t>(n), path);
    if (!j.is_object()) refuse_header(path, "the header is not a JSON object");
    const std::size_t data_start = 8 + static_cast<std::size_t>(n), data_len = size - data_start;
    SafetensorsHeader h;
    for (const auto& [name, v] : j.items()) {
        if (name == "__metadata__") {
            if (!v.is_object()) refuse_header(path, "__metadata__ is not an object");
            for (const auto& [k, s] : v.items()) {
                if (!s.is_string()) refuse_header(path, "__metadata__ '" + excerpt(k, 80) + "' is not a string");
                h.metadata[k] = s.get<std::string>();
            }
            continue;
        }
        h.tensors.push_back(entry(name, v, data_start, data_len, path));
    }
    // 3. the offsets: sorted, they tile the data buffer exactly (no overlap, no gap, nothing after)
    std::sort(h.tensors.begin(), h.tensors.end(),
              [](const SafeTensor& a, const SafeTensor& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
    std::size_t at = data_start;
    for (const auto& t : h.tensors) {
        if (t.begin < at) refuse_header(path, "tensor '" + excerpt(t.name, 80) + "' overlaps the tensor before it");
        if (t.begin > at) refuse_header(path, "a gap of " + std::to_string(t.begin - at) + " bytes before tensor '" + excerpt(t.name, 80) + "'");
        at = t.end;
    }
    if (at != size) refuse_header(path, std::to_string(size - at) + " bytes after the last tensor");
    return h;
}

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t(h >> 15) << 31, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
    std::uint32_t bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (mant << 13);  // inf or NaN
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (mant << 13);  // normal: rebias 15 -> 127
    } else {
        // zero or subnormal: mant × 2^-24, exact in float32
        const float v = std::ldexp(static_cast<float>(mant), -24);
        std::memcpy(&bits, &v, 4);
        bits |= sign;
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

float bfloat16_to_float(std::uint16_t b) {
    const std::uint32_t bits = std::uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

namespace {

// munmap of a large mapping, its page tables first cleared in parts on the pool's threads (MADV_DONTNEED
// holds the address space's lock shared, munmap holds it alone): GPT-2's 475 MiB took 14 ms of one core
// at the end of every run.
void unmap_in_parts(void* p, std::size_t len) {
    constexpr std::size_t kPart = std::size_t{32} << 20;  // bytes, a whole number of pages
    if (len > 2 * kPart) {
        try {
            run_tasks((len + kPart - 1) / kPart, kMaxPoolThreads, [&](std::size_t i) {
                ::madvise(static_cast<char*>(p) + i * kPart, std::min(kPart, len - i * kPart), MADV_DONTNEED);
            });
        } catch (...) {  // a deleter does not throw: munmap alone does it all
        }
    }
    ::munmap(p, len);
}

}  // namespace

SafetensorsFile SafetensorsFile::open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) input_error("cannot read '" + path + "': " + std::strerror(errno), "check the model folder");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        input_error("'" + path + "' is not a regular file", "give the model folder holding model.safetensors");
    }
    SafetensorsFile f;
    f.path_ = path;
    f.size_ = static_cast<std::size_t>(st.st_size);
    if (f.size_ == 0) {
        ::close(fd);
        refuse_header(path, "the file is empty");
    }
    void* p = ::mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) input_error("cannot map '" + path + "': " + std::strerror(errno), "check memory limits");
    const std::size_t len = f.size_;
    f.keep_ = std::shared_ptr<void>(p, [len](void* q) { unmap_in_parts(q, len); });
    f.base_ = static_cast<const std::uint8_t*>(p);
    f.mapped_ = true;
    f.header_ = parse_safetensors_header(f.base_, f.size_, path);
    return f;
}

SafetensorsFile SafetensorsFile::from_bytes(const std::string& bytes, const std::string& path) {
    return from_bytes(std::string(bytes), path);
}

SafetensorsFile SafetensorsFile::from_bytes(std::string&& bytes, const std::string& path) {
    auto copy = std::make_shared<std::string>(std::move(bytes));
    SafetensorsFile f;
    f.path_ = path, f.size_ = copy->size();
    f.base_ = reinterpret_cast<const std::uint8_t*>(copy->data());
    f.keep_ = copy;
    f.header_ = parse_safetensors_header(f.base_, f.size_, path);
    return f;
}

const SafeTensor* SafetensorsFile::find(const std::string& name) const {
    for (const auto& t : header_.tensors)
        if (t.name == name) return &t;
    return nullptr;
}

void SafetensorsFile::read_float(const SafeTensor& t, float* out) const {
    const std::uint8_t* p = bytes(t);
    const std::size_t n = t.count();
    if (n == 0 && (t.dtype == "F32" || t.dtype == "F16" || t.dtype == "BF16")) return;  // nothing to read (out may be null)
    if (t.dtype == "F32") {
        std::memcpy(out, p, n * 4);  // little-endian hosts only (checked at compile time below)
    } else if (t.dtype == "F16" || t.dtype == "BF16") {
        const bool half = t.dtype == "F16";
        for (std::size_t i = 0; i < n; ++i) {
            const auto u = static_cast<std::uint16_t>(p[2 * i] | p[2 * i + 1] << 8);
            out[i] = half ? half_to_float(u) : bfloat16_to_float(u);
        }
    } else {
        refuse_header(path_, "tensor '" + excerpt(t.name, 80) + "' is " + t.dtype + ", which attn does not read",
            "attn reads F32, F16 and BF16 checkpoints: save the model in one of those");
    }
    refuse_non_finite(out, n, t, path_);
}

void SafetensorsFile::release(const SafeTensor& t) const {
    if (!mapped_) return;
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t first = (t.begin + page - 1) / page * page, last = t.end / page * page;  // whole pages inside
    if (last > first) ::madvise(const_cast<std::uint8_t*>(base_) + first, last - first, MADV_DONTNEED);
}

const float* SafetensorsFile::mapped_float(const SafeTensor& t, bool check) const {
    if (t.dtype != "F32" || reinterpret_cast<std::uintptr_t>(bytes(t)) % alignof(float) != 0) return nullptr;
    const auto* v = reinterpret_cast<const float*>(bytes(t));
    if (check) refuse_non_finite(v, t.count(), t, path_);
    return v;
}

void SafetensorsFile::check_finite(const SafeTensor& t) const {
    if (const float* v = mapped_float(t, false)) refuse_non_finite(v, t.count(), t, path_);
}

static_assert(sizeof(float) == 4 && std::numeric_limits<float>::is_iec559, "float32 must be IEEE 754");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "attn reads safetensors' little-endian data directly: a little-endian host is needed"
#endif

}  // namespace attn
