#!/usr/bin/env python3
"""An encoder–decoder model's page in a real browser (headless Chromium through Selenium, at 1366 x 768, the
network blocked): `attn show --model` of a tiny BART (2 encoder layers, 3 decoder layers, 4 heads;
tests/seq2seq/make_seq2seq.py) greedy (5 new tokens over 8 source tokens, so that S x S, T x T and T x S differ)
and teacher-forced, and `attn render` of the greedy run's trace.

Checked against the run's own trace (`--json`): the page opens on the Cross tab; the translation line says the
source, the generated tokens' text and "greedy" (or "teacher-forced"); each tab (Encoder, Decoder, Cross) shows
its set: a matrix of S x S, T x T and T x S square cells, row and column labels of the set's tokens, layer
options as many as the set's layers (the decoder deeper than the encoder), the overview's thumbnails; hovering
cells of several layers, heads and stages reads back the trace's values at 4 decimals and names the set, layer,
head, both tokens and the token a decoder row chose; the Cross head view puts the decoder's tokens on the left
and the source's on the right; the arrow keys move between tabs; the URL fragment reopens a tab; no console
errors, nothing fetched.
Screenshots of each tab are saved (cross-1366x768.png is the one to look at).

Usage: test_seq2seq_page.py --attn BIN --chromium PATH --chromedriver PATH --out DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "seq2seq"))
sys.dont_write_bytecode = True

import headless  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

import test_page  # noqa: E402  (the one-set page's test: its Page driver, check, expected, screenshots)
from test_page import Page, check, expected, four, screenshots_not_blank  # noqa: E402

TEXT = "the cat sat on the mat"
TARGET = "a dog lay on the rug"
SETS = ["encoder", "decoder", "cross"]
SET_TAB = {"encoder": "Encoder", "decoder": "Decoder", "cross": "Cross"}


def run(attn, *args, cwd):
    r = subprocess.run([attn, *args], cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("attn %s failed (%d): %s" % (" ".join(args), r.returncode, r.stderr))
    return r.stdout


def set_of(trace, name):
    return next(s for s in trace["attention"] if s["name"] == name)


def generated_labels(trace):
    """The generated tokens (T): decoder row i chose generated_ids[i], the decoder's token i + 1; the last one's
    label where the trace names that id (a forced end token need not be in its row's top 5)."""
    last = trace["generated_ids"][-1]
    names = dict(zip(trace["source_token_ids"], trace["source_tokens"]))
    names.update(zip(trace["token_ids"], trace["tokens"]))
    names.update((p["id"], p["token"]) for row in trace["predictions"] for p in row)
    return trace["tokens"][1:] + [names.get(last, "#%d" % last)]


def tab(page, name):
    """Clicks a tab as a user does and waits for its views."""
    page.d.find_element(By.ID, "set-tab-" + name).click()
    page.box = page.matrix = None  # the matrix is rebuilt
    check(page.d.execute_script("return document.getElementById('views').dataset.set") == name, "the %s tab shows its set" % name)


def selected_tab(page):
    return [b.get_attribute("data-set") for b in page.d.find_elements(By.CSS_SELECTOR, ".set-tabs [role=tab]")
            if b.get_attribute("aria-selected") == "true"]


def labels(page, selector):
    return [s.get_attribute("textContent") for s in page.d.find_elements(By.CSS_SELECTOR, selector)]


def check_tab(page, trace, name, layers_heads, out):
    """One tab: its matrix's shape and labels, its pickers, and readouts of cells against the trace."""
    s = set_of(trace, name)
    rows, cols = s["query_tokens"], s["key_tokens"]
    T, S = len(rows), len(cols)
    check(selected_tab(page) == [name], "%s: the selected tab is %s" % (name, selected_tab(page)))
    # the matrix: T x S square cells, every row and column labelled with the set's tokens
    m = page.d.find_element(By.ID, "matrix")
    w, h = m.size["width"], m.size["height"]
    check(abs(w / S - h / T) < 0.01 and w > 0, "%s: the matrix is %d x %d square cells (%d x %d px)" % (name, T, S, w, h))
    check(labels(page, ".row-labels span") == [t or "∅" for t in rows], "%s: row labels are the set's queries: %s" %
          (name, labels(page, ".row-labels span")))
    check(labels(page, ".col-labels span") == [t or "∅" for t in cols], "%s: column labels are the set's keys: %s" %
          (name, labels(page, ".col-labels span")))
    L, H = len(s["layers"]), len(s["layers"][0]["heads"])
    check(page.options("layer") == [str(l) for l in range(L)], "%s: %d layer options: %s" % (name, L, page.options("layer")))
    check(page.options("head") == [str(k) for k in range(H)], "%s: %d head options: %s" % (name, H, page.options("head")))
    thumbs = page.d.find_elements(By.CSS_SELECTOR, "#overview canvas.thumb")
    check(len(thumbs) == L * H, "%s: one thumbnail per layer and head (%d)" % (name, len(thumbs)))
    # readouts: the trace's values, and the set, layer, head and both tokens named
    hovered = 0
    for l, hd, stage in layers_heads:
        l, hd = min(l, L - 1), min(hd, H - 1)
        page.select("layer", l)
        page.select("head", hd)
        page.select("stage", stage)
        head = s["layers"][l]["heads"][hd]
        for i, j in [(T - 1, 0), (0, S - 1), (T // 2, S // 2), (T - 1, S - 1)]:
            got, text = page.hover(i, j, T, S)
            want = expected(head, stage, i, j)
            check(got == want, "%s layer %d head %d %s (%d, %d): page %s, trace %s" % (name, l, hd, stage, i, j, got, want))
            if want != "hidden":
                check(want in text, "%s: the readout shows %s: %r" % (name, want, text))
            parts = [name, "layer %d" % s["layers"][l]["layer"], "head %d" % hd, "query %d “%s”" % (i, rows[i]),
                     "key %d “%s”" % (j, cols[j])]
            if name != "encoder":  # a decoder row names the token it chose
                parts.append("(decoder, next “%s”)" % generated_labels(trace)[i])
            for part in parts:
                check(part in text, "%s: the readout names %r: %r" % (name, part, text))
            check(page.d.execute_script("return document.getElementById('readout').dataset.set") == name,
                  "%s: the readout's set" % name)
            hovered += 1
    # the layer's mean over its heads, read back on its own picture
    page.select("layer", L - 1)
    canvas = page.d.find_element(By.ID, "aggregate-layer_mean")
    cw, ch = canvas.size["width"], canvas.size["height"]
    check(abs(cw / S - ch / T) < 0.01, "%s: the layer mean keeps the set's shape (%d x %d px for %d x %d)" % (name, cw, ch, T, S))
    page.d.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    ActionChains(page.d, duration=0).move_to_element_with_offset(canvas, int((0.5 - S / 2) * cw / S), int((T - 1 + 0.5 - T / 2) * ch / T)).perform()
    text = page.d.find_element(By.ID, "aggregate-readout").text
    want = four(s["layer_mean"][s["layers"][L - 1]["layer"]][T - 1][0])
    check(text.startswith(name + " · ") and text.endswith("= " + want), "%s: layer mean readout %r, trace %s" % (name, text, want))
    check(bool(page.d.find_elements(By.ID, "aggregate-rollout")) == (name != "cross"), "%s: a rollout but for cross" % name)
    page.d.execute_script("window.scrollTo(0, 0)")
    page.select("layer", 0)
    page.select("head", 0)
    page.select("stage", "weights")
    return hovered


def test_greedy_page(page, trace, out):
    page.load()
    page.quiet("seq2seq page")
    T, S = len(trace["tokens"]), len(trace["source_tokens"])
    check(selected_tab(page) == ["cross"], "the page opens on the Cross tab: %s" % selected_tab(page))
    # the translation line: the source, the generated tokens' text, greedy
    line = page.d.find_element(By.ID, "translation").text
    data = page.d.execute_script("return JSON.parse(document.getElementById('attn-data').textContent).translation")
    labels_gen = generated_labels(trace)
    check(data["generated"] == labels_gen, "the generated tokens are the trace's: %s, %s" % (data["generated"], labels_gen))
    check(line.startswith("“" + TEXT + "” → “") and line.endswith("greedy"), "the translation line: %r" % line)
    check("“" + data["text"] + "”" in line, "the line shows the translation %r: %r" % (data["text"], line))
    tabs = [b.text.split("\n")[0] for b in page.d.find_elements(By.CSS_SELECTOR, ".set-tabs [role=tab]")]
    check(tabs == ["Encoder", "Decoder", "Cross"], "the tabs: %s" % tabs)
    # the head view of Cross: the decoder's tokens on the left, the source's on the right (BertViz)
    left = labels(page, "#headview .hv-q div[data-i]")
    right = labels(page, "#headview .hv-k div[data-j]")
    check(left == trace["tokens"] and right == trace["source_tokens"],
          "the Cross head view: decoder tokens left %s, source tokens right %s" % (left, right))
    page.d.execute_script("document.getElementById('headview-section').scrollIntoView()")
    ActionChains(page.d, duration=0).move_to_element(page.d.find_elements(By.CSS_SELECTOR, "#headview .hv-q div[data-i]")[T - 1]).perform()
    ink = ("const c = document.querySelector('#headview canvas'); return Array.from(c.getContext('2d')"
           ".getImageData(0, 0, c.width, c.height).data).filter((v, k) => k % 4 == 3 && v > 0).length")
    check(page.d.execute_script(ink) > 100, "the Cross head view draws a decoder token's lines to the source")
    page.shot(out, "cross-headview.png")
    page.d.execute_script("window.scrollTo(0, 0)")
    # the screenshot a student sees first, with a readout
    page.hover(T - 1, S // 2, T, S)
    page.d.execute_script("window.scrollTo(0, 0)")
    page.shot(out, "cross-1366x768.png")
    page.d.execute_script("document.getElementById('matrix-section').scrollIntoView({block: 'start'})")
    page.hover(T - 1, S // 2, T, S)
    page.shot(out, "cross-matrix-1366x768.png")
    page.d.execute_script("window.scrollTo(0, 0)")
    # every tab, Cross first (as it opened), then Encoder and Decoder
    stages = [(0, 0, "weights"), (9, 9, "weights"), (1, 2, "masked-scores"), (0, 3, "scores")]
    hovered = check_tab(page, trace, "cross", stages, out)
    for name in ("encoder", "decoder"):
        tab(page, name)
        hovered += check_tab(page, trace, name, stages, out)
        page.shot(out, name + "-1366x768.png")
    # the predictions line follows the decoder's rows only
    check(page.d.find_elements(By.ID, "predictions"), "the Decoder tab shows the next-token predictions")
    tab(page, "encoder")
    check(not page.d.find_elements(By.ID, "predictions"), "the Encoder tab shows none (its rows are source tokens)")
    # a tab keeps its selection: cross at layer 2, head 3 stays there over a visit to the encoder
    tab(page, "cross")
    page.select("layer", 2, real=True)
    page.select("head", 3, real=True)
    tab(page, "encoder")
    check(page.options("layer") == ["0", "1"], "the encoder's layer picker has its 2 layers: %s" % page.options("layer"))
    tab(page, "cross")
    check((page.selected("layer"), page.selected("head")) == ("2", "3"), "back on Cross: layer 2, head 3 again")
    check(page.d.current_url.endswith("#layer=2&head=3&stage=weights&set=cross"), "the fragment: %s" % page.d.current_url)
    # the arrow keys move between tabs (and focus follows)
    page.d.find_element(By.ID, "set-tab-cross").send_keys(Keys.ARROW_RIGHT)
    check(selected_tab(page) == ["encoder"], "→ from Cross wraps to Encoder: %s" % selected_tab(page))
    page.d.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    check(selected_tab(page) == ["decoder"], "→ again: Decoder: %s" % selected_tab(page))
    # a link reopens a tab: the decoder at layer 2, head 1, masked scores
    page.load("#layer=2&head=1&stage=masked-scores&set=decoder")
    check(selected_tab(page) == ["decoder"], "the fragment opens the Decoder tab: %s" % selected_tab(page))
    check((page.selected("layer"), page.selected("head"), page.selected("stage")) == ("2", "1", "masked-scores"),
          "the fragment opens layer 2, head 1, masked scores")
    got, _ = page.hover(T - 1, 0, T, T)
    want = expected(set_of(trace, "decoder")["layers"][2]["heads"][1], "masked-scores", T - 1, 0)
    check(got == want, "the reopened Decoder tab reads its layer 2, head 1: page %s, trace %s" % (got, want))
    page.quiet("seq2seq page after use")
    return hovered


def test_teacher_forced_page(page, trace):
    page.load()
    page.quiet("teacher-forced page")
    line = page.d.find_element(By.ID, "translation").text
    check(line.endswith("teacher-forced"), "the teacher-forced run says so: %r" % line)
    check(trace["teacher_forced"] is True, "the trace is teacher-forced")
    cross = set_of(trace, "cross")
    T, S = len(cross["query_tokens"]), len(cross["key_tokens"])
    got, _ = page.hover(T - 1, 1, T, S)
    check(got == four(cross["layers"][0]["heads"][0]["weights"][T - 1][1]), "teacher-forced Cross readout")


def test_rendered_page(page, trace):
    """`attn render TRACE.json --html` of the same run: the same three tabs and numbers, the translation from
    the tokens' labels (the trace holds no text)."""
    page.load()
    page.quiet("rendered seq2seq page")
    check(selected_tab(page) == ["cross"], "the rendered page opens on Cross: %s" % selected_tab(page))
    data = page.d.execute_script("return JSON.parse(document.getElementById('attn-data').textContent).translation")
    check(data["generated"] == generated_labels(trace), "the rendered page's generated tokens: %s" % data["generated"])
    line = page.d.find_element(By.ID, "translation").text
    check(line.endswith("greedy") and "“" + data["source"] + "”" in line, "the rendered page's translation line: %r" % line)
    hovered = 0
    for name in ("decoder", "encoder", "cross"):
        tab(page, name)
        s = set_of(trace, name)
        T, S = len(s["query_tokens"]), len(s["key_tokens"])
        page.select("layer", 1)
        page.select("head", 2)
        got, _ = page.hover(T - 1, 1, T, S)
        want = expected(s["layers"][1]["heads"][2], "weights", T - 1, 1)
        check(got == want, "rendered %s layer 1 head 2 (%d, 1): page %s, trace %s" % (name, T - 1, got, want))
        hovered += 1
    page.quiet("rendered seq2seq page after use")
    return hovered


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn", required=True)
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--chromedriver", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    a.attn = os.path.abspath(a.attn)
    start = time.time()
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    out = os.path.abspath(a.out)
    # 1. the pages: a BART whose decoder (3 layers) is deeper than its encoder (2)
    from make_seq2seq import make  # noqa: E402
    make(os.path.join(out, "bart"), "bart", seed=1, dec_layers=3)
    # (the trace to stdout, where the page's test reads it: the terminal view is not the page's concern)
    greedy = json.loads(run(a.attn, "show", "--model", "bart", TEXT, "--max-new-tokens", "5", "--html", "greedy.html", "--json", "-", cwd=out))
    forced = json.loads(run(a.attn, "show", "--model", "bart", TEXT, "--target", TARGET, "--html", "forced.html", "--json", "-", cwd=out))
    json.dump(greedy, open(os.path.join(out, "greedy.json"), "w"))
    run(a.attn, "render", "greedy.json", "--html", "rendered.html", cwd=out)
    check([s["name"] for s in greedy["attention"]] == SETS, "the run's trace has the three sets")
    check([len(set_of(greedy, n)["layers"]) for n in SETS] == [2, 3, 3], "encoder 2 layers, decoder and cross 3")
    T, S = len(greedy["tokens"]), len(greedy["source_tokens"])
    check(T == 5 and S == 8, "5 decoder tokens over 8 source tokens: the three shapes differ (%d, %d)" % (T, S))

    # 2. the browser at 1366 x 768: headless, no network, a fresh profile
    driver, profile = headless.start(a.chromium, a.chromedriver, "1366,768")
    hovered = 0
    try:
        hovered += test_greedy_page(Page(driver, os.path.join(out, "greedy.html")), greedy, out)
        test_teacher_forced_page(Page(driver, os.path.join(out, "forced.html")), forced)
        hovered += test_rendered_page(Page(driver, os.path.join(out, "rendered.html")), greedy)
        screenshots_not_blank(driver, test_page.shots)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    print("hovered %d cells; %.1f s in all; screenshots in %s" % (hovered, time.time() - start, out))
    if test_page.failures:
        sys.exit("%d failure(s)" % len(test_page.failures))


if __name__ == "__main__":
    main()
