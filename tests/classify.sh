#!/bin/sh
# tests/classify.sh - the stretch goal (SPEC 3, tlab-lab(5)): a sheet's
# classify: block defines classify(op_result, parent), run by `tlab check`
# on every op's tensor result and on every parent variant's, graded against
# the runtime as its own test. A correct classifier (storage pointers) gets
# the points; the folklore one (is_contiguous) fails on the named ops where
# folklore is wrong, with the runtime's reason; a classifier that loops,
# recurses without end, raises, returns junk or does not parse is a located
# error for that test, never a hang, a crash or a failed lab.

. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

answers=$top_srcdir/answers/lab01.yaml
# sheet NAME POINTS: answers/lab01.yaml with its classify block (if any)
# replaced by stdin
sheet() {
    sed '/^classify/,$d' "$answers" > "$work/$1.yaml"
    printf 'classify_points: %s\nclassify: |\n' "$2" >> "$work/$1.yaml"
    sed 's/^/  /' >> "$work/$1.yaml"
}

sheet good 4 <<'PY'
def classify(op_result, parent):
    def base(t):
        return t.untyped_storage().data_ptr()
    same = lambda a, b: base(a) == base(b)
    return 'view' if same(op_result, parent) else 'copy'
PY
expect 0 check --color never "$work/good.yaml"
stdout_has "Stretch: classify()  pass (4/4 points, not counted toward the threshold)"
stdout_has "results classified, 0 wrong or failed"
run_tlab check --format json "$work/good.yaml"
tr -d ' \n' < "$work/stdout" | grep -q '"classify":{"answered":true,"passed":true,"points":4,"score":4,"checked":[1-9][0-9]*,"problems":\[\]}' \
    || fail "json classify record of the correct classifier"
run_tlab check --format tap "$work/good.yaml"
grep -Eq '^ok [0-9]+ - classify\(\) \(stretch, 4/4 points\)$' "$work/stdout" ||
    fail "TAP: the classify test line"
grep -Eq '^1\.\.[0-9]+$' "$work/stdout" || fail "TAP: no plan"

# the folklore: contiguous means view
sheet folk 2 <<'PY'
def classify(op_result, parent):
    return 'view' if op_result.is_contiguous() else 'copy'
PY
expect 0 check --color never "$work/folk.yaml"   # the ops still pass
stdout_has "Stretch: classify()  FAIL (0/2 points"
stdout_has "21/21 correct (threshold 16) - PASS"
run_tlab check --format json "$work/folk.yaml"     # problems, one unwrapped line each
stdout_has "\"op 3 (x.t()): classify said 'copy', the runtime says view (view: strides"
stdout_has "\"op 13 (x.clone()): classify said 'view', the runtime says copy (copy: the result has its own storage"
stdout_has "\"op 17 (x.unsqueeze(0)) on the parent non-contiguous: classify said 'copy', the runtime says view\""
stdout_lacks "\"op 1 (x[1:]): classify said"
run_tlab check --format junit "$work/folk.yaml"
stdout_has 'type="classify">'
stdout_has "op 3 (x.t()): classify said "  # quotes are XML-escaped in the failure text

# a classifier that never returns costs one timeout, located in its block
sheet loop 1 <<'PY'
def classify(op_result, parent):
    while True:
        pass
PY
line=$(grep -n 'while True:' "$work/loop.yaml" | cut -d: -f1)
expect 0 check --color never --timeout 0.3 "$work/loop.yaml"
stdout_has "1 results classified, 1 wrong or failed"
expect 0 check --format json --timeout 0.3 "$work/loop.yaml"
stdout_has "classify() failed: $work/loop.yaml:$line:7: error: limit exceeded: time limit exceeded"

sheet rec 1 <<'PY'
def classify(op_result, parent):
    return classify(op_result, parent)
PY
expect 0 check --format json "$work/rec.yaml"
stdout_has "error: limit exceeded: maximum recursion depth exceeded"

sheet raise 1 <<'PY'
def classify(op_result, parent):
    if op_result.dim() == 3:
        raise ValueError("no idea")
    return ['view', 'copy'][op_result.data_ptr() == 0]
PY
line=$(grep -n 'raise ValueError' "$work/raise.yaml" | cut -d: -f1)
expect 0 check --format json "$work/raise.yaml"
stdout_has "op 20 (x.unsqueeze(0).expand(8, 4, 6)): classify() failed:"
stdout_has "$work/raise.yaml:$line:11: error: ValueError: no idea"

sheet junk 1 <<'PY'
def classify(op_result, parent):
    return 42
PY
expect 0 check --format json "$work/junk.yaml"
stdout_has "ValueError: classify() returned 42 (it must return 'view' or 'copy')"

sheet syntax 1 <<'PY'
def classify(op_result, parent)
    return 'view'
PY
expect 0 check --format json "$work/syntax.yaml"
stdout_has "syntax error: expected ':'"

sheet nodef 1 <<'PY'
def classifier(op_result, parent):
    return 'view'
PY
expect 0 check --format json "$work/nodef.yaml"
stdout_has "the classify block does not define classify(op_result, parent)"

# a blank block (a fresh sheet) is unanswered, and costs nothing
sed '/^classify/,$d' "$answers" > "$work/blank.yaml"
printf 'classify: ~\n' >> "$work/blank.yaml"
expect 0 check --color never "$work/blank.yaml"
stdout_has "Stretch: classify()  not answered (0/1 points"
run_tlab check --format json "$work/blank.yaml"
tr -d ' \n' < "$work/stdout" | grep -q '"classify":{"answered":false,"passed":false' || fail "blank classify json"
# lab01 offers the stretch; its answer key holds a correct classifier, which
# `tlab new` blanks like every other answer
expect 0 check --color never "$answers"
stdout_has "Stretch: classify()  pass (4/4 points, not counted toward the threshold)"
expect 0 new "$top_srcdir/labs/lab01.yaml"
stdout_has "classify: ~"
expect 0 new "$answers"
stdout_has "classify: ~"
stdout_lacks "def classify"
echo "ok: classify stretch test"
