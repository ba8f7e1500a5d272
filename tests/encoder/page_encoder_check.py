#!/usr/bin/python3
"""An encoder's sentence pair and masked-LM predictions in attn's figures and page, end to end.

1. A tiny random BERT (make_encoder.py, byte-level BPE files): `attn show --pair` writes SVGs whose weights
   figure, overview, layer mean and rollout each carry the segments' legend (tokens of A | tokens of B,
   counted here from show's JSON) and say "encoder (bidirectional)".
2. The page: the masked-LM head's top 5 at a position are written into show's JSON trace (the format of
   docs/trace-format.md) and `attn render --html` makes the page; headless Chromium's DOM (--dump-dom)
   must show "<token> at <position>: paris 41.2%, ..." with the numbers formatted here, the segments'
   token strip and the matrix's segment legend. A GPT-2's page has none of them."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "gpt2"))
from make_encoder import make  # noqa: E402
from make_checkpoint import make as make_gpt2  # noqa: E402

ATTN, CHROMIUM = sys.argv[1], sys.argv[2]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args):
    return subprocess.run([ATTN] + args, capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"))


def dom(tmp, page):
    profile = tempfile.mkdtemp(dir=tmp)
    r = subprocess.run([CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                        "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + profile, "--virtual-time-budget=5000",
                        "--dump-dom", "file://" + page], capture_output=True, text=True, timeout=120)
    return r.stdout


def element_text(html, ident):
    m = re.search(r'<p[^>]*id="' + re.escape(ident) + r'"[^>]*>(.*?)</p>', html, re.S)
    return re.sub(r"<[^>]+>", "", m.group(1)).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">") if m else None


with tempfile.TemporaryDirectory() as tmp:
    d = os.path.join(tmp, "bert")
    make(d, "bert")
    out = os.path.join(tmp, "out")
    r = run(["show", "--model", d, "the cat sat on the [MASK]", "--pair", "on the mat", "--svg", out, "--json", os.path.join(tmp, "t.json"),
             "--show", "weights,mean,rollout", "--html", os.path.join(tmp, "show.html")])
    check(r.returncode == 0, f"show --pair: exit {r.returncode}: {r.stderr.strip()}")
    trace = json.load(open(os.path.join(tmp, "t.json")))
    seg = trace["model"]["segments"] if "segments" in trace.get("model", {}) else trace["segments"]
    T, b = len(seg), seg.index(1)
    legend = f"segments A | B: tokens 0\u2013{b - 1} | {b}\u2013{T - 1}"
    svgs = sorted(os.listdir(out))
    for name in svgs:
        text = open(os.path.join(out, name), encoding="utf-8").read()
        check(legend in text, f"{name}: holds '{legend}'")
        check("encoder (bidirectional)" in text, f"{name}: says encoder (bidirectional)")
    check(any("overview" in n for n in svgs) and any("mean" in n for n in svgs) and any("rollout" in n for n in svgs),
          f"overview, mean and rollout written: {svgs}")

    # the page show wrote holds the masked-LM head's real top 5 at the [MASK] ([CLS] the cat sat on the [MASK]: position 6)
    real = trace["mask_predictions"]
    check(len(real) == 1 and real[0]["position"] == 6, f"one mask prediction at 6: {real}")
    if real:
        html = dom(tmp, os.path.join(tmp, "show.html"))
        want = "[MASK] at 6: " + ", ".join(f"{p['token']} {100 * p['p']:.1f}%" for p in real[0]["top"])
        check(element_text(html, "mask-6") == want, f"show's page: mask line {element_text(html, 'mask-6')!r}, want {want!r}")

    # the masked-LM head's top 5 at position 2, written into the trace as attn writes it
    where = trace["model"] if "mask_predictions" in trace.get("model", {}) else trace
    top = [("paris", 0.41234), ("lyon", 0.2), ("the", 0.1), ("cat", 0.05), ("mat", 0.0049)]
    where["mask_predictions"] = [{"position": 2, "top": [{"id": 7 + k, "token": t, "p": p} for k, (t, p) in enumerate(top)]}]
    with open(os.path.join(tmp, "m.json"), "w") as f:
        json.dump(trace, f)
    page = os.path.join(tmp, "p.html")
    r = run(["render", os.path.join(tmp, "m.json"), "--html", page])
    check(r.returncode == 0, f"render --html: exit {r.returncode}: {r.stderr.strip()}")
    html = dom(tmp, page)
    want = trace["tokens"][2] + " at 2: " + ", ".join(f"{t} {100 * p:.1f}%" for t, p in top)
    check(element_text(html, "mask-2") == want, f"mask line {element_text(html, 'mask-2')!r}, want {want!r}")
    strip = element_text(html, "segments")
    check(strip is not None and strip.startswith("segments A | B: ") and strip.count(" | ") == 2, f"token strip {strip!r}")
    check(element_text(html, "segment-legend") == legend + " (the white line between them)",
          f"matrix legend {element_text(html, 'segment-legend')!r}")
    check(element_text(html, "encoder") is not None, "the header says encoder (bidirectional)")
    print(f"page: {want}")

    g = os.path.join(tmp, "gpt2")
    make_gpt2(g, layers=1, heads=2, embd=8, positions=16, seed=1)
    gpage = os.path.join(tmp, "g.html")
    r = run(["show", "--model", g, "a b c", "--html", gpage])
    check(r.returncode == 0, f"gpt2 show --html: exit {r.returncode}")
    ghtml = dom(tmp, gpage)
    check('id="predictions"' in ghtml, "the GPT-2 page is built (its next-token line)")
    check('id="encoder"' not in ghtml and 'id="mask-' not in ghtml and 'id="segments"' not in ghtml, "a GPT-2 page has no encoder lines")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("ok")
