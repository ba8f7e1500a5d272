#!/usr/bin/python3
"""Tiny random encoder–decoder checkpoints (T5 v1.0, T5 v1.1, BART, Marian) in the layouts Hugging Face ships:
config.json (+ generation_config.json), the weights as model.safetensors written by hand (tests/gpt2/hf_files.py)
or pytorch_model.bin by torch.save (zip, or the legacy pre-1.6 format), in F32, F16 or BF16, and the tokeniser
files (BART: the byte-level BPE tokenizer.json with RobertaProcessing of tests/encoder/make_encoder.py; T5 and
Marian: SentencePiece files from tests/seq2seq/spm_files.py).

Weights are seeded normals scaled so that attention is far from uniform (std 0.3–1 on the projections, 1 on
T5's relative-position bias). Every folder is small (d_model 24–48, 2–3 layers, 4 heads, a few hundred ids)
so all of them are written in a few seconds.

Variants (VARIANTS below): t5 (v1.0: relu, tied, only shared.weight stored, the head rescaled by d_model^-0.5,
vocab_size above the tokeniser's ids as T5's 32128 > 32100), t5-bin (pytorch_model.bin, F16, 16 buckets / max
distance 64), t5v11 (gated-gelu, own lm_head, 3 decoder layers over 2 encoder layers, d_kv·heads ≠ d_model, BF16,
an unused EncDecAttention.relative_attention_bias stored), bart (post-LN, layernorm_embedding, learned positions
offset 2, final_logits_bias, lm_head absent, scale_embedding false), bart-enc-embed (encoder.embed_tokens
stored and shared absent, F16, d_head 6), bart-bin (legacy pytorch_model.bin, scale_embedding true, relu,
the keys BART's config carried before v4), marian (pytorch_model.bin, swish, scale_embedding, the sinusoid
table stored, pad embedding zero, bad_words_ids [[pad]], forced_eos_token_id, decoder_start = pad),
marian-legacy (legacy pytorch_model.bin, F16, no sinusoid table stored, a non-zero pad row).
As a module: make(dir, variant, **overrides) returns the config dict."""
import collections
import json
import math
import os
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gpt2"))
sys.path.insert(0, os.path.join(HERE, "..", "encoder"))
sys.path.insert(0, HERE)
from hf_files import safetensors_bytes, tensor_bytes  # noqa: E402
from make_encoder import roberta_tokenizer_json, roberta_vocab  # noqa: E402

VARIANTS = {
    "t5": dict(family="t5", dtype="F32", weights="safetensors"),
    "t5-bin": dict(family="t5", dtype="F16", weights="bin", buckets=16, max_distance=64, embd=40, d_kv=10),
    "t5v11": dict(family="t5", v11=True, dtype="BF16", weights="safetensors", embd=48, d_kv=16, dec_layers=3),
    "bart": dict(family="bart", dtype="F32", weights="safetensors"),
    "bart-enc-embed": dict(family="bart", dtype="F16", weights="safetensors", embd=24, store="encoder.embed_tokens",
                           dec_layers=3),
    "bart-bin": dict(family="bart", dtype="F32", weights="bin-legacy", scale_embedding=True, act="relu", legacy_keys=True),
    "marian": dict(family="marian", dtype="F32", weights="bin", positions_stored=True, zero_pad=True),
    "marian-legacy": dict(family="marian", dtype="F16", weights="bin-legacy", positions_stored=False, zero_pad=False,
                          dec_layers=3),
}


def sinusoid_table(n_pos, dim):
    """Marian's static positions, computed in float64 and rounded once: sin half, then cos half."""
    enc = np.array([[p / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for p in range(n_pos)])
    out = np.zeros((n_pos, dim), np.float64)
    half = dim // 2 + dim % 2
    out[:, :half] = np.sin(enc[:, 0::2])
    out[:, half:] = np.cos(enc[:, 1::2])
    return out.astype(np.float32)


class Weights:
    """Seeded tensors in insertion order, float32; the name each tensor is stored under."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.w = collections.OrderedDict()

    def rand(self, name, *shape, s=0.5, mean=0.0):
        self.w[name] = (mean + s * self.rng.standard_normal(shape)).astype(np.float32)

    def norm(self, name, C, bias=True):
        self.rand(name + ".weight", C, s=0.1, mean=1.0)
        if bias:
            self.rand(name + ".bias", C, s=0.1)


def t5_weights(W, C, H, dkv, F, V, L, Ld, buckets, v11):
    inner = H * dkv
    W.rand("shared.weight", V, C, s=1.0)
    qk = 2.0 / math.sqrt(C * math.sqrt(dkv))  # q·k of unit-RMS inputs about 4: peaked, not one-hot

    def attn(p, bias_table):
        for r in "qk":
            W.rand(f"{p}.{r}.weight", inner, C, s=qk)
        W.rand(f"{p}.v.weight", inner, C, s=C ** -0.5)  # the values and the rest: unit-variance outputs
        W.rand(f"{p}.o.weight", C, inner, s=inner ** -0.5)
        if bias_table:
            W.rand(f"{p}.relative_attention_bias.weight", buckets, H, s=1.0)

    def ff(p):
        if v11:
            W.rand(p + ".wi_0.weight", F, C, s=C ** -0.5)
            W.rand(p + ".wi_1.weight", F, C, s=C ** -0.5)
        else:
            W.rand(p + ".wi.weight", F, C, s=C ** -0.5)
        W.rand(p + ".wo.weight", C, F, s=F ** -0.5)
    for i in range(L):
        b = f"encoder.block.{i}."
        W.norm(b + "layer.0.layer_norm", C, bias=False)
        attn(b + "layer.0.SelfAttention", i == 0)
        W.norm(b + "layer.1.layer_norm", C, bias=False)
        ff(b + "layer.1.DenseReluDense")
    W.norm("encoder.final_layer_norm", C, bias=False)
    for i in range(Ld):
        b = f"decoder.block.{i}."
        W.norm(b + "layer.0.layer_norm", C, bias=False)
        attn(b + "layer.0.SelfAttention", i == 0)
        W.norm(b + "layer.1.layer_norm", C, bias=False)
        attn(b + "layer.1.EncDecAttention", False)
        W.norm(b + "layer.2.layer_norm", C, bias=False)
        ff(b + "layer.2.DenseReluDense")
    W.norm("decoder.final_layer_norm", C, bias=False)
    if v11:
        W.rand("lm_head.weight", V, C, s=0.25)
        # unused, present in some checkpoints, ignored by Hugging Face (_keys_to_ignore_on_load_unexpected)
        W.rand("decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight", buckets, H, s=1.0)


def bart_weights(W, family, C, F, V, L, Ld, max_pos, positions_stored, zero_pad, pad):
    W.rand("model.shared.weight", V, C, s=0.3 if family == "bart" else 0.12)
    qk = math.sqrt(5.0 / C)  # (q·d^-0.5)·k of unit-variance inputs about 5
    if zero_pad:
        W.w["model.shared.weight"][pad] = 0
    for stack, n in (("encoder", L), ("decoder", Ld)):
        p = f"model.{stack}."
        if family == "bart":
            W.rand(p + "embed_positions.weight", max_pos + 2, C, s=0.5)
            W.norm(p + "layernorm_embedding", C)
        elif positions_stored:
            W.w[p + "embed_positions.weight"] = sinusoid_table(max_pos, C)
        for i in range(n):
            q = f"{p}layers.{i}."
            parts = ["self_attn"] + (["encoder_attn"] if stack == "decoder" else [])
            for a in parts:
                for r in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    W.rand(f"{q}{a}.{r}.weight", C, C, s=qk if r in ("q_proj", "k_proj") else C ** -0.5)
                    W.rand(f"{q}{a}.{r}.bias", C, s=0.1)
                W.norm(f"{q}{a}_layer_norm", C)
            W.rand(q + "fc1.weight", F, C, s=C ** -0.5)
            W.rand(q + "fc1.bias", F, s=0.1)
            W.rand(q + "fc2.weight", C, F, s=F ** -0.5)
            W.rand(q + "fc2.bias", C, s=0.1)
            W.norm(q + "final_layer_norm", C)
    W.rand("final_logits_bias", 1, V, s=0.5)


def write_weights(out, W, dtype, weights, ties):
    """W's tensors stored as dtype; ties: {stored alias: source name} written as the same storage (.bin) or as
    a copy (safetensors). A tensor named in ties' values but not in W is not stored."""
    names = list(W.w) + list(ties)
    os.makedirs(out, exist_ok=True)
    if weights == "safetensors":
        tensors = [(n, dtype, W.w[ties.get(n, n)].shape, tensor_bytes(W.w[ties.get(n, n)], dtype)) for n in names]
        with open(os.path.join(out, "model.safetensors"), "wb") as f:
            f.write(safetensors_bytes(tensors, {"format": "pt"}))
        return
    import torch
    dt = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}[dtype]
    sd = collections.OrderedDict()
    for n in W.w:
        sd[n] = torch.from_numpy(W.w[n]).to(dt)
    for alias, src in ties.items():  # the very storage of the source, as a tied module's state_dict holds it
        sd[alias] = sd[src]
    torch.save(sd, os.path.join(out, "pytorch_model.bin"), _use_new_zipfile_serialization=(weights == "bin"))


def make(out, variant="t5", seed=0, config_extra=None, gen=None, **over):
    """Writes the folder; gen: the generation_config.json dict (None: the variant's own, False: none)."""
    o = dict(VARIANTS[variant])
    o.update(over)
    fam = o["family"]
    C = o.get("embd", 32)
    H = o.get("heads", 4)
    L = o.get("layers", 2)
    Ld = o.get("dec_layers", L)
    F = o.get("ffn", 2 * C)
    W = Weights(seed)
    os.makedirs(out, exist_ok=True)
    from spm_files import write_marian_tokenizer, write_t5_tokenizer
    if fam == "t5":
        n_ids = write_t5_tokenizer(out)
        V = n_ids + 28  # rows past the tokeniser's ids, as t5-small's 32128 > 32100
        buckets, max_distance = o.get("buckets", 32), o.get("max_distance", 128)
        t5_weights(W, C, H, o.get("d_kv", 8), F, V, L, Ld, buckets, o.get("v11", False))
        ties = {}
        if o["weights"] != "safetensors":  # torch.save of a tied model: every name, one storage
            ties = {"encoder.embed_tokens.weight": "shared.weight", "decoder.embed_tokens.weight": "shared.weight"}
            if not o.get("v11"):
                ties["lm_head.weight"] = "shared.weight"
        config = {"model_type": "t5", "architectures": ["T5ForConditionalGeneration"], "d_model": C,
                  "d_kv": o.get("d_kv", 8), "d_ff": F, "num_heads": H, "num_layers": L, "num_decoder_layers": Ld,
                  "relative_attention_num_buckets": buckets, "relative_attention_max_distance": max_distance,
                  "feed_forward_proj": "gated-gelu" if o.get("v11") else "relu", "layer_norm_epsilon": 1e-6,
                  "vocab_size": V, "pad_token_id": 0, "eos_token_id": 1, "decoder_start_token_id": 0,
                  "is_encoder_decoder": True, "dropout_rate": 0.1, "initializer_factor": 1.0, "n_positions": 512,
                  "use_cache": True}
        if o.get("v11"):
            config["tie_word_embeddings"] = False
        else:  # t5-small's config also carries the pipelines' task prefixes, which generate() does not read
            config["task_specific_params"] = {"translation_en_to_de": {"early_stopping": True, "max_length": 300,
                                                                        "num_beams": 4, "prefix": "translate English to German: "}}
        default_gen = {"decoder_start_token_id": 0, "eos_token_id": 1, "pad_token_id": 0}
    else:
        if fam == "bart":
            vocab, merges = roberta_vocab()
            with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
                json.dump(roberta_tokenizer_json(vocab, [m if isinstance(m, str) else " ".join(m) for m in merges]), f,
                          ensure_ascii=False)
            V, pad, eos, bos = len(vocab), 1, 2, 0
        else:
            V = write_marian_tokenizer(out)
            pad, eos, bos = V - 1, 0, None
        max_pos = o.get("max_pos", 64)
        bart_weights(W, fam, C, F, V, L, Ld, max_pos, o.get("positions_stored", False), o.get("zero_pad", False), pad)
        store = o.get("store", "model.shared")
        ties = {}
        if store != "model.shared":  # the embedding stored under another of its names only
            W.w["model." + store + ".weight"] = W.w.pop("model.shared.weight")
            W.w.move_to_end("model." + store + ".weight", last=False)
        elif o["weights"] != "safetensors":  # torch.save of a tied model: every name, one storage
            ties = {"model.encoder.embed_tokens.weight": "model.shared.weight",
                    "model.decoder.embed_tokens.weight": "model.shared.weight", "lm_head.weight": "model.shared.weight"}
        act = o.get("act", "gelu" if fam == "bart" else "swish")
        config = {"model_type": fam, "architectures": ["BartForConditionalGeneration" if fam == "bart" else "MarianMTModel"],
                  "d_model": C, "encoder_layers": L, "decoder_layers": Ld, "encoder_attention_heads": H,
                  "decoder_attention_heads": H, "encoder_ffn_dim": F, "decoder_ffn_dim": F, "activation_function": act,
                  "max_position_embeddings": max_pos, "vocab_size": V, "scale_embedding": o.get("scale_embedding", fam == "marian"),
                  "pad_token_id": pad, "eos_token_id": eos, "decoder_start_token_id": eos if fam == "bart" else pad,
                  "forced_eos_token_id": eos, "is_encoder_decoder": True, "dropout": 0.1, "attention_dropout": 0.0,
                  "activation_dropout": 0.0, "init_std": 0.02, "use_cache": True, "num_hidden_layers": L}
        if fam == "bart":
            config.update({"bos_token_id": bos, "forced_bos_token_id": bos})
        else:  # as convert_marian_to_pytorch writes it
            config.update({"decoder_vocab_size": V, "share_encoder_decoder_embeddings": True, "tie_word_embeddings": True,
                           "bad_words_ids": [[pad]], "max_length": 512, "num_beams": 4, "static_position_embeddings": True,
                           "normalize_embedding": False, "normalize_before": False, "add_final_layer_norm": False,
                           "add_bias_logits": False, "extra_pos_embeddings": V})
        if o.get("legacy_keys"):  # BartConfig's keys before v4, which no longer change the computation
            config.update({"normalize_before": False, "add_final_layer_norm": False, "normalize_embedding": True,
                           "static_position_embeddings": False, "add_bias_logits": False, "extra_pos_embeddings": 2})
        default_gen = None
        if fam == "marian":
            default_gen = {k: config[k] for k in ("bad_words_ids", "decoder_start_token_id", "eos_token_id",
                                                  "forced_eos_token_id", "max_length", "num_beams", "pad_token_id")}
    config.update(config_extra or {})
    write_weights(out, W, o["dtype"], o["weights"], ties)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    gen = default_gen if gen is None else gen
    path = os.path.join(out, "generation_config.json")
    if gen:
        with open(path, "w") as f:
            json.dump(dict(gen, _from_model_config=False, transformers_version="4.40.0"), f, indent=2)
    elif os.path.exists(path):
        os.remove(path)
    return config


if __name__ == "__main__":
    import argparse
    import time
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("out", help="a folder: one sub-folder per variant is written in it")
    a.add_argument("variants", nargs="*", default=list(VARIANTS))
    args = a.parse_args()
    t = time.time()
    for v in args.variants:
        make(os.path.join(args.out, v), v, seed=sorted(VARIANTS).index(v))
    print(f"{len(args.variants)} folders in {time.time() - t:.2f} s")
