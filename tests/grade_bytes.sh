#!/bin/sh
# tests/grade_bytes.sh - `tlab grade` and `check --lab` output, byte for
# byte, against committed checksums (tests/grade-bytes.sha256): every
# format (csv, text, json, junit, tap, gradescope, prairielearn, github with
# its $GITHUB_STEP_SUMMARY, jsonl, html), the class summary on stderr and
# the exit status, for ~60 mixed submissions (every shipped student, answer
# and blank sheet, tampered, hostile, unreadable and missing ones) graded on
# four masters. It pins what the reports print when the grading internals
# change (e.g. how long a sheet's state is kept, issue #15); the other
# grade tests check the meaning of the output.
#
# The version string is replaced by @VERSION@ before the sums; the ops run
# on --device cpu, so a GPU machine prints the same. After an intended
# change of output, compare by hand (TLAB_GRADE_BYTES_KEEP=DIR with the old
# and the new binary, then diff -r) and rewrite the sums:
#   TLAB_GRADE_BYTES_REGEN=1 make check TESTS=tests/grade_bytes.sh
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

students=$top_srcdir/tests/students
expected=$top_srcdir/tests/grade-bytes.sha256
cd "$work"   # every path in the output relative and fixed
mkdir -p labs sub got
for l in lab01 lab02 lab03 lab05; do cp "$top_srcdir/labs/$l.yaml" labs/; done

# ---- the submissions
n=0
for s in "$students"/*.yaml "$top_srcdir"/answers/*.yaml "$top_srcdir"/labs/*.yaml; do
    cp "$s" "sub/$(printf 's%02d' "$n")-$(basename "$s")"
    n=$((n + 1))
done
# by hand, with TLAB_GRADE_BYTES_KEEP: more copies of them (no sums then)
copies=${TLAB_GRADE_BYTES_COPIES:-1}
k=1
while [ "$k" -lt "$copies" ]; do
    for s in sub/s*.yaml; do
        cp "$s" "sub/c$k-${s#sub/}"
    done
    k=$((k + 1))
done
f=$students/lab01-fail.yaml
p=$students/lab01-pass.yaml
printf 'ops: [\n' > sub/x-invalid.yaml
: > sub/x-empty.yaml
printf 'tlab: 1\nid: lab01\nops:\n  - id: "1"\n    op: x[1:]\n    predict: 42\n' > sub/x-badtype.yaml
printf 'tlab: 1\nid: lab01\nops:\n  - id: "1"\n    op: x[1:]\n  - id: "1"\n    op: x\n' > sub/x-dupid.yaml
mkdir sub/x-dir.yaml
ln -s "$p" sub/x-link.yaml
sed 's/^threshold: 16/threshold: 0/' "$f" > sub/x-threshold.yaml
sed 's/reshape(4, 6)/reshape(6, 4)/' "$p" > sub/x-setup.yaml
awk '/^    op: / && !done { print "    op: x.clone()"; done = 1; next } { print }' "$f" > sub/x-ops.yaml
awk '/^    predict: / && !done { print; print "    accept: [view, copy, alias, error, sometimes, value]"; done = 1; next } { print }' \
    "$f" > sub/x-accept.yaml
sed -e 's/^    mention_any: .*/    mention_any: [the]/' -e 's/^    min_words: .*/    min_words: 0/' "$f" > sub/x-questions.yaml
sed '/^ops:/,$ s/predict: view/predict: copy/' "$p" > sub/x-allcopy.yaml
sed '/^ops:/,$ s/^    rule: .*/    rule: i ran it/' "$p" > sub/x-rules.yaml
sed '/^ops:/,$ s/^    predict: view$/    predict: {kind: view, shape: [2, 3], contiguous: false}/' "$p" > sub/x-fields.yaml
cp "$p" 'sub/x-we,ird "quote" <&>.yaml'
cat > sub/x-evil.yaml <<'YAML'
tlab: 1
id: "lab\e]0;pwned\a\e[2J"
title: "T\e[31mred\x1b[0m\u009b1m\x7f"
threshold: 1
setup: |
  import torch
  x = torch.arange(24, dtype=torch.float32).reshape(4, 6)
ops:
  - id: "op\e[2J\n::error::injected"
    op: "x.t()  # \e]8;;http://evil\a"
    predict: copy
    rule: "view\x07\r\n::warning::fake\u2028\u202e"
  - id: "1"
    op: x[1:]
    predict: {kind: error, error: "Runtime\e[8mError"}
    rule: ok rule
questions:
  - id: "q\e(0"
    prompt: "prompt\e[1A\e[K"
    answer: "strides and storage\e[?1049h\n::error file=x::owned"
    mention_any: ["stride"]
YAML
for x in invalid empty badtype dupid threshold setup ops accept questions allcopy rules fields evil; do
    [ -e "sub/x-$x.yaml" ] || fail "sub/x-$x.yaml not written"
done
cmp -s sub/x-fields.yaml "$p" && fail "x-fields.yaml: the edit did nothing"
cmp -s sub/x-rules.yaml "$p" && fail "x-rules.yaml: the edit did nothing"
set -- sub/*.yaml sub/x-missing.yaml

# record NAME COMMAND...: stdout, stderr, the exit status (and for github
# the step summary) of one run into got/NAME.out
record() {
    name=$1
    shift
    rm -f summary.md
    set +e
    GITHUB_STEP_SUMMARY=$work/summary.md "$TLAB" "$@" > out 2> err
    rc=$?
    set -e
    {
        cat out
        echo "--- stderr"
        cat err
        echo "--- exit $rc"
        if [ -f summary.md ]; then
            echo "--- GITHUB_STEP_SUMMARY"
            cat summary.md
        fi
    } > "got/$name.out"
}

formats='csv text json junit tap gradescope prairielearn github jsonl html'
for l in lab01 lab02 lab03 lab05; do
    for fmt in $formats; do
        record "grade-$l-$fmt" grade --device cpu --lab "labs/$l.yaml" --format "$fmt" --jobs 3 "$@"
    done
done
# the default format, -o, --quiet
record grade-lab01-default grade --device cpu --lab labs/lab01.yaml "$@"
record grade-lab01-o-html grade --device cpu --lab labs/lab01.yaml --format html -o class.html "$@"
cat class.html >> got/grade-lab01-o-html.out
record grade-lab01-quiet-text grade --device cpu --lab labs/lab01.yaml --format text -q --jobs 2 "$@"
# check --lab: one sheet on its master
for c in lab01:s00-lab01-fail lab01:s02-lab01-iranit lab03:s08-lab03-pass lab01:x-fields \
         lab01:x-evil lab01:x-invalid lab01:x-rules lab03:s00-lab01-fail; do
    m=${c%%:*} s=${c#*:}
    [ -f "sub/$s.yaml" ] || fail "no sub/$s.yaml"
    for fmt in $formats; do
        record "check-$m-$s-$fmt" check --device cpu --lab "labs/$m.yaml" --format "$fmt" "sub/$s.yaml"
    done
done

# the version string is the only thing allowed to change
version=$("$TLAB" --version | head -n 1 | awk '{print $NF}')
[ -n "$version" ] || fail "no version from tlab --version"
for g in got/*.out; do
    sed "s/$version/@VERSION@/g" "$g" > norm && mv norm "$g"
done
(cd got && sha256sum -- *.out) > got.sha256
if [ -n "${TLAB_GRADE_BYTES_KEEP:-}" ]; then   # for a diff by hand
    mkdir -p "$TLAB_GRADE_BYTES_KEEP"
    cp got/*.out "$TLAB_GRADE_BYTES_KEEP"/
fi
[ "$copies" = 1 ] || exit 0
if [ "${TLAB_GRADE_BYTES_REGEN:-0}" = 1 ]; then
    cp got.sha256 "$expected"
    echo "grade_bytes.sh: $(wc -l < got.sha256) sums written to $expected"
    exit 0
fi
[ "$(wc -l < got.sha256)" -ge 120 ] || fail "only $(wc -l < got.sha256) outputs"
if ! cmp -s "$expected" got.sha256; then
    diff "$expected" got.sha256 | grep '^[<>]' | awk '{print $NF}' | sort -u | while read -r g; do
        echo "--- $g differs from the recorded output; it begins:" >&2
        head -n 5 "got/$g" >&2 2>/dev/null || echo "(no such output)" >&2
    done
    fail "outputs differ from tests/grade-bytes.sha256 (TLAB_GRADE_BYTES_KEEP=DIR keeps them for a diff)"
fi
