#include "data/checkpoint/torch_checkpoint.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/checkpoint/torch_pickle.h"
#include "data/checkpoint/zip_memory.h"

namespace attn {
namespace {

const char* const kDamaged = "the file is damaged or incomplete: download it again";

[[noreturn]] void refuse_torch(const std::string& path, const std::string& what, const std::string& hint = kDamaged) {
    input_error(path + ": " + what, hint);
}

// The storages' bytes, by index into Pickle::storages (the zip's entries or the legacy file's records).
using StorageBytes = std::vector<std::pair<const std::uint8_t*, std::size_t>>;

// ---- views ------------------------------------------------------------------------------------------

// Checks a view against its storage (numel elements) with overflow-safe arithmetic; returns its element
// count. The last element a view touches is offset + Σ (size_i - 1) · stride_i.
std::size_t check_view(const TorchView& v, const TorchStorageRef& s, const std::string& name, const std::string& path) {
    const std::string where = "tensor '" + excerpt(name, 80) + "'";
    std::uint64_t count = 1, last = v.offset;
    bool overflow = false;
    for (std::size_t i = 0; i < v.size.size(); ++i) {
        overflow |= __builtin_mul_overflow(count, v.size[i], &count);
        std::uint64_t reach = 0;
        if (v.size[i] > 0) {
            overflow |= __builtin_mul_overflow(v.size[i] - 1, v.stride[i], &reach);
            overflow |= __builtin_add_overflow(last, reach, &last);
        }
    }
    std::uint64_t bytes = 0;
    overflow |= __builtin_mul_overflow(count, s.elem_size, &bytes);
    if (overflow || bytes > std::numeric_limits<std::size_t>::max() / 2) refuse_torch(path, where + " is impossibly large");
    if (count > 0 && last >= s.numel)
        refuse_torch(path, where + " reads element " + std::to_string(last) + " of storage '" + excerpt(s.key, 40) + "', which holds " +
                      std::to_string(s.numel));
    // a view holds at most its storage's elements (a slice, a transpose, an expand of a size-1 dimension):
    // a broadcast to more would let a small file ask for any amount of memory
    if (count > s.numel)
        refuse_torch(path, where + " has " + std::to_string(count) + " elements, more than its storage '" + excerpt(s.key, 40) + "' holds (" +
                      std::to_string(s.numel) + ")", kTorchPickleHint);
    return static_cast<std::size_t>(count);
}

// Copies a strided view out row-major: the innermost dimension as one run when its stride is 1.
void copy_view(const TorchView& v, std::size_t elem, const std::uint8_t* storage, std::uint8_t* out, std::size_t count) {
    if (count == 0) return;
    const std::size_t rank = v.size.size();
    if (rank == 0) {
        std::memcpy(out, storage + v.offset * elem, elem);
        return;
    }
    const std::size_t inner = v.size[rank - 1], inner_stride = v.stride[rank - 1];
    std::vector<std::uint64_t> index(rank, 0);
    for (std::size_t done = 0; done < count; done += inner) {
        std::uint64_t at = v.offset;
        for (std::size_t d = 0; d + 1 < rank; ++d) at += index[d] * v.stride[d];
        if (inner_stride == 1) {
            std::memcpy(out, storage + at * elem, inner * elem);
            out += inner * elem;
        } else {
            for (std::size_t k = 0; k < inner; ++k, out += elem) std::memcpy(out, storage + (at + k * inner_stride) * elem, elem);
        }
        for (std::size_t d = rank - 1; d-- > 0;) {  // the next row: an odometer over the outer dimensions
            if (++index[d] < v.size[d]) break;
            index[d] = 0;
        }
    }
}

// The state dict's entries: a dict (OrderedDict) of name -> tensor.
std::vector<std::pair<std::string, std::size_t>> entries(const Pickle& pk, const std::string& path) {
    using K = PickleObject::Kind;
    const PickleObject& top = pk[pk.top];
    if (top.kind != K::dict) refuse_torch(path, "the pickle holds no state dict (its value is not a dict)", kTorchPickleHint);
    std::vector<std::pair<std::string, std::size_t>> out;
    for (std::size_t i = 0; i + 1 < top.items.size(); i += 2) {
        const PickleObject &k = pk[top.items[i]], &v = pk[top.items[i + 1]];
        if (k.kind != K::string) refuse_torch(path, "the state dict has a key that is not a string", kTorchPickleHint);
        if (v.kind != K::tensor) refuse_torch(path, "the state dict's entry '" + excerpt(k.text, 80) + "' is not a tensor", kTorchPickleHint);
        out.emplace_back(k.text, v.ref);
    }
    return out;
}

// Every view of the state dict copied out of its storage's bytes.
// Tied weights repeat a storage once (an embedding and the output head): the views together may hold at
// most kMaxViewRepeat times the storages' bytes, so many views of one storage cannot exhaust memory.
constexpr std::uint64_t kMaxViewRepeat = 4;

std::vector<TorchTensor> assemble(const Pickle& pk, const StorageBytes& storages, const std::string& path) {
    std::vector<TorchTensor> out;
    std::uint64_t stored = 0, viewed = 0;
    for (const auto& s : storages) stored += s.second;
    for (const auto& [name, view] : entries(pk, path)) {
        const TorchView& v = pk.views[view];
        const TorchStorageRef& s = pk.storages[v.storage];
        const std::size_t count = check_view(v, s, name, path);
        viewed += count * s.elem_size;
        if (viewed > kMaxViewRepeat * stored)
            refuse_torch(path, "the tensors hold more than " + std::to_string(kMaxViewRepeat) + " times their storages' " + std::to_string(stored) +
                          " bytes (views repeating a storage)", kTorchPickleHint);
        TorchTensor t;
        t.name = name, t.dtype = s.dtype;
        for (auto d : v.size) t.shape.push_back(static_cast<std::size_t>(d));
        t.bytes.resize(count * s.elem_size);
        copy_view(v, s.elem_size, storages[v.storage].first, reinterpret_cast<std::uint8_t*>(&t.bytes[0]), count);
        out.push_back(std::move(t));
    }
    return out;
}

// A storage's byte count from its declared element count, or an error.
std::size_t storage_bytes(const TorchStorageRef& s, const std::string& path) {
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(s.numel, s.elem_size, &bytes) || bytes > kMaxTorchCheckpointBytes)
        refuse_torch(path, "storage '" + excerpt(s.key, 40) + "' declares " + std::to_string(s.numel) + " elements, more than the file can hold");
    return static_cast<std::size_t>(bytes);
}

// ---- the zip format ---------------------------------------------------------------------------------

// Entry i's bytes, exactly the size its directory gives.
std::string read_entry(const ZipArchive& z, std::size_t i, const std::string& name, const std::string& path) {
    const std::optional<ZipEntryInfo> e = z.entry(i);
    if (!e) refuse_torch(path, "cannot read '" + excerpt(name, 80) + "' in the zip: its directory gives no size");
    // deflate expands at most 1032 times: a directory claiming more is a zip bomb or a lie, refused
    // before its size is allocated
    if (!e->stored && e->size / 1032 > e->compressed)
        refuse_torch(path, "'" + excerpt(name, 80) + "' claims " + std::to_string(e->size) + " bytes from " + std::to_string(e->compressed) +
                      " compressed, more than deflate can give");
    std::string bytes, why;
    if (!z.read(i, e->size, bytes, why)) refuse_torch(path, "cannot read '" + excerpt(name, 80) + "' in the zip: " + why);
    return bytes;
}

std::uint64_t entry_size(const ZipArchive& z, std::size_t i) {
    const std::optional<ZipEntryInfo> e = z.entry(i);
    return e ? e->size : std::numeric_limits<std::uint64_t>::max();
}

std::vector<TorchTensor> read_zip(const std::uint8_t* data, std::size_t size, const std::string& path) {
    // 1. the archive, from the bytes in memory
    std::string why;
    const std::unique_ptr<ZipArchive> zip = open_zip_in_memory(data, size, why);
    if (!zip) refuse_torch(path, "not a readable zip: " + why);
    const ZipArchive& z = *zip;
    // 2. the one top folder holding data.pkl
    const std::size_t n = z.entries();
    std::string folder;
    std::size_t pkl = 0;
    int found = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::optional<ZipEntryInfo> e = z.entry(i);
        if (!e) continue;
        const std::string& name = e->name;
        const auto slash = name.find('/');
        if (slash != std::string::npos && slash > 0 && name.compare(slash, std::string::npos, "/data.pkl") == 0) {
            if (found++ > 0) refuse_torch(path, "the zip holds two data.pkl ('" + excerpt(folder, 40) + "/' and '" + excerpt(name.substr(0, slash), 40) + "/')");
            folder = name.substr(0, slash), pkl = i;
        }
    }
    if (found == 0)
        refuse_torch(path, "the zip holds no <folder>/data.pkl: not a PyTorch checkpoint", "save the weights with torch.save(model.state_dict(), path)");
    if (entry_size(z, pkl) > kMaxTorchPickleBytes)
        refuse_torch(path, "data.pkl is larger than " + std::to_string(kMaxTorchPickleBytes >> 20) + " MiB, far more than a state dict's pickle");
    // 3. the byte order torch 2.x records (folder/byteorder, "little" or "big"; absent before 2.1, where
    // storages are the saving machine's order, little-endian on every machine torch ships for)
    const std::string order_name = folder + "/byteorder";
    if (const std::optional<std::size_t> order = z.find(order_name)) {
        const std::uint64_t order_size = entry_size(z, *order);
        const std::string o = order_size <= 16 ? read_entry(z, *order, order_name, path) : std::string("?");
        if (o == "big")
            refuse_torch(path, "a big-endian checkpoint (its byteorder record says big), which attn does not read",
                "load it with torch.load on this machine and save it again (torch swaps the bytes), or use the model's model.safetensors");
        if (o != "little")
            refuse_torch(path, "the byteorder record holds '" + excerpt(o, 16) + "', neither little nor big");
    }
    // 4. the state dict's pickle
    const std::string pickle = read_entry(z, pkl, folder + "/data.pkl", path);
    const Pickle pk = read_torch_pickle(reinterpret_cast<const std::uint8_t*>(pickle.data()), pickle.size(), path);
    if (pk.end != pickle.size()) refuse_torch(path, std::to_string(pickle.size() - pk.end) + " bytes after the pickle's STOP in data.pkl");
    // 5. each storage: folder/data/<key>, exactly numel × element size bytes
    std::vector<std::string> held;
    StorageBytes storages;
    for (const TorchStorageRef& s : pk.storages) {
        const std::string name = folder + "/data/" + s.key;
        const std::optional<std::size_t> i = z.find(name);
        if (!i) refuse_torch(path, "storage '" + excerpt(s.key, 40) + "' is missing (no '" + excerpt(name, 80) + "' in the zip)");
        const std::size_t want = storage_bytes(s, path);
        const std::uint64_t have = entry_size(z, *i);
        if (have < want)
            refuse_torch(path, "storage '" + excerpt(s.key, 40) + "' holds " + std::to_string(have) + " bytes but its " + std::to_string(s.numel) +
                          " " + s.dtype + " elements need " + std::to_string(want));
        if (have > want)
            refuse_torch(path, "storage '" + excerpt(s.key, 40) + "' holds " + std::to_string(have) + " bytes, more than its " + std::to_string(s.numel) +
                          " " + s.dtype + " elements take (" + std::to_string(want) + ")");
        held.push_back(read_entry(z, *i, name, path));
    }
    // pointers taken once every storage is read (a string moved by the vector's growth moves a short
    // storage's bytes with it)
    for (const std::string& h : held) storages.emplace_back(reinterpret_cast<const std::uint8_t*>(h.data()), h.size());
    return assemble(pk, storages, path);
}

// ---- the legacy format ------------------------------------------------------------------------------

std::vector<TorchTensor> read_legacy(const std::uint8_t* data, std::size_t size, const std::string& path) {
    using K = PickleObject::Kind;
    std::size_t at = 0;
    auto next = [&] {
        Pickle pk = read_torch_pickle(data + at, size - at, path);
        at += pk.end;
        return pk;
    };
    // 1. the magic number, the protocol version, sys_info
    const std::string magic("\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 10);  // 0x1950a86a20f9469cfc6c, little-endian
    const Pickle m = next();
    if (m[m.top].kind != K::big_integer || m[m.top].text != magic)
        refuse_torch(path, "not a PyTorch checkpoint: the first pickle is not torch's magic number 0x1950a86a20f9469cfc6c",
            "give a pytorch_model.bin saved by torch.save, or the model's model.safetensors");
    const Pickle v = next();
    if (v[v.top].kind != K::integer || v[v.top].integer != 1001)
        refuse_torch(path, "the legacy checkpoint's protocol version is not 1001", "save it again with a current torch.save");
    const Pickle info = next();
    bool little = false;
    const PickleObject& d = info[info.top];
    if (d.kind == K::dict)
        for (std::size_t i = 0; i + 1 < d.items.size(); i += 2)
            if (info[d.items[i]].kind == K::string && info[d.items[i]].text == "little_endian")
                little = info[d.items[i + 1]].kind == K::boolean && info[d.items[i + 1]].integer == 1;
    if (!little) refuse_torch(path, "the checkpoint was saved on a big-endian machine (sys_info little_endian is not True)",
                     "save it again on a little-endian machine, or as model.safetensors");
    // 2. the state dict, then the keys of the storages that follow
    const Pickle pk = next();
    const Pickle keys = next();
    if (keys[keys.top].kind != K::list) refuse_torch(path, "the legacy checkpoint's storage keys are not a list", kTorchPickleHint);
    // 3. per key: the element count (int64, little-endian), then the bytes
    StorageBytes storages(pk.storages.size(), {nullptr, 0});
    std::vector<bool> seen(pk.storages.size(), false);
    for (std::size_t k : keys[keys.top].items) {
        if (keys[k].kind != K::string) refuse_torch(path, "a storage key of the legacy checkpoint is not a string", kTorchPickleHint);
        std::size_t s = 0;
        while (s < pk.storages.size() && pk.storages[s].key != keys[k].text) ++s;
        if (s == pk.storages.size()) refuse_torch(path, "storage '" + excerpt(keys[k].text, 40) + "' is listed but no tensor uses it", kTorchPickleHint);
        if (seen[s]) refuse_torch(path, "storage '" + excerpt(keys[k].text, 40) + "' is listed twice", kTorchPickleHint);
        seen[s] = true;
        if (size - at < 8) refuse_torch(path, "the file ends before storage '" + excerpt(keys[k].text, 40) + "'");
        std::uint64_t numel = 0;
        for (int i = 7; i >= 0; --i) numel = numel << 8 | data[at + static_cast<std::size_t>(i)];
        at += 8;
        if (numel != pk.storages[s].numel)
            refuse_torch(path, "storage '" + excerpt(keys[k].text, 40) + "' holds " + std::to_string(numel) + " elements but the pickle declares " +
                          std::to_string(pk.storages[s].numel));
        const std::size_t want = storage_bytes(pk.storages[s], path);
        if (size - at < want)
            refuse_torch(path, "storage '" + excerpt(keys[k].text, 40) + "' needs " + std::to_string(want) + " bytes but the file has " +
                          std::to_string(size - at) + " left");
        storages[s] = {data + at, want};
        at += want;
    }
    for (std::size_t s = 0; s < seen.size(); ++s)
        if (!seen[s]) refuse_torch(path, "storage '" + excerpt(pk.storages[s].key, 40) + "' is missing from the file");
    if (at != size) refuse_torch(path, std::to_string(size - at) + " bytes after the last storage");
    return assemble(pk, storages, path);
}

std::vector<TorchTensor> read_bytes(const std::uint8_t* data, std::size_t size, const std::string& path) {
    if (size == 0) refuse_torch(path, "the file is empty");
    if (size >= 4 && std::memcmp(data, "PK", 2) == 0) return read_zip(data, size, path);
    if (data[0] == 0x80) return read_legacy(data, size, path);
    refuse_torch(path, "not a PyTorch checkpoint (neither a zip nor a pickle)", "give a pytorch_model.bin saved by torch.save, or the model's model.safetensors");
}

}  // namespace

std::vector<TorchTensor> torch_checkpoint_from_bytes(const std::string& bytes, const std::string& path) {
    return read_bytes(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), path);
}

std::vector<TorchTensor> read_torch_checkpoint(const std::string& path) {
    // mapped read-only: the zip's entries and the legacy file's storages are read from the mapping
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) input_error("cannot read '" + path + "': " + std::strerror(errno), "check the model folder");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        input_error("'" + path + "' is not a regular file", "give the model folder holding pytorch_model.bin");
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    if (size == 0 || static_cast<std::uint64_t>(size) > kMaxTorchCheckpointBytes) {
        ::close(fd);
        refuse_torch(path, size == 0 ? "the file is empty" : "the file is larger than 64 GiB");
    }
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) input_error("cannot map '" + path + "': " + std::strerror(errno), "check memory limits");
    std::unique_ptr<void, std::function<void(void*)>> keep(p, [size](void* q) { ::munmap(q, size); });
    return read_bytes(static_cast<const std::uint8_t*>(p), size, path);
}

std::string safetensors_image(std::vector<TorchTensor>&& tensors, const std::string& path) {
    // 1. the header: every tensor at its offset, in the state dict's order
    nlohmann::json h = nlohmann::json::object();
    h["__metadata__"] = {{"format", "pt"}};
    std::size_t at = 0;
    for (const TorchTensor& t : tensors) {
        if (h.contains(t.name)) refuse_torch(path, "the state dict holds tensor '" + excerpt(t.name, 80) + "' twice", kTorchPickleHint);
        h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {at, at + t.bytes.size()}}};
        at += t.bytes.size();
    }
    std::string header = h.dump();
    header.append((8 - header.size() % 8) % 8, ' ');  // the data starts 8-aligned, so F32 tensors map in place
    // 2. the length, the header, the data (each tensor's bytes released once copied)
    std::string out(8, '\0');
    for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
    out.reserve(8 + header.size() + at);
    out += header;
    for (TorchTensor& t : tensors) {
        out += t.bytes;
        std::string().swap(t.bytes);
    }
    return out;
}

}  // namespace attn
