#!/usr/bin/python3
"""Seeds for fuzz/fuzz_torch_checkpoint.cpp in fuzz/corpus/torch_checkpoint/: small state dicts saved by
torch.save (zip and legacy, F32, F16, BF16, a view, tied weights, F64 and integer and bool buffers) and hostile pickles, each a few kB.
Usage: make_seeds.py OUT_DIR"""
import collections
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_checkpoints as mc  # noqa: E402


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 2)
    for dtype, d in ((torch.float32, "f32"), (torch.float16, "f16"), (torch.bfloat16, "bf16")):
        sd = lin.to(dtype).state_dict()
        sd["t"] = sd["weight"].t()
        sd["tied"] = sd["weight"]
        sd["s"] = sd["weight"][1, 1:]
        mc.save(sd, os.path.join(out, f"ok-zip-{d}"), True, True)
        mc.save(sd, os.path.join(out, f"ok-legacy-{d}"), False, True)
    mc.save(collections.OrderedDict(p=torch.arange(4).expand(1, -1)), os.path.join(out, "ok-long-expand"), True, True)
    mc.save(collections.OrderedDict(p=torch.arange(4).expand(2, -1)), os.path.join(out, "bad-broadcast"), True, True)
    bad = os.path.join(out, "tmp")
    mc.make(bad)
    mc.save(collections.OrderedDict(w=torch.zeros(2, dtype=torch.float64)), os.path.join(out, "ok-double"), True, True)
    for name in ("os-system", "eval", "stack-global", "inst", "protocol4", "complex", "truncated", "offset", "stride",
                 "no-data-pkl", "legacy-magic", "legacy-truncated"):
        os.replace(os.path.join(bad, "bad", name + ".bin"), os.path.join(out, "bad-" + name))
    for name in ("hand-zip", "hand-legacy", "buffers-zip"):
        os.replace(os.path.join(bad, "good", name + ".bin"), os.path.join(out, "ok-" + name))
    import shutil
    shutil.rmtree(bad)


if __name__ == "__main__":
    main(sys.argv[1])
