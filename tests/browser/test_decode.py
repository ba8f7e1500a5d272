#!/usr/bin/env python3
"""The live page's Decode section in a real browser (headless Chromium through Selenium, network blocked, a
1366 x 630 laptop window), against the native binary's `attn decode ARGV --json -`.

1. window.attn.decode(argv) (a Promise, computed in the page's worker as run's) equals `attn decode ARGV --json -`: the same keys,
   strings and booleans, numbers within 1e-6 (relative above 1), for GQA with kv heads, MQA, causal with
   ALiBi, local with a window, RoPE and the journey example; bad words give the native one-line error word
   for word, and what the page cannot do (--png, --json PATH, --file, --model) is refused by name; words that
   are not a list reject with a TypeError, and window.attn.cancel() stops a decode in flight.
2. A `show --html` page of gqa (4 heads, 2 kv heads) decodes its own run when the Decode section is scrolled
   to (not at load): the head picker names
   each query head's kv head, the staircase has a row per step, and pointing at cell (t, j) of a head reads
   the trace's weight (exact, as the JSON has it) with the step's and the key's tokens; a key past the step
   reads "not in the cache yet".
3. The step slider: the cache readout after step t gives bytes_per_token x (t + 1) for each of MHA, GQA and
   MQA (the trace's cache_variants) and the run's own steps[t].cache_bytes.
4. The panel's decode button decodes the panel's settings: mqa with 4 heads (one kv head), local with a window
   (the keys the window hides read weight 0, the options decode does not take are listed as left out), and a
   kind that does not decode shows decode's own error in #live-error, the section keeping its last trace.
Screenshots in --out.

Usage: test_decode.py --attn BIN --chromium PATH --chromedriver PATH --out DIR
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

import headless  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_live import compare, wait_live  # noqa: E402
from test_page import Page, check, failures, screenshots_not_blank, shots  # noqa: E402

TOLERANCE = 1e-6
CONFIGS = [
    ["--kind", "gqa", "--heads", "4", "--kv-heads", "2", "--d-out", "8", "The cat sat on the mat"],
    ["--kind", "mqa", "--heads", "4", "--d-out", "8", "one two three four five six"],
    ["--kind", "causal", "--pos", "alibi", "one two three four"],
    ["--kind", "local", "--window", "2", "one two three four five six seven"],
    ["--kind", "mha", "--heads", "2", "--pos", "rope", "--rope-base", "500", "the cat sat on the mat"],
    ["--kind", "causal", "--example", "journey"],
]
BAD = [
    ["--kind", "cross", "a b"],
    ["--kind", "mha", "--window", "2", "a b"],
    ["--kind", "gqa", "--heads", "6", "--kv-heads", "4", "a b c"],
    ["--dropout", "0.1", "a b"],
]
REFUSED = [["--png", "out", "a b"], ["--json", "steps.json", "a b"], ["--file", "text.txt"], ["--model", "gpt2", "a b"]]

DECODE = """
const done = arguments[arguments.length - 1];
try {
  Promise.resolve(window.attn.decode(arguments[0])).then((t) => done(['ok', t]), (e) => done(['error', e.message]));
} catch (e) { done(['error', e.message]); }
"""


def native(attn, argv):
    r = subprocess.run([attn, "decode", *argv, "--json", "-"], capture_output=True, text=True)
    if r.returncode == 0:
        return json.loads(r.stdout), None
    return None, r.stderr.strip().splitlines()[-1]


def decode_runs(d):
    return int(d.execute_script("return Number(document.documentElement.dataset.decodeRuns || 0)"))


def test_api(d, attn):
    worst = 0.0
    for argv in CONFIGS:
        want, err = native(attn, argv)
        got = d.execute_async_script(DECODE, argv)
        if err or got[0] != "ok":
            check(False, "decode %s: native %s, page %s" % (argv, err, got[:2]))
            continue
        got = json.loads(got[1])
        check(len(want["steps"]) >= 4, "%s decodes %d steps" % (argv, len(want["steps"])))
        try:
            diff = compare(got, want)
        except ValueError as e:
            check(False, "attn.decode(%s) differs: %s" % (argv, e))
            continue
        worst = max(worst, diff)
        check(diff <= TOLERANCE, "attn.decode(%s): largest difference %g" % (argv, diff))
        print("same decode JSON (largest difference %.2g): %s" % (diff, " ".join(argv)))
    print("%d configurations: largest difference %.3g" % (len(CONFIGS), worst))
    for argv in BAD:
        _, err = native(attn, argv)
        got = d.execute_async_script(DECODE, argv)
        check(err is not None and got == ["error", err], "attn.decode(%s): %r, native %r" % (argv, got, err))
    for argv in REFUSED:
        got = d.execute_async_script(DECODE, argv)
        check(got[0] == "error" and got[1].startswith("attn: error: " + argv[0] + " ") and "\n" not in got[1],
              "attn.decode with %s is refused by name in one line: %r" % (argv[0], got))


def hover(d, t, j, T):
    """Points at cell (t, j) of the staircase; returns the readout's element."""
    m = d.find_element(By.ID, "decode-map")
    d.execute_script("arguments[0].scrollIntoView({block: 'end'})", m)  # a long staircase: its rows in view, under the sticky readout
    w, h = m.size["width"], m.size["height"]
    ActionChains(d, duration=0).move_to_element_with_offset(m, int((j + 0.5) * w / T - w / 2), int((t + 0.5) * h / T - h / 2)).perform()
    return d.find_element(By.ID, "decode-readout")


def set_step(d, t):
    d.execute_script("const s = document.getElementById('decode-step'); s.value = arguments[0]; "
                     "s.dispatchEvent(new Event('input'))", str(t))


def number(text):
    return int(text.split(" bytes")[0].replace(",", ""))


def check_cache(d, want, where, variants):
    T = len(want["steps"])
    for t in (0, T // 2, T - 1):
        set_step(d, t)
        c = d.find_element(By.ID, "decode-cache")
        shown = {b.get_attribute("data-variant"): number(b.text) for b in c.find_elements(By.CSS_SELECTOR, ".cache-bytes")}
        expect = {v["name"]: v["bytes_per_token"] * (t + 1) for v in want["cache_variants"]}
        check(shown == expect and len(expect) == variants, "%s step %d: the cache shows %s, the trace gives %s" % (where, t, shown, expect))
        check(int(c.get_attribute("data-bytes")) == want["steps"][t]["cache_bytes"] and
              "this run (G = %d): %s bytes" % (want["cache"]["kv_heads"], format(want["steps"][t]["cache_bytes"], ",")) in c.text,
              "%s step %d: this run's cache %s, the trace's %d" % (where, t, c.text, want["steps"][t]["cache_bytes"]))
    legend = [e.text for e in d.find_elements(By.CSS_SELECTOR, ".decode-legend .key-item")]
    for v in want["cache_variants"]:
        check(any(x.startswith("%s, G = %d: %s bytes per token" % (v["name"], v["kv_heads"], format(v["bytes_per_token"], ",")))
                  for x in legend), "%s: the legend names %s: %s" % (where, v["name"], legend))
    check(len(d.find_elements(By.CSS_SELECTOR, "#decode-chart polyline")) == len(want["cache_variants"]),
          "%s: one line per cache variant" % where)


def check_cells(d, want, heads, cells, where):
    T = len(want["steps"])
    d.execute_script("document.getElementById('decode').scrollIntoView({block: 'start'})")
    for h in heads:
        d.execute_script("const s = document.getElementById('decode-head'); s.value = arguments[0]; "
                         "s.dispatchEvent(new Event('change'))", str(h))
        for t, j in cells:
            r = hover(d, t, j, T)
            ds = r.get_attribute("data-step"), r.get_attribute("data-key"), r.get_attribute("data-head")
            check(ds == (str(t), str(j), str(h)), "%s head %d: the readout is for (%d, %d): %s" % (where, h, t, j, ds))
            if j > t:
                check("not in the cache yet" in r.text and r.get_attribute("data-weight") == "",
                      "%s (%d, %d): not in the cache yet: %r" % (where, t, j, r.text))
                continue
            w = want["steps"][t]["heads"][h]["weights"][j]
            shown = float(r.get_attribute("data-weight"))
            bold = r.find_element(By.CSS_SELECTOR, "b.v").text
            check(abs(shown - w) <= TOLERANCE and float(bold) == shown,
                  "%s head %d (%d, %d): readout %s, trace %r" % (where, h, t, j, bold, w))
            check(want["tokens"][t] in r.text and want["tokens"][j] in r.text and "kv head %d" % want["steps"][t]["heads"][h]["kv_head"] in r.text
                  if want["cache"]["kv_heads"] < want["cache"]["heads"] else want["tokens"][j] in r.text,
                  "%s: the readout names the step's and the key's tokens: %r" % (where, r.text))


def press_decode(d, error=False):
    """Presses decode and waits for the Decode section to redraw (or, error=True, for #live-error)."""
    runs = decode_runs(d)
    d.find_element(By.ID, "live-decode").click()
    WebDriverWait(d, 10).until(lambda x: x.find_element(By.ID, "live-error").is_displayed() if error else decode_runs(x) > runs)


def set_field(d, id_, value):
    d.execute_script("const e = document.getElementById(arguments[0]); e.value = arguments[1]; "
                     "e.dispatchEvent(new Event('change'))", id_, value)


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
    page_argv = CONFIGS[0]
    shown = os.path.join(out, "gqa.html")
    subprocess.run([a.attn, "show", *page_argv, "--html", shown], check=True, capture_output=True)
    driver, profile = headless.start(a.chromium, a.chromedriver, size="1366,800")
    try:
        # a laptop's page area: 1366 x 630 CSS pixels (the window's own bars aside)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1366, "height": 630, "deviceScaleFactor": 1, "mobile": False})
        page = Page(driver, shown)
        page.load()
        wait_live(driver)
        time.sleep(0.5)
        check(decode_runs(driver) == 0, "nothing is decoded before the Decode section is seen")
        driver.execute_script("document.getElementById('decode').scrollIntoView({block: 'start'})")
        WebDriverWait(driver, 10).until(lambda x: decode_runs(x) >= 1)
        page.quiet("gqa page")
        check(driver.execute_script("return window.attn.decode(['a b']) instanceof Promise"), "window.attn.decode returns a Promise, as run does")
        got = driver.execute_async_script("const done = arguments[0]; window.attn.decode('a b').then(() => done('resolved'), "
                                          "(e) => done([e.constructor.name, e.message]))")
        check(got == ["TypeError", "attn.decode takes a list of words (strings), as attn decode takes them"],
              "words that are not a list: a TypeError: %r" % got)
        got = driver.execute_async_script("const done = arguments[0]; window.attn.decode([() => 1]).then(() => done('resolved'), "
                                          "(e) => done([e.constructor.name, e.message]))")
        check(got == ["TypeError", "attn.decode takes a list of words (strings), as attn decode takes them"],
              "a word that cannot even reach the worker (a function): the same TypeError: %r" % got)
        got = driver.execute_async_script("const done = arguments[0]; const p = window.attn.decode(['--kind', 'mha', '--heads', '8', "
                                          "Array(1500).fill('w').join(' ')]); window.attn.cancel(); p.then(() => done('resolved'), (e) => done(e.message))")
        check(got == "attn: error: the run was cancelled", "window.attn.cancel() stops a decode: %r" % got)
        test_api(driver, a.attn)
        # 2. the page's own run, decoded when it opened
        want, _ = native(a.attn, page_argv)
        names = [o.text for o in driver.find_elements(By.CSS_SELECTOR, "#decode-head option")]
        check(names == ["head 0 (kv head 0)", "head 1 (kv head 0)", "head 2 (kv head 1)", "head 3 (kv head 1)"],
              "the decode head picker names each head's kv head: %s" % names)
        rows = [s.get_attribute("textContent") for s in driver.find_elements(By.CSS_SELECTOR, "#decode-stair .decode-rows span")]
        check(rows == ["step %d %s" % (t, w) for t, w in enumerate(want["tokens"])], "a staircase row per step: %s" % rows)
        check("attn decode --kind gqa --heads 4 --kv-heads 2 --d-out 8" in driver.find_element(By.ID, "decode-words").text,
              "the section says which decode it ran: %r" % driver.find_element(By.ID, "decode-words").text)
        T = len(want["steps"])
        check_cells(driver, want, (0, 3), ((0, 0), (2, 1), (T - 1, 0), (T - 1, T - 1), (1, 4)), "gqa")
        page.shot(out, "decode-gqa-hover.png")
        check_cache(driver, want, "gqa", 3)
        # 3. the slider moves the chosen row; without a pointer the readout lists the row's weights
        ActionChains(driver, duration=0).move_to_element(driver.find_element(By.ID, "decode-words")).perform()
        set_step(driver, 2)
        r = driver.find_element(By.ID, "decode-readout")
        row = [float(b.text) for b in r.find_elements(By.TAG_NAME, "b")]
        trace_row = want["steps"][2]["heads"][3]["weights"]
        check(len(row) == 3 and all(abs(x - y) <= 5e-5 for x, y in zip(row, trace_row)),
              "step 2's readout lists its 3 cached weights: %s, trace %s" % (row, trace_row))
        check("step 2 (of 0–%d)" % (T - 1) in driver.find_element(By.ID, "decode-step-text").text, "the slider says its step")
        driver.execute_script("document.getElementById('decode').scrollIntoView({block: 'start'})")
        page.shot(out, "decode-gqa.png")
        # a copied link keeps the section: it opens decoded, on the same head and step
        frag = driver.execute_script("return location.hash")
        check("decode=3,2" in frag, "the address keeps the decode head and step: %s" % frag)
        page.load(frag)
        wait_live(driver)
        WebDriverWait(driver, 15).until(lambda x: decode_runs(x) >= 1)
        shown = driver.execute_script("return [document.getElementById('decode-head').value, document.getElementById('decode-step').value]")
        check(shown == ["3", "2"], "the link opens the Decode section on head 3, step 2: %s" % shown)
        row = [float(b.text) for b in driver.find_element(By.ID, "decode-readout").find_elements(By.TAG_NAME, "b")]
        check(len(row) == 3 and all(abs(x - y) <= 5e-5 for x, y in zip(row, trace_row)), "and reads step 2's weights: %s" % row)
        # 4. the panel's decode button: mqa, then local with a window and an option decode does not take
        page.select("live-kind", "mqa", real=True)
        set_field(driver, "live-opt-heads", "4")
        press_decode(driver)
        argv = ["--kind", "mqa", "--heads", "4", "--d-out", "8", "The cat sat on the mat"]
        want, err = native(a.attn, argv)
        names = [o.text for o in driver.find_elements(By.CSS_SELECTOR, "#decode-head option")]
        check(names == ["head %d (kv head 0)" % h for h in range(4)], "mqa: every head reads kv head 0: %s" % names)
        check_cells(driver, want, (1,), ((3, 2), (T - 1, 1)), "mqa")
        check_cache(driver, want, "mqa", 3)
        page.shot(out, "decode-mqa.png")
        page.select("live-kind", "local", real=True)
        set_field(driver, "live-opt-window", "1")
        set_field(driver, "live-opt-causal", "--no-causal")
        set_field(driver, "live-opt-d-out", "")
        set_field(driver, "live-text", "one two three four five")
        press_decode(driver)
        want, err = native(a.attn, ["--kind", "local", "--window", "1", "one two three four five"])
        words = driver.find_element(By.ID, "decode-words").text
        check("left out" in words and "--no-causal" in words, "the options decode does not take are listed: %r" % words)
        check_cells(driver, want, (0,), ((4, 1), (4, 3), (2, 2)), "local")
        r = hover(driver, 4, 1, 5)
        check(float(r.get_attribute("data-weight")) == 0 and "outside the window" in r.text,
              "local --window 1: key 1 at step 4 is outside the window, weight 0: %r" % r.text)
        check(any("outside the window" in e.text for e in driver.find_elements(By.CSS_SELECTOR, ".decode-key .key-item")),
              "the key names the hatched cells")
        check_cache(driver, want, "local", 1)
        check("one cache to draw" in driver.find_element(By.CLASS_NAME, "decode-legend").text, "one head: the chart says why one line")
        page.shot(out, "decode-local.png")
        # a kind that does not decode: decode's own error, the section keeps its trace
        runs = decode_runs(driver)
        page.select("live-kind", "cross", real=True)
        press_decode(driver, error=True)
        _, err = native(a.attn, ["--kind", "cross", "one two three four five"])
        e = driver.find_element(By.ID, "live-error")
        check(e.is_displayed() and e.text == err, "#live-error: %r, native %r" % (e.text, err))
        check(decode_runs(driver) == runs and driver.find_element(By.ID, "decode-map").is_displayed(), "the section keeps its trace")
        page.shot(out, "decode-error.png")
        # 32 tokens through 4 heads: the time the panel reports (printed for the notes, not a pass mark)
        page.select("live-kind", "mha", real=True)
        set_field(driver, "live-opt-heads", "4")
        words = ("the quick brown fox jumps over the lazy dog while students watch every head attend to "
                 "each earlier word in turn and the matrix redraws at once on this very page here")
        set_field(driver, "live-text", words)
        press_decode(driver)
        want, _ = native(a.attn, ["--kind", "mha", "--heads", "4", words])
        labelled = len(driver.find_elements(By.CSS_SELECTOR, "#decode-stair .decode-rows span"))
        check(labelled == 16, "32 steps labelled, every second row: %d" % labelled)
        check_cells(driver, want, (2,), ((31, 0), (31, 31), (20, 7)), "mha 32")
        print("32 tokens, mha, 4 heads: %s" % driver.find_element(By.ID, "live-status").text)
        page.shot(out, "decode-32.png")
        page.quiet("gqa page after decoding")
        screenshots_not_blank(driver, shots)
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    print("%.1f s; screenshots in %s" % (time.time() - start, out))
    if failures:
        sys.exit("%d failure(s)" % len(failures))


if __name__ == "__main__":
    main()
