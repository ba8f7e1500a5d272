"""GPT-2's forward pass in plain PyTorch, written from the architecture (not from attn's code)."""
import math

import numpy as np
import torch


def layer_norm(x, g, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * g + b


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def forward(w, cfg, ids):
    """GPT-2 from its definition: returns per layer (H, T, T) weights and the (T, V) logits."""
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in w.items()}
    T, C, H, eps = len(ids), cfg["n_embd"], cfg["n_head"], cfg["layer_norm_epsilon"]
    d = C // H
    x = t["wte.weight"][ids] + t["wpe.weight"][:T]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    weights = []
    for i in range(cfg["n_layer"]):
        p = f"h.{i}."
        a = layer_norm(x, t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
        qkv = a @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]          # (T, 3C), Conv1D
        q, k, v = qkv.split(C, dim=1)
        q, k, v = (m.reshape(T, H, d).transpose(0, 1) for m in (q, k, v))           # (H, T, d)
        s = (q @ k.transpose(1, 2)) / math.sqrt(d)
        s = s.masked_fill(~causal, float("-inf"))
        att = torch.softmax(s, dim=-1)                                               # (H, T, T)
        weights.append(att.numpy())
        y = (att @ v).transpose(0, 1).reshape(T, C)
        x = x + y @ t[p + "attn.c_proj.weight"] + t[p + "attn.c_proj.bias"]
        m = layer_norm(x, t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps)
        m = gelu_tanh(m @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"])
        x = x + m @ t[p + "mlp.c_proj.weight"] + t[p + "mlp.c_proj.bias"]
    x = layer_norm(x, t["ln_f.weight"], t["ln_f.bias"], eps)
    head = t.get("lm_head.weight", t["wte.weight"])
    return weights, (x @ head.T).numpy()
