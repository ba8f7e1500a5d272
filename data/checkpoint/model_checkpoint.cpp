#include "data/checkpoint/model_checkpoint.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/base/files.h"
#include "data/base/tensor.h"
#include "data/base/threads.h"
#include "data/checkpoint/torch_checkpoint.h"

namespace attn {
namespace {

const char* const kShardHint = "the index and its shards belong together: download every shard the index names";

bool is_file(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string shape_text(const std::vector<std::size_t>& s) {
    std::string t;
    for (auto d : s) t += (t.empty() ? "" : ", ") + std::to_string(d);
    return "(" + t + ")";
}

struct Loader {
    ModelCheckpoint& m;
    std::string prefix;
    std::string where;  // the file errors name for a missing tensor (the index when sharded)
    std::string first_dtype_tensor;
    std::set<std::string> used;  // every tensor read, and the ones Hugging Face ties to them
    std::vector<std::pair<const SafetensorsFile*, const SafeTensor*>> unchecked;  // mapped, not yet checked finite

    // The tensor `name` as a (rows, cols) float32 matrix; its stored shape must be `want`.
    Weight get(const std::string& name, const std::vector<std::size_t>& want, const char* field_hint = nullptr) {
        used.insert(name);
        const auto [file, t] = m.files.find(name);
        if (t == nullptr)
            input_error(where + ": tensor '" + name + "' is missing",
                        std::string("is this a ") + m.family->title + " checkpoint saved by Hugging Face tools? (expected names like " +
                            prefix + m.family->tensor_name(m.family->has(Role::qkv_w) ? Role::qkv_w : Role::q_w) + ")");
        if (t->shape != want)
            input_error(file->path() + ": tensor '" + name + "' has shape " + shape_text(t->shape) + " but config.json gives " +
                            shape_text(want) + (field_hint ? std::string(" (") + field_hint + ")" : std::string()),
                        "the weights do not belong to this config.json: download both from the same model");
        Weight w;
        w.rows = want.size() == 2 ? want[0] : 1;
        w.cols = want.back();
        w.data = file->mapped_float(*t, false);
        if (w.data != nullptr) unchecked.emplace_back(file, t);
        if (w.data == nullptr) {
            m.widened.emplace_back(t->count());
            file->read_float(*t, m.widened.back().data());
            file->release(*t);  // the stored F16/BF16 bytes are not needed any more
            w.data = m.widened.back().data();
        }
        // one dtype for every tensor attn reads (Hugging Face loads a checkpoint in one torch_dtype)
        if (m.dtype.empty()) m.dtype = t->dtype, first_dtype_tensor = name;
        else if (t->dtype != m.dtype)
            input_error(file->path() + ": tensor '" + name + "' is " + t->dtype + " but '" + first_dtype_tensor + "' is " + m.dtype,
                        "the checkpoint mixes dtypes: save every tensor in one dtype (F32, F16 or BF16)");
        m.n_params += t->count();
        return w;
    }
};

// Every mapped tensor checked finite, in parts of 1 Mi values over the thread pool (the whole model's
// weights are read once here, and their pages mapped as each part first touches them: about 0.1 s of
// one core for 540 MB, shared by the pool's threads); the first tensor in load order that holds inf or
// NaN is refused, naming its first such element.
void check_weights_finite(const Loader& l) {
    constexpr std::size_t kPart = std::size_t{1} << 20;
    struct Part {
        std::size_t tensor;
        const float* v;
        std::size_t n;
    };
    std::vector<Part> parts;
    for (std::size_t k = 0; k < l.unchecked.size(); ++k) {
        const auto& [file, t] = l.unchecked[k];
        const float* v = file->mapped_float(*t, false);
        for (std::size_t at = 0, n = t->count(); at < n; at += kPart) parts.push_back({k, v + at, std::min(kPart, n - at)});
    }
    std::vector<char> bad(parts.size(), 0);
    run_tasks(parts.size(), kMaxPoolThreads, [&](std::size_t i) { bad[i] = !all_finite(parts[i].v, parts[i].n); });
    for (std::size_t i = 0; i < parts.size(); ++i)
        if (bad[i]) l.unchecked[parts[i].tensor].first->check_finite(*l.unchecked[parts[i].tensor].second);
}

// Names the config field behind a role's shape, for the shape error.
const char* field_of(Role r, const Family& f) {
    if (r == Role::up_w || r == Role::up_b || r == Role::down_w || r == Role::gate_w)
        return f.id == FamilyId::gpt2 ? "n_inner, or 4 · n_embd when n_inner is null" : "intermediate_size";
    if (r == Role::q_w || r == Role::k_w || r == Role::v_w || r == Role::o_w || r == Role::q_b || r == Role::k_b || r == Role::v_b)
        return "num_attention_heads, num_key_value_heads and head_dim";
    return nullptr;
}

// An encoder-decoder's shared embedding (V, C): `shared` ("model.shared.weight"), else the copy
// either stack keeps (encoder.embed_tokens, decoder.embed_tokens: Hugging Face ties all three), else a
// tied lm_head (checkpoints that keep one name for a shared tensor may keep only that one).
Weight load_shared_embedding(Loader& l, const std::string& shared, const ModelConfig& c) {
    const std::vector<std::size_t> shape = {c.vocab_size, c.n_embd};
    std::vector<std::string> names = {shared, l.prefix + "encoder.embed_tokens.weight", l.prefix + "decoder.embed_tokens.weight"};
    if (c.tie_word_embeddings) names.push_back("lm_head.weight");
    l.used.insert(names.begin(), names.end());  // the copies are one tied tensor in Hugging Face: none is unused
    for (const auto& n : names)
        if (l.m.files.find(n).second != nullptr) return l.get(n, shape, "vocab_size and d_model");
    return l.get(shared, shape);  // the missing-tensor error names the first
}

// Buffers Hugging Face's modeling code drops by name when it loads (_keys_to_ignore_on_load_unexpected,
// non-persistent buffers older checkpoints stored): GPT-2's causal-mask buffers, rotary inv_freq,
// BERT's position_ids.
bool ignored_buffer(const std::string& name) {
    const auto ends = [&](const std::string& tail) {
        return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    return ends(".attn.bias") || ends(".attn.masked_bias") || ends("rotary_emb.inv_freq") || ends("position_ids");
}

// Records in m the stored tensors the loader did not read (ModelCheckpoint::unused).
void note_unused(ModelCheckpoint& m, const Loader& l) {
    m.where = l.where;
    for (const auto& f : m.files.files)
        for (const auto& t : f.header().tensors)
            if (!l.used.count(t.name) && !ignored_buffer(t.name)) m.unused.push_back(t.name);
    std::sort(m.unused.begin(), m.unused.end());
}

}  // namespace

std::string unused_tensors_note(const ModelCheckpoint& m) {
    if (m.unused.empty()) return "";
    constexpr std::size_t kNamed = 3;
    std::string names;
    for (std::size_t i = 0; i < std::min(kNamed, m.unused.size()); ++i) names += (i ? ", " : "") + excerpt(m.unused[i], 80);
    if (m.unused.size() > kNamed) names += " and " + std::to_string(m.unused.size() - kNamed) + " more";
    const std::string n = std::to_string(m.unused.size());
    return m.where + ": " + n + (m.unused.size() == 1 ? " tensor is" : " tensors are") + " not used by the " + m.family->title +
           " model config.json describes, and ignored (as Hugging Face ignores them, with a warning): " + names;
}

std::pair<const SafetensorsFile*, const SafeTensor*> TensorFiles::find(const std::string& name) const {
    for (const auto& f : files)
        if (const SafeTensor* t = f.find(name)) return {&f, t};
    return {nullptr, nullptr};
}

std::uint64_t TensorFiles::mapped_bytes() const {
    std::uint64_t n = 0;
    for (const auto& f : files) {
        n += f.size();
        for (const auto& t : f.header().tensors)  // never read, so never in memory (GPT-2's causal masks)
            if (ignored_buffer(t.name)) n -= t.end - t.begin;
    }
    return n;
}

std::uint64_t TensorFiles::widened_bytes() const {
    std::uint64_t n = 0;
    for (const auto& f : files)
        for (const auto& t : f.header().tensors)
            if (t.dtype != "F32") n += 4ull * t.count();
    return n;
}

ParsedConfig read_model_config(const std::string& dir) {
    // the files: config.json and model.safetensors or its index, else pytorch_model.bin or its index
    const std::string config = dir + "/config.json";
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        input_error("model folder '" + dir + "' does not exist", "give a folder holding config.json, model.safetensors, vocab.json and merges.txt");
    refuse_odd_file(config, "put the model's config.json file there");
    refuse_odd_file(dir + "/model.safetensors", "put the model's model.safetensors file there");
    if (!is_file(config))
        input_error("no config.json in '" + dir + "'", "download the model's config.json into the folder");
    if (!is_file(dir + "/model.safetensors") && !is_file(dir + "/model.safetensors.index.json")) {
        refuse_odd_file(dir + "/pytorch_model.bin", "put the model's pytorch_model.bin file there");
        if (!is_file(dir + "/pytorch_model.bin") && !is_file(dir + "/pytorch_model.bin.index.json"))
            input_error("no model.safetensors in '" + dir + "'", "download the model's model.safetensors into the folder");
    }
    return parse_model_config(read_file(config, "config file"), config);
}

namespace {

// The shards an index names: pytorch_model-*.bin for pytorch_model.bin.index.json, else model-*.safetensors.
std::string shard_hint(const std::string& index_name) {
    const bool torch = index_name.find("pytorch_model.bin.index.json") != std::string::npos;  // a path, or "INDEX of REPO"
    return std::string("the index and its shards belong together: download every ") + (torch ? "pytorch_model-*.bin" : "model-*.safetensors") +
           " the index names";
}

}  // namespace

std::map<std::string, std::vector<std::string>> index_shards(const std::string& text, const std::string& name) {
    const std::string hint = shard_hint(name);
    refuse_json_bom(text, name);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
            if (depth > 4) input_error(name + ": nests deeper than an index does", hint);
            return true;
        });
    } catch (const nlohmann::json::exception&) {
        input_error(name + ": not JSON", hint);
    }
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
        input_error(name + ": no \"weight_map\" object of tensor -> shard file", hint);
    std::map<std::string, std::vector<std::string>> by_shard;  // shard -> the tensors the index puts there
    for (const auto& [tensor, file] : j["weight_map"].items()) {
        if (!file.is_string()) input_error(name + ": the shard of tensor '" + excerpt(tensor, 80) + "' is not a file name", hint);
        const std::string f = file.get<std::string>();
        if (f.empty() || f.find('/') != std::string::npos || f.find('\\') != std::string::npos || f == "." || f == ".." ||
            f.find('\0') != std::string::npos)
            input_error(name + ": shard '" + excerpt(f, 80) + "' is not a file name in the folder", hint);
        by_shard[f].push_back(tensor);
    }
    if (by_shard.empty()) input_error(name + ": the weight_map is empty", hint);
    if (by_shard.size() > 4096) input_error(name + ": names more than 4096 shards", hint);
    return by_shard;
}

TensorFiles tensor_files_from_index(const std::string& text, const std::string& name, const ShardOpener& open) {
    const std::string hint = shard_hint(name);
    // 1. the shards: plain file names in the folder, each present
    const std::map<std::string, std::vector<std::string>> by_shard = index_shards(text, name);
    TensorFiles out;
    out.sharded = true;
    for (const auto& [f, tensors] : by_shard) {
        std::optional<SafetensorsFile> shard = open(f);
        if (!shard) input_error(name + ": names shard '" + excerpt(f, 256) + "', which is missing from the folder", hint);
        out.files.push_back(std::move(*shard));
    }
    // 2. each tensor in one shard only, and where the index says
    std::map<std::string, std::string> home;
    for (const auto& f : out.files)
        for (const auto& t : f.header().tensors) {
            const auto [it, fresh] = home.emplace(t.name, f.path());
            if (!fresh) input_error(name + ": tensor '" + excerpt(t.name, 256) + "' is in two shards, " + excerpt(it->second, 256) + " and " +
                                        excerpt(f.path(), 256), hint);
        }
    std::size_t i = 0;
    for (const auto& [f, tensors] : by_shard) {
        for (const auto& t : tensors)
            if (out.files[i].find(t) == nullptr)
                input_error(name + ": puts tensor '" + excerpt(t, 80) + "' in " + excerpt(f, 256) + ", which does not hold it", hint);
        ++i;
    }
    return out;
}

// A PyTorch checkpoint as an in-memory safetensors file (data/checkpoint/torch_checkpoint.h reads it
// without running its pickle), so everything downstream reads it as it reads model.safetensors.
SafetensorsFile open_torch_file(const std::string& path) {
    return SafetensorsFile::from_bytes(safetensors_image(read_torch_checkpoint(path), path), path);
}

TensorFiles open_tensor_files(const std::string& dir) {
    const std::string single = dir + "/model.safetensors", index = dir + "/model.safetensors.index.json";
    const std::string bin = dir + "/pytorch_model.bin", bin_index = dir + "/pytorch_model.bin.index.json";
    if (is_file(single)) {
        TensorFiles out;
        out.files.push_back(SafetensorsFile::open(single));
        return out;
    }
    if (!is_file(index) && is_file(bin)) {
        TensorFiles out;
        out.files.push_back(open_torch_file(bin));
        return out;
    }
    if (!is_file(index) && is_file(bin_index))
        return tensor_files_from_index(read_file(bin_index, "index file"), bin_index, [&](const std::string& f) {
            const std::string path = dir + "/" + f;
            refuse_odd_file(path, kShardHint);
            return is_file(path) ? std::optional<SafetensorsFile>(open_torch_file(path)) : std::nullopt;
        });
    return tensor_files_from_index(read_file(index, "index file"), index, [&](const std::string& f) {
        const std::string path = dir + "/" + f;
        refuse_odd_file(path, kShardHint);
        return is_file(path) ? std::optional<SafetensorsFile>(SafetensorsFile::open(path)) : std::nullopt;
    });
}

std::uint64_t weights_memory(const std::string& dir) {
    const std::string bin = dir + "/pytorch_model.bin", bin_index = dir + "/pytorch_model.bin.index.json";
    const bool torch = !is_file(dir + "/model.safetensors") && !is_file(dir + "/model.safetensors.index.json");
    if (!torch) {
        const TensorFiles f = open_tensor_files(dir);  // the headers only
        return f.mapped_bytes() + f.widened_bytes();
    }
    // pytorch_model.bin: converting holds the storages, the tensors copied out and the safetensors image,
    // about three times the file (and a widened float32 copy of F16/BF16, counted as a fourth)
    auto size = [](const std::string& path) -> std::uint64_t {
        struct stat st {};
        return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
    };
    std::uint64_t bytes = 0;
    if (is_file(bin)) {
        bytes = size(bin);
    } else if (is_file(bin_index)) {
        std::set<std::string> shards;
        try {
            const auto j = nlohmann::json::parse(read_file(bin_index, "index file"));
            if (j.is_object() && j.contains("weight_map") && j["weight_map"].is_object())
                for (const auto& [tensor, file] : j["weight_map"].items())
                    if (file.is_string()) shards.insert(file.get<std::string>());
        } catch (const nlohmann::json::exception&) {
            // the loader names what is wrong with the index
        }
        for (const auto& f : shards)
            if (f.find('/') == std::string::npos) bytes += size(dir + "/" + f);
    }
    return 4 * bytes;
}

// DistilBERT's sinusoidal_pos_embds table (create_sinusoidal_embeddings), interleaved: row p holds
// sin(p / 10000^(2i/C)) in column 2i and the cos in column 2i + 1, computed in double as numpy does,
// rounded once to float32.                                                                       (P, C)
std::vector<float> sinusoidal_interleaved(std::size_t P, std::size_t C) {
    std::vector<float> out(P * C);
    for (std::size_t p = 0; p < P; ++p)
        for (std::size_t j = 0; j < C; ++j) {
            const double angle = static_cast<double>(p) / std::pow(10000.0, 2.0 * static_cast<double>(j / 2) / static_cast<double>(C));
            out[p * C + j] = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return out;
}

// Marian's sinusoidal table (MarianSinusoidalPositionalEmbedding): row p holds sin(p / 10000^(2i/C)) in
// column i and the cos in column C/2 + i (the sine half, then the cosine half; for odd C the sine half
// has (C + 1) / 2 columns), computed in double as numpy does, rounded once to float32.          (P, C)
std::vector<float> sinusoidal_halves(std::size_t P, std::size_t C) {
    std::vector<float> out(P * C);
    const std::size_t half = C % 2 == 0 ? C / 2 : C / 2 + 1;
    for (std::size_t p = 0; p < P; ++p)
        for (std::size_t j = 0; j < C; ++j) {
            const std::size_t i = j < half ? 2 * j : 2 * (j - half) + 1;  // the column of numpy's position_enc
            const double angle = static_cast<double>(p) / std::pow(10000.0, 2.0 * static_cast<double>(i / 2) / static_cast<double>(C));
            out[p * C + j] = static_cast<float>(j < half ? std::sin(angle) : std::cos(angle));
        }
    return out;
}

std::unique_ptr<ModelCheckpoint> load_model_checkpoint(const std::string& dir) {
    // 1. the config and the files
    auto m = std::make_unique<ModelCheckpoint>();
    const ParsedConfig p = read_model_config(dir);
    m->family = p.family, m->config = p.config;
    m->files = open_tensor_files(dir);
    const Family& f = *m->family;
    const ModelConfig& c = m->config;
    // 2. the names' optional prefix ("bert." when saved from BertForMaskedLM; the head's names never have it)
    const bool seq2seq = f.recipe.stack == Stack::encoder_decoder;
    // (an encoder-decoder's shared embedding may be stored under another name: probe its first layer)
    const std::string probe = seq2seq ? f.tensor_name(Role::q_w, 0) : f.tensor_name(Role::embed);
    const std::string index = is_file(dir + "/model.safetensors.index.json") ? "/model.safetensors.index.json" : "/pytorch_model.bin.index.json";
    Loader l{*m, "", m->files.sharded ? dir + index : m->files.files[0].path(), "", {}, {}};
    if (*f.prefix && m->files.find(probe).second == nullptr && m->files.find(f.prefix + probe).second != nullptr) l.prefix = f.prefix;
    // The stored name of a role: under the prefix unless it is the head's; a LayerNorm's gain and bias
    // also under the pre-2019 names .gamma and .beta, which Hugging Face renames when it loads.
    auto name_of = [&](Role r, std::size_t layer, bool decoder = false) {
        const std::string name = (role_head(r) ? std::string() : l.prefix) + f.tensor_name(r, layer, decoder, c.gated_mlp);
        if (!role_norm(r) || m->files.find(name).second != nullptr) return name;
        for (const auto& [now, old] : {std::pair{".weight", ".gamma"}, std::pair{".bias", ".beta"}}) {
            const std::string n = std::string(now);
            if (name.size() > n.size() && name.compare(name.size() - n.size(), n.size(), n) == 0) {
                const std::string renamed = name.substr(0, name.size() - n.size()) + old;
                if (m->files.find(renamed).second != nullptr) return renamed;
            }
        }
        return name;
    };
    auto load = [&](Role r, std::size_t layer, bool decoder = false) {
        const std::vector<std::size_t> shape = role_shape(f, c, r);
        if (shape.empty() || !(decoder ? f.decoder_has(r) : f.has(r))) return Weight{};
        return l.get(name_of(r, layer, decoder), shape, field_of(r, f));
    };
    auto global = [&](Role r) -> Weight& { return m->globals[static_cast<std::size_t>(r)]; };
    auto stored = [&](const std::string& name) { return m->files.find(name).second != nullptr; };
    // 3. every tensor, shape checked against the config, as float32, in the file's order of roles
    if (seq2seq) global(Role::embed) = load_shared_embedding(l, name_of(Role::embed, 0), c);
    else global(Role::embed) = load(Role::embed, 0);
    for (Role r : {Role::positions, Role::dec_positions}) {
        if (c.sinusoidal_positions && f.has(r) && !stored(name_of(r, 0))) {
            // DistilBERT's sinusoidal_pos_embds and Marian's positions when no table is stored: Hugging Face computes them
            m->widened.push_back(c.sinusoid_halves ? sinusoidal_halves(c.n_positions, c.n_embd)
                                                   : sinusoidal_interleaved(c.n_positions, c.n_embd));
            global(r) = Weight{m->widened.back().data(), c.n_positions, c.n_embd};
        } else {
            global(r) = load(r, 0);
        }
    }
    for (Role r : {Role::token_types, Role::embed_norm_w, Role::embed_norm_b, Role::dec_embed_norm_w, Role::dec_embed_norm_b,
                   Role::rel_bias, Role::dec_rel_bias})
        global(r) = load(r, 0);
    for (std::size_t i = 0; i < c.n_layer; ++i) {
        LayerWeights w{};
        for (std::size_t r = 0; r < kRoleCount; ++r)
            if (role_per_layer(static_cast<Role>(r))) w[r] = load(static_cast<Role>(r), i);
        m->layers.push_back(w);
    }
    for (std::size_t i = 0; seq2seq && i < c.n_decoder_layer; ++i) {
        LayerWeights w{};
        for (std::size_t r = 0; r < kRoleCount; ++r)
            if (role_per_layer(static_cast<Role>(r))) w[r] = load(static_cast<Role>(r), i, true);
        m->decoder_layers.push_back(w);
    }
    for (Role r : {Role::final_norm_w, Role::final_norm_b, Role::dec_final_norm_w, Role::dec_final_norm_b}) global(r) = load(r, 0);
    // BART's and Marian's final_logits_bias: a buffer Hugging Face starts at zeros when the file lacks it
    if (f.has(Role::logits_bias) && stored(name_of(Role::logits_bias, 0))) global(Role::logits_bias) = load(Role::logits_bias, 0);
    // 4. the output head: tied to the embedding (as Hugging Face ties them: one tensor, a stored
    //    lm_head.weight is not used), or its own lm_head.weight (never prefixed). An encoder's
    //    masked-LM head is optional: a folder saved from the bare model (BertModel) has none.
    const std::string head = f.tensor_name(Role::lm_head);
    if (f.recipe.head == OutputHead::masked_lm) {
        if (m->files.find(name_of(Role::mlm_dense_w, 0)).second == nullptr) {  // no head: attention only
            check_weights_finite(l);
            note_unused(*m, l);
            return m;
        }
        for (Role r : {Role::mlm_dense_w, Role::mlm_dense_b, Role::mlm_norm_w, Role::mlm_norm_b, Role::mlm_bias}) global(r) = load(r, 0);
    }
    if (c.tie_word_embeddings) {
        m->globals[static_cast<std::size_t>(Role::lm_head)] = (*m)[Role::embed];
        l.used.insert(head);  // a stored lm_head.weight is the tied embedding's copy, not an unused tensor
    } else {
        if (m->files.find(head).second == nullptr)
            input_error(l.where + ": tie_word_embeddings is false but there is no tensor '" + head + "'",
                        "Hugging Face would run a randomly initialised output head: use the checkpoint's own files, or set "
                        "tie_word_embeddings to true if the head is the embedding");
        const std::string saved = l.prefix;
        l.prefix = "";
        m->globals[static_cast<std::size_t>(Role::lm_head)] = l.get(head, role_shape(f, c, Role::lm_head));
        l.prefix = saved;
    }
    check_weights_finite(l);
    note_unused(*m, l);
    return m;
}

}  // namespace attn
