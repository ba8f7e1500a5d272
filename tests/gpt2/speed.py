#!/usr/bin/python3
"""The speed and memory figures of docs/speed.md: a GPT-2-small-shape random checkpoint (12 layers, 768 wide,
12 heads, 50,257-token vocabulary, F32, about 500 MB) in DIR, then 256 tokens through
`attn show --model` (the whole process: map, tokenise, forward, predictions, every layer's weights
kept) against PyTorch's forward alone (2 threads, the same weights, output of every layer's weights).
Usage: speed.py ATTN DIR [runs]. Not a test: timings vary with the machine."""
import os
import re
import subprocess
import sys
import time

import numpy as np
import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import forward  # noqa: E402
from hf_files import read_f32_safetensors  # noqa: E402
from make_checkpoint import make  # noqa: E402

attn, d = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
words = ("the", "cat", "sat", "on", "mat", "it", "was", "tired")
if not os.path.exists(os.path.join(d, "model.safetensors")):
    w, cfg = make(d, layers=12, heads=12, embd=768, positions=1024, vocab_extra=50257 - 277, scale=0.02,
                  extra_buffers=False)
text = " ".join(words[i % 8] for i in range(256))
best_attn, rss = 1e9, 0
for _ in range(runs):
    t0 = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-v", attn, "show", "--model", d, text], capture_output=True, text=True)
    best_attn = min(best_attn, time.perf_counter() - t0)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
    assert r.returncode == 0, r.stderr
print(f"attn show --model, 256 tokens, whole process: best of {runs} {best_attn:.3f} s, peak RSS {rss / 1024:.0f} MiB, "
      f"checkpoint {os.path.getsize(os.path.join(d, 'model.safetensors')) / 2**20:.0f} MiB")

# PyTorch: the weights read from the same file (by hand), then the forward pass alone, 2 threads
import json  # noqa: E402
w = read_f32_safetensors(os.path.join(d, "model.safetensors"))
cfg = json.load(open(os.path.join(d, "config.json")))
ids = [int(i) for i in subprocess.run([attn, "show", "--model", d, "--keep-layers", "0", "--json", "-", text], capture_output=True,
                                      text=True).stdout.split('"token_ids":[')[1].split("]")[0].split(",")]
torch.set_num_threads(2)
best_torch = 1e9
with torch.no_grad():
    for _ in range(runs):
        t0 = time.perf_counter()
        forward(w, cfg, ids)
        best_torch = min(best_torch, time.perf_counter() - t0)
print(f"PyTorch {torch.__version__} forward alone (2 threads, every layer's weights returned): best of {runs} {best_torch:.3f} s")
print(f"attn is {best_torch / best_attn:.2f}x as fast")
