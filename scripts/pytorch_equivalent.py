#!/usr/bin/env python3
"""What `attn show --kind causal "Your journey starts" --json F --png D` replaces: the same run in
PyTorch with matplotlib heatmaps. scripts/compare.sh times both, whole process."""
import json, os, sys
import torch
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
tokens = "Your journey starts".split()
torch.manual_seed(123)
x = torch.rand(len(tokens), 16)
W_q, W_k, W_v = (torch.nn.Linear(16, 16, bias=False) for _ in range(3))
q, k, v = W_q(x), W_k(x), W_v(x)
scores = q @ k.T
mask = torch.ones(3, 3).tril().bool()
w = torch.softmax((scores / 4).masked_fill(~mask, float("-inf")), dim=-1)
ctx = w @ v
json.dump({"tokens": tokens, "scores": scores.tolist(), "mask": mask.tolist(), "weights": w.tolist(),
           "context": ctx.tolist()}, open(os.path.join(out, "trace.json"), "w"))
for name, m, cmap in (("scores", scores, "RdBu_r"), ("mask", mask.float(), "Blues"), ("weights", w, "viridis")):
    fig, ax = plt.subplots()
    im = ax.imshow(m.detach(), cmap=cmap)
    ax.set_xticks(range(3), tokens); ax.set_yticks(range(3), tokens); fig.colorbar(im)
    fig.savefig(os.path.join(out, f"causal-{name}.png")); plt.close(fig)
