#!/usr/bin/python3
"""Tiny random GPT-2 checkpoints in the Hugging Face layout (config.json, model.safetensors written by
hand, vocab.json, merges.txt). Usage: make_checkpoint.py DIR [--layers L --heads H --embd C
--positions P --dtype F32|F16|BF16 --prefix --vocab-extra N --seed S --scale X]
As a module: make(dir, ...) returns the float32 weights a reader gets back (after the dtype's rounding)."""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_files import merges_text, safetensors_bytes, small_bpe, stored_values, tensor_bytes  # noqa: E402


def make(out, layers=2, heads=2, embd=8, positions=32, dtype="F32", prefix=False, vocab_extra=0, seed=0,
         scale=0.3, lm_head=False, extra_buffers=True, words=None, inner=None, config_extra=None):
    rng = np.random.default_rng(seed)
    vocab, merges = small_bpe(extra=vocab_extra, **({"words": words} if words else {}))
    V, C = len(vocab), embd
    w = {}

    def rand(*shape, s=scale, mean=0.0):
        return (mean + s * rng.standard_normal(shape)).astype(np.float32)

    w["wte.weight"] = rand(V, C)
    w["wpe.weight"] = rand(positions, C, s=0.1)
    for i in range(layers):
        h = f"h.{i}."
        w[h + "ln_1.weight"], w[h + "ln_1.bias"] = rand(C, s=0.1, mean=1.0), rand(C, s=0.1)
        w[h + "attn.c_attn.weight"], w[h + "attn.c_attn.bias"] = rand(C, 3 * C, s=scale * 2), rand(3 * C, s=0.1)
        w[h + "attn.c_proj.weight"], w[h + "attn.c_proj.bias"] = rand(C, C), rand(C, s=0.1)
        w[h + "ln_2.weight"], w[h + "ln_2.bias"] = rand(C, s=0.1, mean=1.0), rand(C, s=0.1)
        I = inner or 4 * C
        w[h + "mlp.c_fc.weight"], w[h + "mlp.c_fc.bias"] = rand(C, I), rand(I, s=0.1)
        w[h + "mlp.c_proj.weight"], w[h + "mlp.c_proj.bias"] = rand(I, C), rand(C, s=0.1)
    w["ln_f.weight"], w["ln_f.bias"] = rand(C, s=0.1, mean=1.0), rand(C, s=0.1)
    p = "transformer." if prefix else ""
    tensors = [(p + k, dtype, v.shape, tensor_bytes(v, dtype)) for k, v in w.items()]
    if extra_buffers:  # the old causal-mask buffers, which readers ignore
        tri = np.tril(np.ones((positions, positions), np.float32)).reshape(1, 1, positions, positions)
        tensors.append((p + "h.0.attn.bias", "F32", tri.shape, tensor_bytes(tri, "F32")))
        tensors.append((p + "h.0.attn.masked_bias", "F32", [], tensor_bytes(np.float32(-1e4), "F32")))
    if lm_head:
        w["lm_head.weight"] = rand(V, C)
        tensors.append(("lm_head.weight", dtype, (V, C), tensor_bytes(w["lm_head.weight"], dtype)))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(safetensors_bytes(tensors, {"format": "pt"}))
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_layer": layers, "n_head": heads,
              "n_embd": C, "n_positions": positions, "n_ctx": positions, "vocab_size": V,
              "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}
    if inner:
        config["n_inner"] = inner
    config.update(config_extra or {})
    if lm_head and "tie_word_embeddings" not in (config_extra or {}):  # a head of its own: untied (with tie_word_embeddings true, Hugging Face would use wte)
        config["tie_word_embeddings"] = False
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(out, "merges.txt"), "w", encoding="utf-8") as f:
        f.write(merges_text(merges))
    return {k: stored_values(v, dtype) for k, v in w.items()}, config


if __name__ == "__main__":
    a = argparse.ArgumentParser()
    a.add_argument("dir")
    a.add_argument("--layers", type=int, default=2)
    a.add_argument("--heads", type=int, default=2)
    a.add_argument("--embd", type=int, default=8)
    a.add_argument("--positions", type=int, default=32)
    a.add_argument("--dtype", default="F32")
    a.add_argument("--prefix", action="store_true")
    a.add_argument("--vocab-extra", type=int, default=0)
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--scale", type=float, default=0.3)
    o = a.parse_args()
    make(o.dir, o.layers, o.heads, o.embd, o.positions, o.dtype, o.prefix, o.vocab_extra, o.seed, o.scale)
