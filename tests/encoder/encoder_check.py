#!/usr/bin/python3
"""attn show --model on encoders (BERT, RoBERTa, DistilBERT) against a plain PyTorch forward written
from each architecture (tests/encoder/encoder_reference.py).

Builds tiny random checkpoints (tests/encoder/make_encoder.py: safetensors written by hand; F32, F16,
BF16; with and without the base prefix; the pre-2019 LayerNorm names .gamma/.beta; GELU and ReLU;
pytorch_model.bin from torch.save in both formats;
DistilBERT's sinusoidal table; a folder without the masked-LM head), runs `attn show --model DIR
--json`, and compares every layer's and head's attention weights (within 1e-5) and, at each mask
token, the masked-LM head's top-5 ids and probabilities (within 1e-6) with PyTorch in float32; a
sentence pair's token types too. Then the config fields attn refuses by name.
Usage: encoder_check.py ATTN [--tokenizer json|files]"""
import json
import os
import sys
import tempfile

import numpy as np
import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from attn_run import Checks  # noqa: E402
from encoder_reference import forward, mlm_probs  # noqa: E402
from make_encoder import make  # noqa: E402

ATTN = sys.argv[1]
TOKENIZER = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--tokenizer" else "json"
TOL, PTOL = 1e-5, 1e-6
torch.set_num_threads(1)
checks = Checks(ATTN)
run, check = checks.run, checks.check


def texts(family):
    mask = "<mask>" if family == "roberta" else "[MASK]"
    if TOKENIZER == "files":
        return "the cat sat on the mat", None
    return f"the cat sat on the {mask}. it was tired", "paris is the capital of france"


cases = [
    dict(family="bert"),
    dict(family="bert", dtype="F16", prefix=False, heads=2, embd=8),
    dict(family="bert", dtype="BF16", old_names=True, layers=3),
    dict(family="bert", act="relu", embd=16, heads=4, store_decoder=False),
    dict(family="bert", mlm=False),
    dict(family="bert", tokenizer="vocab.txt", act="gelu_new"),
    dict(family="roberta", heads=4, embd=16),
    dict(family="roberta", dtype="F16", prefix=False, old_names=True, pad_id=1),
    dict(family="distilbert", heads=2, embd=12),  # d = 6: the queries scaled by 1/√6 before the product
    dict(family="distilbert", dtype="BF16", sinusoidal=True, act="relu"),
    # pytorch_model.bin only, as older BERTs and DistilBERTs ship: torch.save's zip and legacy formats
    dict(family="bert", weights="bin", old_names=True),
    dict(family="distilbert", weights="bin-legacy", dtype="F16"),
    dict(family="roberta", weights="bin-legacy", prefix=False),
]
with tempfile.TemporaryDirectory() as tmp:
    for n, case in enumerate(cases):
        case = dict(case)
        if TOKENIZER == "files":
            case["tokenizer"] = "files"
        d = os.path.join(tmp, f"m{n}")
        values, cfg = make(d, seed=n, **case)
        text, pair = texts(case["family"])
        for with_pair in ([False, True] if pair and case["family"] != "distilbert" else [False]):
            out = os.path.join(tmp, f"m{n}{with_pair}.json")
            args = ["show", "--model", d, "--json", out, text] + (["--pair", pair] if with_pair else [])
            r = run(args)
            what = f"{case} pair={with_pair}"
            check(r.returncode == 0, f"{what}: exit {r.returncode}: {r.stderr.strip()}")
            if r.returncode:
                continue
            trace = json.load(open(out))
            ids, types = trace["token_ids"], trace.get("token_type_ids") or None
            check(trace.get("stack") == "encoder", f"{what}: stack {trace.get('stack')}")
            if with_pair:
                segs = trace["segments"]
                check(len(segs) == len(ids) and segs[0] == 0 and segs[-1] == 1, f"{what}: segments {segs}")
                if case["family"] == "bert":
                    check(types == segs, f"{what}: BERT's token types {types} are not the segments {segs}")
                else:
                    check(not any(types or []), f"{what}: RoBERTa's token types are all 0, not {types}")
            ref, x = forward(values, cfg, ids, types)
            worst = 0.0
            layers = trace["attention"][0]["layers"]
            check(len(layers) == len(ref), f"{what}: {len(layers)} layers")
            for layer in layers:
                for h in layer["heads"]:
                    got = np.array(h["weights"], dtype=np.float64)
                    worst = max(worst, float(np.abs(got - ref[layer["layer"]][h["head"]]).max()))
                    check(np.all(np.array(h["mask"]) == 1), f"{what}: an encoder's mask hides a key")
            check(worst <= TOL, f"{what}: weights differ by {worst:.3g}")
            preds = trace.get("mask_predictions", [])
            if not case.get("mlm", True) or TOKENIZER == "files":
                check(preds == [], f"{what}: mask predictions without a head or a mask: {preds}")
                print(f"ok {what}: weights within {worst:.2g}")
                continue
            check(len(preds) == 1, f"{what}: {len(preds)} mask predictions, expected 1")
            pworst = 0.0
            for mp in preds:
                probs = mlm_probs(values, cfg, x, [mp["position"]])[0]
                order = np.argsort(-probs, kind="stable")[:5]
                got_ids = [p["id"] for p in mp["top"]]
                check(got_ids == list(order), f"{what}: top-5 ids {got_ids} vs {list(order)}")
                for p in mp["top"]:
                    pworst = max(pworst, abs(p["p"] - float(probs[p["id"]])))
            check(pworst <= PTOL, f"{what}: probabilities differ by {pworst:.3g}")
            print(f"ok {what}: weights within {worst:.2g}, masked-LM probabilities within {pworst:.2g}")

    # config fields that change the numbers and that attn does not run: refused by name, exit 1
    for family, extra, word in [("bert", {"position_embedding_type": "relative_key"}, "relative_key"),
                                ("bert", {"position_embedding_type": "relative_key_query"}, "relative_key_query"),
                                ("bert", {"is_decoder": True}, "is_decoder"),
                                ("roberta", {"add_cross_attention": True}, "add_cross_attention"),
                                ("bert", {"hidden_act": "mish"}, "hidden_act"),
                                ("distilbert", {"activation": "tanh"}, "activation"),
                                ("bert", {"rotary_value": True}, "rotary_value")]:
        d = os.path.join(tmp, "bad-" + word)
        make(d, family, config_extra=extra, tokenizer="files" if TOKENIZER == "files" else "json")
        r = run(["show", "--model", d, "the cat"])
        check(checks.refused(r, word),
              f"{family} {extra}: exit {r.returncode}, {r.stderr.strip()!r}")

    # a RoBERTa folder with vocab.json + merges.txt and no tokenizer.json: where <s> and </s> go is not said
    d = os.path.join(tmp, "roberta-files")
    make(d, "roberta", tokenizer="files")
    r = run(["show", "--model", d, "the cat"])
    check(r.returncode == 1 and "no tokenizer.json or vocab.txt" in r.stderr, f"roberta without tokenizer.json: {r.stderr.strip()!r}")

checks.finish("encoders: every check passed")
