#!/usr/bin/python3
"""attn show --weights FILE against numbers computed here, outside attn.

1. Round trip: a run with --seed 7 writes its parameters (--json and --npy); a run with --weights the
   trace, and one with an .npz made from the --npy files by docs' one-line numpy command, give traces
   whose every matrix equals the first run's bit for bit (several kinds, biases, v, heads side by side
   and split); attn decode --weights likewise.
2. Hand-made files with known W (numpy.savez stored, savez_compressed deflated, safetensors F32, F16 and
   BF16 written byte by byte here): the weights equal numpy's softmax(x W_q (x W_k)ᵀ / √d_k) within 1e-6
   (the causal mask applied here), the context weights · x W_v, 1-D biases read as vectors.
3. What the run says: JSON config "weights": base name and no seed or init; the terminal's first line,
   every SVG title and the page say "weights from FILE", never "random weights"; the page has no live
   panel; attn render of the trace says it too.
4. Every refusal: exit code, one line on stderr, the parameter's name, the expected and found shapes.
5. docs/tools/plant_previous_head.py: its head puts over 0.99 of every row i >= 1 on key i - 1, and
   each context row is the previous token's vector."""
import glob
import json
import atexit
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from attn_run import Checks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
c = Checks(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="attn-weights-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)
P = lambda *a: os.path.join(tmp, *a)  # noqa: E731
TEXT = "the cat sat on the mat and the dog"


def ok(r, what):
    return c.check(r.returncode == 0, f"{what}: exit {r.returncode}, {r.stderr.strip()[:300]}")


def f32(a):
    return np.asarray(a, dtype=np.float32)


def heads(trace):
    return trace["attention"][0]["layers"][0]["heads"]


def same_bits(a, b):
    a, b = f32(a), f32(b)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def write_embeddings(path, tokens, d, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((len(tokens), d)).astype(np.float32)
    with open(path, "w") as f:
        json.dump({"tokens": tokens, "x": x.tolist()}, f)
    return x


def safetensors(path, arrays, dtype="F32"):
    header, blobs, at = {}, [], 0
    for name, a in arrays.items():
        a = f32(a)
        if dtype == "F32":
            raw = a.astype("<f4").tobytes()
        elif dtype == "F64":
            raw = a.astype("<f8").tobytes()
        elif dtype == "F16":
            raw = a.astype("<f2").tobytes()
        else:  # BF16: the upper 16 bits of float32 (the test's values are exact in bfloat16)
            raw = (a.astype("<f4").view("<u4") >> 16).astype("<u2").tobytes()
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


# ---- 1. the round trip ------------------------------------------------------------------------------
tokens = TEXT.split()
write_embeddings(P("e8.json"), tokens, 8, 1)
cases = [["--kind", "causal", "--qkv-bias"], ["--kind", "mha", "--heads", "2", "--qkv-bias"],
         ["--kind", "gqa", "--heads", "4", "--kv-heads", "2"], ["--kind", "mha-wrapper", "--heads", "2", "--d-out", "3"],
         ["--kind", "additive", "--d-out", "5"], ["--kind", "luong", "--score", "general"],
         ["--kind", "luong", "--score", "concat"], ["--kind", "flash", "--heads", "2", "--causal"],
         ["--kind", "causal", "--pos", "rope", "--init", "torch-rand"]]
for args in cases:
    name = "-".join(a.strip("-") for a in args)
    a_json, b_json, c_json, npy_dir = P(name + "-a.json"), P(name + "-b.json"), P(name + "-c.json"), P(name + "-npy")
    base = ["show", "--embeddings", P("e8.json"), TEXT] + args
    if not ok(c.run(base + ["--seed", "7", "--json", a_json, "--npy", npy_dir]), f"{name}: the seeded run"):
        continue
    drop_init = [a for i, a in enumerate(args) if a != "--init" and (i == 0 or args[i - 1] != "--init")]
    base_w = ["show", "--embeddings", P("e8.json"), TEXT] + drop_init
    ok(c.run(base_w + ["--weights", a_json, "--json", b_json]), f"{name}: --weights the trace")
    # the documented one-liner: the --npy folder's parameters into an .npz
    kind = args[1]
    one_liner = (f"import numpy as n,glob,os; n.savez('{P(name + '.npz')}', **{{os.path.basename(f)[len('{kind}-'):-4]: "
                 f"n.load(f) for f in glob.glob('{npy_dir}/{kind}-[Wbv]*.npy')}})")
    subprocess.run([sys.executable, "-c", one_liner], check=True)
    ok(c.run(base_w + ["--weights", P(name + ".npz"), "--json", c_json]), f"{name}: --weights the .npz from --npy")
    A = json.load(open(a_json))
    for label, path in (("trace", b_json), ("npz", c_json)):
        if not os.path.exists(path):
            continue
        B = json.load(open(path))
        c.check(A["params"].keys() == B["params"].keys(), f"{name} ({label}): the same parameter names")
        for p in A["params"]:
            c.check(same_bits(A["params"][p], B["params"][p]), f"{name} ({label}): {p} bit for bit")
        for ha, hb in zip(heads(A), heads(B)):
            for field in ("queries", "keys", "values", "scores", "weights", "context"):
                if field in ha:
                    c.check(same_bits(ha[field], hb[field]), f"{name} ({label}): head {ha['head']} {field} bit for bit")
        c.check(same_bits(A["output"], B["output"]), f"{name} ({label}): output bit for bit")
        c.check(B["config"].get("weights") == os.path.basename(path.replace("-c.json", ".npz").replace("-b.json", "-a.json")),
                f"{name} ({label}): config.weights is the file's base name, got {B['config'].get('weights')}")
        c.check("seed" not in B["config"] and "init" not in B["config"], f"{name} ({label}): no seed or init in config")
        c.check(A["config"].get("seed") == 7 and "weights" not in A["config"], f"{name}: the seeded run records its seed")

# decode: the same parameters, the same steps
r1 = c.run(["decode", "--kind", "gqa", "--heads", "4", "--kv-heads", "2", "--embeddings", P("e8.json"), TEXT, "--seed", "7",
            "--json", P("dec-a.json")])
r2 = c.run(["decode", "--kind", "gqa", "--heads", "4", "--kv-heads", "2", "--embeddings", P("e8.json"), TEXT,
            "--weights", P("kind-gqa-heads-4-kv-heads-2-a.json"), "--json", P("dec-b.json")])
if ok(r1, "decode --seed 7") and ok(r2, "decode --weights"):
    DA, DB = json.load(open(P("dec-a.json"))), json.load(open(P("dec-b.json")))
    c.check(json.dumps(DA["steps"]) == json.dumps(DB["steps"]), "decode --weights: every step as the seeded run's")
    c.check(DB["config"].get("weights") == "kind-gqa-heads-4-kv-heads-2-a.json" and "seed" not in DB["config"],
            "decode --weights: config says the file")

# ---- 2. hand-made files against numpy -----------------------------------------------------------------
rng = np.random.default_rng(5)
d_in, d_out = 4, 3
x = write_embeddings(P("e4.json"), tokens, d_in, 2)
W = {n: rng.uniform(-1, 1, (d_in, d_out)).astype(np.float32) for n in ("W_query", "W_key", "W_value")}
B = {n: rng.uniform(-1, 1, d_out).astype(np.float32) for n in ("b_query", "b_key", "b_value")}
# exact in float16 and bfloat16 (multiples of 1/64 in [-1, 1]), so every format holds the same numbers
W = {n: (np.round(w * 64) / 64).astype(np.float32) for n, w in W.items()}
B = {n: (np.round(b * 64) / 64).astype(np.float32) for n, b in B.items()}


def reference(x, W, B, causal):
    x = x.astype(np.float64)
    q = x @ W["W_query"] + (B["b_query"] if B else 0)
    k = x @ W["W_key"] + (B["b_key"] if B else 0)
    v = x @ W["W_value"] + (B["b_value"] if B else 0)
    s = q @ k.T / np.sqrt(q.shape[1])
    if causal:
        s = np.where(np.tril(np.ones_like(s)) > 0, s, -np.inf)
    w = np.exp(s - s.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    return w, w @ v


np.savez(P("plain.npz"), **W)
np.savez_compressed(P("deflated.npz"), **W, **B)
safetensors(P("f32.safetensors"), W)
safetensors(P("f16.safetensors"), W, "F16")
safetensors(P("bf16.safetensors"), {**W, **B}, "BF16")
for file, kind, bias in (("plain.npz", "self", False), ("deflated.npz", "causal", True), ("f32.safetensors", "causal", False),
                         ("f16.safetensors", "self", False), ("bf16.safetensors", "self", True)):
    out = P(file + ".json")
    args = ["show", "--kind", kind, "--embeddings", P("e4.json"), TEXT, "--d-out", str(d_out), "--weights", P(file), "--json", out]
    if not ok(c.run(args + (["--qkv-bias"] if bias else [])), f"{file}: --weights"):
        continue
    T = json.load(open(out))
    want_w, want_ctx = reference(x, W, B if bias else None, kind == "causal")
    h = heads(T)[0]
    err_w = np.abs(f32(h["weights"]) - want_w).max()
    err_c = np.abs(f32(h["context"]) - want_ctx).max()
    c.check(err_w <= 1e-6, f"{file} ({kind}): weights within 1e-6 of numpy's, largest difference {err_w:.2e}")
    c.check(err_c <= 1e-5, f"{file} ({kind}): context within 1e-5 of numpy's, largest difference {err_c:.2e}")
    print(f"{file:18s} {kind:6s} bias={bias!s:5s} weights max |diff| {err_w:.2e}  context {err_c:.2e}")

# ---- 3. what the run says ---------------------------------------------------------------------------
r = c.run(["show", "--kind", "self", "--embeddings", P("e4.json"), TEXT, "--d-out", "3", "--weights", P("plain.npz"),
           "--svg", P("svg"), "--html", P("page.html"), "--json", P("said.json")])
if ok(r, "titles run"):
    first = r.stdout.splitlines()[0]
    c.check("weights from plain.npz" in first and "random weights" not in first, f"terminal's first line: {first}")
    svgs = glob.glob(P("svg", "*.svg"))
    c.check(len(svgs) >= 3, "SVG figures written")
    for s in svgs:
        text = open(s).read()
        c.check("weights from plain.npz" in text and "random weights" not in text, f"{os.path.basename(s)} says the file")
    page = open(P("page.html")).read()
    c.check('"weights_note":"weights from plain.npz"' in page, "the page's header note says weights from plain.npz")
    # the live panel (only in a build with the WebAssembly core): a seeded page has it, a --weights page not
    seeded = c.run(["show", "--kind", "self", "--embeddings", P("e4.json"), TEXT, "--d-out", "3", "--html", P("seeded.html")])
    if ok(seeded, "a seeded page") and '"live":{"argv"' in open(P("seeded.html")).read():
        c.check('"live":{"argv"' not in page, "the --weights page has no live panel (it would rerun with seeded parameters)")
    else:
        print("note: this attn has no live panel (built without the WebAssembly core): its absence is not tested here")
    rr = c.run(["render", P("said.json"), "--svg", P("rsvg")])
    if ok(rr, "render the --weights trace"):
        c.check(all("weights from plain.npz" in open(s).read() for s in glob.glob(P("rsvg", "*.svg"))),
                "attn render's figures say weights from plain.npz")
r = c.run(["show", "--kind", "self", "--embeddings", P("e4.json"), TEXT, "--d-out", "3", "--seed", "4"])
c.check(r.returncode == 0 and "random weights (seed 4)" in r.stdout.splitlines()[0], "a seeded run still says random weights (seed 4)")

# ---- 4. refusals ------------------------------------------------------------------------------------
np.savez(P("missing.npz"), W_query=W["W_query"], W_value=W["W_value"])
np.savez(P("shape.npz"), W_query=W["W_query"], W_key=W["W_key"][:, :2], W_value=W["W_value"])
np.savez(P("extra.npz"), **W, W_qeury=W["W_query"])
nan = W["W_key"].copy()
nan[1, 2] = np.nan
np.savez(P("nan.npz"), W_query=W["W_query"], W_key=nan, W_value=W["W_value"])
np.savez(P("int.npz"), W_query=W["W_query"], W_key=np.ones((4, 3), np.int32), W_value=W["W_value"])
np.savez(P("big64.npz"), W_query=W["W_query"].astype(np.float64) * 1e39, W_key=W["W_key"], W_value=W["W_value"])
inf = dict(W)
inf["W_value"] = W["W_value"].copy()
inf["W_value"][0, 0] = np.inf
safetensors(P("inf.safetensors"), inf)
safetensors(P("f64.safetensors"), W, "F64")
with zipfile.ZipFile(P("notnpy.npz"), "w") as z:
    z.writestr("W_query.txt", "1 2 3")
with open(P("text.txt"), "w") as f:
    f.write("hello\n")
show = ["show", "--kind", "self", "--embeddings", P("e4.json"), TEXT, "--d-out", "3"]
# an .npz whose W_query bytes no longer match the CRC-32 its zip records (numpy refuses it too): attn reads
# each entry to its end, where libzip checks the CRC
np.savez(P("crc.npz"), **W)
raw = bytearray(open(P("crc.npz"), "rb").read())
with zipfile.ZipFile(P("crc.npz")) as z:
    info = z.getinfo("W_query.npy")
start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)  # the local header, then the data
raw[start + info.file_size - 1] ^= 0x01  # the array's last byte
open(P("crc.npz"), "wb").write(bytes(raw))
refusals = [
    (show + ["--weights", P("crc.npz")], 1, ["W_query.npy", "CRC"]),
    (show + ["--weights", P("missing.npz")], 1, ["'W_key'", "(4, 3)", "--json trace.json"]),
    (show + ["--weights", P("shape.npz")], 1, ["'W_key'", "(4, 2)", "(4, 3)"]),
    (show + ["--weights", P("extra.npz")], 1, ["'W_qeury'", "does not take"]),
    (show + ["--weights", P("nan.npz")], 1, ["'W_key'", "NaN"]),
    (show + ["--weights", P("big64.npz")], 1, ["'W_query'", "not a finite float32"]),
    (show + ["--weights", P("int.npz")], 1, ["W_key.npy", "'<i4' is not supported"]),
    (show + ["--weights", P("inf.safetensors")], 1, ["W_value"]),
    (show + ["--weights", P("f64.safetensors")], 1, ["F64"]),
    (show + ["--weights", P("notnpy.npz")], 1, ["W_query.txt", "not a .npy"]),
    (show + ["--weights", P("text.txt")], 1, ["neither a safetensors"]),
    (show + ["--weights", P("e4.json")], 1, ["no \"params\""]),
    (show + ["--weights", P("plain.npz"), "--seed", "7"], 2, ["--seed", "--weights"]),
    (show + ["--weights", P("plain.npz"), "--init", "torch-rand"], 2, ["--init", "--weights"]),
    (show + ["--weights", P("plain.npz"), "--qkv-bias"], 1, ["'b_query'"]),
    (["show", "--kind", "simple", TEXT, "--weights", P("plain.npz")], 2, ["--weights does not apply to kind 'simple'"]),
    (["show", "--kind", "luong", TEXT, "--weights", P("plain.npz")], 2, ["--weights", "--score dot"]),
    (["show", "--kind", "self", "--example", "journey", "--d-out", "3", "--weights", P("plain.npz")], 1,
     ["'W_query'", "(4, 3)", "(3, 3)"]),
    (["decode", "--kind", "causal", "--embeddings", P("e4.json"), TEXT, "--d-out", "3", "--weights", P("plain.npz"), "--seed", "2"],
     2, ["--seed", "--weights"]),
    (["decode", "--kind", "causal", "--embeddings", P("e4.json"), TEXT, "--d-out", "3", "--weights", P("missing.npz")],
     1, ["'W_key'"]),
]
for args, code, words in refusals:
    r = c.run(args)
    c.check(r.returncode == code and r.stderr.count("\n") == 1 and all(w in r.stderr for w in words),
            f"{' '.join(os.path.basename(a) for a in args[-4:])}: exit {r.returncode} (want {code}), {r.stderr.strip()}")
# the decoded kind: decode runs with the file's parameters (a causal run of the same file)
r = c.run(["decode", "--kind", "causal", "--embeddings", P("e4.json"), TEXT, "--d-out", "3", "--weights", P("plain.npz"),
           "--json", P("dec-plain.json")])
if ok(r, "decode --weights plain.npz"):
    D = json.load(open(P("dec-plain.json")))
    want_w, _ = reference(x, W, None, True)
    got = np.array([s["heads"][0]["weights"] + [0.0] * (len(tokens) - len(s["heads"][0]["weights"])) for s in D["steps"]],
                   dtype=np.float64)
    err = np.abs(got - want_w).max()
    c.check(err <= 1e-6, f"decode --weights: each step's weights within 1e-6 of numpy's causal softmax ({err:.2e})")

# ---- 5. the planted previous-token head ---------------------------------------------------------------
subprocess.run([sys.executable, os.path.join(ROOT, "docs", "tools", "plant_previous_head.py"), P("prev.npz"), "--d-in", "8"],
               check=True)
long_text = "the quick brown fox jumps over the lazy dog while the cat sleeps on a warm mat"
r = c.run(["show", "--kind", "causal", "--qkv-bias", "--pos", "rope", "--d-in", "8", "--weights", P("prev.npz"), long_text,
           "--json", P("prev.json")])
if ok(r, "the planted head runs"):
    T = json.load(open(P("prev.json")))
    w = f32(heads(T)[0]["weights"])
    x8 = f32(T["inputs"]["x"])
    ctx = f32(heads(T)[0]["context"])
    n = w.shape[0]
    prev = [w[i, i - 1] for i in range(1, n)]
    c.check(n == len(long_text.split()) and min(prev) > 0.99, f"planted head: every row i >= 1 puts > 0.99 on key i - 1 (least {min(prev):.4f})")
    c.check(all(int(np.argmax(w[i])) == i - 1 for i in range(1, n)), "planted head: each row's largest weight is on the previous key")
    err = np.abs(ctx[1:] - x8[:-1]).max()
    c.check(err < 0.05 * np.abs(x8).max(), f"planted head: context row i is about token i - 1's vector ({err:.3f})")
    print(f"planted head: least weight on the previous token {min(prev):.5f} over {n} tokens")

c.finish(f"--weights: round trips bit for bit over {len(cases)} kinds and decode, hand-made files within 1e-6, "
         f"{len(refusals)} refusals, the planted head")
