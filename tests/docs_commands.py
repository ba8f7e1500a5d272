#!/usr/bin/python3
"""Every attn command in README.md and docs/ runs, and every output they show is what attn prints.

Usage: docs_commands.py ATTN SOURCE_DIR [--no-wasm] [--update]

The commands are the lines of the fenced blocks that start with `attn ` (or `$ attn `, or a line ending in
`&& build/attn ...`). In a block with `$ ` lines only those are commands and the lines after each, up to the
next `$ ` or the block's end, are its output: compared line by line (trailing spaces aside; a line `...`
stands for any number of lines) with the standard output, or with standard error when attn fails. A
command without shown output must exit 0.

Model folders the documents name (gpt2, SmolLM2-135M, opus-mt-en-de, t5-small) are small random
checkpoints made here in the Hugging Face layout by the suite's own writers, and a Hugging Face cache holds
HuggingFaceTB/SmolLM2-135M; the network is never used (HF_HUB_OFFLINE=1). The lines of a block that run
one of the suite's checkpoint writers (`/usr/bin/python3 tests/...`) or a tool of docs/tools
(`python3 docs/tools/...`) run too, with this Python. Each document runs in its
own scratch folder, in order, with `docs/` and `tests/` linked in.

--no-wasm: a build without the WebAssembly core, whose `attn page` must say so instead.
The figures in docs/img/ are compared byte for byte with what their commands draw today (IMAGES).

--update: write attn's output into the document where a shown output without `...` differs (and print
the others' actual output, to paste by hand), and the figures that differ."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

if len(sys.argv) < 3:
    sys.exit(__doc__)
ATTN, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
NO_WASM, UPDATE = "--no-wasm" in sys.argv, "--update" in sys.argv
for sub in ("gpt2", "llama", "seq2seq"):
    sys.path.insert(0, os.path.join(SRC, "tests", sub))
import make_checkpoint  # noqa: E402
import make_llama  # noqa: E402
import make_seq2seq  # noqa: E402

HEADS_DOC_WORDS = ("The", "cat", "sat", "on", "the", "mat", "and", "slept", "She", "said", "no", "not", "today")

# Commands not run here, each with the test that runs it instead.
SKIPPED = {
    "pull": "downloads from the hub: tests/hub/hub_check.py runs attn pull against a local fake hub",
}


# The documents' figures: each is what its command writes today (the bytes are the same on every run).
IMAGES = [
    ("docs/img/translation/align-best-head-layer1-head3.png", "marian-align-l1-h3.png",
     ["show", "--model", "docs/models/toy", "the small dog sees the red ball", "--layer", "1", "--head", "3", "--scale", "1"]),
    ("docs/img/translation/align-layer1-mean.png", "marian-align-l1-mean.png",
     ["show", "--model", "docs/models/toy", "the small dog sees the red ball", "--layer", "1", "--scale", "1"]),
    ("docs/img/translation/cross-heads-overview.png", "marian-cross-overview.png",
     ["show", "--model", "docs/models/toy", "the small dog sees the red ball", "--layer", "1", "--head", "3", "--scale", "1"]),
]


class Command:
    def __init__(self, doc, line, text, shown):
        self.doc, self.line, self.text, self.shown = doc, line, text, shown  # shown: list of lines or None


def documents():
    docs = [os.path.join(SRC, "README.md")]
    for folder in ("docs", os.path.join("docs", "tools")):
        path = os.path.join(SRC, folder)
        docs += sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".md"))
    return docs


def attn_part(line):
    """The attn command a line holds, or None: `attn ...`, `$ attn ...`, `... && build/attn ...`."""
    s = line[2:] if line.startswith("$ ") else line
    m = re.search(r"(?:^|&& )(?:build/)?(attn .*)$", s)
    return m.group(1) if m and (s.startswith("attn ") or s.startswith("build/attn ") or "&& build/attn " in s) else None


def commands(doc):
    """The doc's commands in order: Command objects, and ('setup', line, text) for checkpoint writers."""
    out, block, lang, start = [], None, "", 0
    for n, line in enumerate(open(doc, encoding="utf-8").read().split("\n"), 1):
        if line.startswith("```"):
            if block is None:
                block, lang, start = [], line[3:].strip(), n
            else:
                if lang not in ("python", "json", "js", "javascript"):
                    out += block_commands(doc, start, block)
                block = None
            continue
        if block is not None:
            block.append(line)
    return out


def block_commands(doc, start, lines):
    dollar = any(l.startswith("$ ") for l in lines)
    found = []
    for i, line in enumerate(lines):
        n = start + 1 + i
        if line.startswith("/usr/bin/python3 tests/") or line.startswith("python3 docs/tools/"):
            found.append(("setup", n, line))
            continue
        if dollar and not line.startswith("$ "):
            continue
        cmd = attn_part(line)
        if cmd is None:
            continue
        shown = None
        if dollar:
            shown = []
            for follow in lines[i + 1:]:
                if follow.startswith("$ "):
                    break
                shown.append(follow)
            while shown and not shown[-1].strip():
                shown.pop()
        found.append(Command(doc, n, cmd, shown))
    return found


def make_fixtures(root):
    """The model folders and files the documents name, in `root`."""
    words = ("the", "cat", "sat", "on", "mat", "it", "was", "tired", "animal", "street", "when", "and", "to")
    make_checkpoint.make(os.path.join(root, "gpt2"), layers=12, heads=12, embd=24, positions=256, words=words)
    make_llama.make(os.path.join(root, "SmolLM2-135M"), family="llama", layers=4, heads=9, kv_heads=3, hidden=36,
                    positions=256, tied=True)
    # docs/heads.md's model, as tests/docs/heads_doc_check.py builds it
    make_checkpoint.make(os.path.join(root, "tiny-gpt2"), layers=2, heads=2, embd=16, positions=32, seed=3,
                         words=HEADS_DOC_WORDS)
    make_seq2seq.make(os.path.join(root, "opus-mt-en-de"), "marian")
    make_seq2seq.make(os.path.join(root, "t5-small"), "t5")
    # A Hugging Face cache holding the Llama folder as HuggingFaceTB/SmolLM2-135M at main.
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = os.path.join(root, "hub", "models--HuggingFaceTB--SmolLM2-135M")
    os.makedirs(os.path.join(repo, "refs"))
    with open(os.path.join(repo, "refs", "main"), "w") as f:
        f.write(commit)
    shutil.copytree(os.path.join(root, "SmolLM2-135M"), os.path.join(repo, "snapshots", commit))
    with open(os.path.join(root, "sentences.txt"), "w") as f:
        f.write("The cat sat on the mat.\nShe said: no, not today.\nThe animal was tired.\n")
    with open(os.path.join(root, "text.txt"), "w") as f:
        f.write("The cat sat on the mat, and the animal was tired.\n")
    # Attention saved from another model: (L, H, T, T) rows that sum to 1, and its tokens.
    rng = np.random.default_rng(0)
    tokens = ["The", "cat", "sat", "on", "the", "mat"]
    a = rng.random((6, 4, len(tokens), len(tokens))).astype(np.float32)
    np.save(os.path.join(root, "attn.npy"), a / a.sum(axis=-1, keepdims=True))
    with open(os.path.join(root, "tokens.json"), "w") as f:
        json.dump(tokens, f)
    with open(os.path.join(root, "tokens.txt"), "w") as f:
        f.write("\n".join(tokens) + "\n")


def scratch(fixtures, env):
    """A document's own folder: the fixtures and docs/, tests/ linked in, and a model trace.json."""
    d = tempfile.mkdtemp(prefix="doc-", dir=fixtures)
    for name in os.listdir(fixtures):
        if not name.startswith("doc-") and name != "hub":
            os.symlink(os.path.join(fixtures, name), os.path.join(d, name))
    for name in ("docs", "tests"):
        os.symlink(os.path.join(SRC, name), os.path.join(d, name))
    r = subprocess.run([ATTN, "show", "--model", "gpt2", "--keep-layers", "0,5", "--json", "trace.json",
                        "The cat sat on the mat."],
                       cwd=d, env=env, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        sys.exit("docs_commands: could not make trace.json: " + r.stderr)
    return d


def matches(shown, actual):
    """shown's lines equal actual's, a `...` line standing for any number of lines."""
    shown = [l.rstrip() for l in shown]
    actual = [l.rstrip() for l in actual]

    def go(i, j):
        if i == len(shown):
            return j == len(actual)
        if shown[i].strip() == "...":
            return any(go(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and shown[i] == actual[j] and go(i + 1, j + 1)

    return go(0, 0)


SHIFT = {}  # lines a document has grown by through --update so far


def replace_output(c, actual):
    """Writes `actual` in place of c's shown output in its document (the lines after its `$ ` line)."""
    lines = open(c.doc, encoding="utf-8").read().split("\n")
    first = c.line + SHIFT.get(c.doc, 0)  # 0-based index of the line after the command
    lines[first:first + len(c.shown)] = actual
    SHIFT[c.doc] = SHIFT.get(c.doc, 0) + len(actual) - len(c.shown)
    with open(c.doc, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main():
    fixtures = tempfile.mkdtemp(prefix="attn-docs-")
    env = dict(os.environ, NO_COLOR="1", HF_HUB_OFFLINE="1", HF_HUB_CACHE=os.path.join(fixtures, "hub"),
               COLUMNS="110")
    env.pop("HF_TOKEN", None)
    failures, ran, skipped = [], 0, 0
    try:
        make_fixtures(fixtures)
        for doc in documents():
            cmds = commands(doc)
            if not cmds:
                continue
            d = scratch(fixtures, env)
            rel = os.path.relpath(doc, SRC)
            for c in cmds:
                if isinstance(c, tuple):  # a checkpoint writer the document runs first
                    argv = shlex.split(c[2], comments=True)
                    r = subprocess.run([sys.executable] + argv[1:], cwd=d, env=env, capture_output=True, text=True,
                                       timeout=300)
                    if r.returncode != 0:
                        failures.append(f"{rel}:{c[1]}: {c[2]}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
                    continue
                argv = shlex.split(c.text, comments=True)
                where = f"{rel}:{c.line}: {c.text.strip()}"
                if argv[1] in SKIPPED:
                    print(f"skipped {where} ({SKIPPED[argv[1]]})")
                    skipped += 1
                    continue
                began = time.monotonic()
                r = subprocess.run([ATTN] + argv[1:], cwd=d, env=env, capture_output=True, text=True, timeout=300)
                ran += 1
                if time.monotonic() - began > 2:
                    print(f"({time.monotonic() - began:.1f} s) {where}")
                if argv[1] == "page" and NO_WASM:
                    if not (r.returncode in (1, 2) and "emscripten" in r.stderr):
                        failures.append(f"{where}: a build without WebAssembly should say so, got: {r.stderr.strip()}")
                    continue
                if c.shown is None:
                    if r.returncode != 0:
                        failures.append(f"{where}: exit {r.returncode}: {r.stderr.strip()}")
                    continue
                actual = (r.stdout if r.returncode == 0 else r.stderr).rstrip("\n").split("\n")
                if not matches(c.shown, actual):
                    if UPDATE and not any(l.strip() == "..." for l in c.shown):
                        replace_output(c, actual)
                        print(f"updated {where}")
                        continue
                    failures.append(f"{where}: the output shown is not what attn prints (exit {r.returncode})")
                    print(f"--- {where}\n--- attn prints:\n" + "\n".join(actual) + "\n---")
        for image, written, args in IMAGES:
            out = tempfile.mkdtemp(prefix="img-", dir=fixtures)
            r = subprocess.run([ATTN] + args + ["--png", out], cwd=SRC, env=env, capture_output=True, timeout=300)
            made = os.path.join(out, written)
            if r.returncode != 0 or not os.path.exists(made):
                failures.append(f"{image}: attn {' '.join(args)} wrote no {written}")
            elif open(made, "rb").read() != open(os.path.join(SRC, image), "rb").read():
                if UPDATE:
                    shutil.copyfile(made, os.path.join(SRC, image))
                    print(f"updated {image}")
                else:
                    failures.append(f"{image} is not what attn {' '.join(args)} --png draws today")
    finally:
        shutil.rmtree(fixtures, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    if failures:
        print(f"{len(failures)} of {ran} commands failed" + ("" if UPDATE else " (--update prints what to paste)"))
        sys.exit(1)
    print(f"every command in README.md and docs/ runs as documented: {ran} run, {skipped} skipped (run elsewhere)")


main()
