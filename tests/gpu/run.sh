#!/bin/sh
# tests/gpu/run.sh - the one check for a lent GPU machine (one H200 here:
# 16 cores, no package registry, maybe no libyaml/cJSON/check). Runs from
# the source tree's root in well under 5 minutes and writes every log to
# $OUT (a fresh temporary folder when unset). Exit 77 when no GPU is
# usable (tlab --require-gpu refuses), else 0 when every check passed.
#
# Binaries, in this order:
#   1. $TLAB_GPU_BIN, or ./build-gpu: a folder made on a development machine
#      by tests/gpu/pack.sh (a --with-cuda=yes build, static cudart, and the
#      shared libraries it needs in lib/), carried along;
#   2. else a build here: ./configure (a dist tarball) or autoreconf, then
#      --with-cuda=yes --with-cuda-arch=90 in ./build-gpu-local.
#
# Checks (each one line "PASS name" / "FAIL name" / "SKIP name", its
# output in $OUT/name.log):
#   env            nvidia-smi, nvcc and the binary's --version
#   kernels        tests/check_kernels --device cuda: every kernel on the GPU
#                  against the CPU backend on thousands of random layouts
#                  (ulp tolerance for transcendental ops only)
#   index          tests/check_index: advanced indexing through device
#                  offsets on the GPU against the CPU (random subscripts,
#                  errors, repeated targets, the transfer counters)
#   device         tests/check_cuda: the probe, and device semantics on the
#                  GPU (pointer kinds via cudaPointerGetAttributes, transfer
#                  counters, kernel names, errors)
#   corpus         the fixture corpus on the GPU (TLAB_FIXTURES_DEVICE=gpu)
#   golden         the golden files on the GPU, against the allowed device
#                  differences of tests/device_cuda.sh
#   sheets         every shipped sheet (answers/, labs/, tests/students/):
#                  `tlab check --format json` on the GPU and on the simulator
#                  (TLAB_EMULATE_CUDA=1) give the same scorecard but for the
#                  "used" device line
#   jobs           `tlab grade --jobs 8` on the GPU is byte-identical to
#                  `--jobs 1`
#   memcheck       compute-sanitizer --tool memcheck on lab05's key: no error
#   bandwidth      bench/gpu_bandwidth (contiguous, transpose, broadcast,
#                  to-float16 for 2^20..2^28 elements) vs cudaMemcpyAsync
#                  device to device; passes when transpose reaches 70 % of
#                  memcpy's bandwidth at 2^24 elements and above
# The last line is "N passed, N failed".

set -u
root=$(pwd)
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/tlab-gpu.XXXXXX")}
mkdir -p "$OUT"
passed=0
failed=0
start=$(date +%s)

note() { printf '%s\n' "$*" | tee -a "$OUT/summary.txt"; }
pass() { passed=$((passed + 1)); note "PASS $1"; }
fail() { failed=$((failed + 1)); note "FAIL $1 (see $OUT/$1.log)"; }

# check NAME SECONDS CMD...: run CMD with a time limit, log to $OUT/NAME.log
check() {
    name=$1 limit=$2
    shift 2
    if timeout "$limit" "$@" >"$OUT/$name.log" 2>&1; then
        pass "$name"
    else
        rc=$?
        if [ "$rc" -eq 77 ]; then
            note "SKIP $name"
        else
            echo "exit status $rc" >>"$OUT/$name.log"
            fail "$name"
        fi
    fi
}

# ---- binaries
bin=${TLAB_GPU_BIN:-$root/build-gpu}
if [ ! -x "$bin/tlab" ]; then
    bin=$root/build-gpu-local
    if [ ! -x "$bin/tlab" ]; then
        {
            if [ ! -x "$root/configure" ]; then
                (cd "$root" && autoreconf -fi)
            fi
            mkdir -p "$bin" && cd "$bin" &&
                "$root/configure" --with-cuda=yes --with-cuda-arch=90 &&
                make -j16 tlab tests/check_kernels tests/check_cuda tests/check_fixtures tests/check_index \
                    bench/gpu_bandwidth
        } >"$OUT/build.log" 2>&1 || {
            note "FAIL build (see $OUT/build.log): carry a tests/gpu/pack.sh folder instead"
            failed=$((failed + 1))
            note "$passed passed, $failed failed"
            exit 1
        }
        cd "$root" || exit 1
    fi
fi
if [ -d "$bin/lib" ]; then
    LD_LIBRARY_PATH=$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
fi
TLAB=$bin/tlab
export TLAB

# ---- is there a GPU at all?
{
    nvidia-smi 2>&1 || echo "nvidia-smi: not available"
    nvcc --version 2>&1 || /usr/local/cuda/bin/nvcc --version 2>&1 || echo "nvcc: not available"
    "$TLAB" --version
} >"$OUT/env.log" 2>&1
if ! "$TLAB" run --device cuda --require-gpu "$root/labs/lab01.yaml" >"$OUT/require-gpu.log" 2>&1; then
    note "SKIP all: tlab --require-gpu refuses: $(tail -n 1 "$OUT/require-gpu.log")"
    note "$passed passed, $failed failed"
    exit 77
fi
pass env

# ---- the checks
check kernels 120 "$bin/tests/check_kernels" --device cuda --cases 2000
check index 120 env CK_DEFAULT_TIMEOUT=120 "$bin/tests/check_index"
check device 120 env CK_DEFAULT_TIMEOUT=120 "$bin/tests/check_cuda"
check corpus 150 env top_srcdir="$root" TLAB_FIXTURES_DEVICE=gpu TLAB_FIXTURES_ALL=1 TLAB_FIXTURES_NOFORK=1 \
    TLAB_FIXTURES_DIR="$root/tests/fixtures" "$bin/tests/check_fixtures"

golden() {
    status=0
    for f in "$root"/tests/golden/*.test; do
        TLAB_GOLDEN_DEVICE=gpu "$TLAB" --run-tests "$f" >"$OUT/golden-gpu.out" 2>&1
        TLAB_GOLDEN_DEVICE=cuda TLAB_EMULATE_CUDA=1 "$TLAB" --run-tests "$f" >"$OUT/golden-sim.out" 2>&1
        # the GPU fails exactly the records the simulator fails (the
        # device differences listed in tests/device_cuda.sh)
        if ! cmp -s "$OUT/golden-gpu.out" "$OUT/golden-sim.out"; then
            echo "$(basename "$f"): GPU and simulator differ:"
            diff "$OUT/golden-sim.out" "$OUT/golden-gpu.out" | head -n 20
            status=1
        fi
        tail -n 1 "$OUT/golden-gpu.out"
    done
    return $status
}
check golden 120 golden

sheets() {
    status=0
    for sheet in "$root"/answers/*.yaml "$root"/labs/*.yaml "$root"/tests/students/*.yaml; do
        "$TLAB" check --format json --device cuda --require-gpu "$sheet" 2>&1 |
            grep -v '"used":' >"$OUT/sheet-gpu.json"
        TLAB_EMULATE_CUDA=1 "$TLAB" check --format json --device cuda "$sheet" 2>&1 |
            grep -v '"used":' >"$OUT/sheet-sim.json"
        if cmp -s "$OUT/sheet-gpu.json" "$OUT/sheet-sim.json"; then
            echo "same: $(basename "$sheet")"
        else
            echo "DIFFER: $sheet"
            diff "$OUT/sheet-sim.json" "$OUT/sheet-gpu.json" | head -n 20
            status=1
        fi
    done
    return $status
}
check sheets 120 sheets

jobs() {
    "$TLAB" grade --device cuda --require-gpu --format jsonl --jobs 1 \
        --lab "$root/labs/lab03.yaml" "$root"/tests/students/lab03-*.yaml >"$OUT/jobs1.jsonl"
    "$TLAB" grade --device cuda --require-gpu --format jsonl --jobs 8 \
        --lab "$root/labs/lab03.yaml" "$root"/tests/students/lab03-*.yaml >"$OUT/jobs8.jsonl"
    cmp "$OUT/jobs1.jsonl" "$OUT/jobs8.jsonl"
}
check jobs 60 jobs

memcheck() {
    sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    [ -x "$sanitizer" ] || { echo "compute-sanitizer not found"; return 77; }
    "$sanitizer" --tool memcheck --error-exitcode 9 \
        "$TLAB" check --device cuda --require-gpu "$root/answers/lab05.yaml"
}
check memcheck 150 memcheck

bandwidth() {
    "$bin/bench/gpu_bandwidth" >"$OUT/bandwidth.tsv" || return 1
    cat "$OUT/bandwidth.tsv"
    # transpose at 2^24 and above must reach 70 % of memcpy
    awk -F '\t' '$1 == "transpose" && $2 >= 24 && $6 < 0.70 { bad = 1 }
                 END { exit bad }' "$OUT/bandwidth.tsv"
}
check bandwidth 120 bandwidth

note "elapsed $(($(date +%s) - start)) s"
note "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
