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


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def hf_config(cfg):
    """GPT2Config's reading of config.json: the attribute_map's names win over GPT-2's own."""
    c = dict(cfg)
    for alias, own in (("num_attention_heads", "n_head"), ("num_hidden_layers", "n_layer"), ("hidden_size", "n_embd"),
                       ("max_position_embeddings", "n_positions")):
        if alias in c:
            c[own] = c[alias]
    return c


def ablate(y, heads, layer, mode):
    """Head outputs y (H, T, d) with the heads (layer, h) of this layer replaced: zero, or each one's mean
    over the T positions (a head mask on the context vectors, before the output projection)."""
    y = y.clone()
    for l, h in heads:
        if l == layer:
            y[h] = 0.0 if mode == "zero" else y[h].mean(0, keepdim=True).expand_as(y[h])
    return y


def forward(w, cfg, ids, heads=(), mode="zero", states=None, qk=None):
    """GPT-2 from its definition, as Hugging Face's GPT2LMHeadModel reads config.json: returns per layer
    (H, T, T) weights and the (T, V) logits. heads: (layer, head) pairs whose outputs are ablated (mode
    "zero" or "mean"); states: a list that receives the residual stream (T, C) after the embeddings and
    after every layer; qk: a list that receives each layer's (q (H, T, d), k (H, T, d), scale) as the
    scores' product reads them (after the bias), scores = q·kᵀ · scale."""
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in w.items()}
    cfg = hf_config(cfg)
    T, C, H, eps = len(ids), cfg["n_embd"], cfg["n_head"], cfg["layer_norm_epsilon"]
    act = gelu_erf if cfg.get("activation_function") == "gelu" else gelu_tanh
    d = C // H
    x = t["wte.weight"][ids] + t["wpe.weight"][:T]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    weights = []
    if states is not None:
        states.append(x)
    for i in range(cfg["n_layer"]):
        p = f"h.{i}."
        a = layer_norm(x, t[p + "ln_1.weight"], t[p + "ln_1.bias"], eps)
        qkv = a @ t[p + "attn.c_attn.weight"] + t[p + "attn.c_attn.bias"]          # (T, 3C), Conv1D
        q, k, v = qkv.split(C, dim=1)
        q, k, v = (m.reshape(T, H, d).transpose(0, 1) for m in (q, k, v))           # (H, T, d)
        s = q @ k.transpose(1, 2)
        if qk is not None:
            scale = (1 / math.sqrt(d) if cfg.get("scale_attn_weights", True) else 1.0) / \
                (i + 1 if cfg.get("scale_attn_by_inverse_layer_idx", False) else 1)
            qk.append((q.numpy().copy(), k.numpy().copy(), scale))
        if cfg.get("scale_attn_weights", True):
            s = s / math.sqrt(d)
        if cfg.get("scale_attn_by_inverse_layer_idx", False):
            s = s / float(i + 1)
        s = s.masked_fill(~causal, float("-inf"))
        att = torch.softmax(s, dim=-1)                                               # (H, T, T)
        weights.append(att.numpy())
        y = ablate(att @ v, heads, i, mode).transpose(0, 1).reshape(T, C)
        x = x + y @ t[p + "attn.c_proj.weight"] + t[p + "attn.c_proj.bias"]
        m = layer_norm(x, t[p + "ln_2.weight"], t[p + "ln_2.bias"], eps)
        m = act(m @ t[p + "mlp.c_fc.weight"] + t[p + "mlp.c_fc.bias"])
        x = x + m @ t[p + "mlp.c_proj.weight"] + t[p + "mlp.c_proj.bias"]
        if states is not None:
            states.append(x)
    x = layer_norm(x, t["ln_f.weight"], t["ln_f.bias"], eps)
    # tied (the default): Hugging Face ties lm_head to wte, one tensor, whatever lm_head.weight holds
    head = t["wte.weight"] if cfg.get("tie_word_embeddings", True) else t["lm_head.weight"]
    return weights, (x @ head.T).numpy()


def final_logits(w, cfg, x):
    """The final norm and the output head applied to a residual stream x (T, C): (T, V) logits (the logit lens)."""
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in w.items()}
    cfg = hf_config(cfg)
    x = layer_norm(x, t["ln_f.weight"], t["ln_f.bias"], cfg["layer_norm_epsilon"])
    head = t["wte.weight"] if cfg.get("tie_word_embeddings", True) else t["lm_head.weight"]
    return (x @ head.T).numpy()
