#include "data/inputs/weights_file.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/base/files.h"
#include "data/base/json_strict.h"
#include "data/base/limits.h"
#include "data/checkpoint/safetensors.h"
#include "data/checkpoint/zip_memory.h"
#include "data/inputs/npy.h"

namespace attn {
namespace {

constexpr const char* kFormats =
    "give a .safetensors file, a NumPy .npz (numpy.savez(path, W_query=..., ...)) or a trace from attn show --json";

[[noreturn]] void bad(const std::string& path, const std::string& why, const std::string& hint = kFormats) {
    input_error("--weights " + path + ": " + why, hint);
}

// A value as float32, refused by name when it is not a finite one (a float64 beyond float32's range too).
float finite_value(double v, const std::string& path, const std::string& name) {
    if (!std::isfinite(v) || std::fabs(v) > kFloat32Limit)
        bad(path, "'" + excerpt(name) + "' holds " + (std::isnan(v) ? "NaN" : "a value that is not a finite float32"),
            "parameters must be finite numbers");
    return static_cast<float>(v);
}

// ---- .npz: a zip of .npy files -----------------------------------------------------------------------

StoredArray npy_array(const std::string& bytes, const std::string& path, const std::string& name) {
    const NpyArray a = parse_npy(bytes, path + ":" + name + ".npy");
    if (!npy_is_float(a)) bad(path, "'" + excerpt(name) + "' is not float32 or float64 (" + excerpt(a.descr) + ")",
                              "save the parameters as float32: array.astype(numpy.float32)");
    if (a.shape.size() > 2) bad(path, "'" + excerpt(name) + "' has " + std::to_string(a.shape.size()) + " dimensions; parameters have 1 or 2");
    StoredArray s{name, a.shape, {}};
    std::size_t count = 1;
    for (std::size_t d : a.shape) count *= d;
    s.values.reserve(count);
    if (a.shape.size() == 2) {
        for (std::size_t r = 0; r < a.shape[0]; ++r)
            for (std::size_t c = 0; c < a.shape[1]; ++c) s.values.push_back(finite_value(npy_float_at(a, r, c), path, name));
    } else {
        for (std::size_t i = 0; i < count; ++i) s.values.push_back(finite_value(npy_float_stored(a, i), path, name));
    }
    return s;
}

GivenWeights read_npz(const std::string& bytes, const std::string& path) {
    std::string why;
    const std::unique_ptr<ZipArchive> z = open_zip_in_memory(bytes.data(), bytes.size(), why);
    if (!z) bad(path, "not a readable zip: " + why);
    GivenWeights w{path, {}};
    std::uint64_t total = 0;  // the entries' sizes together: a deflated file may promise far more than it holds
    const std::size_t n = z->entries();
    for (std::size_t index = 0; index < n; ++index) {
        const std::optional<ZipEntryInfo> e = z->entry(index);
        const std::string entry = e ? e->name : "";
        if (entry.size() < 5 || entry.compare(entry.size() - 4, 4, ".npy") != 0)
            bad(path, "the zip holds '" + excerpt(entry) + "', not a .npy file", "an .npz holds only name.npy entries (numpy.savez)");
        const std::string name = entry.substr(0, entry.size() - 4);
        if (!e) bad(path, "cannot read '" + excerpt(entry) + "'");
        total += e->size;
        if (e->size > kMaxInputFileBytes || total > kMaxInputFileBytes)
            bad(path, "its arrays hold more than " + std::to_string(kMaxInputFileBytes >> 20) + " MiB", "parameters of a seeded kind are small");
        std::string data;
        if (!z->read(index, e->size, data, why)) bad(path, "cannot read '" + excerpt(entry) + "' in the zip: " + why);
        w.arrays.push_back(npy_array(data, path, name));
    }
    return w;
}

// ---- safetensors ---------------------------------------------------------------------------------------

GivenWeights read_safetensors(const std::string& bytes, const std::string& path) {
    const SafetensorsFile f = SafetensorsFile::from_bytes(bytes, path);
    GivenWeights w{path, {}};
    for (const SafeTensor& t : f.header().tensors) {
        StoredArray s{t.name, t.shape, std::vector<float>(t.count())};
        if (t.shape.empty() || t.shape.size() > 2)
            bad(path, "'" + excerpt(t.name) + "' has " + std::to_string(t.shape.size()) + " dimensions; parameters have 1 or 2");
        f.read_float(t, s.values.data());  // F32, F16, BF16; inf and NaN refused with the tensor's name
        w.arrays.push_back(std::move(s));
    }
    return w;
}

// ---- an attn trace's "params" ----------------------------------------------------------------------------

StoredArray json_array(const nlohmann::json& v, const std::string& path, const std::string& name) {
    const auto number = [&](const nlohmann::json& x) {
        if (!x.is_number()) bad(path, "params." + excerpt(name) + " holds something other than numbers");
        return finite_value(x.get<double>(), path, name);
    };
    StoredArray s{name, {}, {}};
    if (!v.is_array() || v.empty()) bad(path, "params." + excerpt(name) + " is not a vector or an array of rows");
    if (v[0].is_array()) {
        s.shape = {v.size(), v[0].size()};
        for (const auto& row : v) {
            if (!row.is_array() || row.size() != s.shape[1]) bad(path, "params." + excerpt(name) + "'s rows differ in length");
            for (const auto& x : row) s.values.push_back(number(x));
        }
    } else {
        s.shape = {v.size()};
        for (const auto& x : v) s.values.push_back(number(x));
    }
    return s;
}

GivenWeights read_trace(const std::string& bytes, const std::string& path) {
    // a trace nests a few levels; anything deeper is not one (and would only cost the parser's stack)
    const nlohmann::json j = parse_json_strict(bytes, 16, [&](const std::string& where, const std::string& why) {
        bad(path, where.empty() ? why : where + " " + why);
    });
    // a trace's own marks, when it has them, as attn render reads them (a hand-written {"params": ...} has none)
    if (j.is_object() && j.contains("format") && j["format"] != "attn-trace")
        bad(path, "\"format\" is " + excerpt(j["format"].dump()) + ", not \"attn-trace\"");
    if (j.is_object() && j.contains("version")) {
        const nlohmann::json& v = j["version"];
        if (!(v.is_number() && (v.get<double>() == 1.0 || v.get<double>() == 2.0)))
            bad(path, "trace version " + excerpt(v.dump()) + " is not one this attn reads (1 or 2)",
                "write the trace again with attn show --kind K ... --json trace.json");
    }
    if (!j.is_object() || !j.contains("params") || !j["params"].is_object())
        bad(path, "the JSON has no \"params\" object, so it is not a seeded kind's trace",
            "write one with attn show --kind K ... --json trace.json");
    GivenWeights w{path, {}};
    for (const auto& [name, v] : j["params"].items()) w.arrays.push_back(json_array(v, path, name));
    return w;
}

}  // namespace

GivenWeights read_weights_bytes(const std::string& bytes, const std::string& path) {
    if (bytes.compare(0, 4, "PK\x03\x04", 4) == 0 || bytes.compare(0, 4, "PK\x05\x06", 4) == 0) return read_npz(bytes, path);
    // safetensors: a header length that fits in the file, then '{' (JSON text read as a length is far too large)
    std::uint64_t header = 0;
    if (bytes.size() >= 9) std::memcpy(&header, bytes.data(), 8);  // little-endian hosts (as safetensors.cpp)
    if (bytes.size() >= 9 && bytes[8] == '{' && header <= bytes.size() - 8) return read_safetensors(bytes, path);
    const auto first = bytes.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && bytes[first] == '{') return read_trace(bytes, path);
    bad(path, "neither a safetensors file, a zip (.npz) nor a JSON trace");
}

GivenWeights read_weights_file(const std::string& path) { return read_weights_bytes(read_file(path, "--weights"), path); }

}  // namespace attn
