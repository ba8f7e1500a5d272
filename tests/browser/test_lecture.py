#!/usr/bin/env python3
"""The lab page walks the whole lecture (headless Chromium through Selenium, the network blocked).

For runs of mha with --pos none, sinusoidal, rope and alibi (`attn show --html` with the live panel, and
`--json` of the same run):
- the stage picker offers inputs, queries, keys, values, scores, masked scores, mask, weights, context and
  output, in the lecture's order; hovering cells of every vector stage of two heads reads the trace's number
  at 4 decimals ("%.4f" of the float32);
- each vector stage's cells are the SVG figure's colours (`--figures queries,... --svg`: one colour rule);
- the position figure of the run's --pos appears, and no other (none for --pos none); its cells read the
  trace's numbers (sinusoidal: inputs.positions and position_figures.sinusoidal.table; rope: the curves of
  position_figures.rope; alibi: every head's bias), and those numbers are checked against an independent
  numpy computation of each paper's formula (PE, q·R(m−n)k, m_h (j − i));
- a copied link (#head=1&stage=values) reopens that stage and head;
- the live panel's run of the same words draws the same cells (every pixel of every vector stage and
  position figure) and the same readouts as the seeded page.
Screenshots at 1366 × 630 are saved in --out.

Usage: test_lecture.py --attn BIN --chromium PATH --chromedriver PATH --out DIR
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time

import numpy as np
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.support.ui import Select, WebDriverWait

import colours  # noqa: E402
import headless  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_page import check, failures, four  # noqa: E402

TEXT = "The cat sat on the mat"
VECTOR_STAGES = ["inputs", "queries", "keys", "values", "context", "output"]
LECTURE = ["inputs", "queries", "keys", "values", "scores", "masked-scores", "mask", "weights", "context", "output"]
FIGURES = {"none": None, "sinusoidal": "position-sinusoidal", "rope": "position-rope", "alibi": "position-alibi"}


def vector(trace, stage, h):
    if stage == "inputs":
        return trace["inputs"]["x"]
    if stage == "output":
        return trace["output"]
    return trace["attention"][0]["layers"][0]["heads"][h][stage]


def load(d, path, fragment=""):
    d.get("about:blank")
    d.get("file://" + path + fragment)
    WebDriverWait(d, 20).until(lambda x: x.execute_script("return document.documentElement.dataset.ready"))


def select(d, id_, value):
    d.execute_script("const s = document.getElementById(arguments[0]); s.value = arguments[1]; "
                     "s.dispatchEvent(new Event('change'))", id_, str(value))


CELL_POINT = """
const e = arguments[0], r = e.getBoundingClientRect(), x = r.left + arguments[1] * r.width;
let y = r.top + arguments[2] * r.height;
const bars = document.querySelector('.controls'), top = bars ? bars.getBoundingClientRect().bottom : 0;
if (y >= top + 8 && y <= innerHeight - 8) return [x, y, false];
window.scrollBy(0, y - (top + innerHeight) / 2);
return [x, e.getBoundingClientRect().top + arguments[2] * r.height, true];
"""


def hover_canvas(d, canvas, i, j, R, C):
    """Points at cell (i, j) of a canvas of R x C cells, scrolled first to have the cell below the sticky bars."""
    x, y, _ = d.execute_script(CELL_POINT, canvas, (j + 0.5) / C, (i + 0.5) / R)
    a = ActionBuilder(d, duration=0)  # one mousemove at the cell (the default glides there over 250 ms)
    a.pointer_action.move_to_location(int(x), int(y))
    a.perform()


remade = 0  # moves made again by hover_read


def hover_read(d, canvas, i, j, R, C, id_="readout"):
    """Points at cell (i, j) and returns the readout once it names that cell. After a scroll Chromium sends
    the pointer's element a mousemove of its own, which may land after the test's move and name another
    cell: then the move is made again (at most three times), rather than sleeping after every scroll."""
    global remade
    for _ in range(3):
        hover_canvas(d, canvas, i, j, R, C)
        try:
            WebDriverWait(d, 1, poll_frequency=0.02).until(lambda x: readout(x, id_)[:2] == [str(i), str(j)])
            break
        except TimeoutException:
            remade += 1
    return readout(d, id_)


def readout(d, id_="readout"):
    return d.execute_script("const r = document.getElementById(arguments[0]); return [r.dataset.row, r.dataset.col, "
                            "r.dataset.value, r.textContent, r.dataset.value2]", id_)


PIXELS_JS = """
const c = arguments[0], R = arguments[1], C = arguments[2];
const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, out = [];
for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) {
  const x = Math.floor((j + 0.5) * c.width / C), y = Math.floor((i + 0.5) * c.height / R), k = 4 * (y * c.width + x);
  out.push([px[k], px[k + 1], px[k + 2]]);
}
return out;
"""


def cells(d, canvas, R, C):
    return [tuple(c) for c in d.execute_script(PIXELS_JS, canvas, R, C)]


def quiet(d, what):
    logs = [e for e in d.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    check(not logs, what + ": console errors: %s" % logs)
    fetched = d.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    check(fetched == [], what + ": fetched %s" % fetched)


def vector_views(d, trace, pos, svg_dir, heads=(0, 1)):
    """Every vector stage of `heads`: readouts of four cells against the trace, the cells' colours against
    the SVG figure (when svg_dir). Returns {(stage, head): (pixels, readouts)} for the live comparison."""
    seen = {}
    for h in heads:
        select(d, "head", h)
        for stage in VECTOR_STAGES:
            select(d, "stage", stage)
            m = vector(trace, stage, h)
            R, C = len(m), len(m[0])
            canvas = d.find_element(By.ID, "vector-matrix")
            check(d.find_element(By.ID, "vector-body").is_displayed() and not d.find_element(By.ID, "matrix").is_displayed(),
                  "%s %s: the vector heatmap replaces the attention matrix" % (pos, stage))
            got = []
            for i, j in [(0, 0), (R - 1, C - 1), (1, C // 2), (R // 2, 1)]:
                row, col, value, text, _ = hover_read(d, canvas, i, j, R, C)
                want = four(m[i][j])
                check((row, col) == (str(i), str(j)), "%s %s head %d: hover lands on (%d, %d), readout (%s, %s)" %
                      (pos, stage, h, i, j, row, col))
                check(value == want and want in text, "%s %s head %d (%d, %d): page %s, trace %s (%r)" %
                      (pos, stage, h, i, j, value, want, text))
                got.append(value)
            px = cells(d, canvas, R, C)
            if svg_dir and stage != "inputs":  # the figures have no inputs figure
                n, exact, worst = colours.compare(px, colours.svg_cells(os.path.join(svg_dir, "mha-%s.svg" % stage),
                                                                        0 if stage in ("inputs", "output") else h, R, C))
                check(n == R * C and exact >= colours.MIN_EXACT and worst <= colours.MAX_STEP,
                      "%s %s head %d: %d of %d cells, %.0f%% the SVG figure's colour exactly, largest channel difference %d" %
                      (pos, stage, h, n, R * C, 100 * exact, worst))
            seen[(stage, h)] = (px, got)
    return seen


def reference_figures(trace, pos):
    """The position figures' numbers from each paper's formula in numpy (float64), against the trace's."""
    cfg = trace["config"]
    if pos == "sinusoidal":
        Dm = len(trace["inputs"]["positions"][0])
        pf = trace["position_figures"]["sinusoidal"]
        p = np.arange(pf["first"], pf["first"] + 64)[:, None]
        i = np.arange(Dm)[None, :]
        angle = p / np.power(10000.0, (i - i % 2) / Dm)
        pe = np.where(i % 2 == 0, np.sin(angle), np.cos(angle))
        check(np.abs(pe - np.array(pf["table"])).max() < 1e-6, "sinusoidal table is PE of positions 0..63 (numpy)")
        check(np.abs(pe[:len(trace["tokens"])] - np.array(trace["inputs"]["positions"])).max() < 1e-6,
              "the run's PE is the table's first rows")
    if pos == "rope":
        r = trace["position_figures"]["rope"]
        dk, base = r["d_k"], cfg["rope_base"]
        theta = base ** (-2.0 * np.arange(dk // 2) / dk)
        dist = np.arange(64)
        check(np.abs(np.array(r["ones"]) - 2 * np.cos(dist[:, None] * theta[None, :]).sum(1)).max() < 1e-4,
              "RoPE's q = k = 1 curve is sum_i 2 cos(d theta_i) (numpy)")
        h0 = trace["attention"][0]["layers"][0]["heads"][0]
        q, k = np.array(h0["queries_unrotated"][0], float), np.array(h0["keys_unrotated"][0], float)

        def rot(x, p):  # rotate_half pairs (i, i + d/2): the default --rope-style half
            a, b = x[:dk // 2], x[dk // 2:]
            c, s = np.cos(p * theta), np.sin(p * theta)
            return np.concatenate([a * c - b * s, a * s + b * c])
        want = [rot(q, 0) @ rot(k, -d) for d in dist]
        check(np.abs(np.array(r["head0"]) - want).max() < 1e-4, "RoPE's head 0 curve is q·R(m−n)k of the first token (numpy)")
    if pos == "alibi":
        heads = trace["attention"][0]["layers"][0]["heads"]
        H, T = len(heads), len(trace["tokens"])
        for h, hd in enumerate(heads):
            m = 2.0 ** (-8.0 * (h + 1) / H)
            want = m * (np.arange(T)[None, :] - np.arange(T)[:, None])
            check(np.abs(np.array(hd["bias"]) - want).max() < 1e-6, "ALiBi head %d's bias is m (j − i), m = 2^(−8(h+1)/H)" % h)


def position_views(d, trace, pos, what):
    """The run's position figure and no other; its readouts against the trace. Returns what it read."""
    for p, fid in FIGURES.items():
        if fid:
            check(bool(d.find_elements(By.ID, fid)) == (p == pos), "--pos %s: figure %s %s" % (what, fid, "shown" if p == pos else "absent"))
    check(bool(d.find_elements(By.ID, "positions-section")) == (pos != "none"), "--pos %s: a Positions section iff positions are on" % what)
    got = []
    if pos == "sinusoidal":
        maps = d.find_elements(By.CSS_SELECTOR, "#position-sinusoidal canvas.position-map")
        run, table = trace["inputs"]["positions"], trace["position_figures"]["sinusoidal"]["table"]
        for canvas, m in ((maps[0], run), (maps[1], table)):
            R, C = len(m), len(m[0])
            settle(d, canvas)
            for i, j in [(0, 1), (R - 1, C - 1), (R // 2, C // 3)]:
                row, col, value, text, _ = hover_read(d, canvas, i, j, R, C, "positions-readout")
                check((row, col, value) == (str(i), str(j), four(m[i][j])), "sinusoidal (%d, %d): page %s %s %s, trace %s" %
                      (i, j, row, col, value, four(m[i][j])))
                got.append(value)
            got.append(cells(d, canvas, R, C))
    if pos == "rope":
        r = trace["position_figures"]["rope"]
        canvas = d.find_element(By.ID, "rope-chart")
        settle(d, canvas)
        w = canvas.size["width"]
        for dist in (0, 5, 40, 63):
            x = 56 + dist / 63 * (640 - 56 - 12)  # the chart's plot area (position_view.js)
            ActionChains(d, duration=0).move_to_element_with_offset(canvas, int(round(x * w / 640 - w / 2)), 0).perform()
            _, col, value, text, value2 = readout(d, "positions-readout")
            check((col, value, value2) == (str(dist), four(r["ones"][dist]), four(r["head0"][dist])),
                  "rope distance %d: page %s %s %s, trace %s %s" % (dist, col, value, value2, four(r["ones"][dist]), four(r["head0"][dist])))
            got.append((value, value2))
    if pos == "alibi":
        heads = trace["attention"][0]["layers"][0]["heads"]
        maps = d.find_elements(By.CSS_SELECTOR, "#position-alibi canvas.position-map")
        check(len(maps) == len(heads), "ALiBi: one bias map per head (%d of %d)" % (len(maps), len(heads)))
        for h, canvas in enumerate(maps):
            b = heads[h]["bias"]
            R = len(b)
            settle(d, canvas)
            for i, j in [(R - 1, 0), (R - 1, R - 2), (2, 1)]:
                row, col, value, text, _ = hover_read(d, canvas, i, j, R, R, "positions-readout")
                check((row, col, value) == (str(i), str(j), four(b[i][j])), "alibi head %d (%d, %d): page %s %s %s, trace %s" %
                      (h, i, j, row, col, value, four(b[i][j])))
                got.append(value)
            got.append(cells(d, canvas, R, R))
    return got


def settle(d, element):
    """Scrolls element to the window's middle and waits: Chromium sends the pointer's element a mousemove
    after a scroll, which would otherwise land after the test's own move."""
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    time.sleep(0.3)


def shot(d, out, name):
    path = os.path.join(out, name)
    check(d.save_screenshot(path), "screenshot %s saved" % name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn", required=True)
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--chromedriver", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    attn = os.path.abspath(a.attn)
    start = time.time()
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    out = os.path.abspath(a.out)
    driver, profile = headless.start(a.chromium, a.chromedriver, size="1366,630")
    d = driver
    try:
        for pos in FIGURES:
            name = "mha-" + pos
            before = len(failures)
            svg_dir = os.path.join(out, name)
            os.makedirs(svg_dir)
            subprocess.run([attn, "show", "--kind", "mha", "--heads", "2", "--d-out", "8", "--pos", pos, TEXT,
                            "--json", name + ".json", "--html", name + ".html", "--svg", name,
                            "--figures", ",".join(VECTOR_STAGES[1:])], cwd=out, check=True, capture_output=True)
            trace = json.load(open(os.path.join(out, name + ".json")))
            check(("position_figures" in trace) == (pos in ("sinusoidal", "rope")),
                  "--pos %s: the trace's position_figures %s" % (pos, "present" if pos in ("sinusoidal", "rope") else "absent"))
            reference_figures(trace, pos)
            path = os.path.join(out, name + ".html")
            load(d, path)
            quiet(d, name)
            stages = [o.get_attribute("value") for o in Select(d.find_element(By.ID, "stage")).options]
            check(stages == LECTURE, "%s: the stage picker in the lecture's order: %s" % (pos, stages))
            seeded = vector_views(d, trace, pos, svg_dir)
            select(d, "stage", "queries")
            d.execute_script("document.getElementById('matrix-section').scrollIntoView(); window.scrollBy(0, -50)")
            shot(d, out, name + "-queries.png")
            seeded_pos = position_views(d, trace, pos, pos)
            if pos != "none":
                d.execute_script("document.getElementById('positions-section').scrollIntoView(); window.scrollBy(0, -50)")
                shot(d, out, name + "-positions.png")
            # a copied link keeps the stage and head
            load(d, path, "#head=1&stage=values")
            check(Select(d.find_element(By.ID, "stage")).first_selected_option.get_attribute("value") == "values" and
                  Select(d.find_element(By.ID, "head")).first_selected_option.get_attribute("value") == "1" and
                  d.find_element(By.ID, "vector-body").is_displayed(), "%s: a link with stage=values&head=1 reopens them" % pos)
            # the live panel's run of the same words: the same cells and readouts
            WebDriverWait(d, 30).until(lambda x: x.execute_script("return document.documentElement.dataset.liveReady"))
            d.execute_script("document.getElementById('live-run').click()")
            WebDriverWait(d, 30).until(lambda x: x.execute_script("return document.documentElement.dataset.liveRuns") == "1")
            check(d.find_element(By.ID, "live-error").get_attribute("hidden") is not None, "%s: the live run succeeded" % pos)
            check("stage=values" in d.current_url and "head=1" in d.current_url, "%s: the live run keeps stage and head" % pos)
            live = vector_views(d, trace, pos + " (live)", None)
            for key, (px, got) in seeded.items():
                check(live[key][1] == got, "%s %s head %d: live readouts %s, seeded %s" % (pos, key[0], key[1], live[key][1], got))
                check(live[key][0] == px, "%s %s head %d: the live page's cells are the seeded page's, pixel for pixel" % (pos, key[0], key[1]))
            live_pos = position_views(d, trace, pos, pos + " (live)")
            check(live_pos == seeded_pos, "%s: the live position figure reads and draws as the seeded one" % pos)
            quiet(d, name + " live")
            print("%s: %d vector views (%d cells hovered on each page), position figure %s; %s" %
                  (pos, len(seeded), 4 * len(seeded), FIGURES[pos], "no failures" if len(failures) == before else "%d failures" % (len(failures) - before)), flush=True)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    print("%.1f s, %d hovers made again after a scroll; screenshots in %s" % (time.time() - start, remade, out))
    if failures:
        sys.exit("%d failure(s)" % len(failures))


if __name__ == "__main__":
    main()
