#!/usr/bin/env python3
"""The page's Generation, Ablation and Logit lens panels in a real browser (headless Chromium through
Selenium, the network blocked), each against the JSON that attn writes for the same run.

Pages from a tiny GPT-2 checkpoint (tests/gpt2/make_checkpoint.py):
- `attn decode --model DIR TEXT --max-new-tokens N --html` (greedy, and sampled): one chip per generated
  token with the ids and tokens of the decode JSON's `generated_ids` and steps; each step's probability and
  top-k as the JSON has them; the chosen head's row strip equal to the step's recorded row (another layer's
  row, the full pass's, equal to `decode --layer 1`'s within the page's 4 decimals).
- `decode --head 1`: the page opens on the one recorded head and names it.
- a checkpoint whose model always picks a token "<script>": the chips show it as text, no element is made.
- `attn show --model DIR TEXT --ablate 0.1,1.0 --lens --html`: the losses before and after, the positions
  listed (changed ones and the 5 whose loss changed most), the lens table's ids and probabilities.
- `attn show --model DIR TEXT --html`: none of the three panels.
Screenshots of each panel at 1366 x 768 go to --shots (default: --out).

Usage: test_run_panels.py --attn BIN --chromium PATH --chromedriver PATH --out DIR [--shots DIR]
"""
import argparse
import json
import os
import shutil
import struct
import sys

import numpy as np
import headless  # noqa: E402
from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_page  # noqa: E402  (its Page driver, checks and screenshot test)
from test_page import Page, check, run  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpt2"))
from make_checkpoint import make  # noqa: E402

TEXT = "the cat sat on the mat"
SCRIPT = "<script>"


def label(text):
    """A token's text as attn labels it (data/text/bpe_tokenizer.h's token_label): a leading space as '·',
    newline '↵', tab '⇥', another control character U+FFFD."""
    out = ""
    for i, c in enumerate(text):
        out += "·" if c == " " and i == 0 else "↵" if c == "\n" else "⇥" if c == "\t" else "\ufffd" if ord(c) < 0x20 or ord(c) == 0x7F else c
    return out or "\ufffd"


def piece_label(piece):
    """A vocab.json piece's label when its characters are bytes that stand for themselves (else None)."""
    body = piece[1:] if piece.startswith("Ġ") else piece
    if not body or not all(0x21 <= ord(c) <= 0x7E for c in body):
        return None
    return ("·" if piece.startswith("Ġ") else "") + body


def js(page, code, *args):
    return page.d.execute_script(code, *args)


def shot_of(page, section_id, path):
    """The window at 1366 x 768 scrolled to a panel."""
    js(page, "document.getElementById(arguments[0]).scrollIntoView({block: 'start'}); scrollBy(0, -60)", section_id)
    check(page.d.save_screenshot(path), "screenshot %s saved" % path)
    test_page.shots.append(path)


def gen_state(page):
    """What the Generation panel shows now."""
    return js(page, """
      const q = (s) => document.querySelector(s);
      return {
        chips: [...document.querySelectorAll('#gen-chips .gen-chip.generated')].map(c => [Number(c.dataset.id), c.textContent]),
        prompt: [...document.querySelectorAll('#gen-chips .gen-chip.prompt')].map(c => c.textContent),
        on: [...document.querySelectorAll('#gen-chips .gen-chip.on')].map(c => Number(c.dataset.k)),
        p: q('#gen-p') && q('#gen-p').dataset.p, q: q('#gen-q') && q('#gen-q').dataset.p,
        top: [...document.querySelectorAll('#gen-top li[data-id]')].map(l => [Number(l.dataset.id), l.dataset.p, l.querySelector('code').textContent]),
        chosen: [...document.querySelectorAll('#gen-top li.chosen')].map(l => Number(l.dataset.id)),
        row: [...document.querySelectorAll('#gen-row .gen-cell')].map(c => c.dataset.w),
        cells: [...document.querySelectorAll('#gen-row .gen-cell')].map(c => [c.title, c.style.background]),
        recorded: q('#gen-row').dataset.recorded, layer: q('#gen-row').dataset.layer, head: q('#gen-row').dataset.head,
        sampler: q('#gen-sampler').textContent, note: q('#gen-row-note').textContent};""")


def head_row(dec, step, head):
    rows = [h["weights"] for h in dec["steps"][step]["heads"] if h["head"] == head]
    check(len(rows) == 1, "the decode JSON records head %d at step %d" % (head, step))
    return rows[0]


def test_generation_page(page, dec, dec_l1, out, shots):
    """Greedy generation: chips, each step's probability and top-k, and the chosen head's row."""
    page.load()
    page.quiet("generation page")
    g = dec["generation"]
    n = len(g["steps"])
    check(n == len(dec["generated_ids"]) >= 3, "the run generated %d tokens" % n)
    s = gen_state(page)
    check([c[0] for c in s["chips"]] == dec["generated_ids"], "chip ids %s = generated_ids %s" % ([c[0] for c in s["chips"]], dec["generated_ids"]))
    check([c[1] for c in s["chips"]] == [st["token"] for st in g["steps"]], "chip tokens %s" % [c[1] for c in s["chips"]])
    check(s["prompt"] == [st["token"] for st in dec["steps"][:g["prompt_tokens"]]], "the prompt's chips: %s" % s["prompt"])
    check(s["sampler"].startswith("greedy"), "the sampler says greedy: %r" % s["sampler"])
    check(s["q"] is None, "a greedy run shows no sampler probability q")
    slider = page.d.find_element(By.ID, "gen-step")
    check(slider.get_attribute("max") == str(n - 1), "the slider spans the %d steps" % n)
    chips = page.d.find_elements(By.CSS_SELECTOR, "#gen-chips .gen-chip.generated")
    compared = 0
    for k, st in enumerate(g["steps"]):
        if k % 2:  # the slider for odd steps, a click on the chip for even ones
            js(page, "const s = document.getElementById('gen-step'); s.value = arguments[0]; s.dispatchEvent(new Event('input'))", str(k))
        else:
            chips[k].click()
        s = gen_state(page)
        check(s["on"] == [k], "step %d: its chip is marked (%s)" % (k, s["on"]))
        check(float(s["p"]) == st["p"], "step %d: p %s, JSON %r" % (k, s["p"], st["p"]))
        check([(t[0], float(t[1]), t[2]) for t in s["top"]] == [(a["id"], a["p"], label(a["token"])) for a in st["top"]],
              "step %d: top-k %s, JSON %s" % (k, s["top"], st["top"]))
        check(s["chosen"] == [st["id"]], "step %d: the chosen token marked among the top (greedy): %s" % (k, s["chosen"]))
        want = head_row(dec, st["step"], 0)
        check(s["recorded"] == "true" and (s["layer"], s["head"]) == ("0", "0"), "step %d: layer 0 head 0's recorded row" % k)
        check([float(w) for w in s["row"]] == want, "step %d: the row strip %s = the JSON's %s" % (k, s["row"], want))
        check(len(s["row"]) == st["step"] + 1 == g["prompt_tokens"] + k, "step %d: the row covers the %d tokens so far" % (k, len(s["row"])))
        compared += len(want)
    # the head picker chooses the row's head; another layer gives the full pass's row (decode --layer 1's)
    page.select("head", 2)
    k = n - 1
    st = g["steps"][k]
    s = gen_state(page)
    check(s["on"] == [k] and s["head"] == "2" and [float(w) for w in s["row"]] == head_row(dec, st["step"], 2),
          "head 2's row at the last step: %s" % s["row"])
    check("every head" in s["note"], "the note says the steps record every head: %r" % s["note"])
    page.select("layer", 1)
    s = gen_state(page)
    want = head_row(dec_l1, st["step"], 2)
    check(s["recorded"] == "false" and s["layer"] == "1", "layer 1: the full pass's row (%s)" % s["recorded"])
    check(max(abs(float(w) - v) for w, v in zip(s["row"], want)) <= 0.5e-4 + 1e-6 and len(s["row"]) == len(want),
          "layer 1 head 2: the full pass's row %s = decode --layer 1's %s at 4 decimals" % (s["row"], want))
    check("full pass" in s["note"], "the note says whose row: %r" % s["note"])
    # colours: a larger weight a different colour than a smaller one (the matrix's viridis scale)
    cols = {c[1] for c in s["cells"]}
    check(len(cols) >= 2, "the strip's cells have colours: %s" % cols)
    print("generation page: %d steps, %d row weights equal the decode JSON's" % (n, compared))
    page.select("layer", 0)
    page.select("head", 0)
    chips[1].click()
    # the address keeps the step: a copied link opens on it
    frag = js(page, "return location.hash")
    check("gen=1" in frag, "the address keeps the generation step: %s" % frag)
    page.load(frag)
    check(gen_state(page)["on"] == [1], "a copied link opens on generated token 2: %s" % gen_state(page)["on"])
    page.d.set_window_size(1366, 768)
    shot_of(page, "generation-section", os.path.join(shots, "generation-1366x768.png"))
    top = js(page, "const r = document.getElementById('gen-row').getBoundingClientRect(); return [r.right, innerWidth, r.bottom, innerHeight]")
    check(top[0] <= top[1], "1366x768: the row strip fits across (%s)" % top)
    page.d.set_window_size(1200, 1000)
    page.quiet("generation page after use")


def test_sampled_page(page, dec):
    """Sampling: the settings are shown, each step's p and q are the JSON's."""
    page.load()
    page.quiet("sampled generation page")
    g = dec["generation"]
    s = gen_state(page)
    check(s["sampler"].startswith("sampled: temperature 0.8, top-k 5, seed 3"), "the sampler's settings: %r" % s["sampler"])
    check([c[0] for c in s["chips"]] == dec["generated_ids"], "sampled chip ids = generated_ids")
    for k, st in enumerate(g["steps"]):
        js(page, "const s = document.getElementById('gen-step'); s.value = arguments[0]; s.dispatchEvent(new Event('input'))", str(k))
        s = gen_state(page)
        check(float(s["p"]) == st["p"] and float(s["q"]) == st["p_sample"], "sampled step %d: p %s q %s, JSON %r %r" %
              (k, s["p"], s["q"], st["p"], st["p_sample"]))


def test_one_head_page(page, dec):
    """decode --head 1 keeps one head's rows: the page opens on it and says so; head 0 shows the full pass's row."""
    page.load()
    page.quiet("one-head generation page")
    s = gen_state(page)
    st = dec["generation"]["steps"][0]
    check(s["head"] == "1" and s["recorded"] == "true" and [float(w) for w in s["row"]] == head_row(dec, st["step"], 1),
          "the page opens on the recorded head 1's row: %s" % s["row"])
    check("head 1 only" in s["note"], "the note names the one recorded head: %r" % s["note"])
    page.select("head", 0)
    s = gen_state(page)
    check(s["recorded"] == "false" and "head 1" in s["note"] and "full pass" in s["note"], "head 0: the full pass's row, said so: %r" % s["note"])


def test_script_token_page(page, dec):
    """A generated token "<script>" is text in the chips, the top list and the row."""
    page.load()
    page.quiet("<script> token page")
    s = gen_state(page)
    check(dec["generation"]["steps"][0]["token"] == SCRIPT, "the model chose %r" % dec["generation"]["steps"][0]["token"])
    check([c[1] for c in s["chips"]] == [SCRIPT] * len(dec["generated_ids"]), "the chips read %s" % s["chips"])
    check(s["top"][0][2] == SCRIPT, "the top list reads %r" % s["top"][0][2])
    check(js(page, "return document.scripts.length") == 3, "the token made no <script> element (data, cells, code)")
    js(page, "const s = document.getElementById('gen-step'); s.value = arguments[0]; s.dispatchEvent(new Event('input'))", "1")
    s = gen_state(page)
    check(any(SCRIPT in c[0] for c in gen_state(page)["cells"]), "the row's last key is the generated %r: %s" % (SCRIPT, s["cells"][-1]))
    check(js(page, "return document.scripts.length") == 3, "still three scripts after a step")


def listed_positions(ab):
    """The terminal's rule: positions whose top changed, and the 5 whose loss changed most."""
    pos = ab["positions"]
    order = sorted(range(len(pos)), key=lambda i: (-abs(pos[i]["loss_after"] - pos[i]["loss_before"]), i))
    listed = set(order[:5]) | {i for i, p in enumerate(pos) if p["top_before"] != p["top_after"]}
    return sorted(listed)


def test_ablation_lens_page(page, trace, pieces, shots):
    page.load()
    page.quiet("ablation and lens page")
    ab = trace["ablation"]
    got = js(page, "return ['ablation-loss-before', 'ablation-loss-after'].map(id => document.getElementById(id).dataset.value)")
    check([float(v) for v in got] == [ab["loss_before"], ab["loss_after"]], "losses %s = JSON %r %r" % (got, ab["loss_before"], ab["loss_after"]))
    shown = js(page, "return ['ablation-loss-before', 'ablation-loss-after'].map(id => document.getElementById(id).textContent)")
    check(shown == ["%.4f" % ab["loss_before"], "%.4f" % ab["loss_after"]], "losses shown at 4 decimals: %s" % shown)
    heads = js(page, "return document.getElementById('ablation-heads').textContent")
    check("0.1, 1.0" in heads and "mode zero" in heads, "the ablated heads and mode: %r" % heads)
    rows = js(page, "return [...document.querySelectorAll('#ablation-table tbody tr')].map(r => [Number(r.dataset.pos),"
              " r.cells[5].dataset.value, r.classList.contains('changed'), r.cells[3].querySelector('code').textContent,"
              " r.cells[4].querySelector('code').textContent])")
    want = listed_positions(ab)
    check([r[0] for r in rows] == want, "the positions listed %s = the terminal's rule %s" % ([r[0] for r in rows], want))
    for i, dl, changed, before, after in rows:
        p = ab["positions"][i]
        for shown_, id_ in ((before, p["top_before"]), (after, p["top_after"])):
            want_text = piece_label(pieces[id_])
            check(want_text is None or shown_ == want_text, "position %d: top %d shown as %r, its piece %r" % (i, id_, shown_, pieces[id_]))
        check(abs(float(dl) - (p["loss_after"] - p["loss_before"])) <= 1e-12, "position %d: Δ loss %s" % (i, dl))
        check(changed == (p["top_before"] != p["top_after"]), "position %d: marked changed %s" % (i, changed))
    # the lens: one row per depth, its top ids and probabilities the JSON's
    lens = js(page, "return [...document.querySelectorAll('#lens-table tbody tr')].map(r => [r.dataset.layer,"
              " [...r.querySelectorAll('td')].map(c => [Number(c.dataset.id), c.dataset.p, c.querySelector('code').textContent])])")
    check([r[0] for r in lens] == [str(x["layer"]) for x in trace["lens"]], "lens rows %s" % [r[0] for r in lens])
    cells = texts = 0
    for (name, got_cells), row in zip(lens, trace["lens"]):
        check([c[0] for c in got_cells] == row["ids"], "lens %s: ids %s = JSON %s" % (name, [c[0] for c in got_cells], row["ids"]))
        check([float(c[1]) for c in got_cells] == row["p"], "lens %s: p = JSON" % name)
        for (_, _, text), i in zip(got_cells, row["ids"]):  # the cell's token: the vocabulary's piece for that id
            want = piece_label(pieces[i])
            if want is not None:
                check(text == want, "lens %s: id %d shown as %r, its piece %r" % (name, i, text, pieces[i]))
                texts += 1
        cells += len(got_cells)
    check(texts >= cells // 3, "lens: %d of %d cells' tokens compared with vocab.json" % (texts, cells))
    header = js(page, "return [...document.querySelectorAll('#lens-table thead th')].slice(1).map(c => c.textContent)")
    check(header == trace["tokens"], "the lens table's columns are the tokens: %s" % header)
    tops = js(page, "return ['ablation-section', 'lens-section', 'heads-section', 'matrix-section'].map(id => "
                    "document.getElementById(id).getBoundingClientRect().top)")
    check(tops == sorted(tops), "ablation, lens, then the heads and the matrix: %s" % tops)
    print("ablation page: %d positions listed; lens: %d cells equal the JSON's" % (len(rows), cells))
    page.d.set_window_size(1366, 768)
    page.load()
    shot_of(page, "ablation-section", os.path.join(shots, "ablation-1366x768.png"))
    shot_of(page, "lens-section", os.path.join(shots, "lens-1366x768.png"))
    right = js(page, "return [document.querySelector('#lens-section .run-scroll').getBoundingClientRect().right, innerWidth]")
    check(right[0] <= right[1], "1366x768: the lens table scrolls inside the window (%s)" % right)
    page.d.set_window_size(1200, 1000)
    page.quiet("ablation and lens page after use")


def test_plain_page(page):
    page.load()
    page.quiet("plain model page")
    found = js(page, "return ['generation-section', 'ablation-section', 'lens-section'].filter(id => document.getElementById(id))")
    check(found == [], "a page without generation, ablation or lens shows none of them: %s" % found)


def read_safetensors(path):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    return bytearray(data), json.loads(data[8:8 + n]), 8 + n


def script_checkpoint(folder):
    """The tiny checkpoint with its first unused token renamed "<script>" and made the model's every pick:
    ln_f's weight 0 makes the final norm's output its bias b, and the token's embedding 20·b/|b|² gives it
    logit 20 (GPT-2 ties the output head to the embeddings)."""
    make(folder, layers=1, heads=2, embd=8, positions=32, seed=7, vocab_extra=1)
    vocab = json.load(open(os.path.join(folder, "vocab.json")))
    sid = vocab.pop("extra0")
    vocab[SCRIPT] = sid
    json.dump(vocab, open(os.path.join(folder, "vocab.json"), "w"))
    path = os.path.join(folder, "model.safetensors")
    data, header, base = read_safetensors(path)

    def tensor(name):
        b, e = header[name]["data_offsets"]
        return np.frombuffer(bytes(data[base + b:base + e]), "<f4").reshape(header[name]["shape"]), base + b

    bias, _ = tensor("ln_f.bias")
    _, w_at = tensor("ln_f.weight")
    data[w_at:w_at + 4 * bias.size] = np.zeros(bias.size, "<f4").tobytes()
    wte, wte_at = tensor("wte.weight")
    row = (20.0 * bias / float(bias @ bias)).astype("<f4")
    at = wte_at + 4 * sid * wte.shape[1]
    data[at:at + 4 * wte.shape[1]] = row.tobytes()
    open(path, "wb").write(bytes(data))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn", required=True)
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--chromedriver", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--shots")
    a = ap.parse_args()
    a.attn = os.path.abspath(a.attn)
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    out = os.path.abspath(a.out)
    shots = os.path.abspath(a.shots or out)
    os.makedirs(shots, exist_ok=True)
    # 1. the runs and their JSON
    make(os.path.join(out, "tiny"), layers=2, heads=3, embd=12, positions=64, seed=5)
    gen = ["decode", "--model", "tiny", TEXT, "--max-new-tokens", "6"]
    run(a.attn, *gen, "--json", "gen.json", "--html", "gen.html", cwd=out)
    run(a.attn, *gen, "--layer", "1", "--json", "gen-l1.json", cwd=out)
    run(a.attn, *gen, "--temperature", "0.8", "--top-k", "5", "--sample-seed", "3", "--json", "sampled.json", "--html", "sampled.html", cwd=out)
    run(a.attn, *gen, "--head", "1", "--json", "one-head.json", "--html", "one-head.html", cwd=out)
    script_checkpoint(os.path.join(out, "script"))
    run(a.attn, "decode", "--model", "script", TEXT, "--max-new-tokens", "3", "--json", "script.json", "--html", "script.html", cwd=out)
    run(a.attn, "show", "--model", "tiny", TEXT + " and the cat", "--ablate", "0.1,1.0", "--lens", "--json", "ablate.json",
        "--html", "ablate.html", cwd=out)
    run(a.attn, "show", "--model", "tiny", TEXT, "--html", "plain.html", cwd=out)
    load = lambda name: json.load(open(os.path.join(out, name)))  # noqa: E731
    dec, dec_l1 = load("gen.json"), load("gen-l1.json")
    check(dec["generated_ids"] == dec_l1["generated_ids"], "decode --layer 1 generates the same tokens")
    # 2. the browser: headless, no network, a fresh profile
    driver, profile = headless.start(a.chromium, a.chromedriver)
    try:
        test_generation_page(Page(driver, os.path.join(out, "gen.html")), dec, dec_l1, out, shots)
        test_sampled_page(Page(driver, os.path.join(out, "sampled.html")), load("sampled.json"))
        test_one_head_page(Page(driver, os.path.join(out, "one-head.html")), load("one-head.json"))
        test_script_token_page(Page(driver, os.path.join(out, "script.html")), load("script.json"))
        test_ablation_lens_page(Page(driver, os.path.join(out, "ablate.html")), load("ablate.json"),
                                {i: p for p, i in load("tiny/vocab.json").items()}, shots)
        test_plain_page(Page(driver, os.path.join(out, "plain.html")))
        test_page.screenshots_not_blank(driver, test_page.shots)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    if test_page.failures:
        sys.exit("%d failure(s)" % len(test_page.failures))
    print("screenshots in %s" % shots)


if __name__ == "__main__":
    main()
