#!/usr/bin/env python3
"""The lab page on a laptop, in a real browser (headless Chromium through Selenium, network blocked).

A 1366 x 768 screen at 100 %, 125 % and 150 % scaling, less the browser's toolbar and the taskbar, leaves the
page a CSS viewport of 1366 x 630, 1093 x 480 and 911 x 380. In each (the window sized until innerWidth x
innerHeight is exactly that):

1. A sentence typed into `attn page`'s panel and run (mha, 4 heads, its options set through the folded options):
   the matrix canvas, its readout (pointing at a cell) and the run button lie within the viewport, the matrix and
   readout below the sticky bars (not under them); the options drop-down is closed after the run; nothing runs off
   to the right (no horizontal scrollbar). The same for a 17-token sentence.
2. The options shown are the ones `attn kinds --json` says each kind takes (read from the binary here), and of
   those rope base and style only with --pos rope, dropout seed only with a dropout, align only with the causal
   mask, split only without --example; a field that holds a value stays shown.
3. flash at 1366 x 630: the running max/sum table lies to the right of the tile box drawn on the matrix and
   overlaps the matrix in height, both in view, for the first and a later tile; at 911 x 380 (too narrow for
   both) the matrix, readout and run are still in view and nothing runs off to the right.
4. The head view with 8 heads: every two head colours at least 25 apart (CIE76 Delta E in Lab, computed here),
   each head's lines drawn in its own colour (pixels of all 8 colours on the canvas for one query: lanes keep
   them from blending), and pointing at one head's button leaves only that head's lines opaque.

Screenshots of each viewport are saved in --out (look at them: they are what a student sees).

Usage: test_layout.py --attn BIN --chromium PATH --chromedriver PATH --out DIR
"""
import argparse
import itertools
import json
import math
import os
import shutil
import subprocess
import sys
import time

import headless  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_page import COUNT_COLOURS, Page, check, failures, shots  # noqa: E402

VIEWPORTS = [(1366, 630), (1093, 480), (911, 380)]  # 1366 x 768 at 100 %, 125 %, 150 %
SENTENCE = "Your journey starts with one step"
LONG = "the quick brown fox jumps over the lazy dog while students watch every head attend to words"
MIN_DELTA_E = 25  # Tableau 10's closest two (purple and pink) are 27.7 apart

RECT = "const b = arguments[0].getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom];"


def rect(d, css):
    return d.execute_script(RECT, d.find_element(By.CSS_SELECTOR, css))


def set_viewport(d, w, h):
    """Sizes the window so that the page's CSS viewport is exactly w x h (the window's frame is measured, not assumed)."""
    inner = "return [innerWidth, innerHeight]"
    for _ in range(6):
        size = d.get_window_size()
        iw, ih = d.execute_script(inner)
        if (iw, ih) == (w, h):
            return
        d.set_window_size(size["width"] + w - iw, size["height"] + h - ih)
        WebDriverWait(d, 5).until(lambda x: x.execute_script(inner) != [iw, ih])
        time.sleep(0.2)  # let the resize settle before the next measure
    check(False, "the viewport is %s, not %d x %d" % (d.execute_script(inner), w, h))


def live_runs(d):
    return int(d.execute_script("return Number(document.documentElement.dataset.liveRuns || 0)"))


def open_lab(page):
    page.load()
    WebDriverWait(page.d, 30).until(lambda x: x.execute_script("return document.documentElement.dataset.liveReady"))


def run_panel(page, kind, sentence, options):
    """Types the sentence, picks the kind, opens the folded options and sets each (id -> value) as a user does,
    presses run and waits for the redraw."""
    d = page.d
    text = d.find_element(By.ID, "live-text")
    text.clear()
    text.send_keys(sentence)
    page.select("live-kind", kind, real=True)
    box = d.find_element(By.ID, "live-options-box")
    if not box.get_attribute("open"):
        d.find_element(By.CSS_SELECTOR, "#live-options-box summary").click()
    for id_, value in options.items():
        field = d.find_element(By.ID, id_)
        check(field.is_displayed(), "%s: #%s is shown once the options are open" % (kind, id_))
        if field.tag_name == "select":
            page.select(id_, value, real=True)
        else:
            field.clear()
            field.send_keys(value)
    runs = live_runs(d)
    d.find_element(By.ID, "live-run").click()
    WebDriverWait(d, 20).until(lambda x: live_runs(x) > runs)
    check(not d.find_element(By.ID, "live-error").is_displayed(), "%s: the run was made" % kind)
    check(not box.get_attribute("open") and not d.execute_script("return arguments[0].checkVisibility()", d.find_element(By.ID, "live-options")),
          "%s: the options fold away after the run" % kind)


def within(r, w, h, top=0.0):
    return r[0] >= -0.5 and r[1] >= top - 0.5 and r[2] <= w + 0.5 and r[3] <= h + 0.5


def check_in_view(page, w, h, what):
    """The matrix, its readout (pointing at a cell) and run are in the w x h viewport, the first two below the bars."""
    d = page.d
    canvas = d.find_element(By.ID, "matrix")
    ActionChains(d, duration=0).move_to_element_with_offset(canvas, 0, 0).perform()  # a cell's value in the readout
    value = d.find_element(By.ID, "readout").get_attribute("data-value")
    check(value is not None, "%s: the readout reads the cell under the pointer" % what)
    bars = rect(d, ".controls")[3]
    m, r, run = rect(d, "#matrix"), rect(d, "#readout"), rect(d, "#live-run")
    print("%dx%d %s: bars end at %.0f, matrix %s, readout %s, run %s" % (w, h, what, bars, [round(x) for x in m],
                                                                        [round(x) for x in r], [round(x) for x in run]))
    check(within(m, w, h, bars), "%s: the matrix %s is in view below the bars (%.0f) of %d x %d" % (what, m, bars, w, h))
    check(within(r, w, h, bars), "%s: the readout %s is in view below the bars (%.0f) of %d x %d" % (what, r, bars, w, h))
    check(within(run, w, h), "%s: the run button %s is in view in %d x %d" % (what, run, w, h))
    wide = d.execute_script("const r = document.documentElement; return [r.scrollWidth, r.clientWidth, Array.from(document.querySelectorAll('body *'))"
                            ".filter((e) => e.checkVisibility() && e.getBoundingClientRect().right > r.clientWidth + 1).slice(0, 4).map((e) => e.tagName + '#' + e.id)]")
    check(wide[0] <= wide[1], "%s: nothing runs off to the right, no horizontal scrollbar (%s)" % (what, wide))


def lab(hexc):
    r, g, b = [int(hexc[i:i + 2], 16) / 255 for i in (1, 3, 5)]

    def lin(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = lin(r), lin(g), lin(b)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def kind_fields(info):
    """The option fields a kind's entry of `attn kinds --json` asks for, as the panel names them (live-opt-NAME)."""
    flags = [f for o in info["options"].split(", ") for f in o.split("/") if f != "--no-causal"]
    if "--dropout" in flags:
        flags.append("--dropout-seed")
    panel = {"--heads", "--kv-heads", "--window", "--score", "--block-q", "--block-k", "--renorm", "--causal", "--source",
             "--qkv-bias", "--d-out", "--init", "--dropout", "--dropout-seed", "--pos", "--rope-base", "--rope-style", "--align"}
    common = ["--seed", "--d-in", "--split", "--example", "--range", "--colormap", "--log"]
    return {"live-opt-" + f[2:] for f in flags if f in panel} | {"live-opt-" + f[2:] for f in common}


SHOWN = "return Array.from(document.querySelectorAll('#live-options label')).filter((l) => l.checkVisibility()).map((l) => l.querySelector('input, select').id)"
EXISTING = "return Array.from(document.querySelectorAll('#live-options input, #live-options select')).map((e) => e.id)"
DEPENDENT = {"live-opt-rope-base", "live-opt-rope-style", "live-opt-dropout-seed", "live-opt-align"}


def set_field(d, id_, value):
    d.execute_script("const e = document.getElementById(arguments[0]); e.value = arguments[1]; "
                     "e.dispatchEvent(new Event('change', { bubbles: true }))", id_, value)


def test_options(page, attn):
    """Only the options the kind takes, and of those only the ones that apply to the others' values."""
    d = page.d
    kinds = json.loads(subprocess.run([attn, "kinds", "--json"], capture_output=True, text=True, check=True).stdout)
    d.find_element(By.CSS_SELECTOR, "#live-options-box summary").click()
    for info in kinds:
        page.select("live-kind", info["kind"], real=True)
        want = kind_fields(info)
        existing, shown = set(d.execute_script(EXISTING)), set(d.execute_script(SHOWN))
        check(existing == want, "%s: the fields are the kind's options %s, not %s" % (info["kind"], sorted(want), sorted(existing)))
        check(shown == want - DEPENDENT, "%s: shown %s, want %s" % (info["kind"], sorted(shown), sorted(want - DEPENDENT)))
    page.select("live-kind", "cross", real=True)
    set_field(d, "live-opt-pos", "rope")
    set_field(d, "live-opt-dropout", "0.1")
    set_field(d, "live-opt-causal", "--causal")
    shown = set(d.execute_script(SHOWN))
    check(DEPENDENT <= shown, "cross with rope, a dropout and the causal mask shows rope base and style, dropout seed and align: %s" % sorted(shown))
    set_field(d, "live-opt-rope-base", "500")
    set_field(d, "live-opt-pos", "alibi")
    set_field(d, "live-opt-example", "journey")
    shown = set(d.execute_script(SHOWN))
    check("live-opt-rope-base" in shown and "live-opt-rope-style" not in shown and "live-opt-split" not in shown,
          "without rope: rope base stays while it holds 500, rope style goes; --example hides split: %s" % sorted(shown))
    summary = d.find_element(By.ID, "live-options-summary").text
    check(summary.startswith("options: ") and "rope base 500" in summary and "positions alibi" in summary and "mask causal" in summary,
          "the options' summary says what is set: %r" % summary)
    page.select("live-kind", "mha", real=True)
    shown = set(d.execute_script(SHOWN))
    check("live-opt-rope-base" in shown and "live-opt-pos" in shown and "live-opt-source" not in shown,
          "a value typed for cross stays where mha takes it: %s" % sorted(shown))


def test_viewport(page, w, h, out):
    d = page.d
    set_viewport(d, w, h)
    open_lab(page)
    run_panel(page, "mha", SENTENCE, {"live-opt-heads": "4"})
    check_in_view(page, w, h, "mha, 4 heads, 6 tokens")
    page.shot(out, "layout-%dx%d-mha.png" % (w, h))
    run_panel(page, "causal", LONG, {})
    check_in_view(page, w, h, "causal, 17 tokens")
    page.shot(out, "layout-%dx%d-17-tokens.png" % (w, h))
    d.find_element(By.CSS_SELECTOR, "#live-options-box summary").click()
    page.shot(out, "layout-%dx%d-options-open.png" % (w, h))
    d.find_element(By.CSS_SELECTOR, "#live-options-box summary").click()


def tile_box(d):
    """The tile's box on the matrix, from the tile's text ("tile 1 of 6: queries 0–1, keys 0–2") and the canvas."""
    text = d.find_element(By.ID, "tile-text").text
    q, k = text.split(": ")[1].split(", ")
    q0, q1 = [int(x) for x in q.split(" ")[1].split("\u2013")]
    k0, k1 = [int(x) for x in k.split(" ")[1].split("\u2013")]
    T = len(d.find_elements(By.CSS_SELECTOR, ".row-labels span"))
    m = rect(d, "#matrix")
    cw, ch = (m[2] - m[0]) / T, (m[3] - m[1]) / T
    return [m[0] + k0 * cw, m[1] + q0 * ch, m[0] + (k1 + 1) * cw, m[1] + (q1 + 1) * ch]


def test_flash(page, out):
    d = page.d
    w, h = VIEWPORTS[0]
    set_viewport(d, w, h)
    open_lab(page)
    run_panel(page, "flash", SENTENCE + " today", {"live-opt-causal": "--causal", "live-opt-block-q": "2", "live-opt-block-k": "3"})
    check_in_view(page, w, h, "flash")
    for step in range(2):
        box, table = tile_box(d), rect(d, "#flash-table")
        print("flash tile %d: box %s, table %s" % (step + 1, [round(x) for x in box], [round(x) for x in table]))
        check(table[0] >= box[2] and table[0] >= rect(d, "#matrix")[2], "tile %d: the table %s is right of the tile box %s" % (step + 1, table, box))
        m = rect(d, "#matrix")
        check(table[1] < m[3] and table[3] > m[1], "tile %d: the table %s is beside the matrix %s, not below it" % (step + 1, table, m))
        check(within(table, w, h) and within(box, w, h), "tile %d: the table %s and the box %s are in view" % (step + 1, table, box))
        page.shot(out, "layout-%dx%d-flash-tile%d.png" % (w, h, step + 1))
        for _ in range(3):
            d.find_element(By.ID, "tile-next").click()
    # at 911 x 380 the table goes under the matrix (no room beside it), and nothing runs off to the right
    w, h = VIEWPORTS[2]
    set_viewport(d, w, h)
    open_lab(page)
    run_panel(page, "flash", SENTENCE + " today", {"live-opt-causal": "--causal", "live-opt-block-q": "2", "live-opt-block-k": "3"})
    check_in_view(page, w, h, "flash")
    page.shot(out, "layout-%dx%d-flash.png" % (w, h))


CANVAS_PIXELS = """
const c = document.querySelector('#headview canvas'), px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, out = [];
for (let k = 0; k < px.length; k += 4) if (px[k + 3] > 40) out.push([px[k], px[k + 1], px[k + 2]]);
return out;
"""


LINE_SPOT = """
const c = document.querySelector('#headview canvas'), dpr = c.width / 240, want = arguments[0];
const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
let best = null, alpha = 100;
for (let y = 0; y < c.height; y++) for (let x = Math.round(214 * dpr); x < Math.round(230 * dpr); x++) {
  const k = 4 * (y * c.width + x);
  if (px[k + 3] > alpha && Math.hypot(px[k] - want[0], px[k + 1] - want[1], px[k + 2] - want[2]) < 20) { alpha = px[k + 3]; best = [x / dpr, y / dpr]; }
}
return best;
"""


AROUND = """
const c = document.querySelector('#headview canvas'), dpr = c.width / 240, out = [];
const x0 = Math.round((arguments[0] - 2) * dpr), y0 = Math.round((arguments[1] - 2) * dpr), n = Math.round(5 * dpr);
const px = c.getContext('2d').getImageData(x0, y0, n, n).data;
for (let k = 0; k < px.length; k += 4) if (px[k + 3] > 40) out.push([px[k], px[k + 1], px[k + 2]]);
return out;
"""


def nearest(rgb, colours):
    """The index of the colour nearest rgb and its distance (RGB)."""
    best = min(range(len(colours)), key=lambda k: math.dist(rgb, colours[k]))
    return best, math.dist(rgb, colours[best])


def head_pixels(d, rgb):
    """For each head colour, the head view's pixels of that colour (within 40 in RGB, alpha above 40: drawn, not faded)."""
    counts = [0] * len(rgb)
    for p in d.execute_script(CANVAS_PIXELS):
        k, dist = nearest(p, rgb)
        if dist < 40:
            counts[k] += 1
    return counts


def test_head_view(page, out):
    d = page.d
    w, h = VIEWPORTS[0]
    set_viewport(d, w, h)
    open_lab(page)
    run_panel(page, "mha", SENTENCE, {"live-opt-heads": "8"})
    buttons = d.find_elements(By.CSS_SELECTOR, "#head-toggles button")
    hexes = [d.execute_script("return getComputedStyle(arguments[0]).getPropertyValue('--c').trim()", b) for b in buttons]
    check(len(hexes) == 8, "8 heads, 8 buttons: %s" % hexes)
    worst = min(((math.dist(lab(a), lab(b)), a, b) for a, b in itertools.combinations(hexes, 2)), default=(0, "", ""))
    print("head colours %s: the closest two %s and %s, Delta E %.1f" % (hexes, worst[1], worst[2], worst[0]))
    check(worst[0] >= MIN_DELTA_E, "every two head colours at least %d apart: %s and %s are %.1f" % (MIN_DELTA_E, worst[1], worst[2], worst[0]))
    rgb = [tuple(int(x[i:i + 2], 16) for i in (1, 3, 5)) for x in hexes]
    d.execute_script("document.getElementById('headview-section').scrollIntoView({block: 'center'})")
    q = d.find_elements(By.CSS_SELECTOR, "#headview .hv-q div")[-1]
    ActionChains(d, duration=0).move_to_element(q).perform()
    counts = head_pixels(d, rgb)
    print("head view, last query: pixels of each head's colour %s" % counts)
    check(all(n >= 20 for n in counts), "every head's lines show in its own colour: %s" % counts)
    page.shot(out, "layout-%dx%d-headview.png" % (w, h))
    ActionChains(d, duration=0).move_to_element(buttons[2]).perform()
    alone = head_pixels(d, rgb)
    print("pointing at head 2: %s" % alone)
    check(alone[2] >= 0.5 * counts[2] and all(alone[k] <= 0.1 * counts[k] for k in range(8) if k != 2),
          "pointing at head 2 keeps its lines and fades the others' to a tenth: %s, before %s" % (alone, counts))
    faded = [b.get_attribute("class") for b in buttons]
    check(faded[2] != "faded" and all(c == "faded" for k, c in enumerate(faded) if k != 2), "the other buttons fade: %s" % faded)
    page.shot(out, "layout-%dx%d-headview-head2.png" % (w, h))
    # pointing at a line isolates the head whose line it is: the pointer put on a pixel of head 5's colour
    # near the keys (where the keys' bundles of lanes lie apart); the head left alone is one whose colour the canvas had within 2 px of the pointer
    ActionChains(d, duration=0).move_to_element(q).perform()
    canvas = d.find_element(By.CSS_SELECTOR, "#headview canvas")
    spot = d.execute_script(LINE_SPOT, list(rgb[5]))
    check(spot is not None, "head 5 draws a line near the keys")
    if spot:
        near = d.execute_script(AROUND, spot[0], spot[1])
        ActionChains(d, duration=0).move_to_element_with_offset(canvas, int(spot[0] - canvas.size["width"] / 2), int(spot[1] - canvas.size["height"] / 2)).perform()
        faded = [b.get_attribute("class") for b in buttons]
        alone = [k for k, c in enumerate(faded) if c != "faded"]
        heads_near = sorted({nearest(p, rgb)[0] for p in near if nearest(p, rgb)[1] < 30})
        print("pointing at %s (heads drawn within 2 px: %s): head %s alone" % (spot, heads_near, alone))
        check(len(alone) == 1 and alone[0] in heads_near, "pointing at a line leaves one head whose line is there: %s, near %s" % (alone, heads_near))
    ActionChains(d, duration=0).move_to_element(d.find_element(By.CSS_SELECTOR, "#headview-section h2")).perform()
    check(not d.execute_script(CANVAS_PIXELS), "leaving the head view clears its lines")


def screenshots_as_seen(driver, paths):
    """Each screenshot is the viewport it was taken in (its name says which) and a real picture."""
    import base64
    driver.get("about:blank")
    for path in paths:
        w, h, colours = driver.execute_async_script(COUNT_COLOURS, base64.b64encode(open(path, "rb").read()).decode())
        want = [int(x) for x in os.path.basename(path).split("-")[1].split("x")]
        check([w, h] == want and colours >= 12, "%s is a real picture of %s (%d x %d, %d colours)" % (os.path.basename(path), want, w, h, colours))


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
    path = os.path.join(out, "lab.html")
    subprocess.run([a.attn, "page", path], check=True, capture_output=True)
    driver, profile = headless.start(a.chromium, a.chromedriver)
    try:
        page = Page(driver, path)
        for w, h in VIEWPORTS:
            test_viewport(page, w, h, out)
        test_options(page, a.attn)
        test_flash(page, out)
        test_head_view(page, out)
        page.quiet("lab page at a laptop's sizes")
        screenshots_as_seen(driver, shots)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    print("%.1f s; screenshots in %s" % (time.time() - start, out))
    if failures:
        sys.exit("%d failure(s)" % len(failures))


if __name__ == "__main__":
    main()
