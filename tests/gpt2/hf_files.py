"""Hugging Face model files written by hand: safetensors (struct + json, not the safetensors
package), config.json, a small byte-level vocab.json / merges.txt. Shared by the checkpoint
generator, the fuzz-seed writer and the speed scripts."""
import json
import struct

import numpy as np

DTYPE_SIZE = {"F64": 8, "I64": 8, "F32": 4, "I32": 4, "F16": 2, "BF16": 2, "U8": 1}


def tensor_bytes(array, dtype):
    """Little-endian bytes of a float32 numpy array stored as dtype."""
    a = np.ascontiguousarray(array, dtype=np.float32)
    if dtype == "F32":
        return a.astype("<f4").tobytes()
    if dtype == "F16":
        return a.astype("<f2").tobytes()
    if dtype == "BF16":  # round to nearest even on the upper 16 bits
        u = a.view(np.uint32).astype(np.uint64)
        r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")
        return r.tobytes()
    if dtype == "F64":
        return a.astype("<f8").tobytes()
    if dtype == "I64":
        return a.astype("<i8").tobytes()
    raise ValueError(dtype)


def stored_values(array, dtype):
    """The float32 values a reader gets back from tensor_bytes(array, dtype)."""
    b = tensor_bytes(array, dtype)
    shape = np.shape(array)
    if dtype == "F32":
        return np.frombuffer(b, "<f4").reshape(shape).copy()
    if dtype == "F16":
        return np.frombuffer(b, "<f2").astype(np.float32).reshape(shape)
    if dtype == "BF16":
        return (np.frombuffer(b, "<u2").astype(np.uint32) << 16).view(np.float32).reshape(shape)
    raise ValueError(dtype)


def safetensors_bytes(tensors, metadata=None, align=8):
    """tensors: list of (name, dtype, shape, raw bytes). The header is padded with spaces to `align`."""
    header, offset = {}, 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    h = json.dumps(header).encode()
    h += b" " * ((-(8 + len(h))) % align)
    return struct.pack("<Q", len(h)) + h + b"".join(t[3] for t in tensors)


def byte_symbols():
    """GPT-2's byte -> character table (bytes_to_unicode)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def byte_bpe(words):
    """The 256 byte symbols, then merges (pairs [a, b]) building ' '+word and word for each word, each
    merge's result a token. Returns (vocab dict, merges list)."""
    sym = byte_symbols()
    vocab = {sym[b]: i for i, b in enumerate(sorted(sym))}
    merges = []
    for w in words:
        for prefix in (sym[32], ""):
            parts = ([prefix] if prefix else []) + [sym[ord(c)] for c in w]
            cur = parts[0]
            for p in parts[1:]:
                if cur + p not in vocab:
                    merges.append([cur, p])
                    vocab[cur + p] = len(vocab)
                cur = cur + p
    return vocab, merges


def small_bpe(words=("the", "cat", "sat", "on", "mat", "it", "was", "tired"), extra=0):
    """A small byte-level BPE: byte_bpe(words), `extra` unused tokens and <|endoftext|> last. Returns
    (vocab dict, merges list of 'a b')."""
    vocab, merges = byte_bpe(words)
    for i in range(extra):
        vocab[f"extra{i}"] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    return vocab, [a + " " + b for a, b in merges]


def merges_text(merges):
    return "#version: 0.2\n" + "".join(m + "\n" for m in merges)


def read_f32_safetensors(path):
    """An F32 model.safetensors read by hand: {name: numpy array over the file's bytes}."""
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    return {k: np.frombuffer(raw, "<f4", int(np.prod(v["shape"])), 8 + n + v["data_offsets"][0]).reshape(v["shape"])
            for k, v in header.items() if k != "__metadata__"}
