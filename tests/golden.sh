#!/bin/sh
# tests/golden.sh - run every golden file (tests/golden/*.test: expression
# records, %%FAIL diagnostics, %%EXEC statements; format in src/golden.c)
# through the real binary with `tlab --run-tests`.
#
# The expected results were generated from PyTorch by
# tests/golden/gen_golden.py (maintainers only; no Python at test time);
# fail.test was written by hand. Collects every failing file, then exits 1.

. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"
set +e

failures=0
for f in "$top_srcdir"/tests/golden/*.test; do
    "$TLAB" --run-tests "$f" >"$work/out" 2>&1
    rc=$?
    tail -n 1 "$work/out" | sed "s|^|$(basename "$f"): |"
    if [ "$rc" -ne 0 ]; then
        cat "$work/out" >&2
        failures=$((failures + 1))
    fi
done
[ "$failures" -eq 0 ] || { echo "golden.sh: $failures file(s) failed" >&2; exit 1; }
exit 0
