#!/usr/bin/env python3
"""attn's SVG figures, checked as any XML reader sees them (python3's xml.etree, no attn code).

Usage: svg_check.py ATTN_BINARY
Runs attn show with labels in several scripts and XML's special characters, then checks every SVG:
well-formed XML, SVG 1.1 root; one text element per query and key label holding the token itself;
one rectangle per visible cell (the mask from the JSON trace) with a <title> naming its query token,
key token and value; cell colours monotone in the value (the weights' viridis grows lighter with the
value); the same bytes on a second run.
"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
TOKENS = ["<b>", "a&b\"'", "\u732b", "\u0633\u0644\u0627\u0645", "\u05e9\u05dc\u05d5\u05dd", "step"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def luminance(hex_colour):
    r, g, b = (int(hex_colour[i:i + 2], 16) / 255.0 for i in (1, 3, 5))
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def run(attn, folder, extra):
    emb = os.path.join(folder, "emb.json")
    x = [[1, 0, 0.5], [0, 1, 0.2], [0.3, 0.3, 0.3], [1, 1, 0], [0.2, 0.1, 0.9], [0.5, -0.4, 0.1]]
    with open(emb, "w", encoding="utf-8") as f:
        json.dump({"tokens": TOKENS, "x": x}, f, ensure_ascii=False)
    out = os.path.join(folder, "out")
    cmd = [attn, "show", "--embeddings", emb, "--svg", out, "--json", os.path.join(out, "t.json")] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    check(r.returncode == 0, f"{' '.join(cmd)} exited {r.returncode}: {r.stderr}")
    return out


def check_figure(path, trace, matrix):
    root = ET.parse(path).getroot()
    name = os.path.basename(path)
    check(root.tag == NS + "svg" and root.get("version") == "1.1", f"{name}: root is not <svg version=1.1>")
    texts = {}
    for t in root.iter(NS + "text"):
        texts.setdefault(t.get("class"), []).append(t.text)
    check(texts.get("query-label") == TOKENS, f"{name}: query labels {texts.get('query-label')}")
    check(texts.get("key-label") == TOKENS, f"{name}: key labels {texts.get('key-label')}")
    check(len(texts.get("title", [])) == 1, f"{name}: one title")
    head = trace["attention"][0]["layers"][0]["heads"][0]
    mask = head["mask"]
    # raw scores are drawn in every cell, future ones too (the mask applies after the scaling)
    visible = len(mask) * len(mask[0]) if matrix == "scores" else sum(1 for row in mask for v in row if v)
    cells = [r for r in root.iter(NS + "rect") if r.get("class") == "cell"]
    hidden = [r for r in root.iter(NS + "rect") if r.get("class") == "hidden"]
    check(len(cells) == visible, f"{name}: {len(cells)} cell rectangles for {visible} visible cells")
    check(len(hidden) == len(mask) * len(mask[0]) - visible, f"{name}: {len(hidden)} hidden rectangles")
    values = []
    for r in cells:
        title = r.find(NS + "title")
        check(title is not None, f"{name}: a cell without <title>")
        if title is None:
            continue
        # "query 2 “猫” · key 0 “<b>” · weight 0.3512"
        q = int(title.text.split("query ")[1].split(" ")[0])
        k = int(title.text.split("key ")[1].split(" ")[0])
        check(f"\u201c{TOKENS[q]}\u201d" in title.text.split("key ")[0], f"{name}: title {title.text!r} lacks its query token")
        check(f"\u201c{TOKENS[k]}\u201d" in title.text.split("key ")[1], f"{name}: title {title.text!r} lacks its key token")
        if matrix == "mask":
            continue
        v = float(title.text.rsplit(" ", 1)[1].replace("\u2212", "-"))
        check(abs(v - head[matrix][q][k]) < 6e-5, f"{name}: title value {v} but the trace holds {head[matrix][q][k]}")
        values.append((v, luminance(r.get("fill"))))
    if matrix == "weights":
        values.sort()
        check(all(a[1] <= b[1] + 1e-9 for a, b in zip(values, values[1:])), f"{name}: colours not monotone in the value")
        check(values[0][1] < values[-1][1], f"{name}: every cell the same colour")


def main():
    attn = sys.argv[1]
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        out = run(attn, a, [])
        trace = json.load(open(os.path.join(out, "t.json"), encoding="utf-8"))
        names = sorted(f for f in os.listdir(out) if f.endswith(".svg"))
        check(names == ["causal-mask.svg", "causal-scores.svg", "causal-weights.svg"], f"files {names}")
        for n in names:
            check_figure(os.path.join(out, n), trace, n[len("causal-"):-len(".svg")])
        again = run(attn, b, [])
        for n in names:
            check(open(os.path.join(out, n), "rb").read() == open(os.path.join(again, n), "rb").read(),
                  f"{n}: different bytes on a second run")
    for f in failures:
        print("FAIL:", f)
    print(f"svg_check: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
