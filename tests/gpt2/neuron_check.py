#!/usr/bin/python3
"""attn show --model --show queries,keys (the neuron view) against plain PyTorch forwards
(tests/gpt2/reference.py, tests/llama/llama_reference.py, tests/encoder/encoder_reference.py), which hand
back each layer's q and k as the scores' product reads them.

On a GPT-2-shaped checkpoint (also with scale_attn_by_inverse_layer_idx), a grouped-query Llama-shaped one
(6 query heads on 2 key/value heads, RoPE), a Qwen2-shaped one (q and k biases, RoPE) and a BERT-shaped
one: the JSON's "neuron" queries equal the reference's q of the chosen head and its keys the reference's k
of the head's kv group within 1e-5 of their largest magnitude (float32 after two layers: Llama's values reach
40, and its layer-1 keys differ by 2.6e-5); kv_head, rotary and scaled_by are the reference's; the products
equal q[I] * k elementwise and each row of products sums to the reference's raw score q_I·k_j, within
1e-5 of the largest magnitude, and to the trace's own scores within 1e-5 of theirs. A wrong head (the next one)
must disagree, so the comparison can fail. Then the terminal, the figures' names, attn render on the trace
and the refusals (exit 2, one line)."""
import json
import os
import sys
import tempfile

import numpy as np
import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "llama"))
sys.path.insert(0, os.path.join(HERE, "..", "encoder"))
sys.path.insert(0, os.path.join(HERE, "..", "seq2seq"))
sys.path.insert(0, os.path.join(HERE, ".."))
from attn_run import Checks  # noqa: E402
from make_checkpoint import make as make_gpt2  # noqa: E402
from reference import forward as gpt2_forward  # noqa: E402
from make_llama import make as make_llama  # noqa: E402
from llama_reference import forward as llama_forward  # noqa: E402
from make_encoder import make as make_encoder  # noqa: E402
from encoder_reference import forward as encoder_forward  # noqa: E402

ATTN = sys.argv[1]
TOL = 1e-5
torch.set_num_threads(1)
CHECKS = Checks(ATTN)
failures, run, check = CHECKS.failures, CHECKS.run, CHECKS.check

TEXT = "the cat sat on the mat. it was tired"
# name: (maker, reference forward (w, cfg, ids, qk) -> None, text, [(layer, head, query)], rotary)
MODELS = {
    "gpt2": (lambda d: make_gpt2(d, layers=3, heads=4, embd=16, seed=21),
             lambda w, c, ids, qk: gpt2_forward(w, c, ids, qk=qk), TEXT, [(0, 0, 3), (2, 3, 7)], False),
    "gpt2-inverse-layer": (lambda d: make_gpt2(d, layers=2, heads=2, embd=8, seed=22,
                                               config_extra={"scale_attn_by_inverse_layer_idx": True}),
                           lambda w, c, ids, qk: gpt2_forward(w, c, ids, qk=qk), TEXT, [(1, 1, 5)], False),
    "llama": (lambda d: make_llama(d, family="llama", layers=2, heads=6, kv_heads=2, hidden=24, seed=23),
              lambda w, c, ids, qk: llama_forward(w, c, ids, qk=qk), TEXT, [(1, 4, 6), (0, 2, 0)], True),
    "qwen2": (lambda d: make_llama(d, family="qwen2", layers=2, heads=4, kv_heads=2, hidden=16, seed=24),
              lambda w, c, ids, qk: llama_forward(w, c, ids, qk=qk), TEXT, [(1, 3, 4)], True),
    "bert": (lambda d: make_encoder(d, "bert", layers=2, heads=3, embd=12, seed=25),
             lambda w, c, ids, qk: encoder_forward(w, c, ids, qk=qk), "the cat sat on the mat", [(1, 2, 2)], False),
}


def maxdiff(a, b):
    """The largest |a − b| over the largest |b| (at least 1): float32's error grows with the values."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return float("inf")
    return float(np.max(np.abs(a - b))) / max(1.0, float(np.max(np.abs(b)))) if a.size else 0.0


def compare(name, d, w, cfg, forward, text, layer, head, query, rotary, tmp, measured):
    out = os.path.join(tmp, f"{name}-{layer}-{head}.json")
    r = run(["show", "--model", d, "--show", "queries,keys", "--layer", str(layer), "--head", str(head),
             "--query", str(query), "--json", out, text])
    if not check(r.returncode == 0, f"{name} l{layer} h{head}: exit {r.returncode}: {r.stderr.strip()}"):
        return None
    trace = json.load(open(out))
    n = trace.get("neuron")
    if not check(isinstance(n, dict), f"{name}: the trace has no neuron object"):
        return None
    ids = trace["token_ids"]
    qk = []
    forward(w, cfg, ids, qk)
    q_all, k_all, scale = qk[layer]
    H, G = q_all.shape[0], k_all.shape[0]
    g = head // (H // G)
    q_ref, k_ref = q_all[head], k_all[g]                        # (T, d), (S, d)
    raw_ref = q_ref[query].astype(np.float64) @ k_ref.astype(np.float64).T  # (S)
    check(n["layer"] == layer and n["head"] == head, f"{name}: neuron is layer {n['layer']} head {n['head']}")
    check(n["kv_head"] == g, f"{name} h{head}: kv_head {n['kv_head']}, the reference's group {g}")
    check(n["rotary"] is rotary, f"{name}: rotary {n['rotary']}")
    check(abs(n["scaled_by"] - scale) <= 1e-7 * max(1.0, scale), f"{name}: scaled_by {n['scaled_by']} vs {scale}")
    check(n["query"] == query, f"{name}: query {n['query']}")
    dq, dk = maxdiff(n["queries"], q_ref), maxdiff(n["keys"], k_ref)
    check(dq <= TOL, f"{name} l{layer} h{head}: queries differ from the reference's by {dq:.3g}")
    check(dk <= TOL, f"{name} l{layer} h{head}: keys differ from the reference's (kv g {g}) by {dk:.3g}")
    # the comparison can fail: the next head's (or next group's) q and k are not these
    other = (head + 1) % H
    check(maxdiff(n["queries"], q_all[other]) > 1e-3, f"{name}: head {other}'s queries equal head {head}'s")
    products = np.asarray(n["products"], dtype=np.float64)
    dp = maxdiff(products, q_ref[query][None, :] * k_ref)
    check(dp <= TOL, f"{name}: products differ from q[I] * k by {dp:.3g}")
    sums = products.sum(1)
    ds = maxdiff(sums, raw_ref)
    check(ds <= TOL, f"{name}: the products' row sums differ from the reference's raw scores by {ds:.3g}")
    # the trace's own raw scores (chosen layer and head) are those sums, and scaled_by × sum the scaled score
    own = None
    for lay in trace["attention"][0]["layers"]:
        if lay["layer"] == layer:
            own = np.asarray(lay["heads"][head]["scores"], dtype=np.float64)[query]
    if check(own is not None, f"{name}: the trace has no layer {layer}"):
        do = maxdiff(sums, own)
        check(do <= TOL, f"{name}: the row sums differ from the trace's own scores by {do:.3g}")
    measured.append((name, layer, head, query, dq, dk, dp, ds))
    return trace, out


with tempfile.TemporaryDirectory() as tmp:
    measured, folders, traces = [], {}, {}
    for name, (maker, forward, text, picks, rotary) in MODELS.items():
        d = os.path.join(tmp, name)
        w, cfg = maker(d)
        folders[name] = d
        for layer, head, query in picks:
            got = compare(name, d, w, cfg, forward, text, layer, head, query, rotary, tmp, measured)
            if got:
                traces[name] = got
    for row in measured:
        print("%-20s l%d h%d I=%d  max |Δ| / max |ref|: queries %.2g keys %.2g products %.2g row sums %.2g" % row)

    # without --query: queries and keys, no products
    d = folders["llama"]
    out = os.path.join(tmp, "noquery.json")
    r = run(["show", "--model", d, "--show", "keys", "--layer", "1", "--head", "5", "--json", out, TEXT])
    if check(r.returncode == 0, f"no --query: exit {r.returncode}: {r.stderr.strip()}"):
        n = json.load(open(out))["neuron"]
        check(n["query"] is None and n["products"] is None, "no --query: query and products are null")
        check(n["kv_head"] == 1 and len(n["queries"]) > 0, "no --query: head 5 of 6 on 2 groups reads kv g 1")
    # a run that asks for no queries or keys keeps none
    out = os.path.join(tmp, "plain.json")
    r = run(["show", "--model", d, "--json", out, TEXT])
    check(r.returncode == 0 and "neuron" not in json.load(open(out)), "a plain run's trace has no neuron object")

    # the terminal: Q[I], the products, the sums beside the model's scores; the group named
    r = run(["show", "--model", d, "--show", "queries,keys", "--layer", "1", "--head", "4", "--query", "6", TEXT])
    check(r.returncode == 0, f"terminal: exit {r.returncode}: {r.stderr.strip()}")
    for words in ("neuron view (layer 1, head 4, kv g 1)", "after the bias and RoPE, before the scale", "Q[6]",
                  "\u03a3 products", "model's q\u00b7k", "products Q[6][c]\u00b7K[j][c]"):
        check(words in r.stdout, f"terminal: no '{words}' in the output")

    # the figures, named <type>-l<L>-h<H>-queries/keys/products
    figs = os.path.join(tmp, "figs")
    r = run(["show", "--model", d, "--show", "queries,keys", "--layer", "1", "--head", "4", "--query", "6",
             "--png", figs, "--svg", figs, TEXT])
    if check(r.returncode == 0, f"figures: exit {r.returncode}: {r.stderr.strip()}"):
        names = set(os.listdir(figs))
        for stem in ("queries", "keys", "products"):
            for ext in ("png", "svg"):
                check(f"llama-l1-h4-{stem}.{ext}" in names, f"figures: no llama-l1-h4-{stem}.{ext} in {sorted(names)}")
        svg = open(os.path.join(figs, "llama-l1-h4-products.svg"), encoding="utf-8").read()
        check("\u03a3" in svg and "query 6" in svg, "the products figure labels its row sums and names query 6")
    figs2 = os.path.join(tmp, "figs2")
    r = run(["show", "--model", d, "--figures", "keys", "--layer", "0", "--head", "1", "--png", figs2, TEXT])
    if check(r.returncode == 0, f"--figures keys: exit {r.returncode}: {r.stderr.strip()}"):
        names = set(os.listdir(figs2))
        check(names == {"llama-l0-h1-keys.png", "llama-overview.png"}, f"--figures keys wrote {sorted(names)}")

    # attn render reads such a trace back (the neuron object is the run's, not drawn again)
    trace, path = traces["gpt2"]
    r = run(["render", path, "--png", os.path.join(tmp, "render")])
    check(r.returncode == 0, f"render of a trace with a neuron object: exit {r.returncode}: {r.stderr.strip()}")

    # refusals: values and context still refused; an encoder-decoder; --query past the text; products without --query
    from make_seq2seq import make as make_seq2seq  # noqa: E402
    s2s = os.path.join(tmp, "t5")
    make_seq2seq(s2s, "t5")
    cases = [
        (["show", "--model", d, "--show", "values", TEXT], "--show values: a model run keeps"),
        (["show", "--model", d, "--show", "queries,context", TEXT], "--show context: a model run keeps"),
        (["show", "--model", s2s, "--show", "queries,keys", "a b"], "is an encoder-decoder with three sets"),
        (["show", "--model", d, "--show", "queries,keys", "--query", "99", TEXT], "--query 99 is past the last query"),
        (["show", "--model", d, "--png", os.path.join(tmp, "x"), "--figures", "products", TEXT],
         "--figures products draws query I's products"),
    ]
    for args, words in cases:
        r = run(args)
        check(CHECKS.refused(r, words, codes=(2,)), f"{' '.join(args[3:])}: exit {r.returncode}, stderr {r.stderr.strip()!r}")

CHECKS.finish("neuron view: queries, keys, products and their row sums as plain PyTorch forwards compute them")
