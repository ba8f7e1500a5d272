// Model folders for the validation table's examples (docs/validation.md lists them): a tiny GPT-2
// checkpoint (1 layer, 2 heads, 4 wide, 4 positions, the 256 byte tokens + <|endoftext|>) written by
// hand as safetensors, and copies each broken in one way.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <functional>
#include <string>
#include <vector>

#include "data/text/tokenizer.h"
#include "tests/helpers.h"
#include "tests/torch_bin/torch_file.h"

namespace attn::test {

struct StEntry {
    std::string name, dtype;
    std::vector<std::size_t> shape;
    std::string bytes;
};

inline std::string st_json_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        o += c;
    }
    return o;
}

// The file: u64 header length, the JSON header (offsets in order), the data.
inline std::string safetensors_file(const std::vector<StEntry>& entries) {
    std::string header = "{", data;
    for (const auto& e : entries) {
        std::string shape;
        for (auto d : e.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
        header += (header.size() > 1 ? ", \"" : "\"") + e.name + "\": {\"dtype\": \"" + e.dtype + "\", \"shape\": [" + shape +
                  "], \"data_offsets\": [" + std::to_string(data.size()) + ", " + std::to_string(data.size() + e.bytes.size()) + "]}";
        data += e.bytes;
    }
    header += "}";
    while ((8 + header.size()) % 8) header += ' ';
    std::string len(8, '\0');
    for (int i = 0; i < 8; ++i) len[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
    return len + header + data;
}

// The tiny model's tensors, F32, values small and varied.
inline std::vector<StEntry> tiny_gpt2_tensors(std::size_t n_positions = 4) {
    const std::size_t C = 4, V = 257;
    std::uint32_t state = 1;
    auto f32 = [&](std::size_t n, float base) {
        std::string b(n * 4, '\0');
        for (std::size_t i = 0; i < n; ++i) {
            state = state * 1664525u + 1013904223u;
            const float v = base + static_cast<float>(state >> 8) / 16777216.0f * 0.2f - 0.1f;
            std::memcpy(&b[i * 4], &v, 4);
        }
        return b;
    };
    std::vector<StEntry> t = {{"wte.weight", "F32", {V, C}, f32(V * C, 0)}, {"wpe.weight", "F32", {n_positions, C}, f32(n_positions * C, 0)}};
    auto add = [&](const std::string& n, std::vector<std::size_t> shape, float base) {
        std::size_t count = 1;
        for (auto d : shape) count *= d;
        t.push_back({n, "F32", shape, f32(count, base)});
    };
    add("h.0.ln_1.weight", {C}, 1), add("h.0.ln_1.bias", {C}, 0);
    add("h.0.attn.c_attn.weight", {C, 3 * C}, 0), add("h.0.attn.c_attn.bias", {3 * C}, 0);
    add("h.0.attn.c_proj.weight", {C, C}, 0), add("h.0.attn.c_proj.bias", {C}, 0);
    add("h.0.ln_2.weight", {C}, 1), add("h.0.ln_2.bias", {C}, 0);
    add("h.0.mlp.c_fc.weight", {C, 4 * C}, 0), add("h.0.mlp.c_fc.bias", {4 * C}, 0);
    add("h.0.mlp.c_proj.weight", {4 * C, C}, 0), add("h.0.mlp.c_proj.bias", {C}, 0);
    add("ln_f.weight", {C}, 1), add("ln_f.bias", {C}, 0);
    return t;
}

inline std::string tiny_gpt2_config(const std::string& type = "gpt2", std::size_t n_head = 2) {
    return "{\"model_type\": \"" + type + "\", \"n_layer\": 1, \"n_head\": " + std::to_string(n_head) +
           ", \"n_embd\": 4, \"n_positions\": 4, \"vocab_size\": 257, \"layer_norm_epsilon\": 1e-05}";
}

inline std::string tiny_gpt2_vocab() {
    const auto& s = gpt2_byte_symbols();
    std::string v = "{";
    for (std::size_t b = 0; b < 256; ++b) v += "\"" + st_json_escape(s[b]) + "\": " + std::to_string(b) + ", ";
    return v + "\"<|endoftext|>\": 256}";
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

inline std::string slurp_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// name -> what it holds, and the folder written under dir.
inline void write_model_folder(const std::string& dir, const std::string& name, const std::string& config,
                               const std::string& weights, bool tokeniser = true, const std::string& vocab = tiny_gpt2_vocab(),
                               const std::string& merges = "#version: 0.2\n") {
    const std::string d = dir + "/" + name;
    ::mkdir(d.c_str(), 0755);
    if (!config.empty()) write_bytes(d + "/config.json", config);
    if (!weights.empty() || name == "st-empty") write_bytes(d + "/model.safetensors", weights);
    if (tokeniser) write_bytes(d + "/vocab.json", vocab), write_bytes(d + "/merges.txt", merges);
}

// A tiny Llama folder (1 layer, 2 query heads sharing 1 key/value head, hidden 4, head_dim 2, MLP 8,
// the 256 byte tokens + <|endoftext|>, tied), with a byte-level tokenizer.json. dtype "F16" writes 1.0s.
inline std::vector<StEntry> tiny_llama_tensors(const std::string& dtype = "F32") {
    const std::size_t C = 4, V = 257, I = 8;
    std::uint32_t state = 7;
    auto values = [&](std::size_t n, float base) {
        std::string b(n * (dtype == "F16" ? 2 : 4), '\0');
        for (std::size_t i = 0; i < n; ++i) {
            state = state * 1664525u + 1013904223u;
            const float v = base + static_cast<float>(state >> 8) / 16777216.0f * 0.2f - 0.1f;
            if (dtype == "F16") b[i * 2 + 1] = '\x3C';  // 1.0
            else std::memcpy(&b[i * 4], &v, 4);
        }
        return b;
    };
    std::vector<StEntry> t;
    auto add = [&](const std::string& n, std::vector<std::size_t> shape, float base) {
        std::size_t count = 1;
        for (auto d : shape) count *= d;
        t.push_back({n, dtype, shape, values(count, base)});
    };
    const std::string l = "model.layers.0.";
    add("model.embed_tokens.weight", {V, C}, 0);
    add(l + "input_layernorm.weight", {C}, 1);
    add(l + "self_attn.q_proj.weight", {4, C}, 0), add(l + "self_attn.k_proj.weight", {2, C}, 0);
    add(l + "self_attn.v_proj.weight", {2, C}, 0), add(l + "self_attn.o_proj.weight", {C, 4}, 0);
    add(l + "post_attention_layernorm.weight", {C}, 1);
    add(l + "mlp.gate_proj.weight", {I, C}, 0), add(l + "mlp.up_proj.weight", {I, C}, 0), add(l + "mlp.down_proj.weight", {C, I}, 0);
    add("model.norm.weight", {C}, 1);
    return t;
}

inline std::string tiny_llama_config(const std::string& extra = "", std::size_t kv_heads = 1) {
    return R"({"model_type": "llama", "hidden_size": 4, "num_hidden_layers": 1, "num_attention_heads": 2,
  "num_key_value_heads": )" + std::to_string(kv_heads) + R"(, "intermediate_size": 8, "max_position_embeddings": 4,
  "vocab_size": 257, "tie_word_embeddings": true)" + extra + "}";
}

inline std::string tiny_llama_tokenizer(const std::string& model_type = "BPE", const std::string& pre = "ByteLevel") {
    return R"({"model": {"type": ")" + model_type + R"(", "vocab": )" + tiny_gpt2_vocab() + R"(, "merges": []},
  "pre_tokenizer": {"type": ")" + pre + R"("}, "added_tokens": [{"id": 256, "content": "<|endoftext|>", "special": true}]})";
}

// name: a Llama folder; shards: the tensors split over that many files with an index (tensor i in shard i % n).
inline void write_llama_folder(const std::string& dir, const std::string& name, const std::string& config,
                               const std::vector<StEntry>& tensors, std::size_t shards = 1,
                               const std::string& tokenizer = tiny_llama_tokenizer()) {
    const std::string d = dir + "/" + name;
    ::mkdir(d.c_str(), 0755);
    write_bytes(d + "/config.json", config);
    write_bytes(d + "/tokenizer.json", tokenizer);
    if (shards == 1) return write_bytes(d + "/model.safetensors", safetensors_file(tensors));
    std::vector<std::vector<StEntry>> parts(shards);
    std::string map;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        parts[i % shards].push_back(tensors[i]);
        map += (map.empty() ? "" : ", ") + std::string("\"") + tensors[i].name + "\": \"model-" + std::to_string(i % shards + 1) + ".safetensors\"";
    }
    for (std::size_t s = 0; s < shards; ++s)
        write_bytes(d + "/model-" + std::to_string(s + 1) + ".safetensors", safetensors_file(parts[s]));
    write_bytes(d + "/model.safetensors.index.json", "{\"metadata\": {}, \"weight_map\": {" + map + "}}");
}

inline void write_llama_fixtures(const std::string& dir) {
    const auto t = tiny_llama_tensors();
    write_llama_folder(dir, "llama-ok", tiny_llama_config(), t);
    write_llama_folder(dir, "llama-sharded", tiny_llama_config(), t, 2);
    write_llama_folder(dir, "llama-kv", tiny_llama_config("", 3), t);
    write_llama_folder(dir, "llama-head-dim", tiny_llama_config(R"(, "head_dim": 4)"), t);
    write_llama_folder(dir, "llama-rope", tiny_llama_config(R"(, "rope_scaling": {"rope_type": "yarn", "factor": 4.0})"), t);
    write_llama_folder(dir, "llama-tok-model", tiny_llama_config(), t, 1, tiny_llama_tokenizer("WordLevel"));
    write_llama_folder(dir, "llama-tok-pre", tiny_llama_config(), t, 1, tiny_llama_tokenizer("BPE", "Whitespace"));
    write_llama_folder(dir, "llama-shard-missing", tiny_llama_config(), t, 2);
    ::unlink((dir + "/llama-shard-missing/model-2.safetensors").c_str());
    write_llama_folder(dir, "llama-shard-two", tiny_llama_config(), t, 2);
    write_bytes(dir + "/llama-shard-two/model-3.safetensors", safetensors_file({t[0]}));
    std::string index = slurp_file(dir + "/llama-shard-two/model.safetensors.index.json");
    index.insert(index.find("\"weight_map\": {") + 15, "\"extra\": \"model-3.safetensors\", ");
    write_bytes(dir + "/llama-shard-two/model.safetensors.index.json", index);
    write_llama_folder(dir, "llama-mixed", tiny_llama_config(), t, 2);
    std::vector<StEntry> half;
    for (const auto& e : tiny_llama_tensors("F16")) half.push_back(e);
    std::vector<StEntry> second;
    for (std::size_t i = 1; i < half.size(); i += 2) second.push_back(half[i]);
    write_bytes(dir + "/llama-mixed/model-2.safetensors", safetensors_file(second));
    // a tensor whose name (as the file spells it) holds a newline, and one named by 10,240 x; both with a
    // dtype the format lacks, so the error quotes the name
    auto named = [&](const std::string& name) {
        auto e = t;
        e.push_back({name, "Q4", {1}, std::string(1, '\0')});
        return e;
    };
    write_llama_folder(dir, "llama-name-newline", tiny_llama_config(), named("model.extra\\nweight"));
    write_llama_folder(dir, "llama-name-long", tiny_llama_config(), named(std::string(10240, 'x')));
}

inline void write_model_fixtures(const std::string& dir) {
    const std::string cfg = tiny_gpt2_config(), ok = safetensors_file(tiny_gpt2_tensors());
    write_model_folder(dir, "model-ok", cfg, ok);
    write_model_folder(dir, "model-noconfig", "", ok);
    write_model_folder(dir, "model-pickle", cfg, "", true);
    write_bytes(dir + "/model-pickle/pytorch_model.bin",
                torch_zip({}, std::string("\x80\x02") + "cos\nsystem\n" + pickle_str("id") + "\x85R."));
    std::vector<TorchEntry> bin;  // model-ok's tensors as PyTorch storages "0", "1", ...
    for (const auto& e : tiny_gpt2_tensors())
        bin.push_back(torch_entry(e.name, std::to_string(bin.size()), std::vector<std::uint64_t>(e.shape.begin(), e.shape.end()), e.bytes));
    std::vector<TorchEntry> cut = bin;
    cut.back().data.resize(12);
    write_model_folder(dir, "torch-truncated", cfg, "", true);
    write_bytes(dir + "/torch-truncated/pytorch_model.bin", torch_zip(cut, state_dict_pickle(bin)));
    std::vector<TorchEntry> moved = bin;
    moved.back().offset = 1;
    write_model_folder(dir, "torch-view", cfg, "", true);
    write_bytes(dir + "/torch-view/pytorch_model.bin", torch_zip(moved));
    write_model_folder(dir, "torch-magic", cfg, "", true);
    write_bytes(dir + "/torch-magic/pytorch_model.bin", torch_legacy(bin, 0x20f9469cfc6dull));
    write_model_folder(dir, "model-mbart", tiny_gpt2_config("mbart"), ok);
    write_model_folder(dir, "model-heads", tiny_gpt2_config("gpt2", 3), ok);
    write_model_folder(dir, "st-empty", cfg, "");
    std::string past(8, '\0');
    past[2] = 1;  // 65536
    write_model_folder(dir, "st-length", cfg, past + "{}");
    write_model_folder(dir, "st-json", cfg, std::string("\x08\0\0\0\0\0\0\0", 8) + "not json");
    write_model_folder(dir, "st-truncated", cfg, ok.substr(0, ok.size() - 4));
    auto t = tiny_gpt2_tensors();
    t[1].shape = {5, 4};  // wpe: 5 × 4 floats need 80 bytes; 64 are there
    write_model_folder(dir, "st-count", cfg, safetensors_file(t));
    t = tiny_gpt2_tensors();
    t[0].dtype = "I64", t[0].bytes += t[0].bytes;  // wte as 64-bit integers
    write_model_folder(dir, "st-dtype", cfg, safetensors_file(t));
    std::string overlap = ok;  // wpe's data_offsets moved 4 bytes back, into wte's
    const std::string from = "\"data_offsets\": [4112, 4176]", to = "\"data_offsets\": [4108, 4172]";
    overlap.replace(overlap.find(from), from.size(), to);
    write_model_folder(dir, "st-overlap", cfg, overlap);
    t = tiny_gpt2_tensors();
    t.push_back(t.back());  // ln_f.bias twice (the second copy's bytes after the first's)
    write_model_folder(dir, "st-twice", cfg, safetensors_file(t));
    t = tiny_gpt2_tensors();
    t.pop_back();  // no ln_f.bias
    write_model_folder(dir, "model-missing", cfg, safetensors_file(t));
    write_model_folder(dir, "model-shape", cfg, safetensors_file(tiny_gpt2_tensors(8)));
    write_model_folder(dir, "tok-vocab", cfg, ok, true, "{\"a\": \"zero\"}");
    write_model_folder(dir, "tok-merges", cfg, ok, true, tiny_gpt2_vocab(), "#version: 0.2\nno-space-here\n");
    write_model_folder(dir, "tok-long", cfg, ok, true, "{\"" + std::string(1025, 'x') + "\": 0}");
    write_llama_fixtures(dir);
}

// A folder of write_model_fixtures' files, written once per process.
inline std::string model_fixtures_dir() {
    static const std::string dir = [] {
        const std::string d = temp_dir();
        write_model_fixtures(d);
        return d;
    }();
    return dir;
}

}  // namespace attn::test
