#!/usr/bin/python3
"""attn heads against numbers computed here, outside attn.

1. A tiny random GPT-2 (make_checkpoint.py) and three texts, one of a single token (where every
   pattern is undefined and must be skipped). For each text `attn show --model --json` gives every
   head's weights; the seven patterns are computed from them here in numpy, from their definitions
   (docs/trace-format.md, "attn heads"), with punctuation decided by Python's unicodedata, and averaged
   over the texts that define them. They must equal `attn heads --json`'s within 1e-6.
2. The induction run: the ids attn records are fed to a plain PyTorch forward (reference.py) and the
   score recomputed from its weights (within 1e-5).
3. A checkpoint with one head built to copy: layer 0 head 0's queries and keys read one-hot positions
   so that query i attends to key i - R + 1, the induction target for R; its induction score must be
   above 0.99 and rank first, the random head's well below."""
import json
import os
import subprocess
import sys
import tempfile
import unicodedata

import numpy as np
import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_files import safetensors_bytes, tensor_bytes  # noqa: E402
from make_checkpoint import make  # noqa: E402
from reference import forward  # noqa: E402

ATTN = sys.argv[1]
torch.set_num_threads(1)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args):
    return subprocess.run([ATTN] + args, capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"))


MARKS = "\u00b7\u21b5\u21e5\ufffd"


def is_punct(label):
    core = [c for c in label if not c.isspace() and c not in MARKS]
    return bool(core) and all(unicodedata.category(c)[0] in "PS" for c in core)


def patterns(W, tokens, ids):
    """One head's (T, T) weights -> {pattern: score or None}, from the definitions."""
    T = W.shape[0]
    out = dict.fromkeys(["previous", "first", "self", "punctuation", "duplicate", "sink"])
    if T >= 2:
        q = range(1, T)
        out["previous"] = np.mean([W[i, i - 1] for i in q])
        out["first"] = np.mean([W[i, 0] for i in q])
        out["self"] = np.mean([W[i, i] for i in q])
        p = [is_punct(t) for t in tokens]
        out["punctuation"] = np.mean([sum(W[i, j] for j in range(i + 1) if p[j]) for i in q])
        out["sink"] = max(np.mean(W[j + 1:, j]) for j in range(T - 1))
    dup = [sum(W[i, j] for j in range(i) if ids[j] == ids[i]) for i in range(T) if ids[i] in ids[:i]]
    out["duplicate"] = np.mean(dup) if dup else None
    return out


def induction(W, R):
    return np.mean([W[i, i - R + 1] for i in range(R, 2 * R)])


with tempfile.TemporaryDirectory() as tmp:
    # 1. the text patterns
    d = os.path.join(tmp, "m")
    w, cfg = make(d, layers=3, heads=4, embd=16, positions=32, seed=3)
    texts = ["the cat sat on the mat. it was tired!", "the mat, the cat: the hat", "a"]
    r = run(["heads", "--model", d, "--json", "-"] + texts)
    check(r.returncode == 0, f"heads: exit {r.returncode}: {r.stderr.strip()}")
    got = json.loads(r.stdout)
    L, H = cfg["n_layer"], cfg["n_head"]
    sums = {}
    for n, text in enumerate(texts):
        s = run(["show", "--model", d, "--json", "-", text])
        check(s.returncode == 0, f"show: exit {s.returncode}")
        trace = json.loads(s.stdout)
        check(got["texts"][n]["token_ids"] == trace["token_ids"], f"text {n}: ids")
        check(got["texts"][n]["punctuation"] == [is_punct(t) for t in trace["tokens"]], f"text {n}: punctuation")
        for layer in trace["attention"][0]["layers"]:
            for h in layer["heads"]:
                W = np.array(h["weights"], dtype=np.float64)
                for name, v in patterns(W, trace["tokens"], trace["token_ids"]).items():
                    if v is not None:
                        sums.setdefault((name, layer["layer"], h["head"]), []).append(v)
    worst, compared = 0.0, 0
    for name in ["previous", "first", "self", "punctuation", "duplicate", "sink"]:
        check(got["defined_texts"][name] == len(sums.get((name, 0, 0), [])), f"{name}: defined in {got['defined_texts'][name]} texts")
        for l in range(L):
            for h in range(H):
                want = sums.get((name, l, h))
                have = got["patterns"][name][l][h]
                if want is None:
                    check(have is None, f"{name} l{l} h{h}: {have}, want undefined")
                    continue
                worst = max(worst, abs(have - float(np.mean(want))))
                compared += 1
    check(worst <= 1e-6, f"text patterns differ by {worst:.3g}")
    check(got["defined_texts"]["previous"] == 2, "the one-token text is skipped")
    print(f"text patterns: {compared} scores over {L}x{H} heads and {len(texts)} texts within {worst:.2g}")

    # 2. the induction run through PyTorch
    ind = got["induction"]
    R = ind["R"]
    check(R == 16 and ind["seed"] == 0 and len(ind["token_ids"]) == 2 * R, f"induction record {ind['R']}, {ind['seed']}")
    check(ind["token_ids"][:R] == ind["token_ids"][R:] and len(set(ind["token_ids"][:R])) == R, "ids: R distinct, twice")
    ref, _ = forward(w, cfg, ind["token_ids"])
    iworst = max(abs(got["patterns"]["induction"][l][h] - induction(ref[l][h].astype(np.float64), R)) for l in range(L) for h in range(H))
    check(iworst <= 1e-5, f"induction differs from PyTorch by {iworst:.3g}")
    print(f"induction: R={R}, {L}x{H} heads within {iworst:.2g} of a PyTorch forward")

    # 3. a head built to copy: x = one-hot position (wte 0), head 0: q = s * shift(x), k = x
    R, C, T = 8, 32, 16
    d2 = os.path.join(tmp, "copy")
    w2, cfg2 = make(d2, layers=1, heads=2, embd=C, positions=T, seed=5)
    w2["wte.weight"][:] = 0
    w2["wpe.weight"][:] = 0
    w2["wpe.weight"][np.arange(T), np.arange(T)] = 1  # position p: e_p
    w2["h.0.ln_1.weight"][:] = 1
    w2["h.0.ln_1.bias"][:] = 0
    qkv = w2["h.0.attn.c_attn.weight"]
    qkv[:, 0:16] = 0
    qkv[:, C:C + 16] = 0
    for p in range(R - 1, T):
        qkv[p, p - R + 1] = 3.0  # query at p looks for the code of p - R + 1
    qkv[np.arange(T), C + np.arange(T)] = 1.0  # key j carries the code of j
    w2["h.0.attn.c_attn.bias"][0:16] = 0
    w2["h.0.attn.c_attn.bias"][C:C + 16] = 0
    with open(os.path.join(d2, "model.safetensors"), "wb") as f:
        f.write(safetensors_bytes([(k, "F32", v.shape, tensor_bytes(v, "F32")) for k, v in w2.items()], {"format": "pt"}))
    r = run(["heads", "--model", d2, "--induction-length", str(R), "--seed", "11", "--rank", "induction", "--top", "1", "--json",
             os.path.join(tmp, "copy.json"), "a b"])
    check(r.returncode == 0, f"copy: exit {r.returncode}: {r.stderr.strip()}")
    got2 = json.load(open(os.path.join(tmp, "copy.json")))
    s0, s1 = got2["patterns"]["induction"][0]
    ref2, _ = forward(w2, cfg2, got2["induction"]["token_ids"])
    want0 = induction(ref2[0][0].astype(np.float64), R)
    check(abs(s0 - want0) <= 1e-5, f"copy head: {s0} against PyTorch's {want0}")
    check(s0 > 0.99, f"copy head's induction score {s0:.4f}, want > 0.99")
    check(s1 < 0.5, f"random head's induction score {s1:.4f}, want < 0.5")
    check(got2["induction"]["seed"] == 11, "seed recorded")
    check("top heads by induction:\n  layer 0 head 0: " in r.stdout, "the copy head ranks first")
    print(f"copy-built head: induction {s0:.4f} (PyTorch {want0:.4f}), random head {s1:.4f}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
