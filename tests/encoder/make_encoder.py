#!/usr/bin/python3
"""Tiny random encoder checkpoints (BERT, RoBERTa, DistilBERT) in the layouts Hugging Face ships:
config.json; model.safetensors written by hand, with or without the base prefix ("bert."), with the
pre-2019 LayerNorm names (.gamma/.beta) if asked, in F32, F16 or BF16; and the tokeniser files
(BERT/DistilBERT: WordPiece tokenizer.json, or only vocab.txt + tokenizer_config.json; RoBERTa:
byte-level BPE tokenizer.json with RobertaProcessing).
As a module: make(dir, family, ...) returns (the float32 weights a reader gets back, keyed by the names
without prefix, config dict)."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpt2"))
from hf_files import byte_bpe, merges_text, safetensors_bytes, stored_values, tensor_bytes  # noqa: E402

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = ["the", "cat", "sat", "on", "mat", "it", "was", "tired", "paris", "is", "capital", "of", "france", "a", "dog",
         "run", "##s", "##ed", "##ing", "un", "##know", "##n", "café", "naive", "你", "好", ",", ".", "!", "?", "'", "-",
         "(", ")", ":", ";", "1", "2", "##3", "x", "##y"]
LETTERS = [chr(c) for c in range(ord("a"), ord("z") + 1)] + ["##" + chr(c) for c in range(ord("a"), ord("z") + 1)]


def wordpiece_vocab():
    vocab = {}
    for t in SPECIAL + WORDS + LETTERS:
        vocab.setdefault(t, len(vocab))
    return vocab


def added(content, i, lstrip=False):
    return {"id": i, "content": content, "single_word": False, "lstrip": lstrip, "rstrip": False,
            "normalized": False, "special": True}


def bert_tokenizer_json(vocab, lowercase=True):
    cls, sep = vocab["[CLS]"], vocab["[SEP]"]

    def seq(name, type_id):
        return {"Sequence": {"id": name, "type_id": type_id}}

    def sp(name, type_id):
        return {"SpecialToken": {"id": name, "type_id": type_id}}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added(t, vocab[t]) for t in SPECIAL],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": lowercase},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [sp("[CLS]", 0), seq("A", 0), sp("[SEP]", 0)],
                           "pair": [sp("[CLS]", 0), seq("A", 0), sp("[SEP]", 0), seq("B", 1), sp("[SEP]", 1)],
                           "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [cls], "tokens": ["[CLS]"]},
                                              "[SEP]": {"id": "[SEP]", "ids": [sep], "tokens": ["[SEP]"]}}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab}}


def roberta_vocab():
    """<s> <pad> </s> <unk> first (ids 0-3, as RoBERTa's), the byte-level pieces, <mask> last."""
    bpe, merges = byte_bpe(["the", "cat", "sat", "on", "mat", "it", "was", "tired", "paris", "capital"])
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for t in bpe:
        vocab.setdefault(t, len(vocab))
    vocab["<mask>"] = len(vocab)
    return vocab, merges


def roberta_tokenizer_json(vocab, merges):
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added("<s>", 0), added("<pad>", 1), added("</s>", 2), added("<unk>", 3),
                         added("<mask>", vocab["<mask>"], lstrip=True)],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0], "trim_offsets": True,
                           "add_prefix_space": False},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                  "merges": merges}}


def body_names(family):
    """(canonical layer-name template per role) for the body, {L} = layer."""
    if family == "distilbert":
        a = "transformer.layer.{L}."
        return {"q": a + "attention.q_lin", "k": a + "attention.k_lin", "v": a + "attention.v_lin",
                "o": a + "attention.out_lin", "ln1": a + "sa_layer_norm", "up": a + "ffn.lin1",
                "down": a + "ffn.lin2", "ln2": a + "output_layer_norm"}
    a = "encoder.layer.{L}."
    return {"q": a + "attention.self.query", "k": a + "attention.self.key", "v": a + "attention.self.value",
            "o": a + "attention.output.dense", "ln1": a + "attention.output.LayerNorm", "up": a + "intermediate.dense",
            "down": a + "output.dense", "ln2": a + "output.LayerNorm"}


def head_names(family):
    if family == "bert":
        return {"dense": "cls.predictions.transform.dense", "ln": "cls.predictions.transform.LayerNorm",
                "bias": "cls.predictions.bias", "decoder": "cls.predictions.decoder.weight"}
    if family == "roberta":
        return {"dense": "lm_head.dense", "ln": "lm_head.layer_norm", "bias": "lm_head.bias",
                "decoder": "lm_head.decoder.weight"}
    return {"dense": "vocab_transform", "ln": "vocab_layer_norm", "bias": "vocab_projector.bias",
            "decoder": "vocab_projector.weight"}


def make(out, family="bert", layers=2, heads=3, embd=12, inner=None, positions=40, dtype="F32", prefix=True,
         old_names=False, mlm=True, seed=0, scale=0.5, tokenizer="json", act="gelu", sinusoidal=False,
         store_decoder=True, type_vocab=2, pad_id=1, vocab_size=None, weights="safetensors", config_extra=None):
    rng = np.random.default_rng(seed)
    C, I = embd, inner or 4 * embd
    if family == "roberta" or tokenizer == "files":
        vocab, merges = roberta_vocab()
    else:
        vocab, merges = wordpiece_vocab(), None
    for i in range(len(vocab), vocab_size or 0):  # unused entries up to a real model's vocabulary size
        vocab[f"[unused{i}]"] = i
    V = len(vocab)

    def rand(*shape, s=scale, mean=0.0):
        return (mean + s * rng.standard_normal(shape)).astype(np.float32)

    w = {}
    w["embeddings.word_embeddings.weight"] = rand(V, C)
    w["embeddings.position_embeddings.weight"] = rand(positions, C, s=0.2)
    if sinusoidal:  # DistilBERT's create_sinusoidal_embeddings (interleaved sin, cos), computed in float64
        pe = np.array([[p / np.power(10000, 2 * (j // 2) / C) for j in range(C)] for p in range(positions)])
        table = np.zeros((positions, C), np.float32)
        table[:, 0::2] = np.sin(pe[:, 0::2])
        table[:, 1::2] = np.cos(pe[:, 1::2])
        w["embeddings.position_embeddings.weight"] = table
    if family != "distilbert":
        w["embeddings.token_type_embeddings.weight"] = rand(type_vocab, C, s=0.2)
    w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"] = rand(C, s=0.1, mean=1.0), rand(C, s=0.1)
    n = body_names(family)
    for i in range(layers):
        def at(role):
            return n[role].replace("{L}", str(i))
        for role, (o_, i_) in {"q": (C, C), "k": (C, C), "v": (C, C), "o": (C, C), "up": (I, C), "down": (C, I)}.items():
            w[at(role) + ".weight"], w[at(role) + ".bias"] = rand(o_, i_), rand(o_, s=0.1)
        for role in ("ln1", "ln2"):
            w[at(role) + ".weight"], w[at(role) + ".bias"] = rand(C, s=0.1, mean=1.0), rand(C, s=0.1)
    hn = head_names(family)
    heads_w = {}
    if mlm:
        heads_w[hn["dense"] + ".weight"], heads_w[hn["dense"] + ".bias"] = rand(C, C), rand(C, s=0.1)
        heads_w[hn["ln"] + ".weight"], heads_w[hn["ln"] + ".bias"] = rand(C, s=0.1, mean=1.0), rand(C, s=0.1)
        heads_w[hn["bias"]] = rand(V, s=0.2)
    # the stored names: the base prefix, old LayerNorm names
    base = {"bert": "bert.", "roberta": "roberta.", "distilbert": "distilbert."}[family] if prefix else ""

    def stored_name(k, under_base):
        name = (base if under_base else "") + k
        if old_names and ("LayerNorm" in k or "layer_norm" in k):
            name = name.replace(".weight", ".gamma").replace(".bias", ".beta")
        return name
    tensors = [(stored_name(k, True), dtype, v.shape, tensor_bytes(v, dtype)) for k, v in w.items()]
    tensors += [(stored_name(k, False), dtype, v.shape, tensor_bytes(v, dtype)) for k, v in heads_w.items()]
    if mlm and store_decoder:  # the tied decoder stored too, as torch's save_pretrained keeps one name of a tie
        tensors.append((hn["decoder"], dtype, (V, C), tensor_bytes(w["embeddings.word_embeddings.weight"], dtype)))
    if family == "bert":  # buffers and the pooler, which attn ignores
        ids = np.arange(positions, dtype=np.float32).reshape(1, positions)
        tensors.append((base + "embeddings.position_ids", "F32", ids.shape, tensor_bytes(ids, "F32")))
        tensors.append((base + "pooler.dense.weight", dtype, (C, C), tensor_bytes(rand(C, C), dtype)))
        tensors.append((base + "pooler.dense.bias", dtype, (C,), tensor_bytes(rand(C), dtype)))
    os.makedirs(out, exist_ok=True)
    if weights == "safetensors":
        with open(os.path.join(out, "model.safetensors"), "wb") as f:
            f.write(safetensors_bytes(tensors, {"format": "pt"}))
    else:  # pytorch_model.bin by torch.save: "bin" the zip format, "bin-legacy" the pre-1.6 one; the decoder tied
        import collections
        import torch
        dt = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
        sd = collections.OrderedDict()
        for name, dtype_, shape, raw in tensors:
            src = w.get(name[len(base):]) if name.startswith(base) else None
            src = src if src is not None else heads_w.get(name)
            if name == hn["decoder"]:  # tied: the very storage of the word embeddings
                sd[name] = sd[stored_name("embeddings.word_embeddings.weight", True)]
            elif src is not None:
                sd[name] = torch.from_numpy(np.array(src)).to(dt[dtype_])
            else:  # buffers: position_ids as int64, as BERT stores it
                a = np.frombuffer(raw, np.float32).reshape(shape)
                sd[name] = torch.from_numpy(a.astype(np.int64)) if "position_ids" in name else torch.from_numpy(a.copy()).to(dt[dtype_])
        torch.save(sd, os.path.join(out, "pytorch_model.bin"), _use_new_zipfile_serialization=(weights == "bin"))
    if family == "distilbert":
        config = {"model_type": "distilbert", "architectures": ["DistilBertForMaskedLM"], "dim": C, "n_heads": heads,
                  "n_layers": layers, "hidden_dim": I, "activation": act, "max_position_embeddings": positions,
                  "vocab_size": V, "sinusoidal_pos_embds": sinusoidal, "dropout": 0.1, "attention_dropout": 0.1,
                  "pad_token_id": 0, "tie_weights_": True, "initializer_range": 0.02}
    else:
        config = {"model_type": family, "architectures": ["BertForMaskedLM" if family == "bert" else "RobertaForMaskedLM"],
                  "hidden_size": C, "num_attention_heads": heads, "num_hidden_layers": layers, "intermediate_size": I,
                  "hidden_act": act, "max_position_embeddings": positions, "vocab_size": V, "type_vocab_size": type_vocab,
                  "layer_norm_eps": 1e-12 if family == "bert" else 1e-5, "position_embedding_type": "absolute",
                  "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "pad_token_id": pad_id if family == "roberta" else 0,
                  "initializer_range": 0.02, "use_cache": True, "classifier_dropout": None}
    config.update(config_extra or {})
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    if family == "roberta" or tokenizer == "files":
        if tokenizer == "files":  # vocab.json + merges.txt only
            with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
                json.dump(vocab, f, ensure_ascii=False)
            with open(os.path.join(out, "merges.txt"), "w", encoding="utf-8") as f:
                f.write(merges_text([m if isinstance(m, str) else " ".join(m) for m in merges]))
        else:
            with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
                json.dump(roberta_tokenizer_json(vocab, [m if isinstance(m, str) else " ".join(m) for m in merges]), f,
                          ensure_ascii=False)
    elif tokenizer == "vocab.txt":
        with open(os.path.join(out, "vocab.txt"), "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t in sorted(vocab, key=vocab.get)))
        with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
            json.dump({"do_lower_case": True, "tokenizer_class": "BertTokenizer"}, f)
    else:
        with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
            json.dump(bert_tokenizer_json(vocab), f, ensure_ascii=False)
    values = {k: stored_values(v, dtype) for k, v in {**w, **heads_w}.items()}
    return values, config


if __name__ == "__main__":
    import argparse
    a = argparse.ArgumentParser()
    a.add_argument("dir")
    a.add_argument("--family", default="bert", choices=["bert", "roberta", "distilbert"])
    a.add_argument("--tokenizer", default="json", choices=["json", "vocab.txt", "files"])
    a.add_argument("--dtype", default="F32")
    a.add_argument("--old-names", action="store_true")
    a.add_argument("--no-prefix", action="store_true")
    o = a.parse_args()
    make(o.dir, o.family, dtype=o.dtype, tokenizer=o.tokenizer, old_names=o.old_names, prefix=not o.no_prefix)
