#!/usr/bin/python3
"""Plant a previous-token head: writes an .npz that `attn show --weights` reads, for the kind `causal`
with `--qkv-bias --pos rope`, so that every query attends to the token just before it.

    python3 docs/tools/plant_previous_head.py prev.npz --d-in 8
    attn show --kind causal --qkv-bias --pos rope --d-in 8 --weights prev.npz "the cat sat on the mat"

Why positions and not the words: attn's seeded embeddings are random vectors, one per distinct token,
with nothing in them that says where a token stands. A head can only find "the previous token" from
positions, which RoPE supplies: it rotates query i by angles i·θ_p and key j by j·θ_p, one angle per
pair of dimensions (p, p + d/2), θ_p = base^(−2p/d). So the planted queries and keys ignore the words
(W_query = W_key = 0) and are constant vectors (the biases): q = (a, …, a, 0, …, 0) and k with pair p
turned ahead by θ_p, (a·cos θ_p, a·sin θ_p). After the rotations the score of query i on key j is
a² Σ_p cos((i − j − 1)·θ_p): largest, a²·d/2, exactly at j = i − 1, where every cosine is 1. The size
a is chosen so that, for texts up to --max-len tokens, the next-best offset scores at least
ln(100·max_len) lower after the 1/√d scaling: the previous token then gets over 99% of each row.
W_value is the identity, so each context row is the previous token's own vector (a copying head).
Query 0 has no previous token: under the causal mask it sees only itself."""
import argparse
import math

import numpy as np


def plant(d, base=10000.0, max_len=64):
    half = d // 2
    theta = base ** (-2.0 * np.arange(half) / d)                     # (d/2,) RoPE's angles, 'half' pairs
    # the best score (offset 1) against the next best (any other offset up to max_len), per unit a²
    offsets = np.arange(0, max_len)
    sums = np.cos(np.outer(offsets - 1, theta)).sum(axis=1)          # (max_len,)
    gap = half - max(s for o, s in zip(offsets, sums) if o != 1)
    a2 = math.sqrt(d) * math.log(100.0 * max_len) / gap
    a = math.sqrt(a2)
    b_query = np.zeros(d, np.float32)
    b_key = np.zeros(d, np.float32)
    b_query[:half] = a
    b_key[:half] = a * np.cos(theta)
    b_key[half:] = a * np.sin(theta)
    zero = np.zeros((d, d), np.float32)
    return {"W_query": zero, "b_query": b_query, "W_key": zero, "b_key": b_key,
            "W_value": np.eye(d, dtype=np.float32), "b_value": np.zeros(d, np.float32)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="the .npz to write")
    ap.add_argument("--d-in", type=int, default=8, help="the embeddings' width (even); d_out is the same")
    ap.add_argument("--rope-base", type=float, default=10000.0, help="as attn's --rope-base")
    ap.add_argument("--max-len", type=int, default=64, help="the longest text the head must stay sharp on")
    args = ap.parse_args()
    if args.d_in < 2 or args.d_in % 2:
        ap.error("--d-in must be even (RoPE turns pairs of dimensions)")
    np.savez(args.out, **plant(args.d_in, args.rope_base, args.max_len))


if __name__ == "__main__":
    main()
