#!/usr/bin/python3
"""attn show --model --ablate / --lens and attn heads --effect against plain PyTorch forwards with a head
mask (tests/gpt2/reference.py, tests/llama/llama_reference.py: a head's context vector set to 0, or to
its mean over the positions, before the output projection).

On a GPT-2-shaped and a Llama-shaped (grouped-query: 6 query heads on 2 key/value heads) checkpoint,
with 3 heads ablated in 2 layers, zero and mean: the trace's weights and top-5 predictions, each
position's top token and probability before and after, and the text's loss (F.cross_entropy(logits[:-1],
ids[1:])) within 1e-5 of the reference's, each position's loss within 5e-5; the plain reference must
disagree with the ablated run (so the comparison can fail). --effect: every head's loss increase equals
the reference's (loss with that head zeroed − plain loss), averaged over two texts. --lens: the last
layer's row equals the predictions, every other row the final norm and head applied to the reference's
residual stream. Then every refusal: exit 2 (usage), one line, no file."""
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
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from attn_run import Checks  # noqa: E402
from make_checkpoint import make as make_gpt2  # noqa: E402
from reference import final_logits as gpt2_final, forward as gpt2_forward  # noqa: E402
from make_llama import make as make_llama  # noqa: E402
from llama_reference import forward as llama_forward, rms_norm  # noqa: E402

ATTN = sys.argv[1]
TOL = 1e-5
torch.set_num_threads(1)
CHECKS = Checks(ATTN)  # tests/attn_run.py: running attn, recording failures
failures, run, check = CHECKS.failures, CHECKS.run, CHECKS.check


def llama_final(w, cfg, x):
    t = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in w.items()}
    x = rms_norm(x, t["model.norm.weight"], cfg["rms_norm_eps"])
    head = t["lm_head.weight"] if not cfg.get("tie_word_embeddings") else t["model.embed_tokens.weight"]
    return (x @ head.T).numpy()


def losses(logits, ids):
    """Per-position and mean next-token cross-entropy, as F.cross_entropy computes them (float32)."""
    lg, target = torch.from_numpy(logits[:-1]), torch.tensor(ids[1:])
    per = torch.nn.functional.cross_entropy(lg, target, reduction="none").double().numpy()
    return per, float(torch.nn.functional.cross_entropy(lg, target))


TEXT = "the cat sat on the mat. it was tired<|endoftext|> the mat sat"
LLAMA_TEXT = "the cat sat on the mat. it was tiredness<|end_of_text|> the mat"
MODELS = {
    "gpt2": (lambda d: make_gpt2(d, layers=3, heads=4, embd=16, seed=11), gpt2_forward, gpt2_final, TEXT),
    "llama": (lambda d: make_llama(d, family="llama", layers=2, heads=6, kv_heads=2, hidden=24, seed=12),
              llama_forward, llama_final, LLAMA_TEXT),
}
ABLATE = {"gpt2": [(0, 1), (0, 3), (2, 0)], "llama": [(0, 1), (1, 4), (1, 5)]}

with tempfile.TemporaryDirectory() as tmp:
    folders = {}
    for name, (maker, forward, final, text) in MODELS.items():
        d = os.path.join(tmp, name)
        w, cfg = maker(d)
        folders[name] = d
        heads = ABLATE[name]
        spec = ",".join(f"{l}.{h}" for l, h in heads)
        for mode in ("zero", "mean"):
            out = os.path.join(tmp, f"{name}-{mode}.json")
            r = run(["show", "--model", d, "--ablate", spec, "--ablate-mode", mode, "--json", out, text])
            check(r.returncode == 0, f"{name} {mode}: exit {r.returncode}: {r.stderr.strip()}")
            if r.returncode:
                continue
            trace = json.load(open(out))
            ids = trace["token_ids"]
            a = trace["ablation"]
            check(a["heads"] == [list(h) for h in heads] and a["mode"] == mode, f"{name} {mode}: heads {a['heads']} mode {a['mode']}")
            ref_w, logits = forward(w, cfg, ids, heads=heads, mode=mode)
            _, plain_logits = forward(w, cfg, ids)
            per, loss = losses(logits, ids)
            plain_per, plain_loss = losses(plain_logits, ids)
            probs = torch.softmax(torch.from_numpy(logits).double(), -1).numpy()
            plain_probs = torch.softmax(torch.from_numpy(plain_logits).double(), -1).numpy()
            # the trace is the ablated run: every head's weights and the top 5 after each position
            worst = 0.0
            for layer in trace["attention"][0]["layers"]:
                for h in layer["heads"]:
                    worst = max(worst, float(np.abs(np.array(h["weights"]) - ref_w[layer["layer"]][h["head"]]).max()))
            check(worst <= TOL, f"{name} {mode}: weights differ by {worst:.3g}")
            pworst = 0.0
            for i, row in enumerate(trace["predictions"]):
                check(row[0]["id"] == int(np.argmax(logits[i])), f"{name} {mode}: top prediction at {i}")
                for p in row:
                    pworst = max(pworst, abs(p["p"] - probs[i][p["id"]]))
            check(pworst <= TOL, f"{name} {mode}: probabilities differ by {pworst:.3g}")
            # each position before and after, and the text's loss
            check(len(a["positions"]) == len(ids) - 1, f"{name} {mode}: {len(a['positions'])} positions")
            # one position's loss is −log p of the true token, often unlikely (p ≈ 1e-4 in these random
            # models), which turns float32 summation differences of ~1e-6 in the logits into up to 1e-5
            # (measured: 9.4e-6 ablated, 4.6e-6 plain, Llama position 12): 5e-5 there, 1e-5 on the rest
            lworst, pworst_pos = 0.0, 0.0
            for i, p in enumerate(a["positions"]):
                check(p["top_after"] == int(np.argmax(logits[i])) and p["top_before"] == int(np.argmax(plain_logits[i])),
                      f"{name} {mode}: top before/after at {i}")
                pworst_pos = max(pworst_pos, abs(p["p_after"] - probs[i][p["top_after"]]), abs(p["p_before"] - plain_probs[i][p["top_before"]]))
                lworst = max(lworst, abs(p["loss_after"] - per[i]), abs(p["loss_before"] - plain_per[i]))
            check(pworst_pos <= TOL, f"{name} {mode}: positions' probabilities differ by {pworst_pos:.3g}")
            check(lworst <= 5 * TOL, f"{name} {mode}: positions' losses differ by {lworst:.3g}")
            check(abs(a["loss_after"] - loss) <= TOL and abs(a["loss_before"] - plain_loss) <= TOL,
                  f"{name} {mode}: loss {a['loss_before']} -> {a['loss_after']}, reference {plain_loss} -> {loss}")
            # the reference without the ablation disagrees: the comparison above can fail
            check(abs(a["loss_after"] - plain_loss) > 1e-3, f"{name} {mode}: the ablation changed nothing ({plain_loss})")
            check(max(abs(p["loss_after"] - plain_per[i]) for i, p in enumerate(a["positions"])) > 1e-3,
                  f"{name} {mode}: no position's loss moved")
            print(f"{name} {mode} {spec}: {len(ids)} tokens, loss {plain_loss:.5f} -> {loss:.5f}, attn within "
                  f"{max(abs(a['loss_after'] - loss), abs(a['loss_before'] - plain_loss)):.2g}, positions' p within {pworst_pos:.2g}, losses {lworst:.2g}, "
                  f"weights within {worst:.2g}")
            # the terminal: the loss before and after, and the table's header
            r = run(["show", "--model", d, "--ablate", spec, "--ablate-mode", mode, text])
            check(r.returncode == 0 and f"ablated ({mode}): heads " + ", ".join(f"{l}.{h}" for l, h in heads) in r.stdout
                  and f"{plain_loss:.4f} \u2192 {loss:.4f}" in r.stdout and "top before" in r.stdout,
                  f"{name} {mode}: terminal {r.stdout[-600:]!r}")

        # the logit lens: "emb" and every layer; the last equals the predictions, the others the reference's
        out = os.path.join(tmp, f"{name}-lens.json")
        r = run(["show", "--model", d, "--lens", "--json", out, text])
        check(r.returncode == 0, f"{name} lens: {r.stderr.strip()}")
        if r.returncode == 0:
            trace = json.load(open(out))
            ids, lens = trace["token_ids"], trace["lens"]
            L = len(trace["attention"][0]["layers"])
            check([row["layer"] for row in lens] == ["emb"] + list(range(L)), f"{name} lens layers {[row['layer'] for row in lens]}")
            check(lens[-1]["ids"] == [row[0]["id"] for row in trace["predictions"]], f"{name}: the last lens row is not the predictions")
            check(max(abs(p - row[0]["p"]) for p, row in zip(lens[-1]["p"], trace["predictions"])) <= 1e-6,
                  f"{name}: the last lens row's probabilities")
            states = []
            forward(w, cfg, ids, states=states)
            lw = 0.0
            for k, row in enumerate(lens):
                lg = final(w, cfg, states[k])
                pr = torch.softmax(torch.from_numpy(lg).double(), -1).numpy()
                check(row["ids"] == [int(i) for i in np.argmax(lg, -1)], f"{name} lens {row['layer']}: ids")
                lw = max(lw, max(abs(p - pr[i][row["ids"][i]]) for i, p in enumerate(row["p"])))
            check(lw <= TOL, f"{name} lens: probabilities differ by {lw:.3g}")
            # the embeddings' row is not the last layer's (the comparison can fail)
            check(lens[0]["ids"] != lens[-1]["ids"] or lens[0]["p"] != lens[-1]["p"], f"{name} lens: every row the same")
            print(f"{name} lens: {len(lens)} rows within {lw:.2g}")
            r = run(["show", "--model", d, "--lens", text])
            check(r.returncode == 0 and "logit lens" in r.stdout and "\nemb " in r.stdout, f"{name} lens terminal: {r.stdout[-400:]!r}")

        # every head's effect: the loss with the head alone zeroed minus the plain loss, over two texts
        texts = [text, "the mat sat on the cat. the cat was tired"]
        out = os.path.join(tmp, f"{name}-effect.json")
        png = os.path.join(tmp, f"{name}-png")
        r = run(["heads", "--model", d, "--effect", "--json", out, "--png", png] + texts)
        check(r.returncode == 0, f"{name} effect: {r.stderr.strip()}")
        if r.returncode == 0:
            effect = np.array(json.load(open(out))["effect"])
            L, H = cfg.get("num_hidden_layers", cfg.get("n_layer")), cfg.get("num_attention_heads", cfg.get("n_head"))
            check(effect.shape == (L, H), f"{name} effect shape {effect.shape}")
            want = np.zeros((L, H))
            for t_ in texts:
                ids = json.loads(run(["show", "--model", d, "--keep-layers", "0", "--json", "-", t_]).stdout)["token_ids"]
                plain = losses(forward(w, cfg, ids)[1], ids)[1]
                for l in range(L):
                    for h in range(H):
                        want[l, h] += (losses(forward(w, cfg, ids, heads=[(l, h)])[1], ids)[1] - plain) / len(texts)
            ew = float(np.abs(effect - want).max())
            check(ew <= TOL, f"{name} effect differs by {ew:.3g}")
            check(float(np.abs(want).max()) > 1e-3, f"{name}: no head has an effect (the comparison could not fail)")
            check(os.path.exists(os.path.join(png, f"{name}-heads-effect.png")), f"{name}: no heads-effect figure")
            best = np.unravel_index(np.argmax(want), want.shape)
            check(f"top heads by effect on the loss:\n  layer {best[0]} head {best[1]}:" in r.stdout, f"{name} effect ranking: {r.stdout[-500:]!r}")
            print(f"{name} effect: {L}x{H} heads within {ew:.2g}, largest {want.max():+.4f} at layer {best[0]} head {best[1]}")
            # --top N names N heads (without --rank, the ranking by effect)
            r = run(["heads", "--model", d, "--effect", "--top", "2"] + texts)
            ranked = r.stdout.split("top heads by effect on the loss:\n")[-1].splitlines()
            check(r.returncode == 0 and len(ranked) == 2 and ranked[0].startswith(f"  layer {best[0]} head {best[1]}: +"),
                  f"{name} --effect --top 2: {ranked!r}")

    # refusals: exit 2, one line, nothing written
    from make_encoder import make as make_encoder  # noqa: E402
    from make_seq2seq import make as make_seq2seq  # noqa: E402
    bert, t5 = os.path.join(tmp, "bert"), os.path.join(tmp, "t5")
    make_encoder(bert)
    make_seq2seq(t5)
    g, ll = folders["gpt2"], folders["llama"]
    hint_pairs = "(hint: write layer.head pairs (layers 0 to 2, heads 0 to 3), e.g. --ablate 0.1,1.0)"
    decoders = "(hint: drop {0}, or give a GPT-2, Llama, Mistral or Qwen2 folder)"
    cases = [
        (["show", "--model", g, "--ablate", "3.0", TEXT], "--ablate '3.0' names layer 3; the model has 3 layers " + hint_pairs),
        (["show", "--model", g, "--ablate", "0.1,2.4", TEXT], "--ablate '0.1,2.4' names head 4; the model has 4 heads per layer " + hint_pairs),
        (["show", "--model", g, "--ablate", "0.1,0.1", TEXT], "--ablate '0.1,0.1' names head 0.1 twice " + hint_pairs),
        (["show", "--model", g, "--ablate", "0-1", TEXT], "--ablate '0-1' is not a list of layer.head pairs " + hint_pairs),
        (["show", "--model", g, "--ablate", "0.1,", TEXT], "--ablate '0.1,' is not a list of layer.head pairs " + hint_pairs),
        (["show", "--model", ll, "--ablate", "0.6", LLAMA_TEXT],
         "--ablate '0.6' names head 6; the model has 6 heads per layer (hint: write layer.head pairs (layers 0 to 1, heads 0 to 5), e.g. --ablate 0.1,1.0)"),
        (["show", "--model", g, "--ablate-mode", "mean", TEXT],
         "--ablate-mode mean says how heads are ablated, but no --ablate names them (hint: add --ablate L.H, e.g. --ablate 0.1)"),
        (["show", "--model", g, "--ablate", "0.1", "the"],
         "--ablate compares the loss of the text's next tokens, and a one-token text has none (hint: give a text of at least two tokens)"),
        (["show", "--model", bert, "--ablate", "0.1", "the cat sat"],
         "--ablate runs a decoder's next-token predictions, and BERT is an encoder " + decoders.format("--ablate")),
        (["show", "--model", bert, "--lens", "the cat sat"],
         "--lens runs a decoder's next-token predictions, and BERT is an encoder " + decoders.format("--lens")),
        (["show", "--model", t5, "--lens", "the cat sat"],
         "--lens runs a decoder's next-token predictions, and T5 is an encoder-decoder " + decoders.format("--lens")),
        (["show", "--kind", "causal", "--ablate", "0.1", "a b"],
         "--ablate acts on a trained decoder's layers, which needs --model (hint: attn show --model GPT2_DIR \"text\" --ablate 0.1)"),
        (["show", "--kind", "causal", "--lens", "a b"],
         "--lens acts on a trained decoder's layers, which needs --model (hint: attn show --model GPT2_DIR \"text\" --lens)"),
        (["show", "--kind", "causal", "--ablate-mode", "mean", "a b"],
         "--ablate-mode acts on a trained decoder's layers, which needs --model (hint: attn show --model GPT2_DIR \"text\" --ablate 0.1)"),
        (["heads", "--model", bert, "--effect", "the cat sat"],
         "--effect ablates heads and measures a decoder's next-token loss, and BERT is an encoder " + decoders.format("--effect")),
        (["heads", "--model", t5, "--effect", "the cat sat"],
         "--effect ablates heads and measures a decoder's next-token loss, and T5 is an encoder-decoder " + decoders.format("--effect")),
        (["heads", "--model", g, "--effect", TEXT, "the"],
         "--effect: text 2 is one token, which has no next token to predict (hint: give texts of at least two tokens)"),
        (["heads", "--trace", os.path.join(tmp, "gpt2-lens.json"), "--effect"],
         "--trace scores a saved trace's heads in the terminal; texts, --file, --json, --png, --svg, --prefix, --rank, --top, "
         "--induction-length and --effect need --model (hint: leave them out, or give --model DIR)"),
    ]
    for args, message in cases:
        out = os.path.join(tmp, "refused.json")
        r = run(args + ["--json", out])
        err = r.stderr
        check(r.returncode == 2 and err == "attn: error: " + message + "\n" and not os.path.exists(out),
              f"{args}: exit {r.returncode}: {err!r}")
    print(f"{len(cases)} refusals checked")
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
