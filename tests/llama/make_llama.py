#!/usr/bin/python3
"""Tiny random Llama-family checkpoints in the Hugging Face layout (config.json, model.safetensors or
model.safetensors.index.json + shards written by hand, tokenizer.json). As a module:
make(dir, family, ...) returns (the float32 weights a reader gets back, config dict).

Tokenisers: llama -> byte-level with a Llama-3-style Split regex, ignore_merges and a BOS template;
qwen2 -> byte-level with a Split regex, NFC, no BOS; mistral -> sentencepiece style (Prepend/Replace
'▁', byte fallback, <s> template)."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpt2"))
from hf_files import byte_bpe, safetensors_bytes, stored_values, tensor_bytes  # noqa: E402

WORDS = ("the", "cat", "sat", "on", "mat", "it", "was", "tired")
LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
                r"|\s+(?!\S)|\s+")
SP = "\u2581"


def byte_level_vocab():
    vocab, merges = byte_bpe(WORDS)
    vocab["Ġtiredness"] = len(vocab)  # reachable only through ignore_merges (no merge builds it)
    return vocab, merges


def sentencepiece_vocab():
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        vocab[f"<0x{b:02X}>"] = len(vocab)
    for c in [SP] + sorted(set("".join(WORDS) + ".")):
        vocab.setdefault(c, len(vocab))
    merges = []
    for w in WORDS:
        parts = [SP] + list(w)
        cur = parts[0]
        for p in parts[1:]:
            if cur + p not in vocab:
                merges.append(cur + " " + p)
                vocab[cur + p] = len(vocab)
            cur = cur + p
    return vocab, merges


def tokenizer_json(family):
    if family == "mistral":
        vocab, merges = sentencepiece_vocab()
        return {"version": "1.0", "added_tokens": [
                    {"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
                     "special": True} for i, t in enumerate(["<unk>", "<s>", "</s>"])],
                "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": SP},
                                                                  {"type": "Replace", "pattern": {"String": " "}, "content": SP}]},
                "pre_tokenizer": None,
                "post_processor": {"type": "TemplateProcessing",
                                   "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                                   "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
                "decoder": {"type": "Sequence", "decoders": []},
                "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                          "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                          "vocab": vocab, "merges": merges}}, len(vocab)
    vocab, merges = byte_level_vocab()
    specials = ["<|begin_of_text|>", "<|end_of_text|>"] if family == "llama" else ["<|endoftext|>", "<|im_start|>"]
    added = [{"id": len(vocab) + i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, t in enumerate(specials)]
    tj = {"version": "1.0", "added_tokens": added,
          "normalizer": {"type": "NFC"} if family == "qwen2" else None,
          "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
              {"type": "Split", "pattern": {"Regex": LLAMA3_SPLIT}, "behavior": "Isolated", "invert": False},
              {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
          "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
          "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
          "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                    "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                    "ignore_merges": family == "llama", "vocab": vocab, "merges": merges}}
    if family == "llama":
        bos = specials[0]
        tj["post_processor"] = {"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
            {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": bos, "type_id": 0}},
                                                      {"Sequence": {"id": "A", "type_id": 0}}],
             "pair": [], "special_tokens": {bos: {"id": bos, "ids": [added[0]["id"]], "tokens": [bos]}}}]}
    return tj, len(vocab) + len(specials)


def make(out, family="llama", layers=2, heads=4, kv_heads=2, hidden=16, head_dim=None, inner=24, positions=64,
         dtype="F32", tied=False, shards=1, seed=0, scale=0.3, sliding_window=None, rope_theta=10000.0,
         rope_scaling=None, extra_vocab=3):
    rng = np.random.default_rng(seed)
    tj, V = tokenizer_json(family)
    V += extra_vocab  # rows no token reaches, as real checkpoints pad their vocabulary
    d = head_dim or hidden // heads
    w = {}

    def rand(*shape, s=scale, mean=0.0):
        return (mean + s * rng.standard_normal(shape)).astype(np.float32)

    w["model.embed_tokens.weight"] = rand(V, hidden)
    for i in range(layers):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = rand(hidden, s=0.1, mean=1.0)
        w[p + "self_attn.q_proj.weight"] = rand(heads * d, hidden, s=scale * 2)
        w[p + "self_attn.k_proj.weight"] = rand(kv_heads * d, hidden, s=scale * 2)
        w[p + "self_attn.v_proj.weight"] = rand(kv_heads * d, hidden)
        if family == "qwen2":
            w[p + "self_attn.q_proj.bias"] = rand(heads * d, s=0.1)
            w[p + "self_attn.k_proj.bias"] = rand(kv_heads * d, s=0.1)
            w[p + "self_attn.v_proj.bias"] = rand(kv_heads * d, s=0.1)
        w[p + "self_attn.o_proj.weight"] = rand(hidden, heads * d)
        w[p + "post_attention_layernorm.weight"] = rand(hidden, s=0.1, mean=1.0)
        w[p + "mlp.gate_proj.weight"] = rand(inner, hidden)
        w[p + "mlp.up_proj.weight"] = rand(inner, hidden)
        w[p + "mlp.down_proj.weight"] = rand(hidden, inner)
    w["model.norm.weight"] = rand(hidden, s=0.1, mean=1.0)
    if not tied:
        w["lm_head.weight"] = rand(V, hidden)
    os.makedirs(out, exist_ok=True)
    names = list(w)
    if shards == 1:
        tensors = [(k, dtype, w[k].shape, tensor_bytes(w[k], dtype)) for k in names]
        with open(os.path.join(out, "model.safetensors"), "wb") as f:
            f.write(safetensors_bytes(tensors, {"format": "pt"}))
    else:
        weight_map = {}
        for s in range(shards):
            part = names[s::shards]
            fname = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
            tensors = [(k, dtype, w[k].shape, tensor_bytes(w[k], dtype)) for k in part]
            with open(os.path.join(out, fname), "wb") as f:
                f.write(safetensors_bytes(tensors, {"format": "pt"}))
            weight_map.update({k: fname for k in part})
        with open(os.path.join(out, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=2)
    arch = {"llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM", "qwen2": "Qwen2ForCausalLM"}[family]
    config = {"model_type": family, "architectures": [arch], "hidden_size": hidden, "num_hidden_layers": layers,
              "num_attention_heads": heads, "num_key_value_heads": kv_heads, "intermediate_size": inner,
              "max_position_embeddings": positions, "vocab_size": V, "rms_norm_eps": 1e-6, "rope_theta": rope_theta,
              "tie_word_embeddings": tied, "hidden_act": "silu", "torch_dtype": "float32", "attention_dropout": 0.0}
    if head_dim:
        config["head_dim"] = head_dim
    if rope_scaling:
        config["rope_scaling"] = rope_scaling
    if family == "mistral":
        config["sliding_window"] = sliding_window
    if family == "qwen2":
        config["use_sliding_window"] = False
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tj, f, ensure_ascii=False)
    return {k: stored_values(v, dtype) for k, v in w.items()}, config
