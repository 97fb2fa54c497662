#!/bin/sh
# tests/exec.sh - scripts through `tlab exec`, stdout and stderr against
# what real PyTorch printed (tests/exec/NAME.py -> NAME.out, NAME.err, made
# by tests/exec/gen.sh with torch 1.13.1; the script's absolute path is
# written SCRIPT in NAME.err, as Python shows it in warnings).

. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"
set +e

dir=$top_srcdir/tests/exec
failures=0
for f in "$dir"/*.py; do
    n=${f%.py}
    # Python shows the script's absolute path: run it by one
    abs=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
    "$TLAB" exec --device cpu "$abs" > "$work/out" 2> "$work/err.raw"
    sed "s|$abs|SCRIPT|g" "$work/err.raw" > "$work/err"
    if cmp -s "$n.out" "$work/out" && cmp -s "$n.err" "$work/err"; then
        echo "ok: $(basename "$f")"
    else
        echo "FAIL: $(basename "$f")"
        diff "$n.out" "$work/out" | head -n 20
        diff "$n.err" "$work/err" | head -n 20
        failures=$((failures + 1))
    fi
done
[ "$failures" -eq 0 ]
