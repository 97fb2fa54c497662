#!/bin/sh
# shellcheck disable=SC2154 # $work, $top_builddir come from tests/setup
# tests/gpu/selftest.sh - make check's view of tests/gpu/run.sh, which only
# a GPU machine really runs: it must pass shellcheck (when installed), and
# here, without a usable GPU, exit 77 quickly with the "SKIP all" line and
# the final "N passed, N failed, N skipped" line, leaving its logs in $OUT,
# wherever it is started.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
set +e
script=$top_srcdir/tests/gpu/run.sh
if command -v shellcheck >/dev/null 2>&1; then
    shellcheck -s sh "$script" "$top_srcdir/tests/gpu/pack.sh" "$top_srcdir/tests/gpu/ptxas.sh" || fail "shellcheck: tests/gpu/run.sh"
else
    echo "shellcheck not installed: lint skipped"
fi
# (make check sets TLAB_EMULATE_CUDA=1, which hides a real GPU: ask without it)
if env -u TLAB_EMULATE_CUDA "$TLAB" run --device cuda --require-gpu "$top_srcdir/labs/lab01.yaml" >/dev/null 2>&1; then
    echo "a GPU is usable here: run tests/gpu/run.sh itself"
    exit 77
fi
# runs: where started (TLAB_GPU_BIN, a configured or bare tree), and with
# the device check bypassed so that the gate's clean refusal is the skip
expect_skip() { # NAME SKIP-LINE-PREFIX DIR ENV...
    name=$1 prefix=$2 dir=$3
    shift 3
    mkdir -p "$work/out-$name"
    (cd "$dir" && env "$@" OUT="$work/out-$name" sh "$script") >"$work/log-$name" 2>&1
    rc=$?
    cat "$work/log-$name"
    [ "$rc" -eq 77 ] || fail "run.sh ($name) without a GPU: exit $rc, expected 77"
    grep -q "^SKIP all: $prefix" "$work/log-$name" || fail "$name: no 'SKIP all: $prefix' line"
    [ "$(tail -n 1 "$work/log-$name")" = "0 passed, 0 failed, 1 skipped" ] ||
        fail "$name: last line: $(tail -n 1 "$work/log-$name")"
    [ -s "$work/out-$name/summary.txt" ] || fail "$name: no summary in \$OUT"
}
expect_skip binaries "no GPU" "$top_srcdir" TLAB_GPU_BIN="$top_builddir"
# the source tree as the README builds it (configured in place, or not)
expect_skip tree "no GPU" "$top_srcdir" -u TLAB_GPU_BIN
# a fresh clone: the script in a folder with nothing built
mkdir -p "$work/clone/tests/gpu"
cp "$script" "$work/clone/tests/gpu/run.sh"
script_in_clone=$work/clone/tests/gpu/run.sh
(cd "$work/clone" && OUT="$work/out-clone" sh "$script_in_clone") >"$work/log-clone" 2>&1
[ $? -eq 77 ] || { cat "$work/log-clone"; fail "run.sh in a bare clone: not 77"; }
expect_skip gate "tlab --require-gpu refuses" "$top_srcdir" TLAB_GPU_BIN="$top_builddir" TLAB_GPU_ASSUME_DEVICE=1
[ -s "$work/out-gate/env.log" ] || fail "no env.log in \$OUT"
exit 0
