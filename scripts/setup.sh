#!/usr/bin/env bash
# Installs whatever attn needs that is missing, from Debian 12's packages (apt-get, non-interactive).
# Usage: scripts/setup.sh [--tests] [extra Debian packages...]
#   --tests   also what the test suite uses beyond the build: python3-torch, for the cross-check of
#             attn's numbers against PyTorch itself (tests/pytorch/torch_check.py)
set -euo pipefail
packages=(build-essential cmake pkg-config libcli11-dev libxtensor-dev xtl-dev libxsimd-dev libxtensor-blas-dev
          libopenblas-dev nlohmann-json3-dev libstb-dev doctest-dev fonts-dejavu-core zlib1g-dev)
for arg in "$@"; do
  case "$arg" in
    --tests) packages+=(python3 python3-torch) ;;
    -*) echo "setup.sh: unknown option $arg (use --tests)" >&2; exit 2 ;;
    *) packages+=("$arg") ;;  # extra packages a caller needs (the sanitizer and fuzz builds add clang-14)
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "attn setup: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
