#!/bin/sh
# tests/print.sh - print()/repr()/str() of tensors, sizes, dtypes, devices,
# storages, exceptions and f-string format specs, byte-identical to what
# PyTorch printed for the same script (tests/print/print_cases.out, from
# gen_print_goldens.py run with torch).

. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

dir=$top_srcdir/tests/print
run_tlab exec --device cpu "$dir/print_cases.py"
[ "$status" -eq 0 ] || fail "tlab exec print_cases.py: exit $status"
if ! cmp -s "$dir/print_cases.out" "$work/stdout"; then
    diff "$dir/print_cases.out" "$work/stdout" | sed -n '1,40p' >&2
    fail "print output differs from PyTorch's"
fi
echo "ok: $(wc -l < "$dir/print_cases.out") lines as PyTorch prints them"
