#!/usr/bin/python3
"""attn decode --model DIR TEXT --max-new-tokens N against plain PyTorch forwards (tests/gpt2/reference.py,
tests/llama/llama_reference.py) on tiny random GPT-2, Llama, Qwen2 and Mistral checkpoints.

Greedy: each generated id equals the argmax of the reference's full forward over the text and the ids
generated before it (10 steps), and the probability and the top 5 attn reports agree with the
reference's softmax within 1e-5; the cached steps agree with attn's full pass (decode_max_abs_diff).
End tokens: generation stops at config.json's eos_token_id, and generation_config.json's list wins;
its repetition_penalty acts on the text's and the generated ids (HF's processor written out); its
do_sample leaves the run greedy and says how to sample as it would.
Sampling: the same --sample-seed gives the same ids, other seeds other ids; the first drawn token's
frequencies over 2000 draws (20 seeds x 100 tokens of a model whose logits do not depend on the text)
match the reference's distribution after temperature, top-k and top-p
(chi-square, p > 1e-4), while the distribution with the temperature ignored is rejected (p < 1e-6),
so the test can fail; top-k and top-p never yield a token outside their set. Refusals: one line, exit 2."""
import json
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "llama"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from attn_run import Checks  # noqa: E402
from hf_files import safetensors_bytes, tensor_bytes  # noqa: E402
from make_checkpoint import make  # noqa: E402
from reference import forward  # noqa: E402
import make_llama  # noqa: E402
import llama_reference  # noqa: E402

ATTN = sys.argv[1]
TOL = 1e-5
STEPS = 10
torch.set_num_threads(1)
CHECKS = Checks(ATTN)  # tests/attn_run.py: running attn, recording failures
failures, run, check = CHECKS.failures, CHECKS.run, CHECKS.check


def softmax(logits):
    return torch.softmax(torch.from_numpy(np.asarray(logits, np.float64)), -1).numpy()


def generate(d, text, extra):
    r = run(["decode", "--model", d, text, "--max-new-tokens", str(STEPS), "--json", "-", "--head", "0"] + extra)
    check(r.returncode == 0, f"{d} {extra}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout) if r.returncode == 0 else None


def greedy_case(name, d, text, ref_forward, n_steps=STEPS):
    """attn's greedy ids, probabilities and top 5 against the reference's full forward at each step."""
    j = generate(d, text, [])
    if j is None:
        return None
    ids, gen = j["token_ids"], j["generated_ids"]
    T = j["generation"]["prompt_tokens"]
    text_ids = ids[:T]
    check(len(gen) == n_steps, f"{name}: {len(gen)} generated ids, want {n_steps}")
    check(j["generation"]["mode"] == "greedy", f"{name}: mode {j['generation']['mode']}")
    check(ids == text_ids + gen[:-1], f"{name}: the fed ids are not the text and the generated ids")
    pworst = 0.0
    for i, step in enumerate(j["generation"]["steps"]):
        logits = ref_forward(text_ids + gen[:i])[-1]
        probs = softmax(logits)
        want = int(np.argmax(logits))
        check(step["id"] == want == gen[i], f"{name}: step {i} chose {step['id']}, the reference's argmax is {want}")
        top = list(np.argsort(-logits, kind="stable")[:5])
        check([a["id"] for a in step["top"]] == top, f"{name}: step {i} top 5 {[a['id'] for a in step['top']]} vs {top}")
        pworst = max([pworst, abs(step["p"] - probs[step["id"]])] + [abs(a["p"] - probs[a["id"]]) for a in step["top"]])
        check(step["step"] == T - 1 + i, f"{name}: step {i} chosen after step {step['step']}")
    check(pworst <= TOL, f"{name}: probabilities differ by {pworst:.3g}")
    diff = j["diagnostics"]["decode_max_abs_diff"]
    check(diff <= 1e-5, f"{name}: cached steps differ from the full pass by {diff:.3g}")
    print(f"{name}: {len(gen)} greedy tokens = the reference's argmax at each step, probabilities within {pworst:.2g}, "
          f"steps against the full pass within {diff:.2g}")
    return j


def sample_reference(logits, temperature=1.0, top_k=0, top_p=1.0):
    """Hugging Face's warpers written out: logits / T, then those below the k-th largest to -inf, then the
    smallest set of most likely tokens whose probability reaches p."""
    l = torch.tensor(logits, dtype=torch.float32) / temperature
    if top_k:
        l = l.masked_fill(l < torch.topk(l, top_k).values[-1], float("-inf"))
    p = torch.softmax(l.double(), -1)
    if top_p < 1.0:
        sp, order = torch.sort(p, descending=True, stable=True)
        before = torch.cumsum(sp, 0) - sp  # the probability of the tokens more likely than this one
        keep = before < top_p
        keep[0] = True
        mask = torch.zeros_like(p, dtype=torch.bool)
        mask[order[keep]] = True
        p = torch.where(mask, p, torch.zeros_like(p))
        p = p / p.sum()
    return p.numpy()


def chi_square_p(counts, expected_p, n):
    """Pearson's chi-square p-value; cells expected below 5 merged into one."""
    e = expected_p * n
    big = e >= 5
    obs = list(counts[big]) + [counts[~big].sum()]
    exp = list(e[big]) + [e[~big].sum()]
    if exp[-1] < 5:  # too little left over to stand alone: fold it into the last big cell
        obs[-2] += obs.pop()
        exp[-2] += exp.pop()
    obs, exp = np.array(obs, float), np.array(exp, float)
    if np.any((exp == 0) & (obs > 0)):
        return 0.0
    x2 = float(((obs - exp) ** 2 / np.maximum(exp, 1e-300)).sum())
    df = len(obs) - 1
    return float(torch.special.gammaincc(torch.tensor(df / 2.0, dtype=torch.float64), torch.tensor(x2 / 2.0, dtype=torch.float64)))


with tempfile.TemporaryDirectory() as tmp:
    # 1. greedy on a GPT-2 and the Llama family
    g2 = os.path.join(tmp, "gpt2")
    w, cfg = make(g2, seed=11, layers=2, heads=2, embd=8, positions=32, scale=0.6)
    TEXT = "the cat sat on"
    j = greedy_case("gpt2", g2, TEXT, lambda ids: forward(w, cfg, ids)[1])
    for fam, kw in [("llama", dict(dtype="F32")), ("qwen2", dict(dtype="F32", tied=True)),
                    ("mistral", dict(dtype="BF16", sliding_window=4, heads=4, kv_heads=1))]:
        d = os.path.join(tmp, fam)
        lw, lcfg = make_llama.make(d, family=fam, seed=5, scale=0.6, **kw)
        greedy_case(fam, d, "the cat sat on", lambda ids, lw=lw, lcfg=lcfg: llama_reference.forward(lw, lcfg, ids)[1])

    # 2. the end token: config.json's eos_token_id stops generation after it; generation_config.json's list wins
    if j is not None:
        gen = j["generated_ids"]
        stop = next((i for i in range(2, len(gen)) if gen[i] not in gen[:i]), None)
        check(stop is not None, f"gpt2: no fresh token to end at in {gen}")
        if stop is not None:
            c = json.load(open(os.path.join(g2, "config.json")))
            json.dump(dict(c, eos_token_id=gen[stop]), open(os.path.join(g2, "config.json"), "w"))
            e = generate(g2, TEXT, [])
            check(e is not None and e["generated_ids"] == gen[:stop + 1] and e["generation"]["stopped_at_eos"],
                  f"eos {gen[stop]}: generated {e and e['generated_ids']}, want {gen[:stop + 1]}")
            json.dump({"eos_token_id": [0, gen[1]]}, open(os.path.join(g2, "generation_config.json"), "w"))
            e = generate(g2, TEXT, [])
            check(e is not None and e["generated_ids"] == gen[:2], f"generation_config's eos list: {e and e['generated_ids']}")
            os.remove(os.path.join(g2, "generation_config.json"))
            json.dump(c, open(os.path.join(g2, "config.json"), "w"))
            print(f"eos: stops after {gen[stop]} (config.json) and after {gen[1]} (generation_config.json's list)")
        # the folder's logits processors act over the text and the generated tokens, as Hugging Face's do on
        # a decoder's input_ids: repetition_penalty 3 divides a seen token's positive logit by 3, multiplies a negative one
        json.dump({"repetition_penalty": 3.0}, open(os.path.join(g2, "generation_config.json"), "w"))
        e = generate(g2, TEXT, [])
        if e is not None:
            T = e["generation"]["prompt_tokens"]
            text_ids, pen = e["token_ids"][:T], e["generated_ids"]
            for i in range(len(pen)):
                prefix = text_ids + pen[:i]
                l = forward(w, cfg, prefix)[1][-1].astype(np.float64)
                for t in set(prefix):
                    l[t] = l[t] / 3.0 if l[t] > 0 else l[t] * 3.0
                check(pen[i] == int(np.argmax(l)), f"repetition_penalty: step {i} chose {pen[i]}, the processed argmax is {int(np.argmax(l))}")
            check(pen != gen, f"repetition_penalty 3 left the greedy ids as they were: {pen}")
            print(f"repetition_penalty 3: {pen} (without: {gen})")
        os.remove(os.path.join(g2, "generation_config.json"))
        # a folder whose own settings sample: still greedy, and one line says how it would sample
        json.dump({"do_sample": True, "temperature": 0.6, "top_p": 0.9}, open(os.path.join(g2, "generation_config.json"), "w"))
        r = run(["decode", "--model", g2, TEXT, "--max-new-tokens", "4"])
        note = ("greedy here; the model's own settings would sample (" + os.path.join(g2, "generation_config.json") +
                ": do_sample true): --temperature 0.6 --top-k 50 --top-p 0.9")
        check(r.returncode == 0 and r.stdout.count(note) == 1, f"do_sample note: {r.stdout}{r.stderr}")
        e = generate(g2, TEXT, [])
        check(e is not None and e["generated_ids"] == gen and e["generation"]["mode"] == "greedy", "do_sample changed the greedy ids")
        os.remove(os.path.join(g2, "generation_config.json"))
        # the terminal: one line per generated token with its probability and the head's row
        r = run(["decode", "--model", g2, TEXT, "--max-new-tokens", "3", "--layer", "1", "--head", "1"])
        lines = [l for l in r.stdout.splitlines() if l.strip()[:1].isdigit() and " top: " in l]
        check(r.returncode == 0 and len(lines) == 3 and all(" p 0." in l and "row: " in l for l in lines)
              and "row: layer 1, head 1" in r.stdout and "generated: " in r.stdout, f"terminal view:\n{r.stdout}{r.stderr}")

    # 3. sampling: reproducible by seed, different across seeds
    a = generate(g2, TEXT, ["--temperature", "1.5", "--sample-seed", "7"])
    b = generate(g2, TEXT, ["--temperature", "1.5", "--sample-seed", "7"])
    others = [generate(g2, TEXT, ["--temperature", "1.5", "--sample-seed", str(s)]) for s in (1, 2, 3)]
    if a and b and all(others):
        check(a["generated_ids"] == b["generated_ids"], "the same --sample-seed gave other ids")
        check(any(o["generated_ids"] != a["generated_ids"] for o in others), "seeds 1, 2, 3 and 7 gave the same ids")
        check(a["generation"]["mode"] == "sample" and a["generation"]["temperature"] == 1.5 and a["generation"]["sample_seed"] == 7,
              f"generation block: {a['generation']}")
        print("sampling: seed 7 twice gives", a["generated_ids"], "; seeds 1-3 give", [o["generated_ids"] for o in others])

    # 4. 2000 draws against the reference's distribution, from a model whose next-token logits are the same
    #    after any text: every token embeds as one vector, no positions, the blocks add nothing (their
    #    output projections are zero), and an untied head spreads the logits. So every step draws from one
    #    distribution, and 20 seeds x 100 new tokens are 2000 draws (a process per draw would take minutes).
    tiny = os.path.join(tmp, "tiny")
    tw, tcfg = make(tiny, seed=3, layers=1, heads=1, embd=4, positions=128, scale=1.2, lm_head=True)
    tw["wte.weight"][:] = tw["wte.weight"][0]
    tw["wpe.weight"][:] = 0.0
    for name in ("h.0.attn.c_proj.weight", "h.0.attn.c_proj.bias", "h.0.mlp.c_proj.weight", "h.0.mlp.c_proj.bias"):
        tw[name][:] = 0.0
    with open(os.path.join(tiny, "model.safetensors"), "wb") as f:
        f.write(safetensors_bytes([(k, "F32", v.shape, tensor_bytes(v, "F32")) for k, v in tw.items()]))
    logits = forward(tw, tcfg, [0])[1][-1]
    check(np.abs(forward(tw, tcfg, [5, 9, 2])[1][-1] - logits).max() < 1e-6, "the tiny model's logits depend on the text")
    SEEDS, NEW = 20, 100
    for opts, kw in [(["--temperature", "2.5"], dict(temperature=2.5)),
                     (["--temperature", "1.5", "--top-k", "6"], dict(temperature=1.5, top_k=6)),
                     (["--temperature", "2", "--top-p", "0.6"], dict(temperature=2.0, top_p=0.6))]:
        def draws(seed):
            r = run(["decode", "--model", tiny, "the", "--max-new-tokens", str(NEW), "--json", "-", "--head", "0",
                     "--sample-seed", str(seed)] + opts)
            return json.loads(r.stdout)["generated_ids"] if r.returncode == 0 else []
        with ThreadPoolExecutor(max_workers=2) as pool:
            ids = np.array(sum(pool.map(draws, range(SEEDS)), []))
        N = len(ids)
        check(N == SEEDS * NEW, f"{opts}: {N} draws, want {SEEDS * NEW}")
        counts = np.bincount(ids, minlength=len(logits))
        want = sample_reference(logits, **kw)
        wrong = sample_reference(logits, **dict(kw, temperature=1.0))  # the temperature ignored
        p_ok, p_wrong = chi_square_p(counts, want, N), chi_square_p(counts, wrong, N)
        check(p_ok > 1e-4, f"{opts}: frequencies do not follow the distribution (chi-square p = {p_ok:.3g})")
        check(p_wrong < 1e-6, f"{opts}: the test cannot tell the temperature ignored (p = {p_wrong:.3g})")
        outside = int(counts[want == 0].sum())
        check(outside == 0, f"{opts}: {outside} draws outside the top-k / nucleus set")
        print(f"{' '.join(opts)}: {N} draws, {int((want > 0).sum())} tokens possible, chi-square p = {p_ok:.3g} "
              f"(temperature ignored: p = {p_wrong:.2g}), {outside} outside the set")

    # 5. refusals: one line, exit 2
    for args, want in [
            (["--temperature", "0"], "--temperature 0 is not a positive finite number"),
            (["--temperature", "-1"], "--temperature -1 is not a positive finite number"),
            (["--temperature", "inf"], "--temperature inf is not a positive finite number"),
            (["--temperature", "nan"], "is not a positive finite number"),
            (["--top-k", "0"], "--top-k 0 keeps no token to sample from"),
            (["--top-p", "0"], "--top-p 0 is outside (0, 1]"),
            (["--top-p", "1.5"], "--top-p 1.5 is outside (0, 1]"),
            (["--sample-seed", "3"], "--sample-seed seeds sampling, but without --temperature, --top-k or --top-p the run is greedy"),
            (["--max-new-tokens", "0"], "--max-new-tokens 0 generates nothing"),
            (["--max-new-tokens", "30"], "the text's 4 tokens and --max-new-tokens 30 pass the model's context of 32 tokens")]:
        extra = args if "--max-new-tokens" in args else ["--max-new-tokens", "3"] + args
        r = run(["decode", "--model", g2, TEXT] + extra)
        err = r.stderr.strip()
        check(r.returncode == 2 and want in err and "\n" not in err, f"{args}: exit {r.returncode}, {err!r} (want {want!r})")
    for opt in (["--temperature", "0.7"], ["--top-k", "5"], ["--top-p", "0.9"], ["--sample-seed", "1"]):
        r = run(["decode", "--model", g2, TEXT] + opt)
        err = r.stderr.strip()
        check(r.returncode == 2 and f"{opt[0]} shapes the generated tokens, but no --max-new-tokens is given" in err and "\n" not in err,
              f"{opt} without --max-new-tokens: exit {r.returncode}, {err!r}")
        r = run(["decode", "the cat"] + opt)
        err = r.stderr.strip()
        check(r.returncode == 2 and f"{opt[0]} applies to --model" in err and "\n" not in err, f"{opt} without --model: {err!r}")
    # without --max-new-tokens, decode --model feeds the text as before
    r = run(["decode", "--model", g2, TEXT, "--json", "-"])
    check(r.returncode == 0 and "generation" not in json.loads(r.stdout), f"plain decode: {r.stderr}")
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
