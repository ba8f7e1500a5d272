#!/usr/bin/env bash
# Checks that core/base/vector_kernels_avx2.cpp's object, compiled with -mavx2, defines no code that another
# file could link to instead of its own: a global or weak function (an inline function that a baseline
# file emits too) could be kept from this object by the linker and then run on a processor without
# AVX2. Allowed: the kernel table attn::avx2_vector_kernel_set (constant data) and the unwinder's
# reference to the C++ personality routine. Arguments: the objects of attn_core_base (CTest passes them
# as one list separated by ';').
set -euo pipefail
obj=""
IFS=';' read -r -a objects <<<"$*"
for f in "${objects[@]}"; do
    case "$f" in *vector_kernels_avx2.cpp.o) obj="$f" ;; esac
done
[ -n "$obj" ] || { echo "no vector_kernels_avx2.cpp.o among the objects given" >&2; exit 1; }
symbols=$(nm -C --defined-only "$obj")
grep -q ' [DR] attn::avx2_vector_kernel_set$' <<<"$symbols" || { echo "$obj: no kernel table" >&2; exit 1; }
# global symbols (an upper-case type, or u: unique global, i: indirect function) other than the two allowed
others=$(awk '$2 ~ /^([A-Z]|u|i)$/' <<<"$symbols" | grep -v -e ' [DR] attn::avx2_vector_kernel_set$' -e ' V DW.ref.__gxx_personality_v0$' || true)
if [ -n "$others" ]; then
    echo "$obj defines symbols other files could link to:" >&2
    echo "$others" >&2
    exit 1
fi
echo "$obj: only the kernel table is global ($(grep -c ' [tT] ' <<<"$symbols") functions, all local)"
