#!/usr/bin/python3
"""PyTorch's forward alone on a GPT-2 checkpoint folder (F32, one model.safetensors), for docs/speed.md's
GPT-2-small table: python3 speed_torch.py DIR TRACE.json [THREADS] [RUNS]. TRACE.json is a trace of the same
folder (attn show --model DIR --keep-layers 0 --json TRACE.json ...), whose token ids are used. The forward
is tests/gpt2/reference.py's (every layer's weights returned). Run it with OMP_WAIT_POLICY=PASSIVE on a
shared machine (OpenMP's spinning wait costs PyTorch a factor of several there). Not a test."""
import json
import os
import statistics
import sys
import time

import numpy as np
import torch

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import forward  # noqa: E402
from hf_files import read_f32_safetensors  # noqa: E402

d = sys.argv[1]
ids = json.load(open(sys.argv[2]))["token_ids"]
torch.set_num_threads(int(sys.argv[3]) if len(sys.argv) > 3 else 2)
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 5
w = read_f32_safetensors(os.path.join(d, "model.safetensors"))
cfg = json.load(open(os.path.join(d, "config.json")))
times = []
with torch.no_grad():
    for _ in range(runs):
        t0 = time.perf_counter()
        forward(w, cfg, ids)
        times.append(time.perf_counter() - t0)
print(f"pytorch {torch.__version__} forward ({torch.get_num_threads()} threads), {len(ids)} tokens: "
      f"best of {runs} {min(times):.3f} s, median {statistics.median(times):.3f} s")
