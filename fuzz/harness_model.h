// Fuzz bodies for the model files (safetensors header, PyTorch checkpoint, sharded checkpoint index, GPT-2
// tokeniser files),
// shared by the libFuzzer targets fuzz/fuzz_safetensors.cpp, fuzz/fuzz_shard_index.cpp and
// fuzz/fuzz_gpt2_tokenizer.cpp and by the corpus replay in tests/test_model_data.cpp. Each returns what
// is wrong ("" when nothing is).
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/base/utf8.h"
#include "data/text/normalizer.h"
#include "data/text/tokenizer.h"
#include "data/text/unigram_tokenizer.h"
#include "data/checkpoint/model_checkpoint.h"
#include "data/checkpoint/safetensors.h"
#include "data/checkpoint/stored_zip.h"
#include "data/checkpoint/torch_checkpoint.h"
#include "data/checkpoint/zip_memory.h"
#include "data/text/tokenize.h"
#include "data/text/unicode.h"

namespace attn::fuzz {

inline std::string model_error(const Error& e) {
    const std::string what = e.what();
    if (e.exit_code() != 1 && e.exit_code() != 2) return "exit code " + std::to_string(e.exit_code());
    if (what.empty() || what.find('\n') != std::string::npos) return "not a one-line message: " + what;
    return "";
}

// ---- safetensors: the whole file --------------------------------------------------------------------
// Accepted headers must describe tensors inside the file that tile its data exactly; every F16/BF16/F32
// tensor is then read (which must either succeed or refuse inf/NaN cleanly).
inline std::string safetensors_one(const std::string& bytes) {
    SafetensorsFile f;
    try {
        f = SafetensorsFile::from_bytes(bytes, "fuzz.safetensors");
    } catch (const Error& e) {
        return model_error(e);
    }
    std::size_t at = bytes.size();
    for (auto it = f.header().tensors.rbegin(); it != f.header().tensors.rend(); ++it) {
        if (it->end != at || it->begin > it->end) return "tensors do not tile the data buffer";
        if ((it->end - it->begin) != it->count() * safetensors_dtype_size(it->dtype)) return "byte count differs from dtype × shape";
        at = it->begin;
    }
    for (const auto& t : f.header().tensors) {
        if (t.count() > (1u << 20)) continue;
        std::vector<float> out(t.count());
        try {
            f.read_float(t, out.data());
        } catch (const Error& e) {
            if (auto p = model_error(e); !p.empty()) return p;
        }
    }
    return "";
}

// ---- PyTorch checkpoints (pytorch_model.bin): the whole file, zip or legacy -------------------------------
// A file that loads must give tensors whose bytes are dtype × shape, and its safetensors image must pass
// the safetensors checks with every tensor where it was put.
// attn's own zip reader (the page's, data/checkpoint/stored_zip.h) against libzip on the same bytes: where
// both read an entry whole, they read the same name, size and bytes; every refusal has a reason. (Where
// only one of them reads an archive or an entry, each has its own rules: the stored reader reads stored
// entries only, libzip does not compare an entry's local header with its directory record.)
inline std::string stored_zip_one(const std::string& bytes) {
    std::string why_stored, why_libzip;
    const auto stored = open_stored_zip(bytes.data(), bytes.size(), why_stored);
    if (!stored) return why_stored.empty() ? "the stored reader refused the zip without a reason" : "";
    const auto libzip = open_zip_in_memory(bytes.data(), bytes.size(), why_libzip);
    for (std::size_t i = 0; i < stored->entries() && i < 64; ++i) {
        const auto e = stored->entry(i);
        if (!e || e->size > (1u << 24)) continue;
        std::string a, b, why_a, why_b;
        if (!stored->read(i, e->size, a, why_a)) {
            if (why_a.empty()) return "entry " + std::to_string(i) + " refused without a reason";
            continue;
        }
        if (!libzip) return "";
        const auto f = libzip->entry(i);
        if (!f || !libzip->read(i, f->size, b, why_b)) continue;
        if (f->name != e->name || f->size != e->size) return "entry " + std::to_string(i) + ": another name or size in libzip";
        if (a != b) return "entry " + std::to_string(i) + ": other bytes than libzip's";
    }
    return "";
}

inline std::string torch_checkpoint_one(const std::string& bytes) {
    std::vector<TorchTensor> tensors;
    try {
        tensors = torch_checkpoint_from_bytes(bytes, "fuzz.bin");
    } catch (const Error& e) {
        return model_error(e);
    }
    std::vector<std::pair<std::string, std::size_t>> sizes;
    for (const auto& t : tensors) {
        std::size_t n = safetensors_dtype_size(t.dtype);
        if (n == 0) return "tensor '" + t.name + "' has dtype " + t.dtype;
        for (auto d : t.shape) n *= d;
        if (n != t.bytes.size()) return "tensor '" + t.name + "' holds a byte count other than dtype × shape";
        sizes.emplace_back(t.name, n);
    }
    try {
        const SafetensorsFile f = SafetensorsFile::from_bytes(safetensors_image(std::move(tensors), "fuzz.bin"), "fuzz.bin");
        for (const auto& [name, n] : sizes) {
            const SafeTensor* t = f.find(name);
            if (t == nullptr || t->end - t->begin != n) return "tensor '" + name + "' is not in the safetensors image";
        }
    } catch (const Error& e) {
        return model_error(e);  // two tensors of one name
    }
    return "";
}

// ---- the sharded checkpoint index (model.safetensors.index.json) ---------------------------------------
// The input: the index's text, then optionally \0 and the bytes of a shard called "fuzz.safetensors".
// The folder also holds fixed shards: model-00001-of-00002.safetensors (tensors a: F32 [2], b: F16 [2]),
// model-00002-of-00002.safetensors (c: F32 [1]), again.safetensors (a once more) and broken.safetensors
// (not a safetensors file). An index that loads must have put every tensor it names in the shard it
// names, each tensor in one shard only, and opened each shard it names once.
inline std::string shard_bytes(const std::string& header_json, const std::string& data) {
    std::string len(8, '\0');
    for (std::size_t i = 0; i < 8; ++i) len[i] = static_cast<char>((header_json.size() >> (8 * i)) & 0xFF);
    return len + header_json + data;
}

// The index in data loaded over the folder above (throws attn::Error as the loader does); opened counts
// how often each shard was asked for.
inline TensorFiles shard_index_load(std::string_view data, std::map<std::string, int>& opened) {
    static const std::map<std::string, std::string> fixed = {
        {"model-00001-of-00002.safetensors",
         shard_bytes(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, )"
                     R"("b": {"dtype": "F16", "shape": [2], "data_offsets": [8, 12]}})",
                     std::string("\0\0\x80\x3F\0\0\0\x40\0\x3C\0\xBC", 12))},
        {"model-00002-of-00002.safetensors",
         shard_bytes(R"({"c": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", std::string("\0\0\x40\x40", 4))},
        {"again.safetensors",
         shard_bytes(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", std::string("\0\0\x80\x3F", 4))},
        {"broken.safetensors", "not a safetensors file"}};
    const auto z = data.find('\0');
    const std::string index(data.substr(0, z));
    const std::optional<std::string> extra =
        z == std::string_view::npos ? std::nullopt : std::optional<std::string>(data.substr(z + 1));
    return tensor_files_from_index(index, "model.safetensors.index.json", [&](const std::string& f) -> std::optional<SafetensorsFile> {
        ++opened[f];
        if (f == "fuzz.safetensors" && extra) return SafetensorsFile::from_bytes(*extra, f);
        const auto it = fixed.find(f);
        if (it == fixed.end()) return std::nullopt;
        return SafetensorsFile::from_bytes(it->second, f);
    });
}

inline std::string shard_index_one(std::string_view data) {
    std::map<std::string, int> opened;
    TensorFiles files;
    try {
        files = shard_index_load(data, opened);
    } catch (const Error& e) {
        return model_error(e);
    }
    const std::string index(data.substr(0, data.find('\0')));
    // the index loaded: it is JSON with a weight_map of tensor -> shard, and every claim of it holds
    const nlohmann::json j = nlohmann::json::parse(index);
    std::set<std::string> shards;
    for (const auto& [tensor, file] : j.at("weight_map").items()) {
        const auto [f, t] = files.find(tensor);
        if (t == nullptr) return "tensor '" + tensor + "' is in no shard";
        if (f->path() != file.get<std::string>()) return "tensor '" + tensor + "' is in " + f->path() + ", not where the index puts it";
        shards.insert(file.get<std::string>());
    }
    if (files.files.size() != shards.size()) return "the shards opened are not the shards the index names";
    for (const auto& [f, n] : opened)
        if (n != 1) return "shard " + f + " opened " + std::to_string(n) + " times";
    std::set<std::string> seen;
    for (const auto& f : files.files)
        for (const auto& t : f.header().tensors)
            if (!seen.insert(t.name).second) return "tensor '" + t.name + "' is in two shards";
    return "";
}

// ---- SentencePiece models (.spm) ----------------------------------------------------------------------
// Byte 0: extra_ids (0-3); bytes 1-4: the model's length n (little-endian); then n bytes of the model
// (T5's spiece.model) and the text. A model that loads must give ids inside its vocabulary, a decoded
// text that is UTF-8, and the same ids again.
inline std::string spm_tokenizer_one(std::string_view data) {
    if (data.size() < 5) return "";
    const auto extra = static_cast<std::int64_t>(static_cast<unsigned char>(data[0]) % 4);
    std::size_t n = 0;
    for (int k = 4; k >= 1; --k) n = n << 8 | static_cast<unsigned char>(data[static_cast<std::size_t>(k)]);
    data.remove_prefix(5);
    n = std::min(n, data.size());
    const std::string model(data.substr(0, n)), text(data.substr(n));
    UnigramTokenizer tok;
    try {
        tok = UnigramTokenizer::from_t5_spm(model, extra, "spiece.model");
    } catch (const Error& e) {
        return model_error(e);
    }
    if (text_problem(text)) return "";
    const std::vector<std::int64_t> ids = tok.encode(text);
    for (const auto id : ids)
        if (id < 0 || static_cast<std::size_t>(id) >= tok.vocab_size()) return "an id outside the vocabulary";
    const std::string back = tok.decode_text(ids);
    if (utf8_replace_invalid(back) != back) return "a decoded text that is not UTF-8";
    if (tok.encode(text) != ids) return "two encodings differ";
    return "";
}

// ---- GPT-2 tokeniser files ----------------------------------------------------------------------------
// Byte 0 even: vocab.json \0 merges.txt \0 text; odd: tokenizer.json \0 text. A tokeniser that loads
// must give ids inside its vocabulary whose bytes are the text again.
inline std::string gpt2_tokenizer_one(std::string_view data) {
    if (data.empty()) return "";
    const bool json = static_cast<unsigned char>(data[0]) % 2 == 1;
    data.remove_prefix(1);
    auto next = [&] {
        const auto z = data.find('\0');
        std::string part(data.substr(0, z));
        data.remove_prefix(z == std::string_view::npos ? data.size() : z + 1);
        return part;
    };
    Tokenizer tok;
    try {
        if (json) {
            const std::string tj = next();
            tok = Tokenizer::from_tokenizer_json(tj, "tokenizer.json");
        } else {
            const std::string vocab = next(), merges = next();
            tok = Tokenizer::from_vocab_merges(vocab, merges, "vocab.json", "merges.txt");
        }
    } catch (const Error& e) {
        return model_error(e);
    }
    const std::string text(data);
    if (text_problem(text)) return "";
    std::vector<std::int64_t> ids;
    try {
        ids = tok.ids(text);
    } catch (const Error& e) {
        return model_error(e);  // a WordPiece file without its unknown token, text it refuses
    }
    std::string back;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const auto id = ids[i];
        if (id < 0 || static_cast<std::size_t>(id) >= tok.vocab_size()) return "an id outside the vocabulary";
        // the special tokens the post-processor puts around the text are not text
        if (i < tok.specials_before() || i + tok.specials_after() >= ids.size()) continue;
        back += tok.decode(id);
    }
    if (!tok.round_trips()) return "";  // unknown characters became <unk>
    // a space the tokeniser prepends (add_prefix_space, Prepend '▁', Metaspace), and '▁' written in the
    // text itself, decode as spaces; an NFC normaliser gives the text's NFC form back
    for (const std::string& t : {text, utf8_nfc(text)}) {
        std::string spaced;
        for (std::size_t at = 0; at < t.size();) {
            if (t.compare(at, 3, "\xE2\x96\x81") == 0) spaced += ' ', at += 3;
            else spaced += t[at++];
        }
        if (back == t || back == spaced || back == " " + t || back == " " + spaced) return "";
    }
    if (tok.strips_whitespace()) {  // an added token's lstrip / rstrip took whitespace: the rest must be the text's
        auto no_space = [](const std::string& t) {
            std::string o;
            for (std::size_t i = 0; i < t.size();) {
                char32_t c = 0;
                const std::size_t n = std::max<std::size_t>(utf8_decode(t, i, c), 1);
                if (!rust_is_whitespace(c)) o.append(t, i, n);
                i += n;
            }
            return o;
        };
        if (no_space(back) == no_space(text)) return "";
    }
    return "the tokens' bytes are not the text";
}

}  // namespace attn::fuzz
