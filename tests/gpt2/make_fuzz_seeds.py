#!/usr/bin/python3
"""Writes the seed corpora of fuzz/corpus/safetensors and fuzz/corpus/gpt2_tokenizer (committed)."""
import json
import os
import struct
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(__file__))
from hf_files import safetensors_bytes, small_bpe, merges_text, tensor_bytes  # noqa: E402

root = os.path.join(os.path.dirname(__file__), "..", "..", "fuzz", "corpus")
a = np.arange(6, dtype=np.float32).reshape(2, 3) / 7


def write(target, name, data):
    os.makedirs(os.path.join(root, target), exist_ok=True)
    with open(os.path.join(root, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


ok = safetensors_bytes([("a", "F32", [2, 3], tensor_bytes(a, "F32")), ("b", "F16", [3], tensor_bytes(a[0], "F16")),
                        ("c", "BF16", [2], tensor_bytes(a[1, :2], "BF16"))], {"format": "pt"})
write("safetensors", "ok-mixed", ok)
write("safetensors", "ok-scalar", safetensors_bytes([("s", "F32", [], tensor_bytes(np.float32(1.5), "F32"))]))
write("safetensors", "ok-empty-tensor", safetensors_bytes([("e", "F32", [0, 3], b"")]))
write("safetensors", "truncated", ok[:-3])
write("safetensors", "empty", b"")
write("safetensors", "short", b"\x05\x00\x00")
write("safetensors", "header-past-end", struct.pack("<Q", 1 << 20) + b"{}")
write("safetensors", "not-json", struct.pack("<Q", 8) + b"not json")
write("safetensors", "i64", safetensors_bytes([("i", "I64", [2], tensor_bytes(np.array([1, 2]), "I64"))]))
write("safetensors", "f16-inf", safetensors_bytes([("h", "F16", [2], b"\x00\x7c\x00\x3c")]))
h = json.dumps({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}).encode()
write("safetensors", "overlap", struct.pack("<Q", len(h)) + h + bytes(12))
h = json.dumps({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}).encode()
write("safetensors", "count-mismatch", struct.pack("<Q", len(h)) + h + bytes(8))
h = json.dumps({"a": {"dtype": "F32", "shape": [[[[[1]]]]], "data_offsets": [0, 4]}}).encode()
write("safetensors", "deep", struct.pack("<Q", len(h)) + h + bytes(4))

vocab, merges = small_bpe()
write("gpt2_tokenizer", "ok-files", b"\x00" + json.dumps(vocab).encode() + b"\x00" + merges_text(merges).encode()
      + b"\x00the cat sat on the mat<|endoftext|> it  was\n\ntired 123 caf\xc3\xa9")
tj = {"model": {"type": "BPE", "vocab": vocab, "merges": merges}, "pre_tokenizer": {"type": "ByteLevel"},
      "added_tokens": [{"id": vocab["<|endoftext|>"], "content": "<|endoftext|>"}]}
write("gpt2_tokenizer", "ok-tokenizer-json", b"\x01" + json.dumps(tj).encode() + b"\x00 the mat's cat")
tj2 = dict(tj)
tj2["model"] = dict(tj["model"], merges=[m.split(" ") for m in merges])
write("gpt2_tokenizer", "ok-merge-pairs", b"\x01" + json.dumps(tj2).encode() + b"\x00\xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x98\x80")
write("gpt2_tokenizer", "bad-vocab", b"\x00{\"a\": \"x\"}\x00#version: 0.2\n\x00hi")
write("gpt2_tokenizer", "bad-merges", b"\x00" + json.dumps(vocab).encode() + b"\x00#version: 0.2\nabc\n\x00hi")
write("gpt2_tokenizer", "wordpiece", b"\x01{\"model\": {\"type\": \"WordPiece\"}}\x00hi")
