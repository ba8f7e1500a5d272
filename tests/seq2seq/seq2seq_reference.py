#!/usr/bin/python3
"""A plain PyTorch forward of encoder–decoder models (T5 v1.0 / v1.1, BART, Marian) written from the
architectures (Hugging Face's modeling_t5, modeling_bart, modeling_marian and generation/logits_process),
eager attention, float32 (or float64 to measure float32's error): every layer's attention weights of the
encoder (S×S), the decoder (T×T, causal) and the cross-attention (T×S), T5's relative-position bias, the
logits, and greedy generation with Hugging Face's logits processors applied as generate() applies them.

Model(dir) reads a Hugging Face folder itself: config.json, generation_config.json (its fields over
config.json's; Hugging Face reads generation_config.json alone when there is one, so the test folders write
every generation field of config.json into it too and the two readings agree), model.safetensors (parsed
here) or pytorch_model.bin (torch.load, weights only), and resolves the tied names (shared ↔
encoder/decoder.embed_tokens, lm_head ↔ shared when tied).

Run as a script: `seq2seq_reference.py buckets FILE` writes T5's bucket table (tests/seq2seq/t5_buckets.txt);
`seq2seq_reference.py self-test SOURCE_DIR` checks the bucket function against the published values
(SECTION_6_1), a float64 scalar formulation and the committed table; this forward against a second
formulation (torch's own multi_head_attention_forward, or a loop over heads) and against float64 on every
folder tests/seq2seq/make_seq2seq.py writes; and the logits processors on hand-made scores."""
import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.dont_write_bytecode = True

GEN_FIELDS = ("decoder_start_token_id", "eos_token_id", "bos_token_id", "pad_token_id", "max_length",
              "max_new_tokens", "min_length", "min_new_tokens", "repetition_penalty", "no_repeat_ngram_size",
              "bad_words_ids", "forced_bos_token_id", "forced_eos_token_id")


# ---- T5's relative position buckets -------------------------------------------------------------------
def t5_bucket(rel, bidirectional, num_buckets=32, max_distance=128):
    """rel = key position − query position (a LongTensor); the bucket, computed as modeling_t5 does (float32 log,
    truncation toward zero)."""
    bucket = torch.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        bucket = bucket + (rel > 0).long() * num_buckets
        n = rel.abs()
    else:
        n = -torch.min(rel, torch.zeros_like(rel))
    max_exact = num_buckets // 2
    large = max_exact + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).long()
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return bucket + torch.where(n < max_exact, n, large)


def t5_bucket_scalar(rel, bidirectional, num_buckets=32, max_distance=128):
    """The same bucket in Python's float64 arithmetic, one distance at a time (the second formulation)."""
    b = 0
    if bidirectional:
        num_buckets //= 2
        b = num_buckets if rel > 0 else 0
        n = abs(rel)
    else:
        n = max(-rel, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return b + n
    return b + min(max_exact + int(math.log(n / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)),
                   num_buckets - 1)


# ---- reading a folder ---------------------------------------------------------------------------------
def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        raw = data[base + e["data_offsets"][0]:base + e["data_offsets"][1]]
        if e["dtype"] == "BF16":
            a = (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            a = np.frombuffer(raw, {"F32": "<f4", "F16": "<f2", "F64": "<f8"}[e["dtype"]]).astype(np.float32)
        out[name] = torch.from_numpy(a.reshape(e["shape"]).copy())
    return out


def read_weights(d):
    st = os.path.join(d, "model.safetensors")
    if os.path.exists(st):
        return read_safetensors(st)
    sd = torch.load(os.path.join(d, "pytorch_model.bin"), map_location="cpu", weights_only=True)
    return {k: v.float() for k, v in sd.items()}


def generation_settings(d, config):
    """The generation fields: config.json's, then generation_config.json's over them."""
    gen = {k: config[k] for k in GEN_FIELDS if config.get(k) is not None}
    path = os.path.join(d, "generation_config.json")
    if os.path.exists(path):
        with open(path) as f:
            gen.update({k: v for k, v in json.load(f).items() if k in GEN_FIELDS and v is not None})
    return gen


class Model:
    """A loaded folder: config, generation settings, the weights under canonical names (BART/Marian without
    the "model." prefix), in dtype."""

    def __init__(self, d, dtype=torch.float32):
        with open(os.path.join(d, "config.json")) as f:
            self.config = c = json.load(f)
        self.gen = generation_settings(d, c)
        self.type = c["model_type"]
        self.dtype = dtype
        raw = read_weights(d)
        if self.type != "t5":
            raw = {(k[len("model."):] if k.startswith("model.") else k): v for k, v in raw.items()}
        shared = next(raw[k] for k in ("shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight")
                      if k in raw)
        raw["shared.weight"] = shared
        self.tied = c.get("tie_word_embeddings", True)
        if self.tied:
            raw["lm_head.weight"] = shared
        if self.type != "t5":
            raw.setdefault("final_logits_bias", torch.zeros(1, c["vocab_size"]))
            if self.type == "marian":
                raw.setdefault("encoder.embed_positions.weight", sinusoid(c["max_position_embeddings"], c["d_model"]))
                raw.setdefault("decoder.embed_positions.weight", raw["encoder.embed_positions.weight"])
        self.W = {k: v.to(dtype) for k, v in raw.items()}
        self.C = c["d_model"]
        if self.type == "t5":
            self.H, self.dh = c["num_heads"], c["d_kv"]
            self.L = c["num_layers"]
            self.Ld = c.get("num_decoder_layers") or self.L
        else:
            self.H = c["encoder_attention_heads"]
            self.Hd = c["decoder_attention_heads"]
            self.dh = self.C // self.H
            self.L, self.Ld = c["encoder_layers"], c["decoder_layers"]
        self.attend = attend  # the formulation of attention (self_test swaps in attend_alt)

    # -- pieces --
    def lin(self, name, x):
        b = self.W.get(name + ".bias")
        return F.linear(x, self.W[name + ".weight"], b)

    def ln(self, name, x):
        if self.type == "t5":  # RMS norm, no mean subtraction, no bias, in float32 (or the reference's dtype)
            var = x.pow(2).mean(-1, keepdim=True)
            return self.W[name + ".weight"] * (x * torch.rsqrt(var + self.config.get("layer_norm_epsilon", 1e-6)))
        return F.layer_norm(x, (self.C,), self.W[name + ".weight"], self.W[name + ".bias"], 1e-5)

    def act(self, x):
        name = self.config.get("activation_function", "gelu")
        if self.type == "t5":
            name = "gelu_new" if self.config.get("feed_forward_proj") == "gated-gelu" else "relu"
        return {"gelu": F.gelu, "relu": F.relu, "swish": F.silu, "silu": F.silu,
                "gelu_new": lambda v: F.gelu(v, approximate="tanh")}[name](x)

    def position_bias(self, stack, Tq, Tk):
        """T5: (H, Tq, Tk) from block 0's table; encoder buckets bidirectional, decoder causal."""
        c = self.config
        rel = torch.arange(Tk)[None, :] - torch.arange(Tq)[:, None]
        b = t5_bucket(rel, stack == "encoder", c.get("relative_attention_num_buckets", 32),
                      c.get("relative_attention_max_distance", 128))
        table = self.W[f"{stack}.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]  # (buckets, H)
        return table[b].permute(2, 0, 1)

    def embed(self, stack, ids):
        x = self.W["shared.weight"][torch.tensor(ids)]
        if self.type == "t5":
            return x
        c = self.config
        if c.get("scale_embedding", False):
            x = x * math.sqrt(self.C)
        pos = torch.arange(len(ids)) + (2 if self.type == "bart" else 0)
        x = x + self.W[f"{stack}.embed_positions.weight"][pos]
        if self.type == "bart":
            x = self.ln(f"{stack}.layernorm_embedding", x)
        return x

    # -- the stacks --
    def encode(self, src):
        """Returns (last hidden state (S, C), weights [L × (H, S, S)], T5's bias (H, S, S) or None)."""
        x = self.embed("encoder", src)
        S = len(src)
        out = []
        if self.type == "t5":
            bias = self.position_bias("encoder", S, S)
            for i in range(self.L):
                b = f"encoder.block.{i}.layer."
                a, w = self.attend(self, b + "0.SelfAttention", self.ln(b + "0.layer_norm", x), None, 1.0, bias, False)
                x = x + a
                out.append(w)
                x = x + self.ff(b + "1.DenseReluDense", self.ln(b + "1.layer_norm", x))
            return self.ln("encoder.final_layer_norm", x), out, bias
        for i in range(self.L):
            b = f"encoder.layers.{i}."
            a, w = self.attend(self, b + "self_attn", x, None, self.dh ** -0.5, None, False)
            x = self.ln(b + "self_attn_layer_norm", x + a)
            out.append(w)
            x = self.ln(b + "final_layer_norm", x + self.ff(b, x))
        return x, out, None

    def ff(self, p, x):
        if self.type == "t5":
            if self.config.get("feed_forward_proj") == "gated-gelu":
                h = self.act(self.lin(p + ".wi_0", x)) * self.lin(p + ".wi_1", x)
            else:
                h = self.act(self.lin(p + ".wi", x))
            return self.lin(p + ".wo", h)
        return self.lin(p + "fc2", self.act(self.lin(p + "fc1", x)))

    def decode(self, enc, dec):
        """enc: the encoder's last hidden state; dec: the decoder's input ids. Returns a dict: logits (T, V),
        decoder [Ld × (H, T, T)], cross [Ld × (H, T, S)], decoder_bias (H, T, T) or None."""
        x = self.embed("decoder", dec)
        T = len(dec)
        selfw, crossw, bias = [], [], None
        if self.type == "t5":
            bias = self.position_bias("decoder", T, T)
            for i in range(self.Ld):
                b = f"decoder.block.{i}.layer."
                a, w = self.attend(self, b + "0.SelfAttention", self.ln(b + "0.layer_norm", x), None, 1.0, bias, True)
                x = x + a
                selfw.append(w)
                a, w = self.attend(self, b + "1.EncDecAttention", self.ln(b + "1.layer_norm", x), enc, 1.0, None, False)
                x = x + a
                crossw.append(w)
                x = x + self.ff(b + "2.DenseReluDense", self.ln(b + "2.layer_norm", x))
            x = self.ln("decoder.final_layer_norm", x)
            if self.tied:
                x = x * self.C ** -0.5
            logits = F.linear(x, self.W["lm_head.weight"])
        else:
            scale = (self.C // self.Hd) ** -0.5
            for i in range(self.Ld):
                b = f"decoder.layers.{i}."
                a, w = self.attend(self, b + "self_attn", x, None, scale, None, True, self.Hd)
                x = self.ln(b + "self_attn_layer_norm", x + a)
                selfw.append(w)
                a, w = self.attend(self, b + "encoder_attn", x, enc, scale, None, False, self.Hd)
                x = self.ln(b + "encoder_attn_layer_norm", x + a)
                crossw.append(w)
                x = self.ln(b + "final_layer_norm", x + self.ff(b, x))
            logits = F.linear(x, self.W["lm_head.weight"]) + self.W["final_logits_bias"][0]
        return {"logits": logits, "decoder": selfw, "cross": crossw, "decoder_bias": bias}

    def run(self, src, dec):
        """Every set of one forward: encoder, decoder and cross weights as numpy, the biases, the logits."""
        enc, encw, ebias = self.encode(src)
        out = self.decode(enc, dec)
        return {"encoder": [w.numpy() for w in encw], "decoder": [w.numpy() for w in out["decoder"]],
                "cross": [w.numpy() for w in out["cross"]], "encoder_bias": None if ebias is None else ebias.numpy(),
                "decoder_bias": None if out["decoder_bias"] is None else out["decoder_bias"].numpy(),
                "logits": out["logits"]}


def sinusoid(n_pos, dim):
    """Marian's static positions: sin half, then cos half, computed in float64 and rounded once."""
    enc = np.array([[p / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for p in range(n_pos)])
    out = np.zeros((n_pos, dim))
    half = dim // 2 + dim % 2
    out[:, :half] = np.sin(enc[:, 0::2])
    out[:, half:] = np.cos(enc[:, 1::2])
    return torch.from_numpy(out.astype(np.float32))


def attend(m, p, xq, xkv, scale, bias, causal, H=None):
    """One attention: q from xq (T, C), k and v from xkv (S, C) (xq when None). q scaled by `scale` before the
    product (BART/Marian d^-0.5, T5 1), T5's bias (H, T, S) added, causal keys hidden with -inf.
    Returns (output (T, C), weights (H, T, S))."""
    H = H or m.H
    xkv = xq if xkv is None else xkv
    T, S = xq.shape[0], xkv.shape[0]
    names = ("q", "k", "v", "o") if m.type == "t5" else ("q_proj", "k_proj", "v_proj", "out_proj")
    q = m.lin(f"{p}.{names[0]}", xq) * scale
    k = m.lin(f"{p}.{names[1]}", xkv)
    v = m.lin(f"{p}.{names[2]}", xkv)
    d = q.shape[-1] // H
    q = q.view(T, H, d).transpose(0, 1)  # (H, T, d)
    k = k.view(S, H, d).transpose(0, 1)  # (H, S, d)
    v = v.view(S, H, d).transpose(0, 1)
    scores = q @ k.transpose(1, 2)  # (H, T, S)
    if bias is not None:
        scores = scores + bias
    if causal:
        scores = scores.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(1), float("-inf"))
    w = torch.softmax(scores, dim=-1)
    ctx = (w @ v).transpose(0, 1).reshape(T, H * d)
    return m.lin(f"{p}.{names[3]}", ctx), w


def attend_alt(m, p, xq, xkv, scale, bias, causal, H=None):
    """The same attention by a second formulation: torch's multi_head_attention_forward when the projections
    are square (it scales q by 1/√d itself, so q's weights are rescaled to give `scale`), else one head at a
    time from slices of the weight matrices."""
    H = H or m.H
    xkv = xq if xkv is None else xkv
    T, S = xq.shape[0], xkv.shape[0]
    names = ("q", "k", "v", "o") if m.type == "t5" else ("q_proj", "k_proj", "v_proj", "out_proj")
    Wq, Wk, Wv, Wo = (m.W[f"{p}.{n}.weight"] for n in names)
    bq, bk, bv, bo = (m.W.get(f"{p}.{n}.bias") for n in names)
    inner = Wq.shape[0]
    d = inner // H
    mask = torch.zeros(H, T, S, dtype=m.dtype)
    if bias is not None:
        mask = mask + bias
    if causal:
        mask = mask.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(1), float("-inf"))
    if inner == xq.shape[1]:
        r = scale * math.sqrt(d)
        zeros = torch.zeros(inner, dtype=m.dtype)
        out, w = F.multi_head_attention_forward(
            xq[:, None], xkv[:, None], xkv[:, None], inner, H, None,
            torch.cat([(bq if bq is not None else zeros) * r, bk if bk is not None else zeros, bv if bv is not None else zeros]),
            None, None, False, 0.0, Wo, bo if bo is not None else torch.zeros(Wo.shape[0], dtype=m.dtype),
            training=False, need_weights=True, attn_mask=mask, use_separate_proj_weight=True,
            q_proj_weight=Wq * r, k_proj_weight=Wk, v_proj_weight=Wv, average_attn_weights=False)
        return out[:, 0], w[0]
    heads, ctxs = [], []
    for h in range(H):
        sl = slice(h * d, (h + 1) * d)
        q = F.linear(xq, Wq[sl], None if bq is None else bq[sl]) * scale
        k = F.linear(xkv, Wk[sl], None if bk is None else bk[sl])
        v = F.linear(xkv, Wv[sl], None if bv is None else bv[sl])
        s = torch.einsum("td,sd->ts", q, k) + mask[h]
        w = torch.exp(s - s.max(-1, keepdim=True).values)
        w = w / w.sum(-1, keepdim=True)
        heads.append(w)
        ctxs.append(w @ v)
    return F.linear(torch.cat(ctxs, -1), Wo, bo), torch.stack(heads)


# ---- generation ---------------------------------------------------------------------------------------
def as_list(v):
    return [] if v is None else list(v) if isinstance(v, (list, tuple)) else [v]


def max_length_of(gen, max_new_tokens=None):
    """The decoder's length limit, the start token included (Hugging Face's max_length)."""
    if max_new_tokens is not None:
        return 1 + max_new_tokens
    if gen.get("max_new_tokens") is not None:
        return 1 + gen["max_new_tokens"]
    return gen.get("max_length", 20)


def process(gen, dec, logits, max_length):
    """Hugging Face's logits processors in generate()'s order on one row of logits (V,), the decoder input dec
    (cur_len = len(dec), the start token included). Returns the processed scores (a new tensor)."""
    s = logits.clone()
    cur = len(dec)
    eos = as_list(gen.get("eos_token_id"))
    ninf = float("-inf")
    ids = torch.tensor(dec)
    pen = gen.get("repetition_penalty", 1.0)
    if pen != 1.0:  # every id in the decoder input, the start token included
        g = s[ids]
        s[ids] = torch.where(g < 0, g * pen, g / pen)
    n = gen.get("no_repeat_ngram_size", 0) or 0
    if n > 0 and cur + 1 >= n:
        prefix = tuple(dec[cur + 1 - n:])
        for i in range(cur - n + 1):
            if tuple(dec[i:i + n - 1]) == prefix:
                s[dec[i + n - 1]] = ninf
    bad = [b for b in gen.get("bad_words_ids") or [] if not (len(b) == 1 and b[0] in eos)]
    for b in bad:  # single ids always; longer ones when the decoder input ends with their prefix
        if len(b) == 1:
            s[b[0]] = ninf
        elif len(b) <= cur and dec[cur - len(b) + 1:] == b[:-1]:
            s[b[-1]] = ninf
    if eos and cur < gen.get("min_length", 0):
        s[eos] = ninf
    if eos and cur - 1 < gen.get("min_new_tokens", 0):
        s[eos] = ninf
    if gen.get("forced_bos_token_id") is not None and cur == 1:
        s[:] = ninf
        s[gen["forced_bos_token_id"]] = 0
    fe = as_list(gen.get("forced_eos_token_id"))
    if fe and cur == max_length - 1:
        s[:] = ninf
        s[fe] = 0
    return s


def generate(m, src, max_new_tokens=None, gen=None):
    """Greedy generation as generate(num_beams=1, do_sample=False): the decoder run from the start each step
    (no cache), argmax = the first maximum. Returns generated ids (the end token included)."""
    gen = m.gen if gen is None else gen
    enc, _, _ = m.encode(src)
    max_length = max_length_of(gen, max_new_tokens)
    eos = as_list(gen.get("eos_token_id"))
    dec = [gen["decoder_start_token_id"]]
    while len(dec) < max_length:
        logits = m.decode(enc, dec)["logits"][-1]
        nxt = int(np.argmax(process(gen, dec, logits, max_length).numpy()))  # numpy: the first maximum
        dec.append(nxt)
        if nxt in eos:
            break
    return dec[1:]


def decoder_input(m, generated):
    """[decoder start] + generated[:-1]: row i of the decoder predicts generated[i] (greedy or teacher forced)."""
    return [m.gen["decoder_start_token_id"]] + list(generated[:-1])


# ---- the bucket table and the self-test -----------------------------------------------------------------
SECTION_6_1 = {  # docs' §6.1 (num_buckets 32, max_distance 128), rel = key − query
    True: {0: 0, -1: 1, -7: 7, -8: 8, -11: 8, -12: 9, -15: 9, -16: 10, -17: 10, -20: 10, -23: 11, -24: 11, -31: 11,
           -32: 12, -33: 12, -45: 12, -46: 13, -63: 13, -64: 14, -65: 14, -90: 14, -91: 15, -127: 15, -128: 15,
           -1000: 15, 1: 17, 8: 24, 12: 25, 16: 26, 32: 28, 64: 30, 91: 31, 1000: 31},
    False: {1: 0, 5: 0, 1000: 0, 0: 0, -1: 1, -15: 15, -16: 16, -17: 16, -20: 17, -23: 18, -24: 19, -31: 21, -32: 21,
            -33: 21, -45: 23, -46: 24, -63: 26, -64: 26, -65: 26, -90: 29, -91: 29, -127: 31, -1000: 31},
}
BUCKET_CASES = [(32, 128), (16, 64)]


def bucket_lines():
    rel = torch.arange(-1000, 1001)
    lines = ["# T5 relative-position buckets (modeling_t5 _relative_position_bucket), rel = key - query: "
             "bidirectional num_buckets max_distance rel bucket"]
    for nb, md in BUCKET_CASES:
        for bidi in (True, False):
            b = t5_bucket(rel, bidi, nb, md)
            lines += [f"{int(bidi)} {nb} {md} {r} {int(x)}" for r, x in zip(rel.tolist(), b.tolist())]
    return lines


def self_test(source_dir):
    import tempfile
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from make_seq2seq import VARIANTS, make
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)
            print("FAIL:", what)
    # 1. buckets: §6.1's values, a float64 scalar formulation on every distance, the committed table
    for bidi, table in SECTION_6_1.items():
        got = t5_bucket(torch.tensor(list(table)), bidi).tolist()
        check(got == list(table.values()), f"bidirectional={bidi}: {dict(zip(table, got))} vs §6.1 {table}")
    for nb, md in BUCKET_CASES:
        for bidi in (True, False):
            t = t5_bucket(torch.arange(-1000, 1001), bidi, nb, md).tolist()
            s = [t5_bucket_scalar(r, bidi, nb, md) for r in range(-1000, 1001)]
            bad = [r for r, a, b in zip(range(-1000, 1001), t, s) if a != b]
            check(not bad, f"buckets {nb}/{md} bidirectional={bidi}: float32 and float64 differ at {bad[:5]}")
    with open(os.path.join(source_dir, "tests", "seq2seq", "t5_buckets.txt")) as f:
        check(f.read().splitlines() == bucket_lines(), "tests/seq2seq/t5_buckets.txt is not what `buckets` writes")
    # 2. every folder: the forward against the second formulation, and float32 against float64
    torch.set_num_threads(1)
    src_text = {"t5": None, "bart": None, "marian": None}
    with tempfile.TemporaryDirectory() as tmp:
        for n, v in enumerate(VARIANTS):
            d = os.path.join(tmp, v)
            make(d, v, seed=n)
            m32, m64 = Model(d), Model(d, torch.float64)
            alt = Model(d)
            alt.attend = attend_alt
            V = m32.config["vocab_size"]
            rng = np.random.default_rng(n)
            src = [int(x) for x in rng.integers(3, min(V, 250), 11)] + [m32.gen["eos_token_id"]]
            src_text[m32.type] = src
            gen = generate(m32, src, 8)
            check(gen == generate(alt, src, 8), f"{v}: the two formulations generate different ids")
            check(gen == generate(m64, src, 8), f"{v}: float32 and float64 generate different ids")
            dec = decoder_input(m32, gen)
            a, b, c = m32.run(src, dec), alt.run(src, dec), m64.run(src, dec)
            worst, worst64 = 0.0, 0.0
            for s in ("encoder", "decoder", "cross"):
                for x, y, z in zip(a[s], b[s], c[s]):
                    worst = max(worst, float(np.abs(x - y).max()))
                    worst64 = max(worst64, float(np.abs(x - z).max()))
            lw = float((a["logits"] - b["logits"]).abs().max())
            p32 = torch.softmax(a["logits"], -1).double()
            top = torch.softmax(c["logits"], -1).topk(5, -1)
            rel = float(((p32.gather(1, top.indices) - top.values).abs() / top.values).max())
            check(worst < 1e-5 and lw < 1e-4, f"{v}: formulations differ: weights {worst:.3g}, logits {lw:.3g}")
            # float32's own error stays well inside seq2seq_check's tolerances (1e-5), or attn could not meet them
            check(worst64 < 5e-6 and rel < 1e-5, f"{v}: float32 is {worst64:.3g} from float64 (weights), {rel:.3g} (top-5 p)")
            ent = min(float(-(w * np.log(np.maximum(w, 1e-30))).sum(-1).mean() / math.log(w.shape[-1]))
                      for s in ("encoder", "cross") for w in a[s])
            check(ent < 0.9, f"{v}: attention is close to uniform (normalised entropy {ent:.2f})")
            print(f"ok {v}: generated {gen}; second formulation within {worst:.2g} (logits {lw:.2g}); "
                  f"float32 vs float64: weights {worst64:.2g}, top-5 probabilities {rel:.2g} relative; "
                  f"lowest normalised entropy {ent:.2f}")
    # 3. the processors on hand-made logits
    V = 10
    lg = torch.tensor([0.5, 3.0, -1.0, 2.0, 2.5, -0.5, 1.0, 0.0, 2.9, -2.0])
    s = process({"repetition_penalty": 2.0}, [1, 2], lg, 20)
    check(s[1] == 1.5 and s[2] == -2.0 and s[3] == 2.0, f"repetition_penalty: {s.tolist()}")
    s = process({"no_repeat_ngram_size": 2}, [0, 4, 1, 4], lg, 20)
    check(s[1] == float("-inf") and int(torch.isinf(s).sum()) == 1, f"no_repeat_ngram_size 2: {s.tolist()}")
    s = process({"bad_words_ids": [[8], [4, 1], [3, 3], [2]], "eos_token_id": 2}, [0, 4], lg, 20)
    check(s[8] == s[1] == float("-inf") and s[2] == -1.0 and s[3] == 2.0, f"bad_words_ids: {s.tolist()}")
    s = process({"min_length": 3, "eos_token_id": [1, 3]}, [0, 5], lg, 20)
    check(s[1] == s[3] == float("-inf"), f"min_length: {s.tolist()}")
    s = process({"min_new_tokens": 2, "eos_token_id": 1}, [0, 5], lg, 20)
    check(s[1] == float("-inf"), f"min_new_tokens 2 after one new token: {s.tolist()}")
    s = process({"min_new_tokens": 2, "eos_token_id": 1}, [0, 5, 6], lg, 20)
    check(s[1] == 3.0, f"min_new_tokens 2 after two new tokens: {s.tolist()}")
    s = process({"forced_eos_token_id": [6, 4]}, [0, 5], lg, 3)
    check(int(np.argmax(s.numpy())) == 4 and int(torch.isinf(s).sum()) == V - 2, f"forced_eos list: {s.tolist()}")
    s = process({"forced_bos_token_id": 7}, [0], lg, 3)
    check(int(np.argmax(s.numpy())) == 7, f"forced_bos: {s.tolist()}")
    if failures:
        print(f"{len(failures)} failed")
        sys.exit(1)
    print("seq2seq reference: every check passed")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "buckets":
        with open(sys.argv[2], "w") as f:
            f.write("\n".join(bucket_lines()) + "\n")
    elif len(sys.argv) == 3 and sys.argv[1] == "self-test":
        self_test(sys.argv[2])
    else:
        sys.exit(__doc__)
