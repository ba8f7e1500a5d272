#!/usr/bin/env bash
# Times `attn show` against the equivalent PyTorch + matplotlib script (scripts/pytorch_equivalent.py),
# whole process, best of N runs each. Needs Debian's python3-torch and python3-matplotlib.
set -euo pipefail
attn=${1:-build/attn}
runs=${2:-5}
py=/usr/bin/python3
best() { sort -n | head -1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq "$runs"); do
  s=$(date +%s.%N); "$attn" show --kind causal "Your journey starts" --json "$tmp/a/t.json" --png "$tmp/a" >/dev/null
  echo "$(date +%s.%N) - $s" | bc
done | best > "$tmp/attn.t"
for i in $(seq "$runs"); do
  s=$(date +%s.%N); "$py" "$(dirname "$0")/pytorch_equivalent.py" "$tmp/p" >/dev/null
  echo "$(date +%s.%N) - $s" | bc
done | best > "$tmp/torch.t"
a=$(cat "$tmp/attn.t"); p=$(cat "$tmp/torch.t")
printf 'attn show:          %.4f s (best of %d)\nPyTorch+matplotlib: %.4f s (best of %d)\nattn is %.0fx faster\n' \
  "$a" "$runs" "$p" "$runs" "$(echo "$p / $a" | bc -l)"
