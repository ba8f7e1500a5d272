#!/usr/bin/env python3
"""The page's size and load time for a GPT-2-small-shaped trace: 12 layers x 12 heads at 128 tokens.

Writes a model trace (format attn-trace, kind "model": causal scores, mask and weights for every head,
from random queries and keys scaled as GPT-2's are), renders it with `attn render --html`, and opens it
five times in headless Chromium, printing the file size and the time until the page is ready (its own
performance.now() from script start, and the wall time of driver.get). A measurement, not a test.

Usage: measure_page.py --attn BIN [--chromium PATH] [--chromedriver PATH] [--out DIR] [--tokens 128]
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time

import numpy as np
import headless  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait


def model_trace(L, H, T, d_k=64, seed=0):
    rng = np.random.default_rng(seed)
    mask = np.tril(np.ones((T, T), dtype=bool))
    layers, means, rollouts, rollout = [], [], [], None
    for l in range(L):
        heads = []
        for h in range(H):
            q = rng.normal(size=(T, d_k)).astype(np.float32)
            k = (rng.normal(size=(T, d_k)) + 0.5 * q).astype(np.float32)  # some structure
            scores = (q @ k.T).astype(np.float32)
            scale = np.float32(1 / np.sqrt(d_k))
            s = np.where(mask, scores * scale, -np.inf)
            w = np.exp(s - s.max(-1, keepdims=True))
            w = (w / w.sum(-1, keepdims=True)).astype(np.float32)
            heads.append({"head": h, "kv_head": h, "scores": scores.tolist(), "scale": float(scale),
                          "mask": mask.tolist(), "weights": w.tolist()})
        layers.append({"layer": l, "heads": heads})
        mean = np.mean([np.array(x["weights"], dtype=np.float32) for x in heads], axis=0)
        a = 0.5 * mean + 0.5 * np.eye(T)  # rollout (Abnar & Zuidema 2020): residual stream as identity
        a /= a.sum(-1, keepdims=True)
        rollout = a if l == 0 else a @ rollout
        means.append(mean.astype(np.float32).tolist())
        rollouts.append(rollout.astype(np.float32).tolist())
    tokens = ["tok%d" % i for i in range(T)]
    return {"format": "attn-trace", "version": 1, "kind": "model", "tokens": tokens, "source_tokens": tokens,
            "model": {"type": "gpt2", "dtype": "F32", "n_layer": L, "n_head": H, "n_embd": 768, "n_positions": 1024,
                      "vocab_size": 50257, "n_params": 124439808, "layer_norm_epsilon": 1e-5},
            "token_ids": list(range(T)), "layers": layers, "aggregates": {"layer_mean": means, "rollout": rollouts},
            "predictions": [[{"id": 0, "token": " the", "p": 0.1}] for _ in range(T)]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attn", required=True)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    ap.add_argument("--out", default=tempfile.mkdtemp(prefix="attn-measure-"))
    ap.add_argument("--tokens", type=int, default=128)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    trace, page = os.path.join(a.out, "model.json"), os.path.join(a.out, "model.html")
    json.dump(model_trace(12, 12, a.tokens), open(trace, "w"))
    t0 = time.time()
    subprocess.run([os.path.abspath(a.attn), "render", trace, "--html", page], check=True, capture_output=True)
    print("trace %.1f MB; attn render --html %.2f s; page %.2f MB" %
          (os.path.getsize(trace) / 1e6, time.time() - t0, os.path.getsize(page) / 1e6))
    d, profile = headless.start(a.chromium, a.chromedriver)
    try:
        for run in range(5):
            d.get("about:blank")
            t = time.time()
            d.get("file://" + page)
            WebDriverWait(d, 30, poll_frequency=0.02).until(
                lambda x: x.execute_script("return document.documentElement.dataset.ready"))
            wall = time.time() - t
            ms = d.execute_script("return document.documentElement.dataset.readyMs")
            nav = d.execute_script("return performance.now()")
            print("load %d: ready %.2f s after driver.get (script's own work %s ms, performance.now %.0f ms)" %
                  (run + 1, wall, ms, nav))
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
