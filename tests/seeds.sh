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

# The same statements as a lab's setup: `tlab run` must exit 0. Then one
# false assert appended to the setup must stop the lab with exit 2, naming
# the setup line and AssertionError.
as_lab() { # SCRIPT [EXTRA-LINE] > lab.yaml
    printf 'tlab: 1\nid: seed\ntitle: seed\nthreshold: 1\nparent: probe\nsetup: |\n'
    sed 's/^/  /' "$1"
    printf '  probe = torch.arange(6)\n'
    [ -z "${2:-}" ] || printf '  %s\n' "$2"
    printf 'ops:\n  - id: "1"\n    op: probe.view(2, 3)\n'
}
for f in "$top_srcdir"/tests/seeds/*.py; do
    name=$(basename "$f" .py)
    as_lab "$f" > "$work/$name.yaml"
    if "$TLAB" run --color never "$work/$name.yaml" >"$work/out" 2>&1; then
        echo "ok: tlab run with $name as setup"
    else
        echo "FAIL: tlab run with $name as setup" >&2
        cat "$work/out" >&2
        failures=$((failures + 1))
    fi
    as_lab "$f" 'assert probe.is_contiguous() is False' > "$work/$name-false.yaml"
    line=$(grep -n 'assert probe.is_contiguous() is False' "$work/$name-false.yaml" | cut -d: -f1)
    "$TLAB" run --color never "$work/$name-false.yaml" >"$work/out" 2>&1
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q "^$work/$name-false.yaml:$line:3: error: AssertionError" "$work/out"; then
        echo "ok: a false assert in $name's setup is exit 2 at line $line"
    else
        echo "FAIL: false assert in $name's setup: exit $rc (want 2 at line $line)" >&2
        cat "$work/out" >&2
        failures=$((failures + 1))
    fi
done
[ "$failures" -eq 0 ] || exit 1
exit 0
