#!/usr/bin/python3
"""PyTorch's forward alone on a Llama-family checkpoint folder (F32, one model.safetensors), for the
docs/speed.md's speed table: python3 speed_torch.py DIR TRACE.json [THREADS]. TRACE.json is a trace of the
same folder (attn show --model DIR --keep-layers 0 --json TRACE.json ...), whose token ids are used.
Run it with OMP_WAIT_POLICY=PASSIVE on a shared machine: OpenMP's spinning wait costs PyTorch a factor
of several there."""
import json, sys, time
import numpy as np, torch
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); sys.dont_write_bytecode = True
from llama_reference import forward
torch.set_num_threads(int(sys.argv[3]) if len(sys.argv) > 3 else 2)
d = sys.argv[1]
trace_ids = json.load(open(sys.argv[2]))["token_ids"]
import struct
raw = open(d + '/model.safetensors', 'rb').read()
n = struct.unpack('<Q', raw[:8])[0]; h = json.loads(raw[8:8 + n]); data = raw[8 + n:]
w = {k: np.frombuffer(data[e['data_offsets'][0]:e['data_offsets'][1]], '<f4').reshape(e['shape']).copy() for k, e in h.items() if k != '__metadata__'}
cfg = json.load(open(d + '/config.json'))
best = 1e9
with torch.no_grad():
    for r in range(3):
        t0 = time.time(); forward(w, cfg, trace_ids); best = min(best, time.time() - t0)
print(f"pytorch forward ({torch.get_num_threads()} threads), {len(trace_ids)} tokens: best of 3 {best:.3f} s")
