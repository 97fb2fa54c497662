#!/bin/sh
# tests/seeds.sh - run the lesson code samples (tests/seeds/*.py: the
# dense-tensor code of ../shared/seeds/ as plain Python scripts whose
# asserts hold under real PyTorch) through tlab: `tlab --run-tests F.py`
# executes a .py file as one %%EXEC record, so every statement must run and
# every assert must hold.

. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"
set +e

failures=0
for f in "$top_srcdir"/tests/seeds/*.py; do
    if "$TLAB" --run-tests "$f" >"$work/out" 2>&1; then
        echo "ok: $(basename "$f")"
    else
        echo "FAIL: $(basename "$f")" >&2
        cat "$work/out" >&2
        failures=$((failures + 1))
    fi
done
[ "$failures" -eq 0 ] || exit 1
exit 0
