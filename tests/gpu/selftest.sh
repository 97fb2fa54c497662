#!/bin/sh
# shellcheck disable=SC2154 # $work, $top_builddir come from tests/setup
# tests/gpu/selftest.sh - make check's view of tests/gpu/run.sh, which only
# a GPU machine really runs: it must pass shellcheck (when installed), and
# here, without a usable GPU, exit 77 quickly with the "SKIP all" line and
# the final "N passed, N failed" line, leaving its logs in $OUT.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
set +e
script=$top_srcdir/tests/gpu/run.sh
if command -v shellcheck >/dev/null 2>&1; then
    shellcheck -s sh "$script" "$top_srcdir/tests/gpu/pack.sh" || fail "shellcheck: tests/gpu/run.sh"
else
    echo "shellcheck not installed: lint skipped"
fi
if "$TLAB" run --device cuda --require-gpu "$top_srcdir/labs/lab01.yaml" >/dev/null 2>&1; then
    echo "a GPU is usable here: run tests/gpu/run.sh itself"
    exit 77
fi
mkdir -p "$work/out"
(cd "$top_srcdir" && OUT=$work/out TLAB_GPU_BIN=$top_builddir sh "$script") >"$work/log" 2>&1
rc=$?
cat "$work/log"
[ "$rc" -eq 77 ] || fail "tests/gpu/run.sh without a GPU: exit $rc, expected 77"
grep -q '^SKIP all: tlab --require-gpu refuses' "$work/log" || fail "no SKIP line"
[ "$(tail -n 1 "$work/log")" = "0 passed, 0 failed" ] || fail "last line: $(tail -n 1 "$work/log")"
if [ ! -s "$work/out/summary.txt" ] || [ ! -s "$work/out/env.log" ]; then
    fail "no logs in \$OUT"
fi
exit 0
