// PyTorch checkpoints written by hand for the tests (the same bytes torch.save writes for a state dict,
// without the memo): the state dict's pickle, the zip format (entries stored, CRC-32 from zlib) and the
// legacy format. tests/torch_bin/make_checkpoints.py writes the same files in Python, and
// tests/torch_bin/torch_bin_check.py checks that torch.load reads them.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

namespace attn::test {

// One tensor: a view (offset, size, stride, in elements) of storage `key`, which holds `data`.
struct TorchEntry {
    std::string name, storage_type = "FloatStorage", key;
    std::uint64_t numel = 0, offset = 0;
    std::vector<std::uint64_t> size, stride;
    std::string data;  // the storage's bytes (the zip entry data/<key>)
};

// Bytes per element of a torch storage type.
inline std::size_t torch_elem_size(const std::string& type) {
    if (type == "DoubleStorage" || type == "LongStorage") return 8;
    if (type == "FloatStorage" || type == "IntStorage") return 4;
    if (type == "ByteStorage" || type == "BoolStorage" || type == "CharStorage") return 1;
    return 2;
}

// A contiguous tensor of its own storage `key`.
inline TorchEntry torch_entry(const std::string& name, const std::string& key, const std::vector<std::uint64_t>& size,
                              const std::string& data, const std::string& type = "FloatStorage") {
    TorchEntry e{name, type, key, 0, 0, size, {}, data};
    e.numel = data.size() / torch_elem_size(type);
    std::uint64_t s = 1;
    e.stride.assign(size.size(), 0);
    for (std::size_t i = size.size(); i-- > 0;) e.stride[i] = s, s *= size[i];
    return e;
}

inline std::string pickle_le(std::uint64_t v, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
    return s;
}
inline std::string pickle_str(const std::string& s) { return "X" + pickle_le(s.size(), 4) + s; }
inline std::string pickle_int(std::uint64_t v) { return v < (1ull << 31) ? "J" + pickle_le(v, 4) : "\x8a\x08" + pickle_le(v, 8); }

// The state dict's pickle (protocol 2): OrderedDict of name -> _rebuild_tensor_v2(storage, ...).
inline std::string state_dict_pickle(const std::vector<TorchEntry>& entries, bool legacy = false) {
    std::string p = std::string("\x80\x02") + "ccollections\nOrderedDict\n)R(";
    for (const auto& e : entries) {
        p += pickle_str(e.name) + "ctorch._utils\n_rebuild_tensor_v2\n((" + pickle_str("storage") + "ctorch\n" + e.storage_type + "\n" +
             pickle_str(e.key) + pickle_str("cpu") + pickle_int(e.numel) + (legacy ? "N" : "") + "tQ" + pickle_int(e.offset) + "(";
        for (auto s : e.size) p += pickle_int(s);
        p += "t(";
        for (auto s : e.stride) p += pickle_int(s);
        p += std::string("t\x89") + "ccollections\nOrderedDict\n)RtR";
    }
    return p + "u.";
}

// A zip of stored entries (local headers, central directory, end record).
inline std::string zip_stored(const std::vector<std::pair<std::string, std::string>>& files) {
    std::string out, dir;
    for (const auto& [name, data] : files) {
        const auto crc = static_cast<std::uint32_t>(::crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
        const std::string common = pickle_le(20, 2) + pickle_le(0, 2) + pickle_le(0, 2) + pickle_le(0, 4) + pickle_le(crc, 4) +
                                   pickle_le(data.size(), 4) + pickle_le(data.size(), 4) + pickle_le(name.size(), 2) + pickle_le(0, 2);
        dir += "PK\x01\x02" + pickle_le(20, 2) + common + pickle_le(0, 2) + pickle_le(0, 2) + pickle_le(0, 2) + pickle_le(0, 4) +
               pickle_le(out.size(), 4) + name;
        out += "PK\x03\x04" + common + name + data;
    }
    const std::size_t at = out.size();
    return out + dir + "PK\x05\x06" + pickle_le(0, 4) + pickle_le(files.size(), 2) + pickle_le(files.size(), 2) + pickle_le(dir.size(), 4) +
           pickle_le(at, 4) + pickle_le(0, 2);
}

// torch.save's zip: folder/data.pkl, folder/data/<key> per storage (first use), folder/version.
inline std::string torch_zip(const std::vector<TorchEntry>& entries, const std::string& pickle, const std::string& folder = "archive") {
    std::vector<std::pair<std::string, std::string>> files = {{folder + "/data.pkl", pickle}};
    for (const auto& e : entries) {
        bool seen = false;
        for (const auto& f : files) seen |= f.first == folder + "/data/" + e.key;
        if (!seen) files.push_back({folder + "/data/" + e.key, e.data});
    }
    files.push_back({folder + "/version", "3\n"});
    return zip_stored(files);
}
inline std::string torch_zip(const std::vector<TorchEntry>& entries) { return torch_zip(entries, state_dict_pickle(entries)); }

// The legacy format: magic, protocol 1001, sys_info, the state dict, the storage keys, the storages.
inline std::string torch_legacy(const std::vector<TorchEntry>& entries, std::uint64_t magic_low = 0x20f9469cfc6cull) {
    std::string magic = std::string("\x80\x02\x8a\x0a", 4) + pickle_le(magic_low, 6) + pickle_le(0x1950a86aull, 4) + ".";
    std::string out = magic + "\x80\x02M\xe9\x03." + "\x80\x02}(" + pickle_str("little_endian") + "\x88u." + state_dict_pickle(entries, true);
    std::string keys = "\x80\x02](", body;
    std::vector<std::string> seen;  // a storage shared by several tensors is written once
    for (const auto& e : entries) {
        bool again = false;
        for (const auto& k : seen) again |= k == e.key;
        if (again) continue;
        seen.push_back(e.key);
        keys += pickle_str(e.key), body += pickle_le(e.numel, 8) + e.data;
    }
    return out + keys + "e." + body;
}

}  // namespace attn::test
