#!/usr/bin/python3
"""attn show --model on encoder–decoder models (T5 v1.0/v1.1, BART, Marian) against a plain PyTorch forward
written from each architecture (tests/seq2seq/seq2seq_reference.py).

Builds tiny random checkpoints (tests/seq2seq/make_seq2seq.py: safetensors written by hand and pytorch_model.bin
from torch.save in both formats; F32, F16, BF16; tied and untied heads; Marian's stored and recomputed sinusoids),
runs `attn show --model DIR TEXT --json F` (greedy, --max-new-tokens N, --target TEXT), reads the trace and
asserts, from the trace's source_token_ids:
  - the source ids and --target's labels are the tokenisers' (python3-sentencepiece for T5 and Marian, the
    byte-level vocabulary for BART);
  - generated_ids equal the reference's greedy ids (float32, generate(max_new_tokens=N), N = 40 when not given,
    over generation_config.json's max_length; generation_config.json's fields over config.json's; Hugging Face's
    logits processors: bad_words_ids, min_length, min_new_tokens, repetition_penalty, no_repeat_ngram_size,
    forced_bos/eos_token_id, eos_token_id lists); tokens/token_ids = [decoder start] + generated[:-1];
  - every set's (encoder S×S, decoder T×T causal, cross T×S) every layer's every head's weights within 1e-5 of
    the float64 reference, its mask, T5's position bias; each set's layer_mean within 1e-5; the predictions' top
    5 ids and p (the softmax of the model's logits) within 1e-5 relative;
and that folders attn must not run are refused by name (exit 1, one line): decoder_start_token_id ≥ vocab_size,
eos_token_id null, model_type mbart and an unknown one, suppress_tokens; --max-new-tokens 100000 refused (exit 1 or
2) or bounded by --max-memory.
Usage: seq2seq_check.py ATTN [--only WORD] (only the runs whose description contains WORD)"""
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "encoder"))
import sentencepiece  # noqa: E402
from attn_run import Checks  # noqa: E402
from make_encoder import roberta_vocab  # noqa: E402
from make_seq2seq import VARIANTS, make  # noqa: E402
from seq2seq_reference import Model, decoder_input, generate, generation_settings  # noqa: E402

TOL, PTOL = 1e-5, 1e-5
torch.set_num_threads(1)
checks = Checks(sys.argv[1])
ONLY = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--only" else ""
check = checks.check
TEXT = {"t5": "translate English to German: The house is wonderful.", "bart": "the cat sat on the mat",
        "marian": "I am a small frog."}
TARGET = {"t5": "Das Haus ist wunderbar.", "bart": "it was tired", "marian": "Ich bin ein kleiner Frosch."}


# ---- the tokenisers, written independently of attn ---------------------------------------------------
def tokenise(d, family, text, target=False):
    """The ids Hugging Face's tokenizer gives (with its special tokens; for a target, the labels)."""
    if family == "t5":
        sp = sentencepiece.SentencePieceProcessor(model_file=os.path.join(d, "spiece.model"))
        return sp.encode(text) + [1]
    if family == "marian":  # tokenization_marian: spm pieces looked up in vocab.json, </s> appended
        sp = sentencepiece.SentencePieceProcessor(model_file=os.path.join(d, "target.spm" if target else "source.spm"))
        vocab = json.load(open(os.path.join(d, "vocab.json"), encoding="utf-8"))
        return [vocab.get(p, vocab["<unk>"]) for p in sp.encode(text, out_type=str)] + [vocab["</s>"]]
    vocab, _ = roberta_vocab()  # the texts' words are whole byte-level pieces; RobertaProcessing <s> … </s>
    return [0] + [vocab[("Ġ" if i else "") + w] for i, w in enumerate(text.split())] + [2]


# ---- one run against the reference -------------------------------------------------------------------
def with_generation(d, out, overrides):
    """A copy of folder d whose generation_config.json holds every generation field of d (config.json's and
    generation_config.json's) with overrides over them (None removes a field)."""
    shutil.copytree(d, out)
    with open(os.path.join(d, "config.json")) as f:
        gen = generation_settings(d, json.load(f))
    gen.update(overrides)
    gen = {k: v for k, v in gen.items() if v is not None}
    with open(os.path.join(out, "generation_config.json"), "w") as f:
        json.dump(gen, f)
    return out


def expected(d, src, n, target_ids):
    m32 = Model(d)
    if target_ids is not None:
        return m32, target_ids
    ids = generate(m32, src, n)
    ids64 = generate(Model(d, torch.float64), src, n)
    check(ids == ids64, f"{d}: float32 and float64 greedy ids differ ({ids} vs {ids64}): a near tie, change the text")
    return m32, ids


def compare(what, d, family, trace, n=None, target=None):
    """Every assertion on one trace; returns the figures measured."""
    src = trace.get("source_token_ids") or []
    check(trace.get("stack") == "encoder-decoder", f"{what}: stack {trace.get('stack')!r}")
    check(trace.get("model", {}).get("type") == family, f"{what}: model type {trace.get('model', {}).get('type')!r}")
    check(src == tokenise(d, family, TEXT[family]), f"{what}: source ids {src} vs {tokenise(d, family, TEXT[family])}")
    labels = tokenise(d, family, target, target=True) if target else None
    m, gen = expected(d, src, n, labels)
    got = trace.get("generated_ids")
    check(got == gen, f"{what}: generated ids {got} vs the reference's {gen}")
    check(trace.get("teacher_forced") is (target is not None), f"{what}: teacher_forced {trace.get('teacher_forced')}")
    dec = decoder_input(m, gen)
    check(trace.get("token_ids") == dec, f"{what}: token_ids {trace.get('token_ids')} vs [start] + generated[:-1] {dec}")
    check(len(trace.get("tokens", [])) == len(dec) and len(trace.get("source_tokens", [])) == len(src),
          f"{what}: {len(trace.get('tokens', []))} tokens, {len(trace.get('source_tokens', []))} source tokens")
    check(trace.get("model", {}).get("n_layer") == m.L and trace.get("n_decoder_layer") == m.Ld,
          f"{what}: n_layer {trace.get('model', {}).get('n_layer')}, n_decoder_layer {trace.get('n_decoder_layer')}")
    if got != gen:
        return None
    ref = Model(d, torch.float64).run(src, dec)
    T, S = len(dec), len(src)
    sets = trace.get("attention", [])
    check([s.get("name") for s in sets] == ["encoder", "decoder", "cross"], f"{what}: sets {[s.get('name') for s in sets]}")
    fig = {"weights": 0.0, "layer_mean": 0.0, "bias": 0.0, "p": 0.0}
    for s in sets:
        name = s.get("name")
        if name not in ("encoder", "decoder", "cross"):
            continue
        rows, cols = (S, S) if name == "encoder" else (T, T) if name == "decoder" else (T, S)
        L = m.L if name == "encoder" else m.Ld
        check(len(s["query_tokens"]) == rows and len(s["key_tokens"]) == cols, f"{what} {name}: token lists")
        check([layer["layer"] for layer in s["layers"]] == list(range(L)), f"{what} {name}: layers {[x['layer'] for x in s['layers']]}")
        visible = np.tril(np.ones((rows, cols))) if name == "decoder" else np.ones((rows, cols))
        bias_ref = ref["encoder_bias" if name == "encoder" else "decoder_bias"] if name != "cross" else None
        for layer in s["layers"]:
            want = ref[name][layer["layer"]]
            check(len(layer["heads"]) == want.shape[0], f"{what} {name} layer {layer['layer']}: {len(layer['heads'])} heads")
            for h in layer["heads"]:
                w = np.array(h["weights"], dtype=np.float64)
                if not check(w.shape == (rows, cols), f"{what} {name}: weights {w.shape}, expected {(rows, cols)}"):
                    continue
                fig["weights"] = max(fig["weights"], float(np.abs(w - want[h["head"]]).max()))
                check(np.array_equal(np.array(h["mask"]), visible), f"{what} {name} layer {layer['layer']}: the mask")
                b = h.get("bias")
                if bias_ref is not None:  # T5's relative-position bias, compared where keys are visible
                    if check(b is not None and np.shape(b) == (rows, cols), f"{what} {name}: T5's head has no {rows}×{cols} bias"):
                        diff = np.abs(np.array(b, dtype=np.float64) - bias_ref[h["head"]])[visible == 1]
                        fig["bias"] = max(fig["bias"], float(diff.max()))
                else:
                    check(not b or not np.any(np.array(b)), f"{what} {name}: a bias where the model has none")
        means = s.get("layer_mean", [])
        check(len(means) == L, f"{what} {name}: {len(means)} layer means for {L} layers")
        for layer, lm in enumerate(means[:L]):
            if check(np.shape(lm) == (rows, cols), f"{what} {name}: layer_mean {np.shape(lm)}"):
                fig["layer_mean"] = max(fig["layer_mean"], float(np.abs(np.array(lm) - ref[name][layer].mean(0)).max()))
        if name == "cross":
            check(not s.get("rollout"), f"{what}: cross attention has a rollout")
    check(fig["weights"] <= TOL, f"{what}: weights differ by {fig['weights']:.3g}")
    check(fig["layer_mean"] <= TOL, f"{what}: layer means differ by {fig['layer_mean']:.3g}")
    check(fig["bias"] <= TOL, f"{what}: T5's position bias differs by {fig['bias']:.3g}")
    probs = torch.softmax(ref["logits"], -1).numpy()
    preds = trace.get("predictions", [])
    check(len(preds) == T, f"{what}: {len(preds)} rows of predictions for {T} decoder rows")
    for i, row in enumerate(preds[:T]):
        order = [int(x) for x in np.argsort(-probs[i], kind="stable")[:5]]
        check([p["id"] for p in row] == order, f"{what}: row {i}'s top 5 {[p['id'] for p in row]} vs {order}")
        for p in row:
            fig["p"] = max(fig["p"], abs(p["p"] - probs[i][p["id"]]) / probs[i][p["id"]])
    check(fig["p"] <= PTOL, f"{what}: probabilities differ by {fig['p']:.3g} relative")
    return fig


def show(what, d, family, out, extra, n=None, target=None):
    args = ["show", "--model", d, TEXT[family], "--json", out] + extra
    r = checks.run(args)
    if r.returncode is None or r.returncode < 0:
        check(False, f"{what}: attn crashed or hung ({r.returncode}): {r.stderr.strip()!r}")
        return None
    if not check(r.returncode == 0, f"{what}: attn refused the {family} encoder–decoder folder (exit {r.returncode}): "
                                    f"{r.stderr.strip()!r} — this check passes once `attn show --model` runs {family} folders"):
        return None
    with open(out) as f:
        trace = json.load(f)
    fig = compare(what, d, family, trace, n, target)
    if fig:
        print(f"ok {what}: {len(trace['generated_ids'])} ids; weights within {fig['weights']:.2g}, layer means "
              f"{fig['layer_mean']:.2g}, bias {fig['bias']:.2g}, p {fig['p']:.2g} relative")
    return trace


def plain_ids(d, family, n):
    """The reference's greedy ids for the family's text, to choose processor settings that change them."""
    return generate(Model(d), tokenise(d, family, TEXT[family]), n)


def endless(d):
    """100000 new tokens with eos never allowed: refused at once (exit 1 or 2, one line naming --max-new-tokens
    or the memory), or stopped early by --max-memory with a word about it."""
    out = os.path.join(d, "endless.json")
    r = checks.run(["show", "--model", d, TEXT["bart"], "--json", out, "--max-new-tokens", "100000", "--max-memory", "256M"],
                   timeout=60)
    if r.returncode == 0:
        n = len(json.load(open(out)).get("generated_ids", []))
        check(n < 100000 and "memory" in r.stderr, f"--max-new-tokens 100000 ran to {n} ids: {r.stderr.strip()!r}")
    else:
        check(r.returncode in (1, 2) and r.stderr.count("\n") == 1 and ("max-new-tokens" in r.stderr or "memory" in r.stderr),
              f"--max-new-tokens 100000: exit {r.returncode}, {r.stderr.strip()!r}")


with tempfile.TemporaryDirectory() as tmp:
    folders = {}
    for i, v in enumerate(VARIANTS):
        folders[v] = os.path.join(tmp, v)
        make(folders[v], v, seed=i)
    fam = {v: VARIANTS[v]["family"] for v in VARIANTS}
    runs = 0

    def case(what, v, extra=(), n=None, target=None, d=None):
        global runs
        if ONLY not in what:
            return None
        runs += 1
        return show(what, d or folders[v], fam[v], os.path.join(tmp, f"run{runs}.json"), list(extra), n, target)

    # 1. every folder, greedy
    for v in VARIANTS:
        case(f"{v} greedy --max-new-tokens 6", v, ["--max-new-tokens", "6"], n=6)
    # 2. teacher forcing: labels (with the final eos) → decoder input [start] + labels[:-1]
    for v in ("t5", "bart", "marian-legacy"):
        case(f"{v} --target", v, ["--target", TARGET[fam[v]]], target=TARGET[fam[v]])
    # 3. the length limit: without --max-new-tokens, generate(max_new_tokens=40) (show --help's default);
    #    max_new_tokens wins over generation_config.json's max_length (7 here), as in generate()
    case("t5 without --max-new-tokens (40 new tokens)", "t5", n=40)
    d = with_generation(folders["marian"], os.path.join(tmp, "marian-len7"), {"max_length": 7})
    case("marian --max-new-tokens 9 over generation_config's max_length 7", "marian", ["--max-new-tokens", "9"], n=9, d=d)

    # 4. the logits processors, each with settings that change the reference's ids (asserted)
    def processor(what, v, overrides, n=8):
        if ONLY not in f"{v} {what}":
            return
        d = with_generation(folders[v], os.path.join(tmp, f"{v}-{len(os.listdir(tmp))}"), overrides)
        before, after = plain_ids(folders[v], fam[v], n), plain_ids(d, fam[v], n)
        check(before != after, f"{what}: the setting does not change the reference's ids {before}: the case tests nothing")
        case(f"{v} {what}: {after}", v, ["--max-new-tokens", str(n)], n=n, d=d)

    processor("repetition_penalty 1.3", "marian", {"repetition_penalty": 1.3})
    processor("no_repeat_ngram_size 2", "marian-legacy", {"no_repeat_ngram_size": 2})
    ids = plain_ids(folders["bart-enc-embed"], "bart", 8)  # [0 (forced bos), a, b, ...]: ban a's successor
    processor(f"bad_words_ids [[{ids[1]}, {ids[2]}], [7]]", "bart-enc-embed", {"bad_words_ids": [[ids[1], ids[2]], [7]]})
    ids = plain_ids(folders["bart-bin"], "bart", 8)
    stop = next((t for t in ids[2:6] if t not in ids[:2]), ids[3])
    processor(f"eos_token_id [2, {stop}]", "bart-bin", {"eos_token_id": [2, stop]})
    k = ids.index(stop) + 1
    processor(f"eos_token_id [2, {stop}] and min_length {k + 3}", "bart-bin", {"eos_token_id": [2, stop], "min_length": k + 3})
    processor(f"eos_token_id [2, {stop}] and min_new_tokens {k + 2}", "bart-bin", {"eos_token_id": [2, stop], "min_new_tokens": k + 2})
    processor("forced_bos_token_id 5", "t5", {"forced_bos_token_id": 5})
    processor("forced_eos_token_id [9, 7]: the first maximum is 7", "marian", {"forced_eos_token_id": [9, 7]})

    # 5. folders attn must refuse, by name
    def refused(what, v, word, config=None, gen=None, extra=(), codes=(1,), timeout=60):
        if ONLY not in what:
            return None
        d = os.path.join(tmp, "bad-" + word + str(len(os.listdir(tmp))))
        shutil.copytree(folders[v], d)
        for name, change in (("config.json", config), ("generation_config.json", gen)):
            if change is None:
                continue
            path = os.path.join(d, name)
            obj = json.load(open(path)) if os.path.exists(path) else {}
            obj.update(change)  # None is written as null
            json.dump(obj, open(path, "w"))
        out = os.path.join(d, "out.json")
        r = checks.run(["show", "--model", d, TEXT[fam[v]], "--json", out] + list(extra), timeout=timeout)
        check(checks.refused(r, word, codes) and not os.path.exists(out),
              f"{what}: exit {r.returncode}, {r.stderr.strip()!r} (want exit {codes} naming {word!r}, no JSON)")
        return r

    V = json.load(open(os.path.join(folders["bart"], "config.json")))["vocab_size"]
    refused("decoder_start_token_id = vocab_size", "bart", "decoder_start_token_id", config={"decoder_start_token_id": V})
    refused("decoder_start_token_id past the vocabulary in generation_config.json", "t5", "decoder_start_token_id",
            gen={"decoder_start_token_id": 10 ** 6})
    # eos_token_id null (a config without the key takes its class's default: BART 2, T5 1, Marian 0)
    refused("eos_token_id null", "bart", "eos_token_id", config={"eos_token_id": None, "forced_eos_token_id": None})
    refused("model_type mbart", "bart", "mbart", config={"model_type": "mbart"})
    refused("an unknown model_type", "bart", "pegasus", config={"model_type": "pegasus"})
    refused("suppress_tokens in generation_config.json", "marian", "suppress_tokens", gen={"suppress_tokens": [5]})
    # 100000 new tokens, eos never allowed: refused at once, or stopped by --max-memory
    if ONLY in "--max-new-tokens 100000":
        endless(with_generation(folders["bart"], os.path.join(tmp, "bart-endless"), {"min_new_tokens": 100000}))
    print(f"{runs} runs compared")

checks.finish("encoder-decoder models: every check passed")
