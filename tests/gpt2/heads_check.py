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
   above 0.99 and rank first, the random head's well below.
4. Chance levels: for every text a uniform head (each query's weight 1/(i+1) on keys 0..i) is scored here
   with the same definitions; `attn heads --json`'s "chance" must equal those means (and the random-id
   induction's uniform score), and natural-text induction ("induction_text") must equal numpy's.
5. Hand-made traces read by `attn heads --trace` (show's trace of the jury sentence, weights replaced):
   a head whose last query alone piles on the second-to-last key names no sink there; a head scoring 0.21
   on previous against chance 0.18 is not named ("no head clears chance"), one scoring 0.9 is.
6. --top figures come from the text where the head's pattern is strongest: a head built to look at the
   previous token scores higher on a short second text, and its figure is drawn on that text."""
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
        out["sink"] = sink(W)
    dup = [sum(W[i, j] for j in range(i) if ids[j] == ids[i]) for i in range(T) if ids[i] in ids[:i]]
    out["duplicate"] = np.mean(dup) if dup else None
    return out


def sink(W):
    """The largest mean over the queries after a key, among keys that at least 2 and half of those
    queries give at least a uniform row's weight 1/(i+1); None when no key holds."""
    T, best = W.shape[0], None
    for j in range(T - 1):
        after = range(j + 1, T)
        backing = sum(1 for i in after if W[i, j] >= 1.0 / (i + 1) - 1e-6)
        if backing < 2 or 2 * backing < len(after):
            continue
        m = np.mean(W[j + 1:, j])
        if best is None or m > best:
            best = m
    return best


def induction_text(W, ids):
    """Natural-text induction: queries with an earlier, not adjacent copy; weight on the tokens after."""
    T = W.shape[0]
    per = [sum(W[i, j + 1] for j in range(i - 1) if ids[j] == ids[i]) for i in range(T) if ids[i] in ids[:max(i - 1, 0)]]
    return np.mean(per) if per else None


def uniform(T):
    return np.array([[1.0 / (i + 1) if j <= i else 0.0 for j in range(T)] for i in range(T)])


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
    sums, chance, itext, itext_chance = {}, {}, {}, []
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
                v = induction_text(W, trace["token_ids"])
                if v is not None:
                    itext.setdefault((layer["layer"], h["head"]), []).append(v)
        U = uniform(len(trace["tokens"]))
        for name, v in patterns(U, trace["tokens"], trace["token_ids"]).items():
            if v is not None:
                chance.setdefault(name, []).append(v)
        v = induction_text(U, trace["token_ids"])
        if v is not None:
            itext_chance.append(v)
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
    # the chance levels: a uniform head's mean over the texts, equal in every head of every layer
    cworst = 0.0
    for name in ["previous", "first", "self", "punctuation", "duplicate", "sink"]:
        want = float(np.mean(chance[name]))
        for l in range(L):
            for h in range(H):
                cworst = max(cworst, abs(got["chance"][name][l][h] - want))
    check(cworst <= 1e-6, f"chance levels differ from numpy's uniform head by {cworst:.3g}")
    # the sink rule on a hand matrix: the last query alone on key T-2 is no sink; key 0 (3 of 4 back it) is
    Wj = uniform(5)
    Wj[4] = 0
    Wj[4, 3] = 1
    check(abs(sink(Wj) - (1 / 2 + 1 / 3 + 1 / 4) / 4) < 1e-12, "numpy's sink rule on the hand matrix")
    # natural-text induction and its chance
    tworst, tcompared = 0.0, 0
    for l in range(L):
        for h in range(H):
            want = itext.get((l, h))
            have = got["induction_text"][l][h]
            if want is None:
                check(have is None, f"induction_text l{l} h{h}: {have}, want null")
                continue
            tworst, tcompared = max(tworst, abs(have - float(np.mean(want)))), tcompared + 1
            tworst = max(tworst, abs(got["induction_text_chance"][l][h] - float(np.mean(itext_chance))))
    check(tcompared == L * H and tworst <= 1e-6, f"induction_text: {tcompared} heads compared, differ by {tworst:.3g}")
    # only the second text repeats a token apart from its neighbour ("·the" at 3 and 6; the first text's
    # "the" and "·the" are different ids)
    check(got["induction_text_defined_texts"] == len(itext[(0, 0)]) == 1,
          f"induction_text defined in {got['induction_text_defined_texts']} texts, numpy {len(itext[(0, 0)])}, want 1")
    print(f"chance levels within {cworst:.2g}; natural-text induction: {tcompared} heads within {tworst:.2g}; "
          f"chance of previous {got['chance']['previous'][0][0]:.4f}")
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
    iwant = induction(uniform(2 * R), R)
    ichance = max(abs(got["chance"]["induction"][l][h] - iwant) for l in range(L) for h in range(H))
    check(ichance <= 1e-6, f"induction chance differs from a uniform head's {iwant:.4f} by {ichance:.3g}")
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

    # 5. hand-made traces: the jury sentence's trace from show, three heads' weights chosen here
    jury = "The jury praised the administration and operation of the Atlanta police department."
    d3 = os.path.join(tmp, "jury")
    make(d3, layers=1, heads=3, embd=12, positions=32, seed=7,
         words=("the", "jury", "praised", "administration", "and", "operation", "of", "atlanta", "police", "department"))
    s = run(["show", "--model", d3, "--json", "-", jury])
    check(s.returncode == 0, f"jury show: exit {s.returncode}: {s.stderr.strip()}")
    trace = json.loads(s.stdout)
    T = len(trace["tokens"])
    check(trace["tokens"][T - 2].endswith("department") and T >= 12, f"jury tokens {trace['tokens']}")

    def mixed(a):
        """Rows i >= 1: a on the previous token, the rest spread evenly over the other keys 0..i."""
        W = uniform(T)
        for i in range(1, T):
            W[i, :i + 1] = (1 - a) / i
            W[i, i - 1] = a
        return W

    parked = uniform(T)
    parked[T - 1] = 0
    parked[T - 1, T - 2] = 1  # only the final query attends to "department"

    def trace_with(heads):
        t = json.loads(json.dumps(trace))
        for h, W in zip(t["attention"][0]["layers"][0]["heads"], heads):
            h["weights"] = W.tolist()
        path = os.path.join(tmp, f"jury-{len(heads)}-{heads[2][1, 0]:.3f}.json")
        json.dump(t, open(path, "w"))
        return path

    chance_prev = float(np.mean([1.0 / (i + 1) for i in range(1, T)]))
    want_sink = sink(parked)
    r = run(["heads", "--trace", trace_with([parked, mixed(0.21), mixed(0.21)]), "--precision", "4"])
    check(r.returncode == 0, f"jury heads: exit {r.returncode}: {r.stderr.strip()}")
    sink_rows = [line for line in r.stdout.splitlines() if line.startswith("  sink ")]
    check(len(sink_rows) == 1 and "department" not in sink_rows[0], f"the sink line names no sink at department: {sink_rows}")
    table = r.stdout[r.stdout.index("sink: "):]
    row = table.splitlines()[2].split()
    check(row[:3] == ["layer", "0", f"{want_sink:.4f}"], f"head 0's sink {row[:3]}, numpy {want_sink:.4f} (key 0, not 1.00 at department)")
    prev = [line for line in r.stdout.splitlines() if line.startswith("  previous ")]
    check(prev == [f"  previous     no head clears chance (the highest, layer 0 head 1, scores 0.2100 against chance {chance_prev:.4f})"],
          f"previous 0.21 against chance {chance_prev:.4f} is not named: {prev}")
    check("chance + 0.2 and at least 2 \u00d7 chance" in r.stdout, "the legend states the margin")
    r = run(["heads", "--trace", trace_with([parked, mixed(0.21), mixed(0.9)]), "--precision", "2"])
    prev = [line for line in r.stdout.splitlines() if line.startswith("  previous ")]
    check(prev == [f"  previous     layer 0 head 2: 0.90 of its attention on the previous token (chance {chance_prev:.2f})"],
          f"previous 0.9 is named: {prev}")
    print(f"jury trace ({T} tokens): sink {want_sink:.4f} at key 0, not department; previous 0.21 not named against chance {chance_prev:.4f}")

    # 6. --top figures on the strongest text: one-hot positions, head 0 built to look at the previous token
    C, T = 32, 16
    d4 = os.path.join(tmp, "prev")
    w4, _ = make(d4, layers=1, heads=2, embd=C, positions=T, seed=9)
    w4["wte.weight"][:] = 0
    w4["wpe.weight"][:] = 0
    w4["wpe.weight"][np.arange(T), np.arange(T)] = 1
    w4["h.0.ln_1.weight"][:] = 1
    w4["h.0.ln_1.bias"][:] = 0
    qkv = w4["h.0.attn.c_attn.weight"]
    qkv[:, 0:16] = 0
    qkv[:, C:C + 16] = 0
    for p in range(1, T):
        qkv[p, p - 1] = 1.0  # query at p looks for the code of p - 1
    qkv[np.arange(T), C + np.arange(T)] = 1.0
    w4["h.0.attn.c_attn.bias"][0:16] = 0
    w4["h.0.attn.c_attn.bias"][C:C + 16] = 0
    with open(os.path.join(d4, "model.safetensors"), "wb") as f:
        f.write(safetensors_bytes([(k, "F32", v.shape, tensor_bytes(v, "F32")) for k, v in w4.items()], {"format": "pt"}))
    texts4 = ["the cat sat on the mat it was tired", "it sat"]
    svg = os.path.join(tmp, "svg")
    r = run(["heads", "--model", d4, "--rank", "previous", "--top", "1", "--svg", svg, "--json", os.path.join(tmp, "prev.json")] + texts4)
    check(r.returncode == 0, f"prev heads: exit {r.returncode}: {r.stderr.strip()}")
    got4 = json.load(open(os.path.join(tmp, "prev.json")))
    per = []
    for text in texts4:
        t = json.loads(run(["show", "--model", d4, "--json", "-", text]).stdout)
        per.append(patterns(np.array(t["attention"][0]["layers"][0]["heads"][0]["weights"], dtype=np.float64), t["tokens"], t["token_ids"])["previous"])
    check(per[1] > per[0], f"head 0's previous per text {per}: the second text is stronger")
    check(got4["top"]["pattern"] == "previous" and got4["top"]["heads"] == [{"layer": 0, "head": 0, "score": got4["patterns"]["previous"][0][0], "text": 1}],
          f"the top head drawn on text 1: {got4['top']}")
    fig = open(os.path.join(svg, "gpt2-l0-h0-weights.svg")).read()
    check("tired" not in fig and "\u00b7sat" in fig, "the figure shows the second text's tokens, not the first's")
    print(f"--top: head 0 previous {per[0]:.3f} on text 0, {per[1]:.3f} on text 1: drawn on text 1")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
