#!/bin/sh
# tests/valgrind.sh - `tlab check`, `tlab run` and `tlab key` of every sheet
# in labs/, answers/, tests/students/ and tests/sheets/ under valgrind
# (memcheck, --leak-check=full): no invalid access, no use of
# uninitialised memory, no definite leak, on every path a real sheet takes.
#
# Slow, so it runs only with `./configure --enable-valgrind` (which sets
# TLAB_VALGRIND=1 for the tests) or `make check TLAB_VALGRIND=1`; tests/setup
# then wraps $TLAB in valgrind with --error-exitcode=99. Skipped otherwise.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

[ "${TLAB_VALGRIND:-0}" = 1 ] || skip "valgrind runs only with --enable-valgrind or TLAB_VALGRIND=1"
command -v "${VALGRIND:-valgrind}" >/dev/null 2>&1 || skip "valgrind not found"

n=0
for f in "$top_srcdir"/labs/*.yaml "$top_srcdir"/answers/*.yaml \
         "$top_srcdir"/tests/students/*.yaml "$top_srcdir"/tests/sheets/*.yaml; do
    [ -f "$f" ] || continue
    for cmd in check run key; do
        n=$((n + 1))
        run_tlab "$cmd" --format json "$f" # fails on valgrind errors (99)
        case $cmd in
        check) [ "$status" -le 1 ] || fail "$cmd $f: exit status $status" ;;
        *) [ "$status" = 0 ] || fail "$cmd $f: exit status $status" ;;
        esac
    done
done
[ "$n" -gt 0 ] || skip "no sheets found"
# the text reports and the error paths too, on one sheet
f=$top_srcdir/tests/sheets/basic.yaml
run_tlab check "$f"
run_tlab new "$f"
[ "$status" = 0 ] || fail "new: exit status $status"
printf 'tlab: 1\nops: [{op: x.t(}]\n' > "$work/bad.yaml"
run_tlab check "$work/bad.yaml"
[ "$status" = 2 ] || fail "invalid sheet: exit status $status"
run_tlab grade --lab "$f" "$f" "$work/bad.yaml"
[ "$status" = 0 ] || fail "grade: exit status $status"
echo "valgrind.sh: $((n + 4)) runs without valgrind errors"
