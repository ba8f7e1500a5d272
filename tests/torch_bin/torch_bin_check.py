#!/usr/bin/python3
"""attn's PyTorch checkpoint reader against torch.load. Usage: torch_bin_check.py TORCH_READ
(tests/tools/torch_read.cpp). Writes checkpoints with make_checkpoints.py into a temporary folder, then:
every tensor attn reads from a good file has torch.load's name (in the state dict's order), dtype, shape
and contiguous bytes, bit for bit; every bad file is refused with exit 1 and its expected one-line error,
and the os.system payload never ran."""
import json
import os
import subprocess
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_checkpoints import make  # noqa: E402

DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64", torch.int64: "I64",
          torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8", torch.bool: "BOOL"}


def raw(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes().hex()


def main():
    tool = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as out:
        good, bad = make(out)
        tensors = 0
        for name in good:
            path = os.path.join(out, "good", name)
            r = subprocess.run([tool, path], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"{name}: exit {r.returncode}: {r.stderr.strip()}")
                continue
            got = json.loads(r.stdout)
            want = torch.load(path)
            if [t["name"] for t in got] != list(want.keys()):
                failures.append(f"{name}: names {[t['name'] for t in got][:5]}... differ from torch.load's")
                continue
            for t in got:
                w = want[t["name"]]
                if t["dtype"] != DTYPES[w.dtype] or t["shape"] != list(w.shape) or t["hex"] != raw(w):
                    failures.append(f"{name}: tensor {t['name']} differs ({t['dtype']} {t['shape']} vs {w.dtype} {list(w.shape)})")
                tensors += 1
        print(f"{len(good)} good files, {tensors} tensors equal torch.load's bit for bit")
        for name, expected in bad.items():
            r = subprocess.run([tool, os.path.join(out, "bad", name)], capture_output=True, text=True)
            line = r.stderr.strip()
            if r.returncode != 1 or expected not in line or "\n" in line or not line.startswith("attn: error: "):
                failures.append(f"{name}: exit {r.returncode}, stderr {line!r}; expected {expected!r}")
        print(f"{len(bad)} bad files refused by name")
        if os.path.exists(os.path.join(out, "PWNED")):
            failures.append("the os.system payload ran")
    for f in failures:
        print("FAIL", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
