#!/usr/bin/env bash
# Prints docs/speed.md's scaling table: how attn bench's time grows with the number of tokens.
# Usage: scripts/scaling.sh [attn binary] [kind] (defaults: build/attn, mha). Needs python3.
set -euo pipefail
attn=${1:-build/attn}
kind=${2:-mha}
echo "| tokens T | projections + output (T·d²) | scores + softmax + context (T²) | total | GFLOP/s | of sgemm | peak memory |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for t in 256 512 1024 2048 4096 8192; do
  "$attn" bench --kind "$kind" --tokens "$t" --d-in 768 --heads 12 --no-weights --repeat 2 --json - |
    python3 -c '
import json, sys
r = json.load(sys.stdin)
st = {s["name"]: s["seconds"] for s in r["stages"]}
lin = st.get("projections", 0) + st.get("output", 0)
quad = st.get("scores", 0) + st.get("softmax", 0) + st.get("context", 0) + st.get("tiles", 0)
tot = r["total"]
print("| %d | %.3f s | %.3f s | %.3f s | %.0f | %.0f%% | %.0f MiB |" % (r["tokens"], lin, quad, tot["seconds"], tot["gflops"], 100 * r["ratio"], r["peak_rss_bytes"] / 2**20))'
done
