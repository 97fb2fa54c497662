#!/bin/sh
# shellcheck disable=SC2154 # $work, $top_builddir come from tests/setup
# tests/gpu/emulated.sh - the dry run of tests/gpu/run.sh: every check of
# the GPU script, the same commands, on the emulated device (the grid
# simulator) with this build's binaries. It must end "N passed, 0 failed,
# 0 skipped" with N at least 10, so the script a GPU machine runs is tested
# on every CI run.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
set +e
mkdir -p "$work/out"
(cd "$top_srcdir" && OUT=$work/out TLAB_GPU_BIN=$top_builddir sh tests/gpu/run.sh --emulated) >"$work/log" 2>&1
rc=$?
cat "$work/log"
last=$(tail -n 1 "$work/log")
[ "$rc" -eq 0 ] || {
    for f in "$work"/out/*.log; do
        grep -q "^FAIL $(basename "$f" .log) " "$work/log" && { echo "--- $f"; tail -n 30 "$f"; }
    done
    fail "tests/gpu/run.sh --emulated: exit $rc ($last)"
}
n=$(echo "$last" | sed -n 's/^\([0-9][0-9]*\) passed, 0 failed, 0 skipped$/\1/p')
[ -n "$n" ] || fail "last line: $last"
[ "$n" -ge 10 ] || fail "only $n checks ran"
grep -q '^PASS big$' "$work/log" || fail "no big check"
exit 0
