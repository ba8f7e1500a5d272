#!/usr/bin/env python3
"""Model folders in the page, in a real browser (headless Chromium through Selenium, network blocked), against
the native binary.

1. `attn page lab.html` opened offline; a GPT-2 folder picked with the folder picker (#model-folder) and a Llama
   folder with grouped heads picked as loose files (#model-files): #model-status names the family, layers and
   heads, parameters and dtype; window.attn.models() lists both.
2. window.attn.run(["--model", "/models/NAME", TEXT]) (also for Qwen2 with NFC and BERT with WordPiece) equals `attn show --model DIR TEXT --json -` for several
   texts (same keys, ids and strings; numbers within 1e-5, a head's raw scores within 1e-5 of their matrix's
   largest |score|, as tests/wasm/model_check.js compares them); the loose files' folder is "model", so its
   trace's model name is the one difference allowed.
3. The UI: the model's run redraws every view (the heads table with `attn heads`' pattern columns, the matrix
   of layer 0 head 0 over the text's tokens); a typed text reruns, and the matrix's hover shows the native weight.
4. A T5 folder: window.attn.run gives the native JSON; the panel says by name that it does not draw an
   encoder-decoder's three sets and the page stays usable. Hostile folders: a cut model.safetensors and a config.json with n_head 3 over 8 channels give the native
   one-line errors in #model-status and the page stays usable (the GPT-2 model still runs); a
   pytorch_model.bin-only folder is refused by name.
5. `attn page --model DIR lab.html` carries a small folder: the page opens it at start (#model-status, models()),
   runs it on the chapter's sentence, and window.attn.run gives the native JSON; a folder above 64 MiB (a sparse
   model.safetensors), a damaged pytorch_model.bin, and a page path that is the folder's own config.json are
   refused by name before anything is written.
6. No console errors, nothing fetched. Screenshots in --out.

Usage: test_models.py --attn BIN --chromium PATH --chromedriver PATH --out DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))
for sub in ("gpt2", "llama", "seq2seq", "encoder"):
    sys.path.insert(0, os.path.join(HERE, "..", sub))
import headless  # noqa: E402
import make_checkpoint  # noqa: E402
import make_encoder  # noqa: E402
import make_llama  # noqa: E402
import make_seq2seq  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from test_page import Page, check, failures, shots  # noqa: E402

TEXTS = ["the cat sat on the mat", "It was tired, wasn’t it? 123", "Über ﬁ café e\u0301 東京 😀"]


def largest(v):
    return max((largest(x) for x in v), default=0.0) if isinstance(v, list) else abs(v) if isinstance(v, (int, float)) else 0.0


def compare(a, b, at, scale=1.0):
    """The largest difference of two JSON values over their scale (a head's raw scores: their largest |score|)."""
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or a is None:
        if a != b:
            raise ValueError("%s: %r vs %r" % (at, a, b))
        return 0.0
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) / scale
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            raise ValueError("%s: %d vs %d items" % (at, len(a), len(b)))
        return max((compare(x, y, "%s[%d]" % (at, k), scale) for k, (x, y) in enumerate(zip(a, b))), default=0.0)
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            raise ValueError("%s: keys %s vs %s" % (at, list(a), list(b)))
        return max((compare(a[k], b[k], at + "." + k, max(1.0, largest(b[k])) if k == "scores" else scale) for k in a), default=0.0)
    raise ValueError("%s: %r vs %r" % (at, type(a), type(b)))


def native(attn, *args):
    r = subprocess.run([attn, "show", *args, "--json", "-"], capture_output=True, text=True)
    return (json.loads(r.stdout), None) if r.returncode == 0 else (None, r.stderr.strip().splitlines()[-1])


def wait_status(page, before):
    WebDriverWait(page.d, 60).until(lambda d: d.execute_script(
        "const s = document.getElementById('model-status').textContent; return s !== arguments[0] && !s.startsWith('reading')", before))
    return page.d.find_element(By.ID, "model-status").get_attribute("textContent")


def open_files(page, input_id, paths):
    before = page.d.find_element(By.ID, "model-status").get_attribute("textContent")
    page.d.find_element(By.ID, input_id).send_keys("\n".join(paths))
    return wait_status(page, before)


def page_run(page, argv):
    """window.attn.run's Promise, settled: ['J', the trace text] or ['E', the one-line error]."""
    return page.d.execute_script("return window.attn.run(arguments[0]).then((t) => ['J', t], (e) => ['E', e.message]);", argv)


def runs_as_native(page, attn, dir_, name):
    """window.attn.run on /models/NAME equals attn show --model DIR for every text (or gives its error)."""
    for text in TEXTS:
        want, err = native(attn, "--model", dir_, text)
        kind, got = page_run(page, ["--model", "/models/" + name, text])
        if err:
            check(kind == "E" and got == err.replace(dir_, "/models/" + name), "%s %r: the native error %r, page %r" % (name, text, err, got))
            continue
        got = json.loads(got) if kind == "J" else got
        if kind == "J" and name == "model":
            got["model"]["name"] = want["model"]["name"]  # loose files' folder is "model"
        try:
            d = compare(got, want, "$") if kind == "J" else got
        except ValueError as e:
            d = str(e)
        check(isinstance(d, float) and d <= 1e-5, "%s %r: window.attn.run vs attn show --json: %s" % (name, text, d))
        print("%s %r: largest difference %s" % (name, text, d))


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--attn", required=True)
    a.add_argument("--chromium", required=True)
    a.add_argument("--chromedriver", required=True)
    a.add_argument("--out", required=True)
    o = a.parse_args()
    attn = os.path.abspath(o.attn)
    os.makedirs(o.out, exist_ok=True)
    root = tempfile.mkdtemp(prefix="attn-models-page-")
    driver = profile = None
    try:
        gpt2, llama, cut, wrong = (os.path.join(root, n) for n in ("gpt2", "llama", "cut", "wrongconfig"))
        for d in (gpt2, llama, cut, wrong):
            os.makedirs(d)
        make_checkpoint.make(gpt2, layers=2, heads=2, embd=8)
        make_llama.make(llama, family="llama", heads=4, kv_heads=2)
        make_checkpoint.make(cut, layers=1, heads=2, embd=8)
        with open(os.path.join(cut, "model.safetensors"), "r+b") as f:
            f.truncate(os.path.getsize(os.path.join(cut, "model.safetensors")) - 7)
        make_checkpoint.make(wrong, layers=1, heads=2, embd=8)
        cfg = json.load(open(os.path.join(wrong, "config.json")))
        cfg["n_head"] = 3
        json.dump(cfg, open(os.path.join(wrong, "config.json"), "w"))
        lab = os.path.join(root, "lab.html")
        subprocess.run([attn, "page", lab], check=True, capture_output=True)
        driver, profile = headless.start(o.chromium, o.chromedriver, "1366,900")
        page = Page(driver, lab)
        page.load()
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.documentElement.dataset.liveReady"))

        # 1. a folder through the picker, loose files through #model-files
        status = open_files(page, "model-folder", [gpt2])
        check(status.startswith("gpt2: GPT-2 (decoder), 2 layers × 2 heads, ") and " parameters, F32" in status,
              "#model-status after the GPT-2 folder: %r" % status)
        driver.execute_script("document.getElementById('live').scrollIntoView()")
        page.shot(o.out, "model-gpt2-loaded.png")
        status = open_files(page, "model-files", [os.path.join(llama, f) for f in sorted(os.listdir(llama))])
        check(status.startswith("model: Llama (decoder), 2 layers × 4 query heads over 2 key/value heads, "),
              "#model-status after the Llama files: %r" % status)
        models = driver.execute_script("return window.attn.models()")
        check(models == ["/models/gpt2", "/models/model"], "window.attn.models(): %s" % models)

        # 2. window.attn.run against the native JSON; Qwen2 (its NFC normaliser) and BERT (WordPiece and its
        # normaliser) through the folder picker too
        for dir_, name in ((gpt2, "gpt2"), (llama, "model")):
            runs_as_native(page, attn, dir_, name)
        for name, make in (("qwen2", lambda d: make_llama.make(d, family="qwen2")), ("bert", lambda d: make_encoder.make(d, family="bert"))):
            dir_ = os.path.join(root, name)
            os.makedirs(dir_)
            make(dir_)
            status = open_files(page, "model-folder", [dir_])
            check(status.startswith(name + ": "), "#model-status after the %s folder: %r" % (name, status))
            runs_as_native(page, attn, dir_, name)

        # 3. the views: the model chosen, its run drawn; a typed text reruns and the hover shows the native weight
        page.select("live-model", "/models/gpt2")
        text = "the mat sat on the cat"
        box = driver.find_element(By.ID, "live-text")
        box.clear()
        box.send_keys(text, Keys.ENTER)
        want, _ = native(attn, "--model", gpt2, text)
        tokens = want["tokens"]
        WebDriverWait(driver, 30).until(lambda d: "computed in" in d.find_element(By.ID, "live-status").get_attribute("textContent"))
        headers = [t.get_attribute("textContent") for t in driver.find_elements(By.CSS_SELECTOR, "#heads-table th")]
        check(headers[:2] == ["layer", "head"] and len(headers) > 4, "the heads table is drawn: %s" % headers)
        page.select("layer", "1")
        page.select("head", "1")
        T = len(tokens)
        w = want["attention"][0]["layers"][1]["heads"][1]["weights"]
        for i, j in ((T - 1, 0), (T - 1, T - 1), (2, 1)):
            value, readout = page.hover(i, j, T, T)
            check(abs(float(value) - w[i][j]) <= 1e-4, "hover (%d, %d) of layer 1 head 1: %s, native %s" % (i, j, value, w[i][j]))
            check(tokens[i].strip() in readout, "the readout names the query %r: %r" % (tokens[i], readout))
        body = driver.find_element(By.TAG_NAME, "body").text
        check("undefined" not in body and "NaN" not in body, "no 'undefined' or 'NaN' on the model's page")
        check("run=" not in driver.current_url, "a model's run stays out of the address (its folder is in this tab only): %s" % driver.current_url)
        page.shot(o.out, "model-gpt2-run.png")

        # 4. hostile folders: the native errors, the page usable
        for dir_ in (cut, wrong):
            _, err = native(attn, "--model", dir_, "the cat")
            status = open_files(page, "model-folder", [dir_])
            name = os.path.basename(dir_)
            check(status == err.replace(dir_, "/models/" + name), "%s: #model-status %r, native %r" % (name, status, err))
        check(sorted(driver.execute_script("return window.attn.models()")) == ["/models/bert", "/models/gpt2", "/models/model", "/models/qwen2"],
              "the refused folders are not listed: %s" % driver.execute_script("return window.attn.models()"))
        page.select("live-model", "/models/gpt2")
        kind, got = page_run(page, ["--model", "/models/gpt2", "the cat"])
        check(kind == "J", "after the refusals the GPT-2 model still runs: %s" % got[:80])
        # a cancel stops the worker; the new one reads the opened folders again, so they run as before
        got = driver.execute_script("const p = window.attn.run(arguments[0]).then(() => 'ran', (e) => e.message);"
                                    "window.attn.cancel(); return p;", ["--model", "/models/gpt2", TEXTS[0]])
        check(got == "attn: error: the run was cancelled", "window.attn.cancel() during a model run: %r" % got)
        runs_as_native(page, attn, gpt2, "gpt2")
        driver.execute_script("document.getElementById('live').scrollIntoView()")
        page.shot(o.out, "model-refused.png")
        page.quiet("model folders in the page")

        # an encoder-decoder runs (window.attn.run) but the panel says it does not draw it, and stays usable
        t5 = os.path.join(root, "t5")
        os.makedirs(t5)
        make_seq2seq.make(t5, variant="t5")
        status = open_files(page, "model-folder", [t5])
        check(status.startswith("t5: T5 (encoder-decoder), 2 encoder + 2 decoder layers × 4 heads, "), "the T5 folder's status: %r" % status)
        err = driver.find_element(By.ID, "live-error").get_attribute("textContent")
        check(err.startswith("attn: error: T5 is an encoder-decoder, whose three sets this page does not draw"), "the panel on T5: %r" % err)
        want, _ = native(attn, "--model", t5, TEXTS[0])
        kind, got = page_run(page, ["--model", "/models/t5", TEXTS[0]])
        d = compare(json.loads(got), want, "$") if kind == "J" else got
        check(isinstance(d, float) and d <= 1e-5, "T5 through window.attn.run vs attn show --json: %s" % d)

        # 5. a folder carried in the page
        carried = os.path.join(root, "carried.html")
        r = subprocess.run([attn, "page", "--model", gpt2, carried], capture_output=True, text=True)
        check(r.returncode == 0 and r.stdout == "wrote %s\n" % carried, "attn page --model: %r %r" % (r.stdout, r.stderr))
        cpage = Page(driver, carried)
        cpage.load()
        WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.documentElement.dataset.liveRuns"))
        status = driver.find_element(By.ID, "model-status").get_attribute("textContent")
        check(status.startswith("gpt2: GPT-2 (decoder), 2 layers × 2 heads, "), "the carried folder's status: %r" % status)
        check(driver.execute_script("return window.attn.models()") == ["/models/gpt2"], "the carried folder is listed")
        check(cpage.selected("live-model") == "/models/gpt2", "the carried model is chosen")
        want, _ = native(attn, "--model", gpt2, TEXTS[0])
        kind, got = page_run(cpage, ["--model", "/models/gpt2", TEXTS[0]])
        d = compare(json.loads(got), want, "$") if kind == "J" else got
        check(isinstance(d, float) and d <= 1e-5, "the carried folder's run vs attn show --json: %s" % d)
        driver.execute_script("document.getElementById('live').scrollIntoView()")
        cpage.shot(o.out, "model-carried.png")
        cpage.quiet("a page carrying a model folder")
        big = os.path.join(root, "big")
        shutil.copytree(gpt2, big)
        with open(os.path.join(big, "model.safetensors"), "r+b") as f:
            f.truncate(65 << 20)  # sparse: refused by its size before it is read
        binonly = os.path.join(root, "binonly")
        os.makedirs(binonly)
        for f in ("config.json", "vocab.json", "merges.txt"):
            shutil.copy(os.path.join(gpt2, f), binonly)
        open(os.path.join(binonly, "pytorch_model.bin"), "wb").write(b"PK")
        for args, want_err in (([big], "attn: error: --model: the folder's files take 65.0 MiB, more than the 64.0 MiB a page carries "
                                       "(hint: hand the folder out beside the page: students open it in the page's model panel)"),
                               ([binonly], "attn: error: %s/pytorch_model.bin: not a PyTorch checkpoint (neither a zip nor a pickle)" % binonly),
                               ([gpt2], "attn: error: '%s' is the model's own config.json; attn page would overwrite it" % os.path.join(gpt2, "config.json"))):
            out = os.path.join(root, "refused.html") if args[0] != gpt2 else os.path.join(gpt2, "config.json")
            r = subprocess.run([attn, "page", "--model", args[0], out], capture_output=True, text=True)
            last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
            check(r.returncode != 0 and last.startswith(want_err), "attn page --model %s: %r" % (os.path.basename(args[0]), last))
            check(not os.path.exists(os.path.join(root, "refused.html")), "nothing written for %s" % os.path.basename(args[0]))
    finally:
        if driver:
            driver.quit()
        if profile:
            shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)
    if failures:
        print("%d failed" % len(failures))
        sys.exit(1)
    print("all passed")


if __name__ == "__main__":
    main()
