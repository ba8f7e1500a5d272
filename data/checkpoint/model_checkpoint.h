// A checkpoint of any family in data/checkpoint/model_family.h from a Hugging Face model folder:
// config.json + model.safetensors, or model.safetensors.index.json + its shards; without those,
// pytorch_model.bin or pytorch_model.bin.index.json + its shards.
//
// Every tensor is found through its role's name (the family's table; GPT-2's may carry the
// "transformer." prefix), and its shape is checked against the config before a value is read. A sharded
// folder's index must name only shards that exist, each tensor in one shard only, and the tensors attn
// reads share one dtype. A pytorch_model.bin is read without running its pickle (data/checkpoint/
// torch_checkpoint.h: only a state dict's opcodes and globals; anything else is refused) into an
// in-memory safetensors file, so it is checked and read exactly as model.safetensors is.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/checkpoint/model_family.h"
#include "data/checkpoint/safetensors.h"

namespace attn {

// A float32 matrix (rows, cols), row-major and contiguous, owned by the checkpoint (mapped F32 or
// widened F16/BF16). A vector is (1, n). data == nullptr: the role is absent.
struct Weight {
    const float* data = nullptr;
    std::size_t rows = 0, cols = 0;
};

// The safetensors files of one folder: one, or the shards an index names (a pytorch_model.bin becomes
// one in memory).
struct TensorFiles {
    std::vector<SafetensorsFile> files;
    bool sharded = false;
    // The tensor called `name` and its file, or {nullptr, nullptr}.
    std::pair<const SafetensorsFile*, const SafeTensor*> find(const std::string& name) const;
    std::uint64_t mapped_bytes() const;   // the files' sizes, less the buffers the loader drops (never touched)
    std::uint64_t widened_bytes() const;  // float32 copies of every F16/BF16 tensor
};

using LayerWeights = std::array<Weight, kRoleCount>;  // the per-layer roles

struct ModelCheckpoint {
    const Family* family = nullptr;
    ModelConfig config;
    std::string dtype;           // the stored dtype of the weights: "F32" | "F16" | "BF16"
    std::uint64_t n_params = 0;  // distinct parameters (a tied lm_head counts once)
    std::array<Weight, kRoleCount> globals;  // embed, positions, token types, norms, the output head (lm_head: the embedding when tied);
                                             // encoder-decoder: embed is the shared embedding both stacks read
    std::vector<LayerWeights> layers;        // (L) the encoder's, for an encoder-decoder model
    std::vector<LayerWeights> decoder_layers;  // (L_dec) encoder-decoder models: the decoder's (with cross-attention)

    // The stored tensors the config's model does not have (q_proj.bias with attention_bias false, a
    // pooler): ignored, as Hugging Face loads the rest and warns "Some weights of the checkpoint were not
    // used"; buffers it drops by name (GPT-2's attn.bias and attn.masked_bias, rotary_emb.inv_freq,
    // position_ids) are not listed. Sorted by name.
    std::vector<std::string> unused;
    std::string where;                         // the file that names them: model.safetensors, or the index

    TensorFiles files;                         // the mappings the F32 weights point into
    std::vector<std::vector<float>> widened;   // F16/BF16 (or unaligned F32) weights as float32

    const Weight& operator[](Role r) const { return globals[static_cast<std::size_t>(r)]; }
    // Whether the model has an output head: always for a decoder; for an encoder when the folder holds
    // its masked-LM head (a folder saved from the bare BertModel has none: attention only).
    bool has_head() const { return (*this)[Role::lm_head].data != nullptr; }
};

// One line for stderr naming checkpoint.unused, the first few and how many ("" when none).
std::string unused_tensors_note(const ModelCheckpoint& m);

// Checks that DIR holds config.json and model.safetensors, model.safetensors.index.json,
// pytorch_model.bin or pytorch_model.bin.index.json, and parses the config.
ParsedConfig read_model_config(const std::string& dir);

// The folder's safetensors files mapped, headers checked (pages are read in as they are touched).
TensorFiles open_tensor_files(const std::string& dir);
// The memory the folder's weights will take, for the run's budget, without reading them: safetensors'
// mapped and widened bytes from the headers; a pytorch_model.bin's conversion about four times its size.
std::uint64_t weights_memory(const std::string& dir);
// Opens a shard by its file name in the folder (headers checked), or nothing when there is no such file.
using ShardOpener = std::function<std::optional<SafetensorsFile>(const std::string& file)>;
// The same from an index's text (the fuzzer and tests call this with shards held in memory).
TensorFiles tensor_files_from_index(const std::string& index_text, const std::string& index_name, const ShardOpener& open);

// A shard index's shards (model.safetensors.index.json's weight_map values: plain file names in the
// folder, at most 4096), each with the tensors the index puts there; input errors name `name`.
std::map<std::string, std::vector<std::string>> index_shards(const std::string& index_text, const std::string& name);

// Reads the config and every tensor the family's recipe needs. One-line errors (exit 1) with hints.
std::unique_ptr<ModelCheckpoint> load_model_checkpoint(const std::string& dir);

}  // namespace attn
