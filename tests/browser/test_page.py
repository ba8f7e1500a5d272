#!/usr/bin/env python3
"""attn's interactive page in a real browser (headless Chromium through Selenium), with the network blocked.

Four pages: `attn show --html --no-live` (mha with dropout, a hostile token; the live panel has tests/browser/test_live.py), `attn render TRACE.json` (flash),
`attn render attn.npy --tokens` (a 4-D (L, H, T, S) array: layers), `attn render` of a small model trace
(layers, aggregates, predictions) and `attn show --model` of a tiny checkpoint (its head scores against
`attn heads --json`, the table sorted and clicked, HTML in the folder's name, the text and a token). On each: no console errors, nothing
fetched; hovering cells of several heads, stages and layers reads back the trace's values at 4 decimals;
pickers switch; the URL fragment restores the selection; the head view, model overview and flash tiles
respond; the neuron panel's sums equal q_I·k_j for clicked queries; the page's cells have the SVG figures'
colours for the same run (weights 0-1, scores, dropped, --range data/MIN,MAX, --log, --colormap); screenshots
are saved and are not blank.

Usage: test_page.py --attn BIN --chromium PATH --chromedriver PATH --out DIR
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import time

import numpy as np
from selenium.common.exceptions import NoAlertPresentException
import colours  # noqa: E402
import headless  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

XSS = "</script><script>alert(1)</script>"
failures = []
shots = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, flush=True)


def four(v):
    """The trace's value at 4 decimals, as "%.4f" prints the float32 (no negative zero)."""
    s = "%.4f" % float(np.float32(v))
    return "0.0000" if s == "-0.0000" else s


def run(attn, *args, cwd):
    r = subprocess.run([attn, *args], cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("attn %s failed (%d): %s" % (" ".join(args), r.returncode, r.stderr))


def npy_bytes(a):
    """numpy.save's format 1.0, written here so the test needs nothing but numpy's dtype."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % "".join("%d, " % d for d in a.shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + a.astype("<f4").tobytes()


COUNT_COLOURS = """
const [b64, done] = arguments;
const img = new Image();
img.onload = () => {
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, c.width, c.height).data, seen = new Set();
  for (let k = 0; k < d.length; k += 4) seen.add((d[k] << 16) | (d[k + 1] << 8) | d[k + 2]);
  done([c.width, c.height, seen.size]);
};
img.onerror = () => done([0, 0, 0]);
img.src = 'data:image/png;base64,' + b64;
"""


def screenshots_not_blank(driver, paths):
    """Each screenshot decoded by the browser itself (on about:blank): a blank one has a colour or two."""
    import base64
    driver.get("about:blank")
    for path in paths:
        w, h, colours = driver.execute_async_script(COUNT_COLOURS, base64.b64encode(open(path, "rb").read()).decode())
        check(w >= 800 and h >= 600 and colours >= 12,
              "%s is a real picture (%d x %d, %d colours)" % (os.path.basename(path), w, h, colours))
        print("%s: %d x %d, %d colours" % (os.path.basename(path), w, h, colours))


class Page:
    def __init__(self, driver, path):
        self.d, self.path, self.box, self.matrix = driver, path, None, None

    def load(self, fragment=""):
        self.box = self.matrix = None
        self.d.get("about:blank")
        self.d.get("file://" + self.path + fragment)
        WebDriverWait(self.d, 20).until(lambda d: d.execute_script("return document.documentElement.dataset.ready"))
        return int(self.d.execute_script("return document.documentElement.dataset.readyMs"))

    def select(self, id_, value, real=False):
        """Picks an option: with real=True as a user does (Selenium's Select clicks); else by setting the
        value and firing "change" (the same event, at one WebDriver round trip instead of six)."""
        if real:
            Select(self.d.find_element(By.ID, id_)).select_by_value(str(value))
        else:
            self.d.execute_script("const s = document.getElementById(arguments[0]); s.value = arguments[1]; "
                                  "s.dispatchEvent(new Event('change'))", id_, str(value))

    def selected(self, id_):
        return Select(self.d.find_element(By.ID, id_)).first_selected_option.get_attribute("value")

    def options(self, id_):
        return [o.get_attribute("value") for o in Select(self.d.find_element(By.ID, id_)).options]

    def hover(self, i, j, T, S):
        """Points at cell (i, j) of the matrix and returns the readout's value ("hidden" for a hidden cell)."""
        if self.matrix is None:
            self.matrix = self.d.find_element(By.ID, "matrix")
        m = self.matrix
        if self.box is None:
            self.box = m.size["width"], m.size["height"]
            w, h = self.box
            check(abs(w / S - h / T) < 0.01, "matrix box is exactly T x S square cells (%s x %s for %d x %d)" % (w, h, T, S))
        w, h = self.box
        dx, dy = (j + 0.5) * w / S - w / 2, (i + 0.5) * h / T - h / 2
        ActionChains(self.d, duration=0).move_to_element_with_offset(m, int(round(dx)), int(round(dy))).perform()
        row, col, value, text = self.d.execute_script(
            "const r = document.getElementById('readout'); return [r.dataset.row, r.dataset.col, r.dataset.value, r.textContent]")
        check((row, col) == (str(i), str(j)), "hover lands on cell (%d, %d), readout says (%s, %s)" % (i, j, row, col))
        return value, text

    def quiet(self, what):
        """No console errors, nothing fetched, no alert."""
        logs = [e for e in self.d.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
        check(not logs, what + ": console errors: %s" % logs)
        fetched = self.d.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        check(fetched == [], what + ": fetched %s" % fetched)
        try:
            self.d.switch_to.alert
            check(False, what + ": an alert ran")
        except NoAlertPresentException:
            pass

    def shot(self, out, name):
        path = os.path.join(out, name)
        check(self.d.save_screenshot(path), "screenshot %s saved" % name)
        shots.append(path)
        return path


def expected(head, stage, i, j):
    """The trace's value of a stage at (i, j) at 4 decimals, or "hidden"."""
    mask = head.get("mask")
    if stage == "mask":
        return "1.0000" if mask[i][j] else "0.0000"
    if stage == "scores":  # raw scores come before the mask: a hidden cell's value is shown too
        return four(head["scores"][i][j])
    if mask is not None and not mask[i][j]:
        return "hidden"
    if stage == "weights":
        return four(head["weights"][i][j])
    if stage == "dropped":
        return four(head["dropped_weights"][i][j])
    if stage == "scores":
        return four(head["scores"][i][j])
    if stage == "masked-scores":
        return four(np.float32(head["scale"]) * np.float32(head["scores"][i][j]))
    raise ValueError(stage)


def test_show_page(page, trace, out, times):
    T, S = len(trace["tokens"]), len(trace["source_tokens"])
    times["show"] = page.load()
    page.quiet("show page")
    check(page.options("stage") == ["inputs", "queries", "keys", "values", "scores", "masked-scores", "mask", "weights", "dropped",
                                    "context", "output"], "stage options, in the lecture's order: %s" % page.options("stage"))
    check(page.options("head") == ["0", "1"], "head options: %s" % page.options("head"))
    check(not page.d.find_elements(By.ID, "layer"), "no layer picker without layers")
    # hover cells of both heads and every stage
    cells = [(1, 0), (T - 1, S - 1), (T - 1, 1), (0, S - 1)]
    hovered = 0
    for h in (0, 1):
        page.select("head", h)
        for stage in ("weights", "scores", "masked-scores", "mask", "dropped"):
            page.select("stage", stage)
            for i, j in cells:
                got, text = page.hover(i, j, T, S)
                want = expected(trace["attention"][0]["layers"][0]["heads"][h], stage, i, j)
                check(got == want, "show head %d %s (%d, %d): page %s, trace %s" % (h, stage, i, j, got, want))
                if want != "hidden" and stage != "mask":
                    check(want in text, "the readout shows %s: %r" % (want, text))
                if want == "hidden":
                    check("hidden by the mask" in text, "hidden cell says so: %r" % text)
                masked = trace["attention"][0]["layers"][0]["heads"][h].get("mask") is not None and not trace["attention"][0]["layers"][0]["heads"][h]["mask"][i][j]
                if stage == "scores":
                    check(("will be hidden by the mask" in text) == masked,
                          "a raw score says whether the mask will hide it (%d, %d): %r" % (i, j, text))
                hovered += 1
            # the key beside the matrix: the stage's colour bar, hatching when the mask hides cells
            key = page.d.find_element(By.ID, "matrix-key").get_attribute("textContent")
            bars = page.d.find_elements(By.CSS_SELECTOR, "#matrix-key canvas.key-bar")
            check(len(bars) == (0 if stage == "mask" else 1), "%s: a colour bar beside the matrix (%d)" % (stage, len(bars)))
            has_mask = trace["attention"][0]["layers"][0]["heads"][h].get("mask") is not None
            check(("hatched: hidden by the mask" in key) == has_mask, "%s: the key explains hatching: %r" % (stage, key))
            check(("dropped by dropout" in key) == (stage == "dropped"), "%s: the key explains dropped cells: %r" % (stage, key))
            check(("visible (1)" in key) == (stage == "mask"), "%s: the mask's key: %r" % (stage, key))
    # the hostile token is text in the labels and the readout, and ran nothing
    labels = [s.get_attribute("textContent") for s in page.d.find_elements(By.CSS_SELECTOR, ".col-labels span")]
    check(XSS in labels, "the token %r is a label's text: %s" % (XSS, labels))
    page.select("stage", "weights")
    got, text = page.hover(1, 1, T, S)
    check(XSS in text, "the readout shows the token as text: %r" % text)
    check(page.d.execute_script("return document.scripts.length") == 3, "only the page's three scripts exist (data, cells, code)")
    # click pins a row; arrow keys move the pinned cell
    page.hover(2, 0, T, S)
    ActionChains(page.d, duration=0).click().perform()
    ActionChains(page.d, duration=0).move_to_element(page.d.find_element(By.TAG_NAME, "h1")).perform()
    ActionChains(page.d, duration=0).send_keys(Keys.ARROW_DOWN).send_keys(Keys.ARROW_RIGHT).perform()
    r = page.d.find_element(By.ID, "readout")
    check((r.get_attribute("data-row"), r.get_attribute("data-col")) == ("3", "1"),
          "arrows move the pin to (3, 1): %s" % ((r.get_attribute("data-row"), r.get_attribute("data-col")),))
    check(r.get_attribute("data-value") == expected(trace["attention"][0]["layers"][0]["heads"][1], "weights", 3, 1), "pinned readout value")
    # the fragment keeps the selection
    page.select("head", 1, real=True)
    page.select("stage", "masked-scores", real=True)
    url = page.d.current_url
    check(url.endswith("#head=1&stage=masked-scores&pin=3,1"), "fragment follows the pickers and the pinned cell: %s" % url)
    page.load("#head=1&stage=masked-scores")
    check((page.selected("head"), page.selected("stage")) == ("1", "masked-scores"), "a link reopens head 1, masked scores")
    got, _ = page.hover(T - 1, 0, T, S)
    check(got == expected(trace["attention"][0]["layers"][0]["heads"][1], "masked-scores", T - 1, 0), "reopened page reads head 1's masked scores")
    # the head view: lines appear for a hovered query, and vanish with every head toggled off
    page.d.execute_script("document.getElementById('headview-section').scrollIntoView()")
    q = page.d.find_elements(By.CSS_SELECTOR, "#headview .hv-q div")[T - 1]
    ActionChains(page.d, duration=0).move_to_element(q).perform()
    ink = "return Array.from(document.querySelector('#headview canvas').getContext('2d').getImageData(0, 0, 240, 400).data).filter((v, k) => k % 4 == 3 && v > 0).length"
    lit = page.d.execute_script(ink)
    check(lit > 100, "head view draws lines for a hovered query (%d pixels)" % lit)
    page.shot(out, "show-headview.png")
    for b in page.d.find_elements(By.CSS_SELECTOR, "#head-toggles button"):
        b.click()
    ActionChains(page.d, duration=0).move_to_element(page.d.find_elements(By.CSS_SELECTOR, "#headview .hv-q div")[T - 2]).perform()
    ActionChains(page.d, duration=0).move_to_element(q).perform()
    check(page.d.execute_script(ink) == 0, "every head toggled off: no lines")
    page.d.execute_script("window.scrollTo(0, 0)")
    page.hover(T - 1, 1, T, S)
    page.shot(out, "show-matrix.png")
    page.quiet("show page after use")
    return hovered


def test_flash_page(page, trace, out, times):
    T, S = len(trace["tokens"]), len(trace["source_tokens"])
    times["render trace"] = page.load()
    page.quiet("flash page")
    hovered = 0
    for h in (0, 1):
        page.select("head", h)
        for stage in ("weights", "scores"):
            page.select("stage", stage)
            for i, j in [(0, 0), (T - 1, 2), (4, 4), (3, 5)]:
                got, _ = page.hover(i, j, T, S)
                want = expected(trace["attention"][0]["layers"][0]["heads"][h], stage, i, j)
                check(got == want, "flash head %d %s (%d, %d): page %s, trace %s" % (h, stage, i, j, got, want))
                hovered += 1
    # step to the last tile of head 1: its rows' running values reach the full softmax
    page.select("head", 1)
    tiles = [t for t in trace["tiles"] if t["head"] == 1]
    page.d.execute_script("document.getElementById('flash-section').scrollIntoView()")
    nxt = page.d.find_element(By.ID, "tile-next")
    for _ in range(len(tiles) - 1):
        nxt.click()
    text = page.d.find_element(By.ID, "tile-text").text
    check(text.startswith("tile %d of %d" % (len(tiles), len(tiles))), "stepped to the last tile: %r" % text)
    done = page.d.find_elements(By.CSS_SELECTOR, "#flash-table td.done")
    check(len(done) == tiles[-1]["rows"][1] - tiles[-1]["rows"][0], "the last tile's rows converge (%d)" % len(done))
    # the address keeps the tile: a copied link opens on it
    frag = page.d.execute_script("return location.hash")
    check("tile=%d" % (len(tiles) - 1) in frag and "head=1" in frag, "the address keeps head 1's last tile: %s" % frag)
    page.load(frag)
    page.d.execute_script("document.getElementById('flash-section').scrollIntoView()")
    again = page.d.find_element(By.ID, "tile-text").text
    check(again == text, "a copied link opens on the same tile: %r, before %r" % (again, text))
    page.shot(out, "render-flash.png")
    page.quiet("flash page after use")
    return hovered


def test_npy_page(page, arr, tokens, out, times):
    L, H, T, S = arr.shape
    times["render npy"] = page.load()
    page.quiet("npy page")
    check(page.options("layer") == [str(l) for l in range(L)], "layer options: %s" % page.options("layer"))
    check(page.options("stage") == ["weights"], "a .npy has weights only: %s" % page.options("stage"))
    # wholly in view: WebDriver measures a pointer's offset from the centre of the element's visible part
    page.d.execute_script("document.getElementById('matrix').scrollIntoView({block: 'center'})")
    hovered = 0
    for l in (0, L - 1, 1):
        page.select("layer", l)
        for h in (0, H - 1):
            page.select("head", h)
            for i, j in [(0, 0), (T - 1, S - 1), (2, 1), (T - 1, 0)]:
                got, _ = page.hover(i, j, T, S)
                check(got == four(arr[l, h, i, j]), "npy layer %d head %d (%d, %d): page %s, array %s" %
                      (l, h, i, j, got, four(arr[l, h, i, j])))
                hovered += 1
    page.select("layer", 2, real=True)
    page.select("head", 1, real=True)
    check(page.d.current_url.endswith("#layer=2&head=1&stage=weights"), "fragment: %s" % page.d.current_url)
    page.load("#layer=2&head=1&stage=weights")
    check((page.selected("layer"), page.selected("head")) == ("2", "1"), "a link reopens layer 2, head 1")
    # the model overview: a thumbnail opens its head
    thumbs = page.d.find_elements(By.CSS_SELECTOR, "#overview canvas.thumb")
    check(len(thumbs) == L * H, "one thumbnail per layer and head (%d)" % len(thumbs))
    page.d.execute_script("document.getElementById('overview-section').scrollIntoView()")
    page.shot(out, "render-npy-overview.png")
    page.d.find_element(By.CSS_SELECTOR, "#overview canvas.thumb[data-layer='1'][data-head='0']").click()
    check((page.selected("layer"), page.selected("head")) == ("1", "0"), "the thumbnail opened layer 1, head 0")
    got, _ = page.hover(T - 1, 1, T, S)
    check(got == four(arr[1, 0, T - 1, 1]), "the opened head reads layer 1, head 0")
    labels = [s.get_attribute("textContent") for s in page.d.find_elements(By.CSS_SELECTOR, ".row-labels span")]
    check(labels == tokens, "row labels are the --tokens file's: %s" % labels)
    page.d.execute_script("window.scrollTo(0, 0)")
    page.shot(out, "render-npy-matrix.png")
    page.quiet("npy page after use")
    return hovered


def model_trace(L=2, H=2, T=5, seed=3, G=None):
    """A small GPT-2-shaped trace as the model runs write it (kind "model": layers, aggregates, predictions);
    with G, query head h reads key/value head h // (H / G), as a Llama-family run names them."""
    rng = np.random.default_rng(seed)
    mask = np.tril(np.ones((T, T), dtype=bool))
    layers, means, rollouts, rollout = [], [], [], None
    for l in range(L):
        heads = []
        for h in range(H):
            scores = (rng.normal(size=(T, T)) * 4).astype(np.float32)
            scale = np.float32(0.125)
            s = np.where(mask, scores * scale, -np.inf)
            w = np.exp(s - s.max(-1, keepdims=True))
            heads.append({"head": h, "kv_head": h if G is None else h // (H // G), "scores": scores.tolist(), "scale": float(scale),
                          "mask": mask.tolist(), "weights": (w / w.sum(-1, keepdims=True)).astype(np.float32).tolist()})
        layers.append({"layer": l, "heads": heads})
        mean = np.mean([np.array(x["weights"], dtype=np.float32) for x in heads], axis=0)
        a = 0.5 * mean + 0.5 * np.eye(T)
        rollout = a if l == 0 else a @ rollout
        means.append(mean.astype(np.float32).tolist())
        rollouts.append(rollout.astype(np.float32).tolist())
    tokens = ["Hello", "Ġworld", "Ġ<i>", "Ġ&", "!"]
    return {"format": "attn-trace", "version": 1, "kind": "model", "tokens": tokens, "source_tokens": tokens,
            "model": {"type": "gpt2", "dtype": "F32", "n_layer": L, "n_head": H, "n_embd": 8, "n_positions": 16,
                      "vocab_size": 50257, "n_params": 1234, "layer_norm_epsilon": 1e-5},
            "token_ids": [15496, 995, 1279, 1222, 0], "layers": layers,
            "aggregates": {"layer_mean": means, "rollout": rollouts},
            "predictions": [[{"id": 11, "token": " next%d" % i, "p": 0.5}, {"id": 13, "token": ".", "p": 0.25}]
                            for i in range(T)]}


def test_model_page(page, trace, out, times):
    T = len(trace["tokens"])
    times["render model"] = page.load("#layer=1&head=1&stage=masked-scores")
    page.quiet("model page")
    check(page.options("stage") == ["scores", "masked-scores", "mask", "weights"], "model stages, in the lecture's order: %s" % page.options("stage"))
    check((page.selected("layer"), page.selected("head"), page.selected("stage")) == ("1", "1", "masked-scores"),
          "the fragment opens layer 1, head 1, masked scores")
    hovered = 0
    for l, h, stage in ((1, 1, "masked-scores"), (0, 0, "weights"), (1, 0, "scores")):
        page.select("layer", l)
        page.select("head", h)
        page.select("stage", stage)
        for i, j in [(T - 1, 0), (2, 2), (1, 3)]:
            got, _ = page.hover(i, j, T, T)
            want = expected(trace["layers"][l]["heads"][h], stage, i, j)
            check(got == want, "model layer %d head %d %s (%d, %d): page %s, trace %s" % (l, h, stage, i, j, got, want))
            hovered += 1
    page.hover(3, 0, T, T)
    pred = page.d.find_element(By.ID, "predictions").text
    check("next3" in pred and "50.0%" in pred, "the header shows the next tokens after query 3: %r" % pred)
    model = page.d.find_element(By.ID, "model").text
    check("gpt2" in model and "1,234 parameters" in model, "the header shows the model: %r" % model)
    # the layer as a whole: the rollout's readout is the trace's
    page.select("layer", 1)
    canvas = page.d.find_element(By.ID, "aggregate-rollout")
    w = canvas.size["width"]
    page.d.execute_script("arguments[0].scrollIntoView()", canvas)
    ActionChains(page.d, duration=0).move_to_element_with_offset(canvas, int((0.5 - T / 2) * w / T), int((T - 1 + 0.5 - T / 2) * w / T)).perform()
    text = page.d.find_element(By.ID, "aggregate-readout").text
    want = four(trace["aggregates"]["rollout"][1][T - 1][0])
    check(text.endswith("= " + want) and "query %d" % (T - 1) in text, "rollout readout %r, trace %s" % (text, want))
    check(not page.d.find_elements(By.CSS_SELECTOR, "#head optgroup, #overview .kvg"),
          "a model whose every head has its own key/value head shows no groups")
    page.shot(out, "render-model.png")
    page.quiet("model page after use")
    return hovered


def test_fits_small_screen(driver, path, T, out):
    """At 1366 x 768 the matrix and its readout are in view together, under the sticky pickers."""
    driver.set_window_size(1366, 768)
    page = Page(driver, path)
    page.load()
    page.d.execute_script("document.getElementById('matrix-section').scrollIntoView({block: 'start'})")
    inner_w, inner_h, controls, canvas, readout, key = page.d.execute_script(
        "const r = (id) => { const b = document.querySelector(id).getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };"
        "return [innerWidth, innerHeight, r('.controls'), r('#matrix'), r('#readout'), r('#matrix-key')]")
    print("1366x768 (%d tokens): viewport %d x %d, pickers end at %d, matrix %s, readout %s, key %s" %
          (T, inner_w, inner_h, controls[3], canvas, readout, key))
    check(canvas[1] >= controls[3] - 1, "%d tokens: the matrix starts below the pickers (%s, %s)" % (T, canvas, controls))
    check(readout[3] <= inner_h, "%d tokens: the readout is in view at 1366x768 (bottom %d of %d)" % (T, readout[3], inner_h))
    check(max(canvas[2], key[2]) <= inner_w, "%d tokens: the matrix and its key fit across (%s of %d)" % (T, key, inner_w))
    page.hover(T - 1, 0, T, T)
    page.shot(out, "fit-1366x768-%d.png" % T)
    driver.set_window_size(1200, 1000)
def test_gqa_model_page(page, trace, out, times):
    """Grouped-query attention (H = 4, G = 2): the head picker and the overview group the query heads by key/value head."""
    times["render gqa model"] = page.load("#layer=0&head=2")
    page.quiet("gqa model page")
    groups = [g.get_attribute("label") for g in page.d.find_elements(By.CSS_SELECTOR, "#head optgroup")]
    check(groups == ["kv head 0: heads 0\u20131", "kv head 1: heads 2\u20133"], "head picker groups: %s" % groups)
    check(page.options("head") == ["0", "1", "2", "3"], "every head is still one option: %s" % page.options("head"))
    labels = [(e.text, e.value_of_css_property("grid-column-start")) for e in page.d.find_elements(By.CSS_SELECTOR, "#overview .kvg")]
    check(labels == [("kv 0", "span 2"), ("kv 1", "span 2")], "overview group labels: %s" % labels)
    thumbs = page.d.find_elements(By.CSS_SELECTOR, "#overview canvas.thumb")
    x = [t.location["x"] for t in thumbs[:4]]
    check(x[2] - x[1] > x[1] - x[0] + 5, "a wider gap between the key/value groups: thumbnails at x = %s" % x)
    check(thumbs[3].get_attribute("title") == "layer 0, head 3, kv head 1", "thumbnail title %r" % thumbs[3].get_attribute("title"))
    page.shot(out, "render-gqa-model.png")
    page.quiet("gqa model page after use")

HOSTILE = "<img src=x onerror=alert(1)>"
PATTERN_COLUMNS = ["previous", "first", "self", "punctuation", "duplicate", "sink"]  # the table's, after layer and head


def table_rows(page):
    """The heads table as shown: [(layer, head, {pattern: data-value or None}, [cell texts])] in page order."""
    return page.d.execute_script(
        "return [...document.querySelectorAll('#heads-table tbody tr')].map(r => [Number(r.dataset.layer), Number(r.dataset.head),"
        " [...r.cells].slice(2, -1).map(c => c.dataset.value === undefined ? null : Number(c.dataset.value)),"
        " [...r.cells].map(c => c.textContent)])")


def sort_by(page, name):
    page.d.execute_script("document.getElementById('heads-section').scrollIntoView()")
    th = [t for t in page.d.find_elements(By.CSS_SELECTOR, "#heads-table th") if t.text.rstrip(" ▾▴") == name]
    check(len(th) == 1, "one column header %r" % name)
    th[0].click()
    return table_rows(page)


def test_model_run_page(page, heads, name, text, out):
    """`attn show --model DIR --html`: the name, the text and every head's `attn heads --json` scores lead the page."""
    page.load()
    page.quiet("model run page")
    L, H = heads["model"]["n_layer"], heads["model"]["n_head"]
    check(page.d.find_element(By.ID, "model-name").get_attribute("textContent") == name + " · gpt2",
          "the header names the folder and its model_type: %r" % page.d.find_element(By.ID, "model-name").get_attribute("textContent"))
    check(page.d.find_element(By.ID, "text").get_attribute("textContent") == "“" + text + "”",
          "the header shows the text: %r" % page.d.find_element(By.ID, "text").get_attribute("textContent"))
    check(page.d.execute_script("return document.images.length") == 0 and
          page.d.execute_script("return document.scripts.length") == 3, "the hostile name and text made no element")
    headers = [t.get_attribute("textContent") for t in page.d.find_elements(By.CSS_SELECTOR, "#heads-table th")]
    check(headers == ["layer", "head"] + PATTERN_COLUMNS + ["sink token"], "the table's columns: %s" % headers)
    # the sections in order: the table and the overview before the pickers and the matrix
    tops = page.d.execute_script("return ['heads-section', 'overview-section', 'matrix-section'].map(id => "
                                 "document.getElementById(id).getBoundingClientRect().top)")
    check(tops == sorted(tops), "the head scores, then the overview, then the matrix: tops %s" % tops)
    # every row's numbers are attn heads --json's for the same text, within 1e-6
    rows = table_rows(page)
    check(sorted((l, h) for l, h, _, _ in rows) == [(l, h) for l in range(L) for h in range(H)], "L x H rows: %d" % len(rows))
    compared = 0
    for l, h, values, cells in rows:
        for p, v in zip(PATTERN_COLUMNS, values):
            want = heads["patterns"][p][l][h]
            if want is None or v is None:
                check(want is None and v is None, "layer %d head %d %s: page %s, attn heads %s" % (l, h, p, v, want))
                continue
            check(abs(v - want) <= 1e-6, "layer %d head %d %s: page %r, attn heads %r" % (l, h, p, v, want))
            compared += 1
        sink = heads["sinks"][0][l][h]
        want_cell = "%d “%s”" % (sink["position"], sink["token"]) if sink else "—"  # no key holds as a sink: a dash
        check(cells[-1] == want_cell, "layer %d head %d sink: %r, attn heads %s" % (l, h, cells[-1], sink))
    check(compared >= L * H * 4, "compared %d scores" % compared)
    check(all(values[4] is not None for _, _, values, _ in rows), "the text repeats a token: duplicate is defined")
    print("model run page: %d scores equal attn heads --json within 1e-6" % compared)
    # sorting: a pattern highest first, again lowest first; layer back in order
    for p in ("previous", "sink"):
        k = PATTERN_COLUMNS.index(p)
        down = [r[2][k] for r in sort_by(page, p) if r[2][k] is not None]  # a head without a sink has no value
        check(down == sorted(down, reverse=True), "sorted by %s, highest first: %s" % (p, down))
        up = [r[2][k] for r in sort_by(page, p) if r[2][k] is not None]
        check(up == sorted(up), "sorted by %s again, lowest first: %s" % (p, up))
    order = [(r[0], r[1]) for r in sort_by(page, "layer")]
    check(order == [(l, h) for l in range(L) for h in range(H)], "sorted by layer: %s" % order)
    # a row opens its head
    rows = sort_by(page, "first")
    l, h = rows[0][0], rows[0][1]
    page.d.find_element(By.CSS_SELECTOR, "#heads-table tbody tr[data-layer='%d'][data-head='%d']" % (l, h)).click()
    check((page.selected("layer"), page.selected("head")) == (str(l), str(h)), "the top 'first' row opened layer %d head %d: %s" %
          (l, h, (page.selected("layer"), page.selected("head"))))
    current = page.d.execute_script("return [...document.querySelectorAll('#heads-table tr.current')].map(r => [r.dataset.layer, r.dataset.head])")
    check(current == [[str(l), str(h)]], "the opened head's row is marked: %s" % current)
    check(page.d.current_url.endswith("#layer=%d&head=%d&stage=weights" % (l, h)), "the fragment follows: %s" % page.d.current_url)
    # the overview: larger thumbnails, a colour bar, the hatching explained
    thumbs = page.d.find_elements(By.CSS_SELECTOR, "#overview canvas.thumb")
    check(len(thumbs) == L * H and thumbs[0].size["width"] > 52, "%d thumbnails of %d px" % (len(thumbs), thumbs[0].size["width"]))
    key = page.d.find_element(By.ID, "overview-key").get_attribute("textContent")
    check(page.d.find_elements(By.CSS_SELECTOR, "#overview-key canvas.overview-bar") and "hatched: hidden by the mask" in key,
          "the overview's key: a colour bar and the hatching: %r" % key)
    for w, h_ in ((1366, 768), (1920, 1080)):
        page.d.set_window_size(w, h_)
        page.load()
        top = page.d.execute_script("return [innerHeight, document.getElementById('heads-table').getBoundingClientRect().top]")
        check(top[1] < top[0] / 2, "%dx%d: the head scores start in the first half of the window (%s)" % (w, h_, top))
        page.shot(out, "model-run-%dx%d.png" % (w, h_))
    page.d.set_window_size(1200, 1000)
    page.quiet("model run page after use")


def test_hostile_sink_page(page, trace):
    """A rendered model trace whose first token is HTML and where layer 0 head 0 parks on it: the table
    names it as text."""
    page.load()
    page.quiet("hostile model page")
    rows = table_rows(page)
    sink = [r[3][-1] for r in rows if (r[0], r[1]) == (0, 0)]
    check(sink == ["0 “%s”" % HOSTILE], "layer 0 head 0 parks on the hostile token, shown as text: %s" % sink)
    check(page.d.execute_script("return document.images.length") == 0, "the token made no <img>")
    first = [r[2][1] for r in rows if (r[0], r[1]) == (0, 0)]
    check(first == [1.0], "layer 0 head 0's 'first' score is 1 (all weight on token 0): %s" % first)
    check(page.d.find_elements(By.ID, "model-name") == [], "a trace file names no folder")


def test_neuron_page(page, trace, out, times, what):
    """`attn show --model --show queries,keys --query I --html` (and that trace through `attn render --html`):
    the neuron panel's rows are the keys, each Σ is q_I·k_j from the trace's queries and keys (numpy, float64)
    and equals the model's own raw score beside it; a click on another query token recomputes them and
    marks the keys that query may not see."""
    times[what] = page.load()
    page.quiet(what)
    n = trace["neuron"]
    q, k = np.asarray(n["queries"], dtype=np.float64), np.asarray(n["keys"], dtype=np.float64)
    T, S = q.shape[0], k.shape[0]
    layer = [x for x in trace["attention"][0]["layers"] if x["layer"] == n["layer"]][0]
    scores = np.asarray(layer["heads"][n["head"]]["scores"], dtype=np.float64)
    mask = layer["heads"][n["head"]]["mask"]
    note = page.d.find_element(By.ID, "neuron-note").get_attribute("textContent")
    check(("Layer %d, head %d" % (n["layer"], n["head"])) in note and "before the scale" in note,
          what + ": the panel names its layer and head and says what q and k are: %r" % note)
    buttons = page.d.find_elements(By.CSS_SELECTOR, "#neuron-queries button")
    check([b.get_attribute("textContent") for b in buttons] == [t if t != "" else "\u2205" for t in trace["tokens"]],
          what + ": one button per query token, its text the token")

    def rows(I):
        got = page.d.execute_script(
            "return [...document.querySelectorAll('#neuron-table tr.nv-key')].map(r => [r.dataset.j, "
            "r.querySelector('.nv-sum').textContent, r.querySelector('.nv-score').textContent, "
            "r.querySelector('.nv-scaled').textContent, r.classList.contains('nv-hidden')])")
        check(len(got) == S, what + ": %d key rows for S = %d" % (len(got), S))
        worst = 0.0
        for j, (jj, total, score, scaled, hidden) in enumerate(got):
            want = float(q[I] @ k[j])
            worst = max(worst, abs(float(total) - want))
            check(abs(float(total) - want) <= 1.5e-4, what + ": query %d key %d: Σ %s, q_I·k_j %.6f" % (I, j, total, want))
            check(score == four(scores[I][j]), what + ": query %d key %d: the model's score %s, the trace's %s" % (I, j, score, four(scores[I][j])))
            check(hidden == (not mask[I][j]), what + ": query %d key %d hidden %s" % (I, j, hidden))
            if mask[I][j]:
                check(abs(float(scaled) - want * n["scaled_by"]) <= 1.5e-4, what + ": query %d key %d: scaled %s" % (I, j, scaled))
            else:
                check(scaled == "hidden", what + ": query %d key %d: a hidden key's scaled score reads %r" % (I, j, scaled))
        on = [b.get_attribute("data-i") for b in page.d.find_elements(By.CSS_SELECTOR, "#neuron-queries button.on")]
        check(on == [str(I)], what + ": the chosen query's button is marked: %s" % on)
        return worst

    worst = rows(n["query"])
    for I in (0, T // 2):
        page.d.find_elements(By.CSS_SELECTOR, "#neuron-queries button")[I].click()
        worst = max(worst, rows(I))
    strips = page.d.find_elements(By.CSS_SELECTOR, "#neuron-table canvas.nv-strip")
    check(len(strips) == 1 + 2 * S, what + ": Q[I], every key and every key's products as strips: %d" % len(strips))
    page.d.execute_script("document.getElementById('neuron-section').scrollIntoView()")
    page.shot(out, what.replace(" ", "-") + ".png")
    page.quiet(what + " after use")
    print("%s: Σ of the products within %.2g of q_I·k_j for 3 queries" % (what, worst))


# The colour rule: the page's cells against the SVG figure's, for the same run (tests/browser/colours.py).
COLOUR_TEXT = "Your journey starts with one step"
COLOUR_RUNS = [  # name, options, the figures' kind prefix, (stage, head) to compare
    ("colour-mha", ["--kind", "mha", "--heads", "2", "--no-causal", "--dropout", "0.3", "--show", "weights,scores,dropped"], "mha",
     [("weights", 0), ("weights", 1), ("scores", 1), ("dropped", 0)]),
    ("colour-data", ["--kind", "causal", "--range", "data", "--colormap", "magma"], "causal", [("weights", 0)]),
    ("colour-log", ["--kind", "causal", "--log"], "causal", [("weights", 0)]),
    ("colour-fixed", ["--kind", "causal", "--range", "0,0.5"], "causal", [("weights", 0)]),
]
FIGURE_STAGE = {"weights": "weights", "scores": "scores", "dropped": "dropped-weights"}


def test_colour_rule(driver, out):
    """The page colours each matrix by the figures' rule (weights fixed 0-1 by default, scores +-max|score|,
    --range, --log, --colormap): its cells are the SVG figure's colours."""
    compared = 0
    for name, options, kind, views in COLOUR_RUNS:
        trace = json.load(open(os.path.join(out, name + ".json")))
        T, S = len(trace["tokens"]), len(trace["tokens"])
        page = Page(driver, os.path.join(out, name + ".html"))
        page.load()
        for stage, h in views:
            page.select("head", h)
            page.select("stage", stage)
            cells = colours.page_cells(driver, T, S)
            figure = colours.svg_cells(os.path.join(out, name, "%s-%s.svg" % (kind, FIGURE_STAGE[stage])), h, T, S)
            n, exact, worst = colours.compare(cells, figure)
            check(n > 0 and exact >= colours.MIN_EXACT and worst <= colours.MAX_STEP,
                  "%s %s head %d: %d cells, %.0f%% the figure's colour exactly, largest channel difference %d" %
                  (name, stage, h, n, 100 * exact, worst))
            print("%s %s head %d: %d cells as the figure's (%.0f%% exactly, largest channel difference %d)" %
                  (name, stage, h, n, 100 * exact, worst))
            compared += n
        if name == "colour-mha":  # weights well below 1: a 0..largest scale would colour them brighter
            top = max(max(r) for hd in trace["attention"][0]["layers"][0]["heads"] for r in hd["weights"])
            check(top < 0.5, "the mha run's weights stay below 0.5 (largest %.3f), so the test tells the rules apart" % top)
        if name == "colour-fixed":
            counts = driver.find_element(By.CSS_SELECTOR, "p.tokens").text
            check(counts == "6 queries · 1 head", "the header's counts agree in number: %r" % counts)
            hi = driver.find_element(By.CSS_SELECTOR, "#matrix-key .key-hi").text
            check(hi == "\u2265 0.5", "--range 0,0.5 clips the first row's 1.0: the bar's top says %r" % hi)
        page.quiet(name + " page")
    page.shot(out, "colour-rule.png")
    return compared


def test_steps(driver, out):
    """The step-by-step view: a pinned query's scores, scaled and masked scores, weights and context are the
    trace's, and the context is the weights times the values (numpy, from the trace)."""
    trace = json.load(open(os.path.join(out, "colour-log.json")))
    hd = trace["attention"][0]["layers"][0]["heads"][0]
    T = len(trace["tokens"])
    page = Page(driver, os.path.join(out, "colour-log.html"))
    page.load()
    check(page.d.find_elements(By.ID, "steps-table"), "a seeded page has the step-by-step view")
    i = 3
    page.d.execute_script("document.getElementById('matrix').scrollIntoView({block: 'center'})")
    page.hover(i, 1, T, T)
    ActionChains(page.d, duration=0).click().perform()  # pin row i
    rows = page.d.find_elements(By.CSS_SELECTOR, "#steps-table tr.nv-key")
    check(len(rows) == T, "one row per key: %d" % len(rows))
    for j, r in enumerate(rows):
        got = [r.find_element(By.CSS_SELECTOR, c).text for c in (".st-score", ".st-masked", ".st-weight")]
        visible = hd["mask"][i][j]
        want = [four(hd["scores"][i][j]), four(np.float32(hd["scale"]) * np.float32(hd["scores"][i][j])) if visible else "\u2212\u221e (hidden)",
                four(hd["weights"][i][j])]
        check(got == want, "query %d, key %d: %s, the trace's %s" % (i, j, got, want))
    ctx = np.array(hd["weights"][i], np.float64) @ np.array(hd["values"], np.float64)
    check(np.abs(ctx - np.array(hd["context"][i])).max() < 1e-5, "the trace's context is the weights times the values")
    shown = page.d.find_element(By.CSS_SELECTOR, "#steps-table .st-context").text
    check(shown.startswith("[" + ", ".join("%.4f" % x for x in hd["context"][i][:8])), "the context row: %r" % shown)
    page.shot(out, "steps.png")
    page.quiet("step-by-step page")
    # positions: ALiBi's bias is added to the scaled score before the softmax; RoPE shows q and k before the rotation
    trace = json.load(open(os.path.join(out, "steps-alibi.json")))
    hd = trace["attention"][0]["layers"][0]["heads"][1]
    page = Page(driver, os.path.join(out, "steps-alibi.html"))
    page.load()
    page.select("head", 1)
    i = T - 1  # the last query, drawn when no row is pinned
    rows = page.d.find_elements(By.CSS_SELECTOR, "#steps-table tr.nv-key")
    for j, r in enumerate(rows):
        bias, masked = r.find_element(By.CSS_SELECTOR, ".st-bias").text, r.find_element(By.CSS_SELECTOR, ".st-masked").text
        want = np.float32(np.float32(hd["scale"]) * np.float32(hd["scores"][i][j])) + np.float32(hd["bias"][i][j])
        check(bias == four(hd["bias"][i][j]) and (masked == four(want) if hd["mask"][i][j] else masked == "\u2212\u221e (hidden)"),
              "ALiBi, query %d key %d: bias %s masked %s, the trace's %s and %s" % (i, j, bias, masked, four(hd["bias"][i][j]), four(want)))
    page.quiet("ALiBi step-by-step page")
    page = Page(driver, os.path.join(out, "steps-rope.html"))
    page.load()
    heads = [e.text for e in page.d.find_elements(By.CSS_SELECTOR, "#steps-table th")]
    check("before RoPE" in heads and "rotated q_I, k_j" in heads, "RoPE's steps show q and k before and after the rotation: %s" % heads)
    page.shot(out, "steps-rope.png")
    page.quiet("RoPE step-by-step page")
    return T


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
    # 1. the pages
    words = ["Your", XSS, "starts", "with", "<b>one</b>", "step", "&amp;"]
    x = np.random.default_rng(1).normal(size=(len(words), 8)).round(3).tolist()
    json.dump({"tokens": words, "x": x}, open(os.path.join(out, "xss.json"), "w"))
    run(a.attn, "show", "--kind", "mha", "--heads", "2", "--dropout", "0.2", "--embeddings", "xss.json",
        "--json", "show.json", "--html", "show.html", "--no-live", cwd=out)
    run(a.attn, "show", "--kind", "flash", "--causal", "--heads", "2", "--d-out", "8", "--block-q", "2", "--block-k", "3",
        "Your journey starts with one step today", "--json", "flash.json", cwd=out)
    run(a.attn, "render", "flash.json", "--html", "flash.html", cwd=out)
    rng = np.random.default_rng(2)
    arr = rng.random((3, 2, 6, 6)).astype(np.float32)
    arr = np.tril(arr) / np.tril(arr).sum(-1, keepdims=True)  # causal rows summing to 1, as a model's
    arr = arr.astype(np.float32)
    open(os.path.join(out, "attn.npy"), "wb").write(npy_bytes(arr))
    tokens = ["The", "Ġcat", "Ġsat", "Ġon", "Ġthe", "Ġmat"]
    json.dump(tokens, open(os.path.join(out, "tokens.json"), "w"))
    run(a.attn, "render", "attn.npy", "--tokens", "tokens.json", "--html", "npy.html", cwd=out)
    for n in (8, 16, 40):  # a small, a full-size and a pooled-label matrix at 1366 x 768
        run(a.attn, "show", "--kind", "causal", " ".join("w%d" % k for k in range(n)), "--html", "fit%d.html" % n, "--no-live", cwd=out)
    model = model_trace()
    json.dump(model, open(os.path.join(out, "model.json"), "w"))
    run(a.attn, "render", "model.json", "--html", "model.html", cwd=out)
    hostile = model_trace(seed=4)
    hostile["tokens"][0] = hostile["source_tokens"][0] = HOSTILE
    T = len(hostile["tokens"])
    hostile["layers"][0]["heads"][0]["weights"] = [[1.0 if j == 0 else 0.0 for j in range(T)] for _ in range(T)]  # parks on token 0
    json.dump(hostile, open(os.path.join(out, "hostile-model.json"), "w"))
    run(a.attn, "render", "hostile-model.json", "--html", "hostile-model.html", cwd=out)
    # a real model run: a checkpoint in a folder whose name is HTML, a text that holds HTML and repeats tokens
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpt2"))
    from make_checkpoint import make  # noqa: E402
    name = "tiny" + HOSTILE
    make(os.path.join(out, name), layers=2, heads=3, embd=12, positions=64, seed=5)
    text = "the cat sat on the mat, " + HOSTILE + " it was tired."
    run(a.attn, "show", "--model", name, "--html", "model-run.html", text, cwd=out)
    run(a.attn, "heads", "--model", name, "--json", "model-run-heads.json", text, cwd=out)
    json.dump(model_trace(H=4, G=2), open(os.path.join(out, "gqa-model.json"), "w"))
    run(a.attn, "render", "gqa-model.json", "--html", "gqa-model.html", cwd=out)
    # the neuron view: one head's queries and keys, query 4's products; and the trace read back
    run(a.attn, "show", "--model", name, "--show", "queries,keys", "--layer", "1", "--head", "2", "--query", "4",
        "--json", "neuron.json", "--html", "neuron.html", text, cwd=out)
    run(a.attn, "render", "neuron.json", "--html", "neuron-render.html", cwd=out)
    for run_name, options in (("steps-alibi", ["--kind", "mha", "--heads", "2", "--pos", "alibi"]), ("steps-rope", ["--kind", "causal", "--pos", "rope"])):
        run(a.attn, "show", *options, COLOUR_TEXT, "--json", run_name + ".json", "--html", run_name + ".html", "--no-live", cwd=out)
    for run_name, options, _, _ in COLOUR_RUNS:
        run(a.attn, "show", *options, COLOUR_TEXT, "--svg", run_name, "--json", run_name + ".json", "--html", run_name + ".html",
            "--no-live", cwd=out)

    # 2. the browser: headless, no network, a fresh profile
    driver, profile = headless.start(a.chromium, a.chromedriver)
    times, hovered = {}, 0
    try:
        hovered += test_show_page(Page(driver, os.path.join(out, "show.html")), json.load(open(os.path.join(out, "show.json"))), out, times)
        hovered += test_flash_page(Page(driver, os.path.join(out, "flash.html")), json.load(open(os.path.join(out, "flash.json"))), out, times)
        hovered += test_npy_page(Page(driver, os.path.join(out, "npy.html")), arr, tokens, out, times)
        hovered += test_model_page(Page(driver, os.path.join(out, "model.html")), model, out, times)
        for n in (8, 16, 40):
            test_fits_small_screen(driver, os.path.join(out, "fit%d.html" % n), n, out)
        test_gqa_model_page(Page(driver, os.path.join(out, "gqa-model.html")), None, out, times)
        test_hostile_sink_page(Page(driver, os.path.join(out, "hostile-model.html")), hostile)
        test_model_run_page(Page(driver, os.path.join(out, "model-run.html")),
                            json.load(open(os.path.join(out, "model-run-heads.json"))), name, text, out)
        neuron = json.load(open(os.path.join(out, "neuron.json")))
        test_neuron_page(Page(driver, os.path.join(out, "neuron.html")), neuron, out, times, "neuron page")
        test_neuron_page(Page(driver, os.path.join(out, "neuron-render.html")), neuron, out, times, "rendered neuron page")
        colour_cells = test_colour_rule(driver, out)
        test_steps(driver, out)
        screenshots_not_blank(driver, shots)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    print("hovered %d cells; %d cells coloured as the figures; ready after %s ms; %.1f s in all; screenshots in %s" %
          (hovered, colour_cells, times, time.time() - start, out))
    if failures:
        sys.exit("%d failure(s)" % len(failures))


if __name__ == "__main__":
    main()
