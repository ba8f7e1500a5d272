#!/usr/bin/env python3
"""Checks attn against PyTorch itself (Debian's python3-torch, 1.13).

For each case, attn writes its JSON trace; this script rebuilds the same module in PyTorch with
torch.manual_seed(seed), checks that every parameter is identical bit for bit (--init torch and
torch-rand), then runs the module on attn's own inputs and checks the weights and the output.
Usage: torch_check.py PATH_TO_ATTN. Exit 0 when every case holds; prints one line per case.
"""
import json
import subprocess
import sys

import torch

ATTN = sys.argv[1]


def trace(args):
    out = subprocess.run([ATTN, "show", *args, "--json", "-"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def t(x):
    return torch.tensor(x, dtype=torch.float32)


def linear(d_in, d_out, bias):
    return torch.nn.Linear(d_in, d_out, bias=bias)


def check_param(name, ours, theirs):
    diff = (t(ours) - theirs.detach()).abs().max().item()
    if diff != 0.0:
        raise AssertionError(f"{name} differs from PyTorch's by {diff}")


def attention(q, k, v, mask, scale):
    s = (q @ k.transpose(-2, -1)) * scale
    s = s.masked_fill(~mask, float("-inf"))
    w = torch.softmax(s, dim=-1)
    return w, w @ v


def causal_mask(T, S):
    return torch.ones(T, S).tril().bool()


def case_self(tr, causal, rand):
    c = tr["config"]
    torch.manual_seed(c["seed"])
    x = t(tr["inputs"]["x"])
    if rand:
        Wq, Wk, Wv = (torch.rand(c["d_in"], c["d_out"]) for _ in range(3))
        bias = [None] * 3
    else:
        mods = [linear(c["d_in"], c["d_out"], c["qkv_bias"]) for _ in range(3)]
        Wq, Wk, Wv = (m.weight.T for m in mods)
        bias = [m.bias for m in mods]
    for name, w in zip(("W_query", "W_key", "W_value"), (Wq, Wk, Wv)):
        check_param(name, tr["params"][name], w)
    for name, b in zip(("b_query", "b_key", "b_value"), bias):
        if b is not None:
            check_param(name, tr["params"][name], b)
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    if bias[0] is not None:
        q, k, v = q + bias[0], k + bias[1], v + bias[2]
    T = x.shape[0]
    mask = causal_mask(T, T) if causal else torch.ones(T, T).bool()
    return attention(q, k, v, mask, 1 / c["d_out"] ** 0.5)


def case_wrapper(tr):
    c = tr["config"]
    torch.manual_seed(c["seed"])
    x = t(tr["inputs"]["x"])
    H, d = c["heads"], c["d_out"]
    heads = [[linear(c["d_in"], d, c["qkv_bias"]) for _ in range(3)] for _ in range(H)]
    for name, i in (("W_query", 0), ("W_key", 1), ("W_value", 2)):
        check_param(name, tr["params"][name], torch.cat([h[i].weight.T for h in heads], dim=1))
    T = x.shape[0]
    outs, ws = [], []
    for h in heads:
        w, ctx = attention(h[0](x), h[1](x), h[2](x), causal_mask(T, T), 1 / d ** 0.5)
        outs.append(ctx), ws.append(w)
    return torch.stack(ws), torch.cat(outs, dim=1)


def case_gqa(tr):
    """mha (G = H), mqa (G = 1) and gqa: nn.Linear W_query, W_key, W_value, out_proj in that order."""
    c = tr["config"]
    torch.manual_seed(c["seed"])
    x = t(tr["inputs"]["x"])
    H, G, d_out = c["heads"], c["kv_heads"], c["d_out"]
    dk = d_out // H
    Wq = linear(c["d_in"], d_out, c["qkv_bias"])
    Wk = linear(c["d_in"], G * dk, c["qkv_bias"])
    Wv = linear(c["d_in"], G * dk, c["qkv_bias"])
    out_proj = linear(d_out, d_out, True)
    for name, m in (("W_query", Wq), ("W_key", Wk), ("W_value", Wv), ("W_out", out_proj)):
        check_param(name, tr["params"][name], m.weight.T)
    check_param("b_out", tr["params"]["b_out"], out_proj.bias)
    T = x.shape[0]
    q = Wq(x).view(T, H, dk).transpose(0, 1)                                   # (H, T, dk)
    k = Wk(x).view(T, G, dk).transpose(0, 1).repeat_interleave(H // G, dim=0)  # (H, T, dk)
    v = Wv(x).view(T, G, dk).transpose(0, 1).repeat_interleave(H // G, dim=0)
    mask = causal_mask(T, T) if c["causal"] else torch.ones(T, T).bool()
    w, ctx = attention(q, k, v, mask, 1 / dk ** 0.5)
    return w, out_proj(ctx.transpose(0, 1).reshape(T, d_out))


def case_cross(tr):
    c = tr["config"]
    torch.manual_seed(c["seed"])
    x, src = t(tr["inputs"]["x"]), t(tr["inputs"]["source_x"])
    mods = [linear(c["d_in"], c["d_out"], c["qkv_bias"]) for _ in range(3)]
    for name, m in zip(("W_query", "W_key", "W_value"), mods):
        check_param(name, tr["params"][name], m.weight.T)
    mask = torch.ones(x.shape[0], src.shape[0]).bool()
    return attention(mods[0](x), mods[1](src), mods[2](src), mask, 1 / c["d_out"] ** 0.5)


def case_additive(tr):
    c = tr["config"]
    torch.manual_seed(c["seed"])
    x, src = t(tr["inputs"]["x"]), t(tr["inputs"]["source_x"])
    Wq, Wk = linear(c["d_in"], c["d_out"], False), linear(c["d_in"], c["d_out"], False)
    v = linear(c["d_out"], 1, False)
    check_param("W_query", tr["params"]["W_query"], Wq.weight.T)
    check_param("W_key", tr["params"]["W_key"], Wk.weight.T)
    check_param("v", tr["params"]["v"], v.weight[0])
    e = v(torch.tanh(Wq(x)[:, None, :] + Wk(src)[None, :, :])).squeeze(-1)  # (T, S)
    w = torch.softmax(e, dim=-1)  # across source positions
    return w, w @ src


CASES = [
    ("self, torch.rand, seed 123", ["--example", "journey", "--kind", "self", "--init", "torch-rand", "--d-out", "2"],
     lambda tr: case_self(tr, False, True)),
    ("self, nn.Linear, seed 789", ["--example", "journey", "--kind", "self", "--seed", "789", "--d-out", "2"],
     lambda tr: case_self(tr, False, False)),
    ("causal with biases, 16 wide, seed 5", ["--kind", "causal", "--seed", "5", "--qkv-bias", "--d-out", "8",
                                              "Your journey starts with one step"], lambda tr: case_self(tr, True, False)),
    ("mha-wrapper, 2 heads", ["--example", "journey", "--kind", "mha-wrapper", "--heads", "2", "--d-out", "2"],
     case_wrapper),
    ("mha, 2 heads", ["--example", "journey", "--kind", "mha", "--heads", "2", "--d-out", "2"], case_gqa),
    ("mha, 4 heads, seed 42", ["--kind", "mha", "--heads", "4", "--seed", "42", "The cat sat on the mat."], case_gqa),
    ("gqa, 6 heads over 2", ["--kind", "gqa", "--heads", "6", "--kv-heads", "2", "--d-out", "12", "--seed", "7",
                              "Attention is all you need"], case_gqa),
    ("mqa, 4 heads", ["--kind", "mqa", "--heads", "4", "--no-causal", "Attention is all you need"], case_gqa),
    ("cross, T != S", ["--kind", "cross", "--d-out", "8", "Wie geht es dir", "--source", "How are you"], case_cross),
    ("additive", ["--kind", "additive", "--d-out", "8", "Wie geht es dir", "--source", "How are you"], case_additive),
]

failed = 0
for name, args, build in CASES:
    try:
        tr = trace(args)
        w, out = build(tr)
        ours_w = torch.stack([t(h["weights"]) for h in tr["attention"][0]["layers"][0]["heads"]]).squeeze(0)
        dw = (ours_w - w.detach()).abs().max().item()
        do = (t(tr["output"]) - out.detach()).abs().max().item()
        if dw > 1e-5 or do > 1e-5:
            raise AssertionError(f"weights differ by {dw:.2e}, output by {do:.2e}")
        print(f"ok   {name}: parameters identical; weights within {dw:.1e}, output within {do:.1e}")
    except Exception as e:  # report every case, then fail
        failed += 1
        print(f"FAIL {name}: {e}")
passed = len(CASES) - failed
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
