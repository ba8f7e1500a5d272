#!/usr/bin/python3
"""attn show --model against a plain PyTorch forward of GPT-2 written from the architecture.

Builds tiny random GPT-2 checkpoints (tests/gpt2/make_checkpoint.py: safetensors written by hand;
F32, F16, BF16; with and without the "transformer." prefix; several shapes; a tied and an untied
head), runs `attn show --model DIR --json`, and compares every layer's and head's attention weights
and the top-5 predictions' ids and probabilities with PyTorch in float32.

Tolerances: 1e-5 on weights and probabilities for every dtype. The dtype only changes the stored
weights; both sides compute in float32 from the same widened values (make_checkpoint returns what a
reader gets back), so F16/BF16 add no error of their own: what is left is float32 summation order
(BLAS vs PyTorch), about 1e-6 here. Then bad checkpoints: each a one-line error, exit 1, no file."""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_checkpoint import make  # noqa: E402
from reference import forward, hf_config  # noqa: E402

ATTN = sys.argv[1]
TOL = 1e-5
torch.set_num_threads(1)


def run(args):
    return subprocess.run([ATTN] + args, capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"))


failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


TEXT = "the cat sat on the mat. it was tired<|endoftext|> the mat sat"
cases = [
    dict(layers=2, heads=2, embd=8, dtype="F32"),
    dict(layers=3, heads=4, embd=16, dtype="F32", prefix=True, lm_head=True),
    dict(layers=2, heads=3, embd=12, dtype="F16", vocab_extra=40),
    dict(layers=2, heads=2, embd=8, dtype="BF16", prefix=True),
    dict(layers=1, heads=1, embd=4, dtype="F16", positions=64),
    # config.json's fields as Hugging Face reads them
    dict(layers=3, heads=2, embd=8, dtype="F32", config_extra={"scale_attn_by_inverse_layer_idx": True}),
    dict(layers=2, heads=2, embd=8, dtype="F32", config_extra={"scale_attn_weights": False}),
    dict(layers=2, heads=2, embd=8, dtype="F32", config_extra={"num_attention_heads": 4}),
    dict(layers=2, heads=2, embd=8, dtype="F32", inner=20, config_extra={"activation_function": "gelu"}),
    dict(layers=2, heads=2, embd=8, dtype="F32", lm_head=True, config_extra={"tie_word_embeddings": True}),
]
with tempfile.TemporaryDirectory() as tmp:
    for n, case in enumerate(cases):
        d = os.path.join(tmp, f"m{n}")
        w, cfg = make(d, seed=n, **case)
        out = os.path.join(tmp, f"m{n}.json")
        r = run(["show", "--model", d, "--json", out, TEXT])
        check(r.returncode == 0, f"{case}: exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode:
            continue
        trace = json.load(open(out))
        ids = trace["token_ids"]
        ref_w, logits = forward(w, cfg, ids)
        worst = 0.0
        for layer in trace["attention"][0]["layers"]:
            check(len(layer["heads"]) == hf_config(cfg)["n_head"], f"{case}: {len(layer['heads'])} heads")
            for h in layer["heads"]:
                got = np.array(h["weights"], dtype=np.float64)
                worst = max(worst, float(np.abs(got - ref_w[layer["layer"]][h["head"]]).max()))
        check(len(trace["attention"][0]["layers"]) == cfg.get("num_hidden_layers", cfg["n_layer"]), f"{case}: {len(trace['attention'][0]['layers'])} layers")
        check(worst <= TOL, f"{case}: weights differ by {worst:.3g}")
        probs = torch.softmax(torch.from_numpy(logits).double(), -1).numpy()
        pworst = 0.0
        for i, row in enumerate(trace["predictions"]):
            check(row[0]["id"] == int(np.argmax(logits[i])), f"{case}: top prediction at {i}")
            for p in row:
                pworst = max(pworst, abs(p["p"] - probs[i][p["id"]]))
        check(pworst <= TOL, f"{case}: probabilities differ by {pworst:.3g}")
        check(trace["model"]["dtype"] == case["dtype"], f"{case}: dtype {trace['model']['dtype']}")
        print(f"{case['dtype']:>4} L{cfg['n_layer']} H{cfg['n_head']} C{cfg['n_embd']} prefix={case.get('prefix', False)}: "
              f"{len(ids)} tokens, weights within {worst:.2g}, probabilities within {pworst:.2g}")

    # pytorch_model.bin saved by torch.save with the causal-mask buffers transformers 4.x kept: h.N.attn.bias
    # as uint8 (older) or bool (later), masked_bias a float scalar; unused, so the run equals m0's safetensors run
    import shutil
    w0, cfg0 = make(os.path.join(tmp, "m0-again"), seed=0, **cases[0])
    P = cfg0["n_positions"]
    for mask_dtype in (torch.uint8, torch.bool):
        d = os.path.join(tmp, f"bin-{str(mask_dtype).split('.')[-1]}")
        os.makedirs(d)
        for f in ("config.json", "vocab.json", "merges.txt"):
            shutil.copy(os.path.join(tmp, "m0", f), d)
        sd = {k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in w0.items()}
        for i in range(cfg0["n_layer"]):
            sd[f"h.{i}.attn.bias"] = torch.tril(torch.ones(P, P)).view(1, 1, P, P).to(mask_dtype)
            sd[f"h.{i}.attn.masked_bias"] = torch.tensor(-1e4)
        torch.save(sd, os.path.join(d, "pytorch_model.bin"))
        r = run(["show", "--model", d, "--json", "-", TEXT])
        check(r.returncode == 0, f"pytorch_model.bin with {mask_dtype} attn.bias: exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode == 0:
            got, want = json.loads(r.stdout), json.load(open(os.path.join(tmp, "m0.json")))
            check(got["attention"] == want["attention"] and got["predictions"] == want["predictions"],
                  f"pytorch_model.bin with {mask_dtype} attn.bias gives another trace than model.safetensors")
            print(f"pytorch_model.bin with {mask_dtype} attn.bias buffers: the safetensors trace exactly")

    # the trace's own aggregates against a plain computation from its weights
    d = os.path.join(tmp, "m1")
    trace = json.load(open(os.path.join(tmp, "m1.json")))
    T = len(trace["tokens"])
    R = np.eye(T)
    for l, layer in enumerate(trace["attention"][0]["layers"]):
        mean = np.mean([np.array(h["weights"]) for h in layer["heads"]], axis=0)
        check(np.abs(mean - np.array(trace["aggregates"]["layer_mean"][l])).max() <= 1e-6, f"layer_mean {l}")
        A = 0.5 * mean + 0.5 * np.eye(T)
        A /= A.sum(1, keepdims=True)
        R = A @ R
        check(np.abs(R - np.array(trace["aggregates"]["rollout"][l])).max() <= 1e-5, f"rollout {l}")

    # tokenizer.json in place of vocab.json + merges.txt: the same ids
    tj_dir = os.path.join(tmp, "tj")
    make(tj_dir, seed=7)
    vocab = json.load(open(os.path.join(tj_dir, "vocab.json"), encoding="utf-8"))
    merges = [l for l in open(os.path.join(tj_dir, "merges.txt"), encoding="utf-8").read().split("\n")[1:] if l]
    want = run(["show", "--model", tj_dir, "--keep-layers", "0", "--json", "-", TEXT])
    os.remove(os.path.join(tj_dir, "vocab.json"))
    os.remove(os.path.join(tj_dir, "merges.txt"))
    with open(os.path.join(tj_dir, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump({"model": {"type": "BPE", "vocab": vocab, "merges": merges}, "pre_tokenizer": {"type": "ByteLevel"},
                   "added_tokens": [{"id": vocab["<|endoftext|>"], "content": "<|endoftext|>", "special": True}]}, f)
    got = run(["show", "--model", tj_dir, "--keep-layers", "0", "--json", "-", TEXT])
    check(got.returncode == 0 and json.loads(got.stdout)["token_ids"] == json.loads(want.stdout)["token_ids"],
          f"tokenizer.json gives other ids: {got.stderr}")

    # --keep-layers keeps those layers only; aggregates still cover every layer
    out = os.path.join(tmp, "keep.json")
    r = run(["show", "--model", d, "--keep-layers", "0,2", "--layer", "2", "--head", "3", "--json", out, TEXT])
    check(r.returncode == 0, f"--keep-layers: {r.stderr}")
    if r.returncode == 0:
        k = json.load(open(out))
        check([l["layer"] for l in k["attention"][0]["layers"]] == [0, 2], "--keep-layers 0,2")
        check(len(k["aggregates"]["rollout"]) == 3, "rollout covers every layer")
    # fields that disagree with the weights, or would make Hugging Face run a random head: refused by name
    for name, kw, want in [
            ("n_inner", dict(config_extra={"n_inner": 24}),
             "has shape (8, 32) but config.json gives (8, 24) (n_inner, or 4 · n_embd when n_inner is null)"),
            ("untied", dict(config_extra={"tie_word_embeddings": False}),
             "tie_word_embeddings is false but there is no tensor 'lm_head.weight'")]:
        d = os.path.join(tmp, "bad-" + name)
        make(d, seed=3, **kw)
        out = os.path.join(tmp, f"bad-{name}.json")
        r = run(["show", "--model", d, "--json", out, "the cat"])
        err = r.stderr.strip()
        check(r.returncode == 1 and want in err and "\n" not in err and not os.path.exists(out), f"bad {name}: {err!r}")
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
