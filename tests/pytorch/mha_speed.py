#!/usr/bin/python3
"""PyTorch's side of docs/speed.md's mha figure: nn.MultiheadAttention(D, H) forward on one (T, D) input with
need_weights=True, average_attn_weights=False (every head's (T, T) weights returned, as attn's
`bench --kind mha` keeps them), causal as `attn bench --kind mha` is by default (attn_mask hides j > i;
--no-mask for none), best and median of RUNS.
Usage: OMP_WAIT_POLICY=PASSIVE python3 mha_speed.py [--no-mask] [T] [D] [H] [THREADS] [RUNS]. Not a test:
timings vary with the machine."""
import statistics
import sys
import time

import torch

args = [a for a in sys.argv[1:] if a != "--no-mask"]
causal = "--no-mask" not in sys.argv[1:]
defaults = (2048, 768, 12, 2, 5)
T, D, H, threads, runs = (int(args[i]) if i < len(args) else v for i, v in enumerate(defaults))
torch.set_num_threads(threads)
torch.manual_seed(123)
mha = torch.nn.MultiheadAttention(D, H).eval()
x = torch.rand(T, 1, D)  # (T, batch 1, D): the module's default sequence-first layout
mask = torch.ones(T, T, dtype=torch.bool).triu(1) if causal else None  # True = hidden
times = []
with torch.no_grad():
    for _ in range(runs):
        t0 = time.perf_counter()
        out, w = mha(x, x, x, need_weights=True, average_attn_weights=False, attn_mask=mask)  # (T, 1, D), (1, H, T, T)
        times.append(time.perf_counter() - t0)
assert w.shape == (1, H, T, T)
print(f"torch {torch.__version__} nn.MultiheadAttention({D}, {H}) T={T}{' causal' if causal else ''}, {threads} threads, "
      f"weights per head: best of {runs} {min(times):.4f} s, median {statistics.median(times):.4f} s")
