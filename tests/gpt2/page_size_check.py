#!/usr/bin/python3
"""A model page of the GPT-2-small shape stays within 8 MiB, carries no WebAssembly core, and holds the trace.

A random checkpoint of GPT-2 small's shape (12 layers, 12 heads, width 768, weights drawn with GPT-2's
initializer range 0.02 and stored as F16 to keep the folder at 170 MB; make_checkpoint.py, a small vocabulary) and a text of 128 tokens: `attn show --model
--html` must write a page of at most 8 MiB (8,388,608 bytes) with no live panel and no core (the panel only
reruns seeded kinds: render/page/html.h's page_runs_live), and its cells, read back here from the page's
base-128 text and inflated with Python's zlib, must be the weights, raw scores and mask of `attn show
--model --json` for the same run at 4 decimals (checked on three heads and their layers' means).

Usage: page_size_check.py ATTN"""
import json
import os
import re
import subprocess
import sys
import tempfile
import zlib

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_checkpoint import make  # noqa: E402

ATTN = os.path.abspath(sys.argv[1])
MAX_BYTES = 8 * 1024 * 1024
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def text7_bytes(text, n):
    """render/page/page_buffer.h's base-128 text back to n bytes: 7 bits a character below 128, and
    U+0080 + 128k + g for the k-th escaped group (0, 13, 60) followed by g."""
    escaped = [0, 13, 60]
    groups = []
    for ch in text:
        c = ord(ch)
        if c < 128:
            groups.append(c)
        else:
            assert 0x80 <= c <= 0x1FF, "a character outside the base-128 text's alphabet: U+%04X" % c
            groups += [escaped[(c - 128) >> 7], (c - 128) & 127]
    bits = "".join(format(g, "07b") for g in groups)
    assert len(bits) >= 8 * n, "the text holds %d bits, the page says %d bytes" % (len(bits), n)
    return bytes(int(bits[8 * i:8 * i + 8], 2) for i in range(n))


def ten_thousandths(v):
    """render/page/html.h's rounding: the float32 times 10^4 in double, to the nearest integer, ties to even."""
    return round(float(np.float32(v)) * 10000.0)


def cell(blob, desc, idx, n, scores=None, scale=None):
    """A stage's cell in ten-thousandths (render/page/page_buffer.cpp's encode_stage)."""
    off, w, base = desc[0], desc[1], desc[2]
    assert w > 0, "a stage stored as float32"
    u = sum(blob[off + b * n + idx] << (8 * b) for b in range(w))
    k = base + u
    if len(desc) > 6 and desc[5] == "heads":  # the residual from round-half-up(the heads' mean)
        x = sum(cell(blob, h, idx, n) for h in desc[6]) / len(desc[6])
        return k + int(x // 1) + (1 if x - x // 1 >= 0.5 else 0)
    if len(desc) > 5:  # the residual from round-half-up(scale * raw score)
        x = scale * cell(blob, scores, idx, n)
        k += int(x // 1) + (1 if x - x // 1 >= 0.5 else 0)
    return k


with tempfile.TemporaryDirectory() as d:
    make(os.path.join(d, "gpt2"), layers=12, heads=12, embd=768, positions=256, scale=0.02, seed=0, dtype="F16")  # 170 MB on disk
    # 128 tokens of the small vocabulary (letters that its merges do not join)
    with open(os.path.join(d, "text.txt"), "w") as f:
        f.write("cjbebhhhgdbhaggjahedjbfaaaiagdgaidhhidfddheagibcebfigideejhigjahdggcfifbhibcigfhahaejjjgccidadiidgifjfheijagiciidgahfjidighfgfai")
    for args in (["--html", "page.html"], ["--json", "trace.json"]):
        r = subprocess.run([ATTN, "show", "--model", "gpt2", "--file", "text.txt"] + args, cwd=d, capture_output=True, text=True)
        check(r.returncode == 0, "attn show --model %s ran: %s" % (" ".join(args), r.stderr.strip()))
    trace = json.load(open(os.path.join(d, "trace.json")))
    T = len(trace["tokens"])
    check(T == 128, "the text is 128 tokens (%d)" % T)
    size = os.path.getsize(os.path.join(d, "page.html"))
    print("page: %d bytes (%.2f MiB)" % (size, size / 2**20))
    check(size <= MAX_BYTES, "the 12 x 12-head page at 128 tokens is at most 8 MiB: %d bytes" % size)
    page = open(os.path.join(d, "page.html"), encoding="utf-8").read()
    check("var AttnCore" not in page and "wasm-unsafe-eval" not in page, "the model page carries no WebAssembly core")
    data = json.loads(re.search(r'<script type="application/json" id="attn-data">(.*?)</script>', page, re.S).group(1))
    check("live" not in data, "the model page's data asks for no live panel")
    text = re.search(r'<script type="application/octet-stream" id="attn-blob">(.*?)</script>', page, re.S).group(1)
    blob = zlib.decompress(text7_bytes(text, data["blob_bytes"]))
    check(len(blob) == data["raw_bytes"], "the cells inflate to raw_bytes (%d)" % len(blob))
    n = T * T
    for l, h in ((0, 0), (5, 7), (11, 11)):
        page_head = data["layers"][l]["heads"][h]
        json_head = trace["attention"][0]["layers"][l]["heads"][h]
        st = page_head["stages"]
        bad = 0
        for i in range(T):
            for j in range(T):
                idx = i * T + j
                if json_head["mask"][i][j]:  # a hidden cell's weight is not stored (the page shows it hidden)
                    bad += cell(blob, st["weights"], idx, n) != ten_thousandths(json_head["weights"][i][j])
                bad += cell(blob, st["scores"], idx, n) != ten_thousandths(json_head["scores"][i][j])
                bad += cell(blob, st["mask"], idx, n) != (10000 if json_head["mask"][i][j] else 0)
        check(bad == 0, "layer %d head %d: the page's weights, raw scores and mask are the JSON trace's at 4 decimals (%d cells differ)" % (l, h, bad))
        mean, want = data["layers"][l]["aggregates"]["layer_mean"], trace["aggregates"]["layer_mean"][l]
        bad = sum(cell(blob, mean, i * T + j, n) != ten_thousandths(want[i][j]) for i in range(T) for j in range(i + 1))
        check(mean[5] == "heads" and bad == 0, "layer %d: the layer mean, stored beside its heads' mean, is the JSON trace's (%d cells differ)" % (l, bad))

if failures:
    sys.exit("%d failure(s)" % len(failures))
print("page size check: all passed")
