#!/bin/sh
# shellcheck disable=SC2317 # the check_* functions run through "run.sh --check NAME"
# tests/gpu/run.sh [--emulated] - the one check for a lent GPU machine (one
# H200 here: 16 cores, no package registry, maybe no libyaml/cJSON/check).
# Runs from the source tree's root, ends within 8 minutes (a global
# deadline; at most 60 s a check, 150 s for big) and writes every log to
# $OUT (a fresh temporary folder when unset), each check's time to
# $OUT/times.txt. Results of real runs: doc/gpu-run-2026-12-04.md.
#
#   run.sh             the checks on the GPU. Exit 77 when there is no GPU
#                      (no NVIDIA device, or tlab --require-gpu's clean "no
#                      GPU" refusal), wherever it is started: a fresh clone,
#                      a configured tree, a dist tarball. Else 0 when every
#                      check passed, 1 when one failed.
#   run.sh --emulated  the same checks, the same commands, with the
#                      emulated device (TLAB_EMULATE_CUDA=1, the grid
#                      simulator) in place of the GPU and smaller sizes: CI
#                      runs it (tests/gpu/emulated.sh), so the script itself
#                      is tested on every run.
#
# Binaries, in this order: $TLAB_GPU_BIN, or ./build-gpu (a folder made by
# tests/gpu/pack.sh on a development machine, carried along); else a build
# here (--with-cuda=yes --with-cuda-arch=90) in ./build-gpu-local, from an
# export of the tree when the tree itself is configured (a VPATH build of a
# configured tree is refused by automake).
#
# Checks (each one line "PASS name" / "FAIL name (see ...)", its output in
# $OUT/name.log; once the device gate passed, a check that skips is a FAIL):
#   env        the gate: nvidia-smi, nvcc, --version, and a lab on the device
#   kernels    tests/check_kernels: every kernel on the device against the
#              CPU backend on thousands of random layouts
#   index      tests/check_index: advanced indexing on the device vs the CPU
#   device     tests/check_cuda: probe, pointer kinds, counters, errors, the
#              self-overlap cases (a racy launch would differ)
#   backend    tests/check_backend (in-process: CK_FORK=no) on every backend
#   corpus     the fixture corpus on the device; its failures must be the
#              simulator's (the known device differences), case for case
#   golden     the golden files on the device vs the simulator
#   sheets     every shipped sheet: `tlab check --format json` on the device
#              and on the simulator give the same scorecard but "used"
#   blocking   the answer sheets with TLAB_CUDA_LAUNCH_BLOCKING=1 (a sync
#              after every launch) give the queued launches' scorecards
#   jobs       `tlab grade --jobs 8` on the device is byte-identical to -j1
#   big        large sizes (GPU: 2^24 and 2^27 elements; emulated: 2^14 and
#              2^16) for every kernel family, device vs CPU, bit for bit
#   oom        a real out-of-memory (208 GiB with the ledger raised) gives
#              PyTorch's "CUDA out of memory" error, not a crash
#   memcheck   compute-sanitizer --tool memcheck on check_kernels and
#              check_index (emulated: the same programs under the
#              simulator's own checks: live pointers, races, poison)
#   initcheck  compute-sanitizer --tool initcheck on the same programs
# Measured, not counted (a performance target is not a correctness check):
#   bandwidth  bench/gpu_bandwidth vs cudaMemcpyAsync device to device; the
#              target is 70 % for transpose and broadcast at 2^24 and above
# The last line is "N passed, N failed, N skipped".

set -u
root=$(pwd)
self=$0
case $self in /*) ;; *) self=$root/$self ;; esac

# ---- the checks (each runs in its own process: run.sh --check NAME)

# on_dev CMD...: CMD against the device under test; on_sim CMD...: against
# the simulator (the reference the device is compared with)
on_dev() {
    if [ "$mode" = emulated ]; then env TLAB_EMULATE_CUDA=1 "$@"; else env -u TLAB_EMULATE_CUDA "$@"; fi
}
on_sim() { env TLAB_EMULATE_CUDA=1 "$@"; }

check_kernels() {
    if [ "$mode" = emulated ]; then on_dev "$bin/tests/check_kernels" --cases 1000
    else on_dev "$bin/tests/check_kernels" --device cuda --cases 2000; fi
}
check_index() { on_dev env CK_DEFAULT_TIMEOUT=60 "$bin/tests/check_index"; }
check_device() { on_dev env CK_DEFAULT_TIMEOUT=60 "$bin/tests/check_cuda"; }
check_backend() { on_dev env CK_FORK=no CK_DEFAULT_TIMEOUT=60 "$bin/tests/check_backend"; }

check_corpus() {
    fx="env top_srcdir=$root TLAB_FIXTURES_ALL=1 TLAB_FIXTURES_NOFORK=1 TLAB_FIXTURES_DIR=$root/tests/fixtures"
    # every mismatch, listed (hash, op, field), on the device and on the
    # simulator: the device must fail exactly the simulator's cases (the
    # device differences device_cuda.sh knows, e.g. "CUDABFloat16Type")
    # shellcheck disable=SC2086 # $fx is a word list
    on_dev $fx TLAB_FIXTURES_DEVICE="$devname" TLAB_FIXTURES_WRITE_KNOWN="$OUT/corpus-dev.known" \
        "$bin/tests/check_fixtures" >"$OUT/corpus-dev.out" 2>&1
    # shellcheck disable=SC2086
    on_sim $fx TLAB_FIXTURES_DEVICE=cuda TLAB_FIXTURES_WRITE_KNOWN="$OUT/corpus-sim.known" \
        "$bin/tests/check_fixtures" >"$OUT/corpus-sim.out" 2>&1
    tail -n 3 "$OUT/corpus-dev.out"
    if [ ! -f "$OUT/corpus-dev.known" ] || [ ! -f "$OUT/corpus-sim.known" ]; then
        echo "no mismatch lists written"
        return 1
    fi
    if ! cmp -s "$OUT/corpus-dev.known" "$OUT/corpus-sim.known"; then
        echo "the device fails other fixture cases than the simulator:"
        diff "$OUT/corpus-sim.known" "$OUT/corpus-dev.known" | head -n 30
        return 1
    fi
    echo "device and simulator fail the same $(grep -c . "$OUT/corpus-dev.known") cases"
}

check_golden() {
    status=0
    for f in "$root"/tests/golden/*.test; do
        on_dev env TLAB_GOLDEN_DEVICE="$devname" "$TLAB" --run-tests "$f" >"$OUT/golden-dev.out" 2>&1
        on_sim env TLAB_GOLDEN_DEVICE=cuda "$TLAB" --run-tests "$f" >"$OUT/golden-sim.out" 2>&1
        if ! cmp -s "$OUT/golden-dev.out" "$OUT/golden-sim.out"; then
            echo "$(basename "$f"): device and simulator differ:"
            diff "$OUT/golden-sim.out" "$OUT/golden-dev.out" | head -n 20
            status=1
        fi
        echo "$(basename "$f"): $(tail -n 1 "$OUT/golden-dev.out")"
    done
    return "$status"
}

# card HOW SHEET: the sheet's scorecard on the device (dev), on the
# simulator (sim), or on the device with a sync after every launch
# (blocking), its "used" line dropped
card() {
    # shellcheck disable=SC2086 # $req is empty or one flag
    case $1 in
    dev) on_dev "$TLAB" check --format json --device cuda $req "$2" ;;
    sim) on_sim "$TLAB" check --format json --device cuda "$2" ;;
    blocking) on_dev env TLAB_CUDA_LAUNCH_BLOCKING=1 "$TLAB" check --format json \
        --device cuda $req "$2" ;;
    esac 2>&1 | grep -v '"used":'
}

# same_cards A B SHEET...: every sheet's scorecard the same both ways
same_cards() {
    a=$1 b=$2
    shift 2
    status=0
    for sheet in "$@"; do
        card "$a" "$sheet" >"$OUT/sheet-$a.json"
        card "$b" "$sheet" >"$OUT/sheet-$b.json"
        if cmp -s "$OUT/sheet-$a.json" "$OUT/sheet-$b.json"; then
            echo "same: $(basename "$sheet")"
        else
            echo "DIFFER: $sheet"
            diff "$OUT/sheet-$b.json" "$OUT/sheet-$a.json" | head -n 20
            status=1
        fi
    done
    return "$status"
}

check_sheets() {
    same_cards dev sim "$root"/answers/*.yaml "$root"/labs/*.yaml "$root"/tests/students/*.yaml
}

# blocking: launches are queued without a sync (review S3); the answer
# sheets with TLAB_CUDA_LAUNCH_BLOCKING=1 must give the same scorecards
check_blocking() { same_cards dev blocking "$root"/answers/*.yaml; }

check_jobs() {
    # shellcheck disable=SC2086
    on_dev "$TLAB" grade --device cuda $req --format jsonl --jobs 1 \
        --lab "$root/labs/lab03.yaml" "$root"/tests/students/lab03-*.yaml >"$OUT/jobs1.jsonl"
    # shellcheck disable=SC2086
    on_dev "$TLAB" grade --device cuda $req --format jsonl --jobs 8 \
        --lab "$root/labs/lab03.yaml" "$root"/tests/students/lab03-*.yaml >"$OUT/jobs8.jsonl"
    [ -s "$OUT/jobs1.jsonl" ] || { echo "no records"; return 1; }
    cmp "$OUT/jobs1.jsonl" "$OUT/jobs8.jsonl"
}

# big: every kernel family on large tensors, device against CPU, bit for
# bit (the grid-stride loops past one grid, 32-bit index arithmetic)
check_big() {
    if [ "$mode" = emulated ]; then logs="14 16"; else logs="24 27"; fi
    for k in $logs; do
        r=$((1 << (k / 2)))
        c=$((1 << (k - k / 2)))
        sed -e "s/@N@/$((1 << k))/g" -e "s/@R@/$r/g" -e "s/@C@/$c/g" "$root/tests/gpu/big.py" >"$OUT/big-$k.py"
        # shellcheck disable=SC2086
        on_dev "$TLAB" exec --device cuda $req --max-bytes 48G --timeout 50 "$OUT/big-$k.py" >"$OUT/big-$k.out" 2>&1 ||
            { cat "$OUT/big-$k.out"; return 1; }
        cat "$OUT/big-$k.out"
        if grep -q ' False$' "$OUT/big-$k.out" || ! grep -q '^done' "$OUT/big-$k.out"; then
            return 1
        fi
    done
}

check_oom() {
    # 13 tensors of 16 GiB: 208 GiB, more than any one GPU has (a tensor may
    # have at most 2^31 elements in tlab)
    printf 'import torch\nxs = []\nfor i in range(13):\n    xs.append(torch.empty(2**31 - 1, dtype=torch.float64, device="cuda"))\nprint("allocated")\n' >"$OUT/oom.py"
    # shellcheck disable=SC2086
    if [ "$mode" = emulated ]; then
        on_dev env TLAB_SIM_CAPACITY=$((8 << 30)) "$TLAB" exec --device cuda --max-bytes 400G "$OUT/oom.py" >"$OUT/oom.out" 2>&1
    else
        on_dev "$TLAB" exec --device cuda $req --max-bytes 400G "$OUT/oom.py" >"$OUT/oom.out" 2>&1
    fi
    rc=$?
    cat "$OUT/oom.out"
    echo "exit status $rc"
    [ "$rc" -eq 1 ] && grep -q 'CUDA out of memory' "$OUT/oom.out"
}

# sanitize TOOL: compute-sanitizer TOOL on the kernel and index tests
sanitize() {
    if [ "$mode" = emulated ]; then
        # no CUDA runs here: the simulator's checks (live in-bounds device
        # pointers, no racing writes, poisoned new memory) are the sanitizer
        on_dev "$bin/tests/check_kernels" --cases 200 || return 1
        on_dev env CK_FORK=no "$bin/tests/check_index"
        return
    fi
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    [ -x "$cs" ] || { echo "compute-sanitizer not found"; return 1; }
    on_dev "$cs" --tool "$1" --error-exitcode 9 "$bin/tests/check_kernels" --device cuda --cases 200 || return 1
    on_dev env CK_FORK=no "$cs" --tool "$1" --error-exitcode 9 "$bin/tests/check_index"
}
check_memcheck() { sanitize memcheck; }
check_initcheck() { sanitize initcheck; }

if [ "${1:-}" = --check ]; then
    "check_$2"
    exit $?
fi

# ---- the run
mode=gpu
[ "${1:-}" = --emulated ] && mode=emulated
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/tlab-gpu.XXXXXX")}
mkdir -p "$OUT"
: >"$OUT/summary.txt"
passed=0
failed=0
skipped=0
start=$(date +%s)
# 8 minutes, less the final lines (TLAB_GPU_BUDGET=SECONDS: less, for a
# lease with little device time left)
deadline=$((start + ${TLAB_GPU_BUDGET:-470}))

note() { printf '%s\n' "$*" | tee -a "$OUT/summary.txt"; }
pass() { passed=$((passed + 1)); note "PASS $1"; }
fail() { failed=$((failed + 1)); note "FAIL $1 (see $OUT/$1.log)"; }
finish() {
    note "elapsed $(($(date +%s) - start)) s ($mode)"
    note "$passed passed, $failed failed, $skipped skipped"
    exit "$1"
}

# no NVIDIA device at all: skip before building anything
# (TLAB_GPU_ASSUME_DEVICE=1: go on to the gate anyway; tests/gpu/selftest.sh)
if [ "$mode" = gpu ] && [ "${TLAB_GPU_ASSUME_DEVICE:-0}" != 1 ] &&
    ! ls /dev/nvidia[0-9]* >/dev/null 2>&1 &&
    ! nvidia-smi -L >/dev/null 2>&1; then
    skipped=$((skipped + 1))
    note "SKIP all: no GPU (no /dev/nvidia* device, nvidia-smi -L fails)"
    finish 77
fi

# ---- binaries
bin=${TLAB_GPU_BIN:-$root/build-gpu}
if [ ! -x "$bin/tlab" ] && [ "$mode" = emulated ] && [ -x "$root/tlab" ]; then
    bin=$root
fi
if [ ! -x "$bin/tlab" ]; then
    bin=$root/build-gpu-local
    if [ ! -x "$bin/tlab" ]; then
        src=$root
        {
            if [ -f "$root/config.status" ]; then
                # a configured tree refuses a VPATH build: build an export
                src=$OUT/src
                mkdir -p "$src" &&
                    (cd "$root" && git ls-files -co --exclude-standard | tar -cf - -T -) | (cd "$src" && tar -xf -)
            fi &&
                { [ -x "$src/configure" ] || (cd "$src" && autoreconf -fi); } &&
                mkdir -p "$bin" && cd "$bin" &&
                "$src/configure" --with-cuda=yes --with-cuda-arch=90 &&
                make -j16 tlab tests/check_kernels tests/check_cuda tests/check_fixtures tests/check_index \
                    tests/check_backend bench/gpu_bandwidth
        } >"$OUT/build.log" 2>&1 || {
            failed=$((failed + 1))
            note "FAIL build (see $OUT/build.log): carry a tests/gpu/pack.sh folder instead"
            finish 1
        }
        cd "$root" || exit 1
    fi
fi
if [ -d "$bin/lib" ]; then
    LD_LIBRARY_PATH=$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export LD_LIBRARY_PATH
fi
TLAB=$bin/tlab
if [ "$mode" = emulated ]; then devname=cuda req=""; else devname=gpu req=--require-gpu; fi
export TLAB bin root OUT mode devname req

# ---- the gate: is the device there?
{
    nvidia-smi 2>&1 || echo "nvidia-smi: not available"
    nvcc --version 2>&1 || /usr/local/cuda/bin/nvcc --version 2>&1 || echo "nvcc: not available"
    "$TLAB" --version
} >"$OUT/env.log" 2>&1
# shellcheck disable=SC2086
on_dev "$TLAB" run --device cuda $req "$root/labs/lab01.yaml" >"$OUT/gate.log" 2>&1
rc=$?
cat "$OUT/gate.log" >>"$OUT/env.log"
if [ "$rc" -eq 2 ] && grep -q -- '--require-gpu: no GPU is available' "$OUT/gate.log"; then
    skipped=$((skipped + 1))
    note "SKIP all: tlab --require-gpu refuses: $(tail -n 1 "$OUT/gate.log")"
    finish 77
elif [ "$rc" -eq 0 ]; then
    pass env
else
    echo "exit status $rc" >>"$OUT/env.log"
    failed=$((failed + 1))
    note "FAIL env (see $OUT/env.log): the gate failed, and not with a clean 'no GPU'"
fi

# ---- the checks, each in its own process under a time limit
# (the cheapest and most telling first: a short budget still runs them)
for name in kernels device index backend big oom sheets blocking jobs golden corpus memcheck initcheck; do
    left=$((deadline - $(date +%s)))
    if [ "$left" -lt 5 ]; then
        failed=$((failed + 1))
        note "FAIL $name (not run: the global deadline passed)"
        continue
    fi
    # big: 2^24 and 2^27 elements, and the CPU reference computes them too
    cap=60
    [ "$name" = big ] && cap=150
    limit=$((left < cap ? left : cap))
    t0=$(date +%s)
    timeout -k 5 "$limit" sh "$self" --check "$name" >"$OUT/$name.log" 2>&1
    rc=$?
    echo "check $name: $(($(date +%s) - t0)) s" >>"$OUT/times.txt"
    if [ "$rc" -eq 0 ]; then
        pass "$name"
    else
        [ "$rc" -eq 124 ] && echo "timed out after $limit s" >>"$OUT/$name.log"
        echo "exit status $rc" >>"$OUT/$name.log"
        fail "$name"
    fi
done

# ---- measured, not counted
if [ "$mode" = gpu ] && [ -x "$bin/bench/gpu_bandwidth" ]; then
    left=$((deadline - $(date +%s)))
    if [ "$left" -gt 10 ]; then
        timeout -k 5 $((left < 90 ? left : 90)) "$bin/bench/gpu_bandwidth" >"$OUT/bandwidth.tsv" 2>"$OUT/bandwidth.log"
        note "MEASURE bandwidth (exit $?): $OUT/bandwidth.tsv"
        # each size's specialised row comes before its -generic row
        awk -F '\t' '($1 == "transpose" || $1 == "broadcast") && $2 >= 24 { r[$1 "@" $2] = $6 }
                     ($1 == "transpose-generic" || $1 == "broadcast-generic") && $2 >= 24 {
                         k = substr($1, 1, index($1, "-") - 1)
                         printf "MEASURE %s 2^%s: %.0f %% of memcpy, %.0f %% with the generic loop (target 70 %%)\n",
                                k, $2, r[k "@" $2] * 100, $6 * 100 }' \
            "$OUT/bandwidth.tsv" | tee -a "$OUT/summary.txt"
    fi
else
    note "MEASURE bandwidth: not measured ($mode)"
fi

[ "$failed" -eq 0 ] && finish 0
finish 1
