#!/bin/sh
# shellcheck disable=SC2154 # $work, $top_builddir come from tests/setup
# tests/gpu/ptxas.sh - the kernels read their launch descriptor (tl_kdesc,
# about 4 KB) from kernel parameter space: ptxas gives no kernel a stack
# frame that could hold a copy of it. Before the wrappers took it as
# __grid_constant__ and the bodies were force-inlined, every kernel copied
# it to local memory in each thread (a 5008-byte frame: the likely cause of
# the 12-04 H200 run's 8-15 % of memcpy bandwidth), which no simulator run
# can see. Compiles cuda/dev_cuda.cu for sm_90 with `ptxas -v`; 77 where
# there is no nvcc (NVCC, else /usr/local/cuda/bin/nvcc, else PATH).
# Limits: 64 bytes for the elementwise kernels (copy, fill, binary, unary,
# where, gather; libdevice's trig slow path takes 40), 1024 for the others
# (the reductions keep their cascade arrays there).
# shellcheck source=/dev/null
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
set +e
nvcc=${NVCC:-}
[ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
[ -n "$nvcc" ] || nvcc=$(command -v nvcc 2>/dev/null)
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then skip "no nvcc"; fi
src=$top_srcdir
"$nvcc" -gencode=arch=compute_90,code=sm_90 -std=c++17 --fmad=false -O2 -Xptxas -v \
    -DHAVE_CONFIG_H -I"$top_builddir" -I"$src/src/base" -I"$src/src/runtime" -I"$src/cuda" \
    -c -o "$work/dev_cuda.o" "$src/cuda/dev_cuda.cu" >"$work/ptxas.log" 2>&1 ||
    { cat "$work/ptxas.log"; fail "nvcc failed on cuda/dev_cuda.cu"; }
# "Function properties for _Z6k_copy8tl_kdesc" then "    N bytes stack frame, ..."
awk '/Function properties for _Z[0-9]+k_[a-z_]+8tl_kdesc/ {
         name = $0; sub(/.*_Z[0-9]+/, "", name); sub(/8tl_kdesc.*/, "", name); next }
     name != "" && /bytes stack frame/ { print name, $1; name = "" }' "$work/ptxas.log" \
    | sort -u >"$work/frames"
cat "$work/frames"
n=$(wc -l <"$work/frames")
[ "$n" -ge 16 ] || fail "ptxas -v listed $n kernels, expected 16 (log: $work/ptxas.log)"
while read -r k bytes; do
    case $k in
    k_copy | k_fill | k_binary | k_unary | k_where | k_gather) lim=64 ;;
    *) lim=1024 ;;
    esac
    [ "$bytes" -le "$lim" ] || fail "$k has a $bytes-byte stack frame (at most $lim): a local copy of the descriptor?"
done <"$work/frames"
echo "ok: $n kernels within their stack limits"
