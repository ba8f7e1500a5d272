#!/usr/bin/python3
"""attn heads on an encoder against numbers computed here, outside attn.

A tiny random BERT, RoBERTa and DistilBERT (make_encoder.py, byte-level BPE files) and three texts, one
of them a single word. For each text `attn show --model --json` gives every head's (T, T) weights; the
patterns are computed from them here in numpy from the encoder definitions (core/analysis/head_patterns.h,
docs/bert.md): every query sees every key, so first, self, punctuation and sink average over all T
queries, next over queries 0..T-2, duplicate over the other copies on either side. They must equal
`attn heads --json`'s within 1e-6, `next` must be there (and absent from a GPT-2's JSON), and every
sink must be the key with the largest column mean. The "chance" levels must equal the same scores of a
uniform encoder head (1/T on every key) averaged over the texts."""
import json
import os
import subprocess
import sys
import tempfile
import unicodedata

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "gpt2"))
from make_encoder import make  # noqa: E402
from make_checkpoint import make as make_gpt2  # noqa: E402

ATTN = sys.argv[1]
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
    """One encoder head's (T, T) weights -> {pattern: score or None}, from the encoder definitions."""
    T = W.shape[0]
    out = dict.fromkeys(["previous", "next", "first", "self", "punctuation", "duplicate", "sink"])
    sink_key = None
    if T >= 2:
        out["previous"] = np.mean([W[i, i - 1] for i in range(1, T)])
        out["next"] = np.mean([W[i, i + 1] for i in range(T - 1)])
        out["first"] = np.mean(W[:, 0])
        out["self"] = np.mean(np.diag(W))
        p = np.array([is_punct(t) for t in tokens])
        out["punctuation"] = np.mean(W[:, p].sum(axis=1)) if p.any() else 0.0
        col = W.mean(axis=0)
        sink_key = int(np.argmax(col))  # the first of equal maxima, as attn's ties
        out["sink"] = col[sink_key]
    dup = [sum(W[i, j] for j in range(T) if j != i and ids[j] == ids[i]) for i in range(T) if ids.count(ids[i]) > 1]
    out["duplicate"] = np.mean(dup) if dup else None
    return out, sink_key


with tempfile.TemporaryDirectory() as tmp:
    texts = ["the cat sat on the mat. it was tired!", "the mat, the cat: the hat", "cat"]
    for family in ["bert", "roberta", "distilbert"]:
        d = os.path.join(tmp, family)
        _, cfg = make(d, family)
        r = run(["heads", "--model", d, "--json", "-", "--induction-length", "4"] + texts)
        check(r.returncode == 0, f"{family} heads: exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode != 0:
            continue
        got = json.loads(r.stdout)
        check(got["model"].get("stack") == "encoder", f"{family}: the JSON says encoder")
        check("next" in got["patterns"], f"{family}: next is listed")
        sums, sinks, chance = {}, {}, {}
        for n, text in enumerate(texts):
            s = run(["show", "--model", d, "--json", "-", text])
            check(s.returncode == 0, f"{family} show: exit {s.returncode}: {s.stderr.strip()}")
            trace = json.loads(s.stdout)
            check(got["texts"][n]["token_ids"] == trace["token_ids"], f"{family} text {n}: ids")
            for layer in trace["attention"][0]["layers"]:
                for h in layer["heads"]:
                    W = np.array(h["weights"], dtype=np.float64)
                    check(np.all(W > 0), f"{family}: every key visible (bidirectional)")
                    values, key = patterns(W, trace["tokens"], trace["token_ids"])
                    for name, v in values.items():
                        if v is not None:
                            sums.setdefault((name, layer["layer"], h["head"]), []).append(v)
                    sinks[(n, layer["layer"], h["head"])] = key
            T = len(trace["tokens"])  # the chance level: a uniform encoder head, 1/T on every key
            for name, v in patterns(np.full((T, T), 1.0 / T), trace["tokens"], trace["token_ids"])[0].items():
                if v is not None:
                    chance.setdefault(name, []).append(v)
        worst, compared = 0.0, 0
        for name in ["previous", "next", "first", "self", "punctuation", "duplicate", "sink"]:
            for l in range(len(got["patterns"][name])):
                for h in range(len(got["patterns"][name][l])):
                    want, have = sums.get((name, l, h)), got["patterns"][name][l][h]
                    if want is None:
                        check(have is None, f"{family} {name} l{l} h{h}: {have}, want undefined")
                        continue
                    worst = max(worst, abs(have - float(np.mean(want))))
                    compared += 1
        check(compared > 0 and worst <= 1e-6, f"{family}: patterns differ by {worst:.3g}")
        cworst = max(abs(got["chance"][name][l][h] - float(np.mean(chance[name])))
                     for name in chance for l in range(len(got["chance"][name])) for h in range(len(got["chance"][name][l])))
        check(len(chance) == 7 and cworst <= 1e-6, f"{family}: chance levels differ from a uniform encoder head's by {cworst:.3g}")
        bad = [k for k, key in sinks.items() if key is not None and got["sinks"][k[0]][k[1]][k[2]]["position"] != key]
        check(not bad, f"{family}: sink positions differ at {bad[:3]}")
        check(got["defined_texts"]["next"] == len(texts) - (1 if len(got["texts"][2]["tokens"]) < 2 else 0),
              f"{family}: next defined in {got['defined_texts']['next']} texts")
        print(f"{family}: {compared} encoder scores within {worst:.2g}, chance within {cworst:.2g}; first token {got['texts'][0]['tokens'][0]!r}")

    # a decoder's JSON has no next, and --rank next is refused with its reason
    g = os.path.join(tmp, "gpt2")
    make_gpt2(g, layers=1, heads=2, embd=8, positions=16, seed=1)
    r = run(["heads", "--model", g, "--json", "-", "a b c"])
    check(r.returncode == 0 and "next" not in json.loads(r.stdout)["patterns"], "gpt2: no next in the JSON")
    check("next" not in json.loads(r.stdout)["defined_texts"], "gpt2: no next in defined_texts")
    r = run(["heads", "--model", g, "--rank", "next", "a b c"])
    check(r.returncode != 0 and "is a decoder, whose causal heads never see the next token" in r.stderr,
          f"gpt2 --rank next: exit {r.returncode}, {r.stderr.strip()}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
