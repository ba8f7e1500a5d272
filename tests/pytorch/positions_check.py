#!/usr/bin/env python3
"""Checks attn's positions against PyTorch (Debian's python3-torch, 1.13).

RoPE, half style: Hugging Face's Llama apply_rotary_pos_emb written out (inv_freq = 1 / base^(arange(0, d, 2) / d),
emb = cat(freqs, freqs), q * cos + rotate_half(q) * sin with rotate_half(x) = cat(-x2, x1)), on the
trace's own unrotated q and k, for two bases; then the causal softmax and the output projection.
ALiBi: slopes from the paper's get_slopes, bias m_h (j - i) added to the scaled scores.
Usage: positions_check.py PATH_TO_ATTN. Prints the largest difference per case; exit 0 when all hold.
"""
import json
import math
import subprocess
import sys

import torch

ATTN = sys.argv[1]
TOL = 1e-6


def trace(args):
    out = subprocess.run([ATTN, "show", *args, "--json", "-"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def t(x):
    return torch.tensor(x, dtype=torch.float64)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def rope(x, base):
    n, d = x.shape
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    freqs = torch.outer(torch.arange(n, dtype=torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return x * emb.cos() + rotate_half(x) * emb.sin()


def get_slopes(n):
    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + get_slopes(2 * closest)[0::2][: n - closest]


def check(name, tr, pos, base=10000.0):
    heads = tr["attention"][0]["layers"][0]["heads"]
    T = len(tr["tokens"])
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    worst = 0.0
    contexts = []
    slopes = get_slopes(len(heads))
    for h in heads:
        q, k, v = t(h["queries"]), t(h["keys"]), t(h["values"])
        bias = torch.zeros(T, T, dtype=torch.float64)
        if pos == "rope":
            q, k = rope(t(h["queries_unrotated"]), base), rope(t(h["keys_unrotated"]), base)
            worst = max(worst, (q - t(h["queries"])).abs().max().item(), (k - t(h["keys"])).abs().max().item())
        if pos == "alibi":
            i = torch.arange(T, dtype=torch.float64)
            bias = slopes[h["head"]] * (i[None, :] - i[:, None])
            worst = max(worst, (bias - t(h["bias"])).abs().max().item())
        s = (q @ k.T) / math.sqrt(q.shape[-1]) + bias
        w = torch.softmax(s.masked_fill(~mask, float("-inf")), dim=-1)
        worst = max(worst, (w - t(h["weights"])).abs().max().item())
        contexts.append(w @ v)
    out = torch.cat(contexts, dim=-1) @ t(tr["params"]["W_out"]) + t(tr["params"]["b_out"])
    worst = max(worst, (out - t(tr["output"])).abs().max().item())
    ok = worst <= TOL
    print(f"{'ok  ' if ok else 'FAIL'} {name}: largest difference {worst:.3g}")
    return ok


sentence = "Your journey starts with one step and the road goes on"
cases = [
    ("rope half, base 10000, mha H=4", ["--kind", "mha", "--heads", "4", "--d-out", "16", "--pos", "rope"], "rope", 10000.0),
    ("rope half, base 500000, gqa H=4 G=2",
     ["--kind", "gqa", "--heads", "4", "--kv-heads", "2", "--d-out", "16", "--pos", "rope", "--rope-base", "500000"], "rope", 500000.0),
    ("alibi, mha H=8", ["--kind", "mha", "--heads", "8", "--d-out", "16", "--pos", "alibi"], "alibi", 0),
    ("alibi, mha H=12", ["--kind", "mha", "--heads", "12", "--d-out", "24", "--pos", "alibi"], "alibi", 0),
]
results = [check(name, trace([sentence, *args]), pos, base) for name, args, pos, base in cases]
sys.exit(0 if all(results) else 1)
