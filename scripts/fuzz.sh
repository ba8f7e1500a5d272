#!/usr/bin/env bash
# Builds attn's libFuzzer targets with clang-14 under AddressSanitizer and UndefinedBehaviorSanitizer
# (in build-fuzz) and runs each for a bounded time, starting from the seed corpus in fuzz/corpus/<target>.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default: 60 seconds; every target in fuzz/CMakeLists.txt
#
# New inputs go to build-fuzz/corpus/<target> (the seeds in the repository are not touched); a crash
# is saved as build-fuzz/artifacts/<target>/crash-*. To keep one as a test, copy it into
# fuzz/corpus/<target>/: tests/test_corpus.cpp replays every file there. Exits 1 if any target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(tokenize embeddings npy mask cli safetensors gpt2_tokenizer trace font shard_index torch_checkpoint stored_zip spm_tokenizer)
case $seconds in '' | *[!0-9]*) echo "fuzz: SECONDS_PER_TARGET must be a whole number, not '$seconds'" >&2; exit 2 ;; esac

scripts/setup.sh clang-14 libclang-rt-14-dev
build=build-fuzz
mkdir -p "$build"
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DATTN_FUZZ=ON \
  -DATTN_SANITIZE=ON -DATTN_WASM=OFF -DATTN_BUILD_TESTS=OFF > "$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 1; }
cmake --build "$build" -j2 --target $(printf 'fuzz_%s ' "${targets[@]}")

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export OPENBLAS_NUM_THREADS=1  # one core per fuzzer; the targets run one after another
mkdir -p "$build/tmp"
export TMPDIR=$PWD/$build/tmp   # fuzz_cli's scratch folder lives here

declare -A max_len=([tokenize]=4096 [embeddings]=8192 [npy]=4096 [mask]=2048 [cli]=512 [safetensors]=8192 [gpt2_tokenizer]=16384 [font]=2048 [shard_index]=4096 [torch_checkpoint]=8192 [stored_zip]=8192 [spm_tokenizer]=8192)
declare -A dict=([tokenize]=fuzz/tokenize.dict [embeddings]=fuzz/json.dict [npy]=fuzz/json.dict [mask]=fuzz/json.dict [cli]=fuzz/cli.dict [safetensors]=fuzz/json.dict [gpt2_tokenizer]=fuzz/json.dict [shard_index]=fuzz/shard_index.dict)
failed=0
summary=""
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t artifacts=$build/artifacts/$t log=$build/fuzz-$t.log
  mkdir -p "$corpus" "$artifacts"
  args=(-max_total_time="$seconds" -timeout=30 -rss_limit_mb=3072 -max_len="${max_len[$t]:-4096}"
        -artifact_prefix="$artifacts/" -print_final_stats=1)
  [ -n "${dict[$t]:-}" ] && args+=(-dict="${dict[$t]}")
  { [ "$t" = cli ] || [ "$t" = font ]; } && args+=(-close_fd_mask=3)  # attn's own output; libFuzzer's and the sanitizers' still show
  echo "fuzz: $t for ${seconds}s (log: $log)"
  status=0
  "$build/fuzz/fuzz_$t" "${args[@]}" "$corpus" "fuzz/corpus/$t" > "$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  crashes=$(find "$artifacts" -type f | wc -l)
  line=$(printf '%-11s %10s executions  %3s crash artifacts  exit %s' "$t" "${runs:-?}" "$crashes" "$status")
  summary+="$line"$'\n'
  if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    failed=1
    echo "fuzz: $t FAILED; the end of its log:" >&2
    tail -40 "$log" >&2
  fi
done
echo "fuzz: summary (${seconds}s per target)"
printf '%s' "$summary"
exit $failed
