"""Llama, Mistral and Qwen2 forward passes in plain PyTorch (float32), written from the architecture
(Hugging Face's modeling_llama / modeling_mistral / modeling_qwen2 as documented), not from attn's code."""
import math

import numpy as np
import torch


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def inv_freq(cfg, d, T):
    base = cfg.get("rope_theta", 10000.0)
    sc = cfg.get("rope_scaling") or {}
    kind = sc.get("rope_type", sc.get("type", "default"))
    if kind == "dynamic" and T > cfg["max_position_embeddings"]:
        f, mp = sc["factor"], cfg["max_position_embeddings"]
        base = base * ((f * T / mp) - (f - 1)) ** (d / (d - 2))
    inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    if kind == "linear":
        inv = inv / sc["factor"]
    if kind == "llama3":
        f, lo, hi, old = sc["factor"], sc["low_freq_factor"], sc["high_freq_factor"], sc["original_max_position_embeddings"]
        wavelen = 2 * math.pi / inv
        out = torch.where(wavelen > old / lo, inv / f, inv)
        smooth = (old / wavelen - lo) / (hi - lo)
        mid = (wavelen <= old / lo) & (wavelen >= old / hi)
        out = torch.where(mid, (1 - smooth) * inv / f + smooth * inv, out)
        inv = out
    return inv


def rotate(x, freqs):
    """x (n, T, d): pairs (i, i + d/2) rotated by position · θ_i (rotate_half)."""
    T, d = x.shape[1], x.shape[2]
    ang = torch.outer(torch.arange(T, dtype=torch.float64), freqs)            # (T, d/2)
    cos = torch.cat([ang.cos(), ang.cos()], -1).float()
    sin = torch.cat([ang.sin(), ang.sin()], -1).float()
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return x * cos + torch.cat([-x2, x1], -1) * sin


def forward(w, cfg, ids, heads=(), mode="zero", states=None, qk=None):
    """Returns per layer (H, T, T) weights and the (T, V) logits. heads: (layer, query head) pairs whose
    outputs (context vectors, before o_proj) are set to 0 (mode "zero") or to their mean over the
    positions ("mean"); states: a list that receives the residual stream after the embeddings and after
    every layer; qk: a list that receives each layer's (q (H, T, d), k (G, T, d), scale) after the bias
    and RoPE (k before repeat_kv), scores = q_h·k_gᵀ · scale with g = h // (H / G)."""
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in w.items()}
    T, C, H = len(ids), cfg["hidden_size"], cfg["num_attention_heads"]
    G = cfg.get("num_key_value_heads", H)
    d = cfg.get("head_dim") or C // H
    eps = cfg["rms_norm_eps"]
    freqs = inv_freq(cfg, d, T)
    x = t["model.embed_tokens.weight"][ids]
    i_, j_ = torch.arange(T)[:, None], torch.arange(T)[None, :]
    visible = j_ <= i_
    if cfg.get("sliding_window"):
        visible &= (i_ - j_) < cfg["sliding_window"]
    weights = []
    if states is not None:
        states.append(x)
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."

        def lin(name, a):
            y = a @ t[p + name + ".weight"].T
            return y + t[p + name + ".bias"] if p + name + ".bias" in t else y

        a = rms_norm(x, t[p + "input_layernorm.weight"], eps)
        q = lin("self_attn.q_proj", a).reshape(T, H, d).transpose(0, 1)          # (H, T, d)
        k = lin("self_attn.k_proj", a).reshape(T, G, d).transpose(0, 1)          # (G, T, d)
        v = lin("self_attn.v_proj", a).reshape(T, G, d).transpose(0, 1)
        q, k = rotate(q, freqs), rotate(k, freqs)
        if qk is not None:
            qk.append((q.numpy().copy(), k.numpy().copy(), 1 / math.sqrt(d)))
        k, v = k.repeat_interleave(H // G, 0), v.repeat_interleave(H // G, 0)    # (H, T, d)
        s = (q @ k.transpose(1, 2)) / math.sqrt(d)
        s = s.masked_fill(~visible, float("-inf"))
        att = torch.softmax(s, -1)
        weights.append(att.numpy())
        y = att @ v                                                                # (H, T, d)
        for al, ah in heads:
            if al == l:
                y[ah] = 0.0 if mode == "zero" else y[ah].mean(0, keepdim=True).expand_as(y[ah])
        y = y.transpose(0, 1).reshape(T, H * d)
        x = x + y @ t[p + "self_attn.o_proj.weight"].T
        m = rms_norm(x, t[p + "post_attention_layernorm.weight"], eps)
        g = m @ t[p + "mlp.gate_proj.weight"].T
        x = x + (torch.nn.functional.silu(g) * (m @ t[p + "mlp.up_proj.weight"].T)) @ t[p + "mlp.down_proj.weight"].T
        if states is not None:
            states.append(x)
    x = rms_norm(x, t["model.norm.weight"], eps)
    head = t["lm_head.weight"] if not cfg.get("tie_word_embeddings") else t["model.embed_tokens.weight"]
    return weights, (x @ head.T).numpy()
