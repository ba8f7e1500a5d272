#!/usr/bin/python3
"""docs/speed.md's encoder speed figure: a BERT-base shape (12 layers, width 768, 12 heads, vocabulary
30,522, random F32 weights) at 128 tokens, PyTorch 1.13's forward alone (tests/encoder/encoder_reference.py,
eager, float32) with THREADS threads, best of 5 after a warm-up.
  python3 speed_torch.py DIR [THREADS]   # writes DIR (about 440 MB) first if it holds no model.safetensors
Then time attn's whole process on the same folder and text, e.g.
  farm-bench -- build/attn show --model DIR --file DIR/text.txt --json /tmp/bert.json
Run with OMP_WAIT_POLICY=PASSIVE on a shared machine: OpenMP's spinning wait costs PyTorch a factor of several."""
import json
import os
import struct
import sys
import time

import numpy as np
import torch

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from encoder_reference import forward  # noqa: E402
from make_encoder import make  # noqa: E402

d = sys.argv[1]
torch.set_num_threads(int(sys.argv[2]) if len(sys.argv) > 2 else 2)
if not os.path.exists(os.path.join(d, "model.safetensors")):
    make(d, "bert", layers=12, heads=12, embd=768, inner=3072, positions=512, vocab_size=30522, scale=0.02,
         store_decoder=False)
    # 126 words: with [CLS] and [SEP], 128 tokens of the test vocabulary
    words = ("the cat sat on the mat it was tired " * 14).split()[:126]
    open(os.path.join(d, "text.txt"), "w").write(" ".join(words) + "\n")
raw = open(os.path.join(d, "model.safetensors"), "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
h = json.loads(raw[8:8 + n])
data = raw[8 + n:]
w = {}
for k, e in h.items():
    if k == "__metadata__":
        continue
    a = np.frombuffer(data[e["data_offsets"][0]:e["data_offsets"][1]], "<f4").reshape(e["shape"]).copy()
    w[k[len("bert."):] if k.startswith("bert.") else k] = a
cfg = json.load(open(os.path.join(d, "config.json")))
ids = [2] + [5 + (i % 8) for i in range(126)] + [3]
with torch.no_grad():
    forward(w, cfg, ids)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        forward(w, cfg, ids)
        times.append(time.perf_counter() - t0)
print(f"pytorch {torch.__version__} forward ({torch.get_num_threads()} threads), {len(ids)} tokens: "
      f"best {min(times):.3f} s, median {sorted(times)[2]:.3f} s")
