#!/bin/sh
# tests/seeds_exec.sh - the lessons' own code blocks through `tlab exec`.
#
# tests/seeds/exec/SEED_kk.py are the code blocks of ../shared/seeds/ that
# stay within SPEC 6, verbatim; SEED_kk.out is what real PyTorch printed for
# blocks 1..k of that seed run in order (gen_seed_goldens.py, with torch).
# Blocks build on earlier ones, so block k runs after 1..k-1 on stdin and
# the whole output must be byte-identical. SEED_syntax_ii.py are blocks that
# CPython rejects as printed: tlab must refuse them too (exit 2, located).

. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"
set +e

dir=$top_srcdir/tests/seeds/exec
failures=0
count=0
for seed in 001 003 004; do
    prev=""
    for f in "$dir/${seed}"_[0-9][0-9].py; do
        [ -e "$f" ] || continue
        prev="$prev $f"
        : > "$work/expected"
        for g in $prev; do cat "${g%.py}.out" >> "$work/expected"; done
        # shellcheck disable=SC2086
        cat $prev > "$work/script.py"
        "$TLAB" exec --device cpu - < "$work/script.py" > "$work/actual" 2> "$work/stderr"
        rc=$?
        count=$((count + 1))
        if [ "$rc" -eq 0 ] && cmp -s "$work/expected" "$work/actual"; then
            echo "ok: $(basename "$f")"
        else
            echo "FAIL: $(basename "$f") (exit $rc)" >&2
            diff "$work/expected" "$work/actual" | sed -n '1,30p' >&2
            sed -n '1,10p' "$work/stderr" >&2
            failures=$((failures + 1))
        fi
    done
done
[ "$count" -ge 20 ] || { echo "FAIL: only $count seed blocks found" >&2; exit 1; }

for f in "$dir"/*_syntax_*.py; do
    [ -e "$f" ] || continue
    "$TLAB" exec --device cpu "$f" > "$work/actual" 2> "$work/stderr"
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q ":[0-9]*:[0-9]*: error: syntax error: unterminated string literal" "$work/stderr" \
        && [ ! -s "$work/actual" ]; then
        echo "ok: $(basename "$f") refused as CPython refuses it"
    else
        echo "FAIL: $(basename "$f"): exit $rc" >&2
        cat "$work/stderr" >&2
        failures=$((failures + 1))
    fi
done
[ "$failures" -eq 0 ] || exit 1
exit 0
