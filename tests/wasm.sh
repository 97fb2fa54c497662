#!/bin/sh
# tests/wasm.sh - tlab.wasm (issue #25, `make wasm`) answers as the native
# binary does: stdout and the exit status byte for byte, run under Node's
# node:wasi (tests/wasm_run.mjs), for `check` of every sheet under answers/,
# labs/ and tests/students/ (text, and json and html for answers/), `run`,
# `key`, `new` and `explain` of every lab and answer sheet, `exec` of every
# seed block; and --jobs 2 is refused there (exit 2, one clear message).
# The runs go 4 at a time (CI has 2 cores; each is mostly node starting).
# Skipped (77) without tlab.wasm or node (configure found no wasm32-wasi
# clang or no node: make check builds tlab.wasm when it finds both).
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

wasm=${TLAB_WASM:-$top_builddir/tlab.wasm}
node=${NODE:-node}
[ -f "$wasm" ] || skip "no tlab.wasm (make wasm; needs clang with wasi-libc)"
command -v "$node" > /dev/null 2>&1 || skip "no node (Node 20 runs tlab.wasm)"
run=$top_srcdir/tests/wasm_run.mjs
if ! "$node" "$run" "$wasm" --version > /dev/null 2>&1; then
    # CI installs a node that runs it: there, that is a failure
    [ "${CI:-}" = true ] && fail "node cannot run tlab.wasm: $("$node" "$run" "$wasm" --version 2>&1 | head -3)"
    skip "node cannot run tlab.wasm (node:wasi needs Node >= 18)"
fi

cd "$top_srcdir" # the guest sees this directory: relative paths only
cases=$work/cases
: > "$cases"
for f in answers/*.yaml labs/*.yaml tests/students/*.yaml; do
    echo "check $f" >> "$cases"
done
for f in labs/*.yaml answers/*.yaml; do
    echo "run $f" >> "$cases"
    echo "key $f" >> "$cases"
    echo "new $f" >> "$cases"
    echo "explain --lab $f 1" >> "$cases"
done
for f in answers/*.yaml; do
    echo "check --format json $f" >> "$cases"
    echo "check --format html $f" >> "$cases"
done
for f in tests/seeds/exec/*.py; do
    echo "exec $f" >> "$cases"
done
echo "check --lab labs/lab01.yaml tests/students/lab01-fail.yaml" >> "$cases"
echo "explain --lab labs/lab01.yaml 1" >> "$cases"
echo "explain -s x=torch.arange(12).reshape(3,4) x.t()" >> "$cases"
echo "explain -s x=torch.arange(6) x.view(4,2)" >> "$cases"
echo "check tests/students/no-such-sheet.yaml" >> "$cases"

# one case: N ARGS... -> $work/N.{native,wasm}{,.rc}
export TLAB node run wasm work
awk '{ print NR " " $0 }' "$cases" | tr '\n' '\0' | xargs -0 -n 1 -P 4 sh -c '
    set -- $1
    n=$1; shift
    "$TLAB" "$@" > "$work/$n.native" 2> /dev/null; echo $? > "$work/$n.native.rc"
    "$node" "$run" "$wasm" "$@" > "$work/$n.wasm" 2> "$work/$n.wasm.err"; echo $? > "$work/$n.wasm.rc"
' sh

bad=0
n=0
while IFS= read -r c; do
    n=$((n + 1))
    if ! cmp -s "$work/$n.native" "$work/$n.wasm" ||
       ! cmp -s "$work/$n.native.rc" "$work/$n.wasm.rc"; then
        echo "DIFF: tlab $c (exit $(cat "$work/$n.native.rc") native, $(cat "$work/$n.wasm.rc") wasm)" >&2
        diff "$work/$n.native" "$work/$n.wasm" | head -10 >&2 || true
        head -5 "$work/$n.wasm.err" >&2
        bad=$((bad + 1))
    fi
done < "$cases"
[ "$bad" = 0 ] || fail "$bad of $n commands differ between tlab.wasm and tlab"
echo "tlab.wasm = tlab on $n commands"

# no threads there: --jobs N > 1 is refused, --jobs 1 grades
set +e
"$node" "$run" "$wasm" grade --jobs 2 --lab labs/lab01.yaml answers/lab01.yaml \
    > "$work/jobs.out" 2> "$work/jobs.err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "tlab.wasm grade --jobs 2: exit $rc (want 2)"
grep -q 'jobs 2 is unavailable in this build' "$work/jobs.err" ||
    fail "tlab.wasm --jobs 2: $(cat "$work/jobs.err")"
exit 0
