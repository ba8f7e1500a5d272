#!/usr/bin/python3
"""--max-memory on long model runs: the estimate attn refuses by bounds the peak it reaches.

On generated checkpoints small enough to run in seconds (2 layers; 4 heads and 1 head, where the (T, T)
matrices outside the heads weigh most; GPT-2-, Llama- and BERT-shaped) at 1,500 to 2,000 words, for the
terminal alone and every output (--json --force, --npy, --png, --svg, --html, --keep-layers, --show
mean,rollout): the estimate is read from the refusal at --max-memory 1 ("this run would need about X of
memory"), the run is admitted at --max-memory just above it (1.02 times), and its peak resident set (from
/usr/bin/time) must be at most 1.1 times that limit; and the estimate at most 1.3 times the peak
(wider than that and honest runs are refused). Before layer_view copied the chosen heads once, the
1-head Llama run at 3,000 tokens peaked at 1.47 times its estimate.

Not run under AddressSanitizer (its shadow memory and quarantine change every peak)."""
import os
import re
import subprocess
import sys
import shutil
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
for sub in ("", "gpt2", "llama", "encoder"):
    sys.path.insert(0, os.path.join(HERE, sub))
from attn_run import Checks  # noqa: E402
from make_checkpoint import make as make_gpt2  # noqa: E402
from make_llama import make as make_llama  # noqa: E402
from make_encoder import make as make_encoder  # noqa: E402

ATTN = sys.argv[1]
TIME = "/usr/bin/time"  # GNU time (Debian's `time` package)
MiB = float(1 << 20)
UNITS = {"B": 1.0, "KiB": 1024.0, "MiB": MiB, "GiB": MiB * 1024}
WORDS = ("the", "cat", "sat", "on", "mat", "it", "was", "tired")  # in every generated vocabulary


def run(args, cwd):
    """(exit code, attn's peak resident set in bytes, stderr). Measured by /usr/bin/time, whose own small
    process forks attn: a child forked from this Python process would start its peak at Python's resident
    set (ru_maxrss survives exec), which here is about 300 MiB after the checkpoints are generated."""
    err_path, rss_path = os.path.join(cwd, "stderr"), os.path.join(cwd, "rss")
    with open(err_path, "w") as err:
        code = subprocess.run([TIME, "-q", "-f", "%M", "-o", rss_path, ATTN] + args, stdout=subprocess.DEVNULL,
                              stderr=err, cwd=cwd, env=dict(os.environ, NO_COLOR="1")).returncode
    with open(err_path) as f, open(rss_path) as r:
        return code, float(r.read().split()[-1]) * 1024.0, f.read()


def estimate(args, cwd):
    """The estimate attn gives when it refuses the run at --max-memory 1 (one byte)."""
    code, _, err = run(args + ["--max-memory", "1"], cwd)
    m = re.search(r"this run would need about ([0-9.]+) (B|KiB|MiB|GiB) of memory", err)
    if code != 2 or not m:
        return None, err
    # format_bytes prints one decimal: the estimate is at most 0.05 of the unit above the figure
    return float(m.group(1)) * UNITS[m.group(2)], err


def main():
    c = Checks(ATTN)
    root = tempfile.mkdtemp(prefix="attn-peaks-")
    try:
        measure(c, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)  # about 1.7 GB of traces, pages and figures


def measure(c, root):
    make_gpt2(os.path.join(root, "gpt2"), layers=2, heads=4, embd=32, positions=4096)
    make_gpt2(os.path.join(root, "gpt2-1h"), layers=2, heads=1, embd=16, positions=4096)
    make_llama(os.path.join(root, "llama-1h"), layers=2, heads=1, kv_heads=1, hidden=16, positions=4096)
    make_llama(os.path.join(root, "llama"), layers=2, heads=4, kv_heads=2, hidden=32, positions=4096)
    make_encoder(os.path.join(root, "bert"), layers=2, heads=4, embd=32, positions=4096)
    for n in (1500, 2000):
        with open(os.path.join(root, f"w{n}.txt"), "w") as f:
            f.write(" ".join(WORDS[(i * 7 + i // 3) % len(WORDS)] for i in range(n)))
    cases = [
        ("gpt2", 1500, []),
        ("gpt2-1h", 2000, []),
        ("gpt2-1h", 1500, ["--json", "t.json", "--force"]),
        ("gpt2-1h", 1500, ["--npy", "npy"]),
        ("gpt2-1h", 1500, ["--png", "png"]),
        ("llama-1h", 2000, []),
        ("llama-1h", 1500, ["--svg", "svg"]),
        ("llama-1h", 1500, ["--html", "p.html"]),
        ("llama-1h", 2000, ["--keep-layers", "1"]),
        ("llama-1h", 2000, ["--show", "mean,rollout"]),
        ("llama", 1500, ["--json", "t.json", "--force", "--npy", "npy"]),
        ("bert", 1500, []),
        ("bert", 1500, ["--json", "t.json", "--force"]),
    ]
    for folder, n, outputs in cases:
        cwd = tempfile.mkdtemp(dir=root)
        args = ["show", "--model", os.path.join(root, folder), "--file", os.path.join(root, f"w{n}.txt")] + outputs
        name = f"{folder}, {n} words, {' '.join(outputs) or 'terminal'}"
        e, err = estimate(args, cwd)
        if not c.check(e is not None, f"{name}: --max-memory 1 is refused with the estimate (got {err!r})"):
            continue
        limit = int(e * 1.02)
        code, peak, err = run(args + ["--max-memory", str(limit)], cwd)
        print(f"{name}: estimate {e / MiB:.1f} MiB, limit {limit / MiB:.1f} MiB, peak {peak / MiB:.1f} MiB "
              f"({peak / limit:.2f} of the limit)")
        if not c.check(code == 0, f"{name}: admitted just above its estimate (exit {code}: {err.strip()})"):
            continue
        c.check(peak <= 1.1 * limit, f"{name}: peak {peak / MiB:.1f} MiB is within 1.1 times --max-memory {limit / MiB:.1f} MiB")
        c.check(e <= 1.3 * peak, f"{name}: estimate {e / MiB:.1f} MiB is within 1.3 times the peak {peak / MiB:.1f} MiB")
    c.finish("model runs keep within 1.1 times --max-memory; estimates within 1.3 times the peaks")


if __name__ == "__main__":
    main()
