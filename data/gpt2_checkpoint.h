// A GPT-2-family checkpoint from a Hugging Face model folder: config.json + model.safetensors.
//
// config.json: model_type "gpt2"; n_layer (L), n_head (H), n_embd (C), n_positions, vocab_size (V),
// layer_norm_epsilon (default 1e-5); activation_function, when given, must be GPT-2's tanh GELU.
// model.safetensors, names with or without the "transformer." prefix (files saved from GPT2LMHeadModel):
//   wte.weight (V, C), wpe.weight (n_positions, C), ln_f.{weight,bias} (C), and per block i, h.{i}.:
//   ln_1.{weight,bias} (C); attn.c_attn.weight (C, 3C) + bias (3C), Conv1D: y = x·W + b, columns q | k | v;
//   attn.c_proj.weight (C, C) + bias; ln_2.{weight,bias}; mlp.c_fc.weight (C, 4C) + bias (4C);
//   mlp.c_proj.weight (4C, C) + bias (C). lm_head.weight (V, C) when present, else tied to wte.
//   attn.bias / attn.masked_bias (old causal-mask buffers) are ignored.
// Every shape is checked against the config before a single value is read. A folder with only
// pytorch_model.bin is refused: a pickle can run code, so attn never opens one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/safetensors.h"

namespace attn {

struct Gpt2Config {
    std::size_t n_layer = 0, n_head = 0, n_embd = 0, n_positions = 0, vocab_size = 0;
    double layer_norm_epsilon = 1e-5;
};

// Parses config.json's text; `name` names the file in errors.
Gpt2Config parse_gpt2_config(const std::string& text, const std::string& name);

// A float32 matrix (rows, cols), row-major and contiguous, owned by the checkpoint (mapped F32 or
// widened F16/BF16). A vector is (1, n).
struct Weight {
    const float* data = nullptr;
    std::size_t rows = 0, cols = 0;
};

struct Gpt2Block {
    Weight ln_1_w, ln_1_b;          // (1, C)
    Weight c_attn_w, c_attn_b;      // (C, 3C), (1, 3C)
    Weight attn_proj_w, attn_proj_b;  // (C, C), (1, C)
    Weight ln_2_w, ln_2_b;          // (1, C)
    Weight c_fc_w, c_fc_b;          // (C, 4C), (1, 4C)
    Weight mlp_proj_w, mlp_proj_b;  // (4C, C), (1, C)
};

struct Gpt2Checkpoint {
    Gpt2Config config;
    std::string dtype;        // the stored dtype of wte: "F32" | "F16" | "BF16"
    std::uint64_t n_params = 0;  // distinct parameters (a tied lm_head counts once)
    Weight wte, wpe;          // (V, C), (n_positions, C)
    Weight ln_f_w, ln_f_b;    // (1, C)
    Weight lm_head;           // (V, C): wte unless the file has its own
    std::vector<Gpt2Block> blocks;  // (L)

    SafetensorsFile file;                      // the mapping the F32 weights point into
    std::vector<std::vector<float>> widened;   // F16/BF16 (or unaligned F32) weights as float32
};

// Checks that DIR holds config.json and model.safetensors (refusing a folder with only pytorch_model.bin)
// and reads the config.
Gpt2Config read_gpt2_config(const std::string& dir);

// Reads DIR/config.json and DIR/model.safetensors. One-line errors (exit 1) with hints.
std::unique_ptr<Gpt2Checkpoint> load_gpt2_checkpoint(const std::string& dir);

// Bytes of float32 weights the checkpoint will hold beyond the mapping (widened tensors), from the
// header alone, for the memory estimate before loading.
std::uint64_t gpt2_widened_bytes(const SafetensorsFile& f);

}  // namespace attn
