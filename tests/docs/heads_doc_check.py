#!/usr/bin/python3
"""docs/heads.md shows real runs: each block between <!-- run: NAME --> and <!-- end --> must be exactly
what its command prints today, on the tiny random GPT-2 built here (tests/gpt2/make_checkpoint.py,
2 layers, 2 heads, width 16, seed 3, its vocabulary the texts' words) in a folder named tiny-gpt2. With ATTN_WRITE_DOCS=1 the blocks are
rewritten instead (then review the diff). Usage: heads_doc_check.py ATTN SOURCE_ROOT"""
import atexit
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
ATTN, ROOT = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(ROOT, "tests", "gpt2"))
from make_checkpoint import make  # noqa: E402

TEXTS = ["The cat sat on the mat and the cat slept.", "She said: no, not today."]
WORDS = ("The", "cat", "sat", "on", "the", "mat", "and", "slept", "She", "said", "no", "not", "today")
RUNS = {
    "effect": ["heads", "--model", "tiny-gpt2/", "--effect", "--top", "3", *TEXTS],
    "ablate": ["show", "--model", "tiny-gpt2/", "--ablate", "1.0,1.1", "--precision", "2", TEXTS[0]],
    "lens": ["show", "--model", "tiny-gpt2/", "--lens", "--precision", "2", TEXTS[0]],
}

work = tempfile.mkdtemp(prefix="attn-heads-doc-")
atexit.register(shutil.rmtree, work, ignore_errors=True)
make(os.path.join(work, "tiny-gpt2"), layers=2, heads=2, embd=16, positions=32, seed=3, words=WORDS)
env = dict(os.environ, NO_COLOR="1", COLUMNS="100")
blocks = {}
for name, args in RUNS.items():
    r = subprocess.run([ATTN] + args, capture_output=True, text=True, cwd=work, env=env, timeout=300)
    if r.returncode != 0:
        print(f"FAIL: attn {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
        sys.exit(1)
    shown = "attn " + " ".join(shlex.quote(a) for a in args)
    blocks[name] = "```\n$ " + shown + "\n" + r.stdout.rstrip("\n") + "\n```\n"

path = os.path.join(ROOT, "docs", "heads.md")
doc = open(path, encoding="utf-8").read()
pattern = re.compile(r"(<!-- run: (\w+) -->\n)(.*?)(<!-- end -->)", re.S)
found = {m.group(2) for m in pattern.finditer(doc)}
failures = [f"docs/heads.md has no block for run '{n}'" for n in RUNS if n not in found]
if os.environ.get("ATTN_WRITE_DOCS") == "1":
    doc = pattern.sub(lambda m: m.group(1) + blocks.get(m.group(2), m.group(3)) + m.group(4), doc)
    open(path, "w", encoding="utf-8").write(doc)
    print("docs/heads.md rewritten")
else:
    for m in pattern.finditer(doc):
        if m.group(2) in blocks and m.group(3) != blocks[m.group(2)]:
            failures.append(f"docs/heads.md block '{m.group(2)}' differs from what attn prints now:\n{blocks[m.group(2)]}")
for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print(f"docs/heads.md: {len(RUNS)} blocks equal what their commands print")
