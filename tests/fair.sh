#!/bin/sh
# tests/fair.sh - fair scores (issue #24, #28.1), through the real binary:
#   - a malformed prediction (`veiw`, `a view`) scores that op 0 with its
#     located FILE:LINE:COL message, and the rest of the sheet is graded,
#     in every format of check, check --lab and grade;
#   - a prediction of fields without a kind (`{dtype: float32}`) is such a
#     malformed prediction (it used to score on its fields alone: 20/21);
#   - a sheet of another lab scores 0 with an error saying so, and stays out
#     of the class statistics;
#   - a blank sheet does not earn the rules point (rules: required: every
#     op, answered or not, needs a rule);
#   - TAP diagnostics: `found` (the prediction), `wanted` (the answer that
#     scores), `verdict`; never `expect:` for the student's answer; run's
#     TAP says the kind once; escapes in descriptions shown once.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

cd "$work"
master=$top_srcdir/labs/lab01.yaml
answers=$top_srcdir/answers/lab01.yaml
# line 15 is op 1's prediction, line 24 op 2's (answers/lab01.yaml)
sed -n 15p "$answers" | grep -q '^    predict: view$' || fail "answers/lab01.yaml: line 15 moved"
sed -n 24p "$answers" | grep -q '^    predict: view$' || fail "answers/lab01.yaml: line 24 moved"
sed '15s/predict: view/predict: veiw/; 24s/predict: view/predict: a view/' "$answers" > typo.yaml

has() { grep -q -- "$1" "$work/stdout" || fail "$2: stdout lacks '$1'"; }

# ---- check --lab: every format grades the rest, the two ops score 0
msg1='typo.yaml:15:14: error: invalid prediction'
msg2='typo.yaml:24:14: error: invalid prediction'
for fmt in text json junit tap gradescope prairielearn github; do
    expect 0 check --lab "$master" --format "$fmt" typo.yaml
    has "$msg1" "$fmt"
    has "$msg2" "$fmt"
    grep -q "^$msg1 'veiw' (did you mean 'view'?)" "$work/stderr" || fail "$fmt: stderr lacks the message"
    case $fmt in
    json) has '"correct": 19,' json; has '"points": 25,' json ;;
    gradescope) has '"score": 25,' gradescope ;;
    prairielearn) has '"score": 0.925925' prairielearn; has '"gradable": true' prairielearn ;;
    *) has '19/21 correct (threshold 16) - PASS' "$fmt" ;;
    esac
done
# the practice check of the student's own sheet: graded too (exit by the
# threshold), the message on stderr with its caret
expect 0 check typo.yaml
has "$msg1" text
grep -q '^ 15 |     predict: veiw$' "$work/stderr" || fail "check: no source line"
has '19/21 correct (threshold 16) - PASS' check

# ---- grade: the records say why the ops scored 0
expect 0 grade --lab "$master" typo.yaml
has "typo.yaml,19,21,25,27,true,false,,\"2 predictions could not be read (each op scores 0): $msg1 'veiw'" csv
expect 0 grade --lab "$master" --format jsonl typo.yaml
has '"correct":19,"total":21,"points":25' jsonl
has "\"error\":\"2 predictions could not be read (each op scores 0): $msg1" jsonl
for fmt in json junit tap gradescope prairielearn github text; do
    expect 0 grade --lab "$master" --format "$fmt" typo.yaml
    has "$msg1" "grade $fmt"
done

# ---- fields without a kind: every op malformed, 0 ops right (it was 20/21)
sed 's/^\(    predict: \)\(view\|copy\|alias\|sometimes\)$/\1{dtype: float32}/' "$answers" > kindless.yaml
[ "$(grep -c '^    predict: {dtype: float32}$' kindless.yaml)" = 21 ] || fail "kindless.yaml"
expect 1 grade --lab "$master" kindless.yaml
has 'kindless.yaml,0,21,' kindless
has 'kindless.yaml:15:14: error: a prediction mapping must name its kind' kindless
expect 1 check kindless.yaml
has '0/21 correct' "check kindless"
expect 1 check --lab "$master" --format json kindless.yaml
has '"correct": 0,' "check --lab kindless"
# {value: ...} still names a non-tensor result
printf 'tlab: 1\nid: v\nsetup: |\n  import torch\n  x = torch.arange(6.)\nops:\n  - {id: "1", op: x.stride(), predict: {value: [1]}}\n  - {id: "2", op: x.t(), predict: {shape: [6]}}\n' > value.yaml
expect 1 check --format json value.yaml
has '"correct": 1,' value
grep -q '^value.yaml:8:35: error: a prediction mapping must name its kind' "$work/stderr" ||
    fail "value.yaml: kind-less tensor prediction not located"

# ---- a sheet of another lab: 0, an error, out of the class statistics
sed 's/^id: lab01$/id: lab02/' "$answers" > other.yaml
grep -q '^id: lab02$' other.yaml || fail "other.yaml"
cp "$answers" right.yaml
expect 2 grade --lab "$master" right.yaml other.yaml
has 'right.yaml,21,21,' "wrong lab"
has "other.yaml,0,21,0,27,false,true,\"wrong lab (id lab02, expected lab01)\",\"other.yaml:5:5: error: this sheet is for lab 'lab02', but it is graded against lab 'lab01': a sheet of another lab scores 0" "wrong lab"
grep -q '^class summary: 2 sheets, 1 graded, 1 passed, 0 tampered, 0 unreadable, 1 of another lab$' "$work/stderr" ||
    fail "wrong lab: class summary"
# its wrong predictions are not the class's: the right sheet alone, 100%
grep -q '^  1          100.0%' "$work/stderr" || fail "wrong lab counted in the per-op statistics"
sed '/^ops:/,/^questions:/ s/predict: view/predict: copy/' other.yaml > other-wrong.yaml
expect 2 grade --lab "$master" --format json right.yaml other-wrong.yaml
grep -q '"most_common_wrong": "copy"' "$work/stdout" && fail "wrong lab's predictions in most_common_wrong"
has '"wrong_lab": 1,' "wrong lab json"
expect 2 check --lab "$master" other.yaml
grep -q "^other.yaml:5:5: error: this sheet is for lab 'lab02'" "$work/stderr" || fail "check --lab: wrong lab"
for fmt in gradescope prairielearn; do
    expect 2 check --lab "$master" --format "$fmt" other.yaml
    has "this sheet is for lab 'lab02'" "wrong lab $fmt"
done

# ---- a blank sheet earns nothing, not the rules point either
expect 0 new "$master" -o blank.yaml
expect 1 grade --lab "$master" blank.yaml
has 'blank.yaml,0,21,0,27,false,false,,' blank
expect 1 check --lab "$master" --format json blank.yaml
has '"points": 0,' "blank json"

# ---- TAP: what a reader diffs
expect 1 check --lab "$master" --format tap "$top_srcdir/tests/students/lab01-fail.yaml"
grep -q '^    expect: ' "$work/stdout" && fail "tap: the prediction is still 'expect:'"
grep -q '^    got: ' "$work/stdout" && fail "tap: 'got:' without 'expected:'"
grep -q '^    found: ' "$work/stdout" || fail "tap: no found:"
grep -q '^    wanted: ' "$work/stdout" || fail "tap: no wanted:"
awk '/^    found: / { f = $2 } /^    wanted: / { if ($2 == f) bad = 1 } END { exit bad }' "$work/stdout" ||
    fail "tap: a failed op whose found equals wanted"
expect 0 run --format tap "$master"
grep -Eq ': (view|copy|alias|error|value)[^:]*: (view|copy|alias|error|value): ' "$work/stdout" &&
    fail "run --format tap repeats the kind"
has 'ok 1 - 1 x\[1:\]: view: ' "run tap"
# a control character in a prediction: escaped once (\e), in the
# description and in the diagnostics
printf 'tlab: 1\nid: c\nsetup: |\n  import torch\n  x = torch.arange(6.)\nops:\n  - {id: "1", op: x.clone(), predict: "vi\\e[2Jew"}\n  - {id: "2", op: "x.to(\\"a#b\\")", predict: view}\n' > ctl.yaml
expect 1 check --format tap ctl.yaml
has '^not ok 1 - 1 x.clone(): predicted "vi\\e\[2Jew"$' "tap escape"
has "^    found: '\"vi\\\\e\\[2Jew\"'$" "tap escape"
grep -q '\\\\e' "$work/stdout" && fail "tap: an escape escaped twice"
has '^not ok 2 - 2 x.to("a\\#b"): predicted view$' "tap #"
# ---- JUnit: suites and classnames name the submission; tests/junit.xsd
# and Maven Surefire's shape (tests/surefire.xsd: no file= on a suite)
xsd_both() {
    command -v xmllint >/dev/null 2>&1 || return 0
    for x in junit surefire; do
        xmllint --noout --schema "$top_srcdir/tests/$x.xsd" "$1" > x.out 2>&1 || {
            cat x.out >&2
            fail "$1 does not match tests/$x.xsd"
        }
    done
}
mkdir -p a b.x
cp "$top_srcdir/tests/students/lab01-fail.yaml" a/lab01.yaml
cp "$top_srcdir/tests/students/lab01-pass.yaml" b.x/lab01.yaml
cp "$top_srcdir/tests/students/lab01-pass.yaml" al.ice.yaml
printf 'ops: [\n' > broken.yaml
expect 2 grade --lab "$master" --format junit -o grade.xml typo.yaml other.yaml a/lab01.yaml \
    b.x/lab01.yaml al.ice.yaml broken.yaml blank.yaml
xsd_both grade.xml
grep -q ' file=' grade.xml && fail "junit: a file= attribute"
for s in typo other a.lab01 b_x.lab01 al_ice broken blank; do
    grep -q "<testsuite name=\"lab01\.$s\" " grade.xml || fail "junit: no suite lab01.$s"
    grep -q "<testcase classname=\"lab01\.$s\" name=\"1 x\[1:\]\"" grade.xml ||
        [ "$s" = other ] || [ "$s" = broken ] || fail "junit: no classname lab01.$s"
done
grep -q '<property name="file" value="b.x/lab01.yaml"/>' grade.xml || fail "junit: no file property"
[ "$(grep -c '<testcase classname="lab01" ' grade.xml || true)" = 0 ] || fail "junit: a bare lab01 classname"
for sheet in typo.yaml other.yaml broken.yaml; do
    run_tlab check --lab "$master" --format junit -o one.xml "$sheet"
    xsd_both one.xml
done
expect 0 check --format junit -o own.xml "$answers"
xsd_both own.xml
# ---- check --lab and grade run the sheet's own classify() as check does
expect 0 check --format json "$answers"
grep -A6 '"classify": {' "$work/stdout" > own.cls
expect 0 check --lab "$master" --format json "$answers"
grep -A6 '"classify": {' "$work/stdout" > lab.cls
cmp -s own.cls lab.cls || { diff own.cls lab.cls >&2; fail "check --lab: classify() graded otherwise than check"; }
grep -q '"passed": true' lab.cls || fail "check --lab: the reference classify() did not pass"
grep -q '"checked": 0' lab.cls && fail "check --lab: classify() not run"
sed 's/^  def classify(op_result, parent):$/&\n    return "copy"/' "$answers" > cls-copy.yaml
grep -q '^    return "copy"$' cls-copy.yaml || fail "cls-copy.yaml"
expect 0 grade --lab "$master" --format gradescope cls-copy.yaml
has 'results wrong or failed (0/4 stretch points)' "grade: a wrong classify()"
grep -q 'not answered\|not run by the autograder' "$work/stdout" && fail "grade: classify() not run"
expect 0 grade --lab "$master" --format tap right.yaml
has '^ok [0-9]* - classify() (stretch, 4/4 points)' "grade tap: classify()"
echo "fair.sh: all cases passed"
