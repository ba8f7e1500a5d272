#!/usr/bin/env bash
# Builds the whole test suite with AddressSanitizer and UndefinedBehaviorSanitizer (GCC, in build-asan)
# and runs it. The end-to-end tests run the sanitized attn binary too. Any sanitizer report fails.
#
#   scripts/sanitize.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build=build-asan
mkdir -p "$build"
# -O1 with line tables only: half the compile time of -O2 -g, and reports still name file and line.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DATTN_SANITIZE=ON -DATTN_WASM=OFF > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log" >&2; exit 1; }
cmake --build "$build" -j2
# A sanitizer report must not pass for one of attn's own exit codes (1 and 2): exit 86 / abort instead.
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86:abort_on_error=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:exitcode=87}
ctest --test-dir "$build" --output-on-failure -j2 "$@"
