#!/bin/sh
# tests/exec.sh - scripts through `tlab exec`, stdout and stderr against
# what real PyTorch printed (tests/exec/NAME.py -> NAME.out, NAME.err, made
# by tests/exec/gen.sh with torch 1.13.1; the script's absolute path is
# written SCRIPT in NAME.err, as Python shows it in warnings).
# autograd_ops.py runs again on --device cuda (the emulated device: make
# check sets TLAB_EMULATE_CUDA=1): the same goldens, once tensors' reprs lose
# their ", device='cuda:0'" (the index ops' grad probes live on the device).

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
for n in autograd_ops; do
    abs=$(cd "$dir" && pwd)/$n.py
    TLAB_EMULATE_CUDA=${TLAB_EMULATE_CUDA:-1} "$TLAB" exec --device cuda "$abs" \
        > "$work/out.raw" 2> "$work/err.raw"
    sed "s/, device='cuda:0'//g" "$work/out.raw" > "$work/out"
    sed "s|$abs|SCRIPT|g; s/, device='cuda:0'//g" "$work/err.raw" > "$work/err"
    if cmp -s "$dir/$n.out" "$work/out" && cmp -s "$dir/$n.err" "$work/err"; then
        echo "ok: $n.py (cuda)"
    else
        echo "FAIL: $n.py (cuda)"
        diff "$dir/$n.out" "$work/out" | head -n 20
        diff "$dir/$n.err" "$work/err" | head -n 20
        failures=$((failures + 1))
    fi
done
[ "$failures" -eq 0 ]
