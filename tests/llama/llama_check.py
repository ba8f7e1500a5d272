#!/usr/bin/python3
"""attn show --model against plain PyTorch forwards of Llama, Mistral and Qwen2 written from the
architecture (tests/llama/reference.py).

Builds tiny random checkpoints in the Hugging Face layout (tests/llama/make_llama.py: F32, F16, BF16;
one single file and sharded ones; grouped-query heads incl. one key/value head; head_dim beside
hidden_size / heads; tied and separate heads; Qwen2's q/k/v biases; Mistral's sliding window;
rope_scaling linear and llama3; dynamic refused), runs `attn show --model DIR --json`, and compares every
layer's and query head's attention weights (<= 1e-5), the key/value head each query head reads, and the
top-5 predictions' ids and probabilities (<= 1e-5) with PyTorch in float32. The token ids are checked
against ids written out by hand from the tokenizer.json each case carries (byte-level with a Split
regex and ignore_merges; sentencepiece-style with byte fallback; BOS from the template). Then bad
folders: each a one-line error naming the field, exit 1, no file written."""
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
from make_llama import SP, make  # noqa: E402
from llama_reference import forward  # noqa: E402

ATTN = sys.argv[1]
TOL = 1e-5
torch.set_num_threads(1)
CHECKS = Checks(ATTN)  # tests/attn_run.py: running attn, recording failures
failures, run, check = CHECKS.failures, CHECKS.run, CHECKS.check


TEXTS = {"llama": "the cat sat on the mat. it was tiredness<|end_of_text|> the mat",
         "qwen2": "the cat sat on the mat<|endoftext|> it was tired 123",
         "mistral": "the cat sat on the mat. it was tired \u00e9"}
cases = [
    dict(family="llama", dtype="F32"),
    dict(family="llama", dtype="BF16", tied=True, heads=6, kv_heads=2, hidden=24, head_dim=6, shards=2,
         rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                       "original_max_position_embeddings": 16}, rope_theta=500000.0),
    dict(family="llama", dtype="F16", heads=3, kv_heads=1, hidden=12, rope_scaling={"type": "linear", "factor": 3.0}),
    dict(family="mistral", dtype="F16", sliding_window=3, shards=3),
    dict(family="qwen2", dtype="F32", tied=True, rope_scaling={"type": "linear", "factor": 2.0}),
]


def expected_ids(d, family):
    tj = json.load(open(os.path.join(d, "tokenizer.json"), encoding="utf-8"))
    v = dict(tj["model"]["vocab"])
    v.update({a["content"]: a["id"] for a in tj["added_tokens"]})
    G = "\u0120"
    if family == "llama":
        words = ["<|begin_of_text|>", "the", G + "cat", G + "sat", G + "on", G + "the", G + "mat", ".", G + "it",
                 G + "was", G + "tiredness", "<|end_of_text|>", G + "the", G + "mat"]
        return [v[w] for w in words]
    if family == "qwen2":
        words = ["the", G + "cat", G + "sat", G + "on", G + "the", G + "mat", "<|endoftext|>", G + "it", G + "was",
                 G + "tired", G, "1", "2", "3"]
        return [v[w] for w in words]
    words = ["<s>"] + [SP + w for w in ("the", "cat", "sat", "on", "the", "mat")] + ["."] + \
            [SP + w for w in ("it", "was", "tired")] + [SP, "<0xC3>", "<0xA9>"]
    return [v[w] for w in words]


with tempfile.TemporaryDirectory() as tmp:
    for n, case in enumerate(cases):
        d = os.path.join(tmp, f"m{n}")
        w, cfg = make(d, seed=n, **case)
        out = os.path.join(tmp, f"m{n}.json")
        r = run(["show", "--model", d, "--json", out, TEXTS[case["family"]]])
        check(r.returncode == 0, f"{case}: exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode:
            continue
        trace = json.load(open(out))
        ids = trace["token_ids"]
        check(ids == expected_ids(d, case["family"]), f"{case['family']}: token ids {ids}")
        ref_w, logits = forward(w, cfg, ids)
        H, G = cfg["num_attention_heads"], cfg["num_key_value_heads"]
        worst = 0.0
        for layer in trace["attention"][0]["layers"]:
            check(len(layer["heads"]) == H, f"{case}: {len(layer['heads'])} heads")
            for h in layer["heads"]:
                check(h["kv_head"] == h["head"] // (H // G), f"{case}: head {h['head']} reads kv head {h['kv_head']}")
                got = np.array(h["weights"], dtype=np.float64)
                worst = max(worst, float(np.abs(got - ref_w[layer["layer"]][h["head"]]).max()))
        check(len(trace["attention"][0]["layers"]) == cfg["num_hidden_layers"], f"{case}: {len(trace['attention'][0]['layers'])} layers")
        check(worst <= TOL, f"{case}: weights differ by {worst:.3g}")
        probs = torch.softmax(torch.from_numpy(logits).double(), -1).numpy()
        pworst = 0.0
        for i, row in enumerate(trace["predictions"]):
            want = list(np.argsort(-logits[i], kind="stable")[:5])
            check([p["id"] for p in row] == want, f"{case}: top-5 at {i}: {[p['id'] for p in row]} vs {want}")
            for p in row:
                pworst = max(pworst, abs(p["p"] - probs[i][p["id"]]))
        check(pworst <= TOL, f"{case}: probabilities differ by {pworst:.3g}")
        check(trace["model"]["dtype"] == case["dtype"], f"{case}: dtype {trace['model']['dtype']}")
        check(trace["model"]["type"] == case["family"], f"{case}: type {trace['model']['type']}")
        print(f"{case['family']:>7} {case['dtype']:>4} L{cfg['num_hidden_layers']} H{H} G{G} shards={case.get('shards', 1)}: "
              f"{len(ids)} tokens, weights within {worst:.2g}, probabilities within {pworst:.2g}")

    # bad folders: a one-line error naming what is wrong, exit 1, no file written
    def bad(name, edit, want, **kw):
        d = os.path.join(tmp, "bad-" + name)
        make(d, seed=9, **kw)
        edit(d)
        out = os.path.join(tmp, f"bad-{name}.json")
        r = run(["show", "--model", d, "--json", out, "the cat"])
        err = r.stderr.strip()
        check(r.returncode == 1 and want in err and err.count("\n") == 0 and not os.path.exists(out),
              f"bad {name}: exit {r.returncode}, {err!r} (want {want!r})")

    def config_edit(**fields):
        def edit(d):
            p = os.path.join(d, "config.json")
            c = json.load(open(p))
            c.update(fields)
            json.dump(c, open(p, "w"))
        return edit

    def index_edit(fn):
        def edit(d):
            p = os.path.join(d, "model.safetensors.index.json")
            j = json.load(open(p))
            fn(j, d)
            json.dump(j, open(p, "w"))
        return edit

    bad("kv", config_edit(num_key_value_heads=3), "num_attention_heads 4 is not divisible by num_key_value_heads 3")
    bad("head-dim", config_edit(head_dim=8), "self_attn.q_proj.weight' has shape (16, 16) but config.json gives (32, 16)")
    bad("rope", config_edit(rope_scaling={"rope_type": "yarn", "factor": 4.0}), "rope_scaling type 'yarn' is not supported")
    for key in ("type", "rope_type"):  # dynamic NTK changes nothing within max_position_embeddings: refused by name
        bad("rope-dynamic-" + key, config_edit(rope_scaling={key: "dynamic", "factor": 2.0}),
            "rope_scaling type 'dynamic' changes the positions only for a text past max_position_embeddings (64 tokens)")
    bad("untied", config_edit(tie_word_embeddings=False), "tie_word_embeddings is false but there is no tensor 'lm_head.weight'",
        tied=True)
    bad("field", config_edit(partial_rotary_factor=0.5), "field \"partial_rotary_factor\" is not one attn reads")
    bad("missing-shard", lambda d: os.remove(os.path.join(d, "model-00002-of-00002.safetensors")),
        "names shard 'model-00002-of-00002.safetensors', which is missing from the folder", shards=2)

    def two_shards(j, d):  # the first shard's file also under a second name holding the same tensors
        import shutil
        shutil.copy(os.path.join(d, "model-00001-of-00002.safetensors"), os.path.join(d, "extra.safetensors"))
        j["weight_map"]["extra"] = "extra.safetensors"

    bad("two-shards", index_edit(two_shards), "is in two shards", shards=2)

    def mixed(d):  # shard 2 rewritten in F16 while shard 1 stays F32
        import struct
        p = os.path.join(d, "model-00002-of-00002.safetensors")
        raw = open(p, "rb").read()
        n = struct.unpack("<Q", raw[:8])[0]
        header = json.loads(raw[8:8 + n])
        data = raw[8 + n:]
        from hf_files import safetensors_bytes
        tensors = []
        for k, e in sorted(((k, e) for k, e in header.items() if k != "__metadata__"), key=lambda x: x[1]["data_offsets"][0]):
            a = np.frombuffer(data[e["data_offsets"][0]:e["data_offsets"][1]], "<f4")
            tensors.append((k, "F16", e["shape"], a.astype("<f2").tobytes()))
        open(p, "wb").write(safetensors_bytes(tensors))

    bad("mixed", mixed, "the checkpoint mixes dtypes", shards=2)

    def tok_edit(fn):
        def edit(d):
            p = os.path.join(d, "tokenizer.json")
            j = json.load(open(p, encoding="utf-8"))
            fn(j)
            json.dump(j, open(p, "w", encoding="utf-8"), ensure_ascii=False)
        return edit

    bad("tok-model", tok_edit(lambda j: j["model"].update(type="WordLevel")), "the model type is 'WordLevel', which attn does not run")
    bad("tok-pre", tok_edit(lambda j: j.update(pre_tokenizer={"type": "Whitespace"})),
        "the pre_tokenizer 'Whitespace', which attn does not run")
    bad("tok-norm", tok_edit(lambda j: j.update(normalizer={"type": "Lowercase"})),
        "the normalizer 'Lowercase', which attn does not run")
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
