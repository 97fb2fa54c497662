#!/bin/sh
# tests/leaks.sh - nothing handed to a student reveals an answer (issue #24):
#  1. `tlab new` on every shipped master (labs/ and the filled-in answers/):
#     no explanation (text or key), no accept list, and from a filled-in
#     sheet no comment ("the reference sheet: every prediction right"); the
#     blank sheet loads with every op unanswered and is graded untampered;
#     --keep-explanations keeps the explanations and nothing else;
#  2. `check --lab MASTER SHEET` shows the master's explanations, never the
#     sheet's own;
#  3. the master's `feedback:` policy in every student-facing format of
#     check --lab and grade (text, html, tap, junit, github and its summary,
#     gradescope, prairielearn): under wrong-ops and score-only no verdict,
#     evidence or explanation appears (score-only: no per-op mark either),
#     while Gradescope keeps the full feedback in tests held back with the
#     lab's visibility:; the scores are the same under every policy; json
#     and the grade records stay full; an unknown value is a located error.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

py=$(command -v python3 || echo false)

# ---- 1. blank sheets of the shipped masters
for m in "$top_srcdir"/labs/*.yaml "$top_srcdir"/answers/*.yaml; do
    name=$(basename "$(dirname "$m")")/$(basename "$m")
    expect 0 new "$m"
    cp "$work/stdout" "$work/blank.yaml"
    grep -q 'explanation:' "$work/blank.yaml" && fail "$name: the blank sheet keeps explanation:"
    grep -q 'accept:' "$work/blank.yaml" && fail "$name: the blank sheet keeps accept:"
    # every line of every explanation text in the master (the indented
    # lines under `explanation:`), none of them in the blank sheet
    awk '/^ *explanation:/ { n = index($0, "e"); inx = 1; t = $0; sub(/^ *explanation: *(>-|\|)? */, "", t);
                             if (t != "") print t; next }
         inx && match($0, /^ */) && RLENGTH > n - 1 && $0 !~ /^ *$/ { t = $0; sub(/^ */, "", t); print t; next }
         { inx = 0 }' "$m" | awk 'length($0) > 24' > "$work/expl.txt"
    if [ -s "$work/expl.txt" ] && grep -qF -f "$work/expl.txt" "$work/blank.yaml"; then
        grep -F -f "$work/expl.txt" "$work/blank.yaml" | head -3 >&2
        fail "$name: explanation text in the blank sheet"
    fi
    case $name in
    answers/*)
        grep -q '#' "$work/blank.yaml" && fail "$name: a filled-in master's comment in its blank sheet"
        grep -qi 'reference sheet\|every prediction right\|must report' "$work/blank.yaml" &&
            fail "$name: the blank sheet says it is the answers" ;;
    labs/*)
        # a master with blanks keeps its instructions for students
        head -n 1 "$m" | grep -q '^#' && { head -n 1 "$m" > "$work/first"; grep -qF -f "$work/first" "$work/blank.yaml" ||
            fail "$name: the blank sheet lost the lab's heading comment"; } ;;
    esac
    # nothing answered, and graded against its master it is not tampered
    expect 1 check --lab "$m" "$work/blank.yaml"
    stdout_lacks "Tampered"
    stdout_has "Unanswered ("
    expect 1 check --lab "$m" --format json "$work/blank.yaml"
    stdout_has '"correct": 0,'
done

expect 0 new --keep-explanations "$top_srcdir/labs/lab01.yaml"
stdout_has "explanation: >-"
stdout_has "contiguous() returns x itself"
stdout_lacks "accept:"
expect 0 new --help
stdout_has "--keep-explanations"
expect 2 check --keep-explanations "$top_srcdir/labs/lab01.yaml"

# ---- a master with the answers' neighbours: accept lists, explanations,
# a classify, a question; and a sheet that brings explanations of its own
cat > "$work/master.yaml" <<'EOF'
# the reference sheet: every prediction right
tlab: 1
id: leak
title: Leaks
threshold: 1
setup: |
  import torch
  x = torch.arange(6.).reshape(2, 3)
ops:
  - id: "1"
    op: x.t()
    predict: view   # a transpose swaps strides
    rule: transposing swaps strides
    accept: [view, sometimes]
    explanation: MASTEREXPLAIN one, strides swapped
  - id: "2"
    op: x.clone()
    predict: copy
    rule: clone allocates
    explanation: MASTEREXPLAIN two, a new buffer
  - id: "3"
    op: x.unsqueeze(0)
    predict: view
    rule: unsqueeze adds a stride
    explanation: MASTEREXPLAIN three, a size-1 dim
questions:
  - id: q1
    prompt: Why?
    answer: Because the strides and the storage layout say so.
    mention_any: [layout]
    min_words: 3
classify_points: 2
classify: |
  def classify(op_result, parent):
      return 'view' if op_result.untyped_storage().data_ptr() == parent.untyped_storage().data_ptr() else 'copy'
EOF
expect 0 new "$work/master.yaml"
cp "$work/stdout" "$work/blank.yaml"
for secret in MASTEREXPLAIN 'reference sheet' 'swaps strides' sometimes 'Because the' data_ptr '#'; do
    grep -qF -- "$secret" "$work/blank.yaml" && fail "the blank sheet of master.yaml has '$secret'"
done
expect 1 check --lab "$work/master.yaml" "$work/blank.yaml"
stdout_lacks "Tampered"

# the student's sheet: every prediction copy (1 and 3 wrong), its own
# explanations, a classify that always says copy
sed -e 's/predict: ~/predict: copy/' -e 's/rule: ~/rule: my own rule for this op/' \
    -e 's/answer: ~/answer: the memory layout decides it here, I think/' \
    -e "s/^classify: ~/classify: |\\n  def classify(op_result, parent):\\n      return 'copy'/" \
    -e 's/^    op: \(.*\)$/    op: \1\n    explanation: SHEETEXPLAIN/' "$work/blank.yaml" > "$work/sheet.yaml"
grep -q "return 'copy'" "$work/sheet.yaml" || fail "the test's sheet has no classify"

policy() { # POLICY [VISIBILITY]: the master under that feedback: policy
    sed "s/^threshold: 1/threshold: 1\nfeedback: $1${2:+\\nvisibility: $2}/" "$work/master.yaml" > "$work/m.yaml"
}

# student-facing outputs of check --lab and grade, one file each in $work/out
outputs() {
    rm -rf "$work/out"
    mkdir "$work/out"
    for f in text html tap junit github gradescope prairielearn; do
        GITHUB_STEP_SUMMARY=$work/out/summary.md "$TLAB" check --lab "$work/m.yaml" --format $f \
            -o "$work/out/check.$f" "$work/sheet.yaml" > "$work/out/stdout.$f" 2> "$work/out/stderr.$f" || true
        [ -s "$work/out/check.$f" ] || fail "check --format $f wrote nothing"
        [ -s "$work/out/stderr.$f" ] && { cat "$work/out/stderr.$f" >&2; fail "check --format $f: stderr"; }
    done
    for f in text tap junit github gradescope prairielearn; do
        GITHUB_STEP_SUMMARY=$work/out/grade-summary.md "$TLAB" grade --lab "$work/m.yaml" --format $f \
            -o "$work/out/grade.$f" "$work/sheet.yaml" > /dev/null 2>&1 || true
        [ -s "$work/out/grade.$f" ] || fail "grade --format $f wrote nothing"
    done
    [ -s "$work/out/summary.md" ] || fail "no GitHub step summary"
    # the page's text, not its stylesheet (class names such as .wrong)
    sed '/<style>/,/<\/style>/d' "$work/out/check.html" > "$work/out/page"
    mv "$work/out/page" "$work/out/check.html"
    # what Gradescope shows now: the tests without a visibility of their
    # own (the top-level one is visible); the held-back ones apart (without
    # python3 the Gradescope files are left out of the scan)
    for g in check grade; do
        if [ "$py" != false ]; then
            "$py" - "$work/out/$g.gradescope" "$work/out/$g.gs-shown" "$work/out/$g.gs-held" <<'PYEOF' ||
import json, sys
d = json.load(open(sys.argv[1]))
shown = {k: v for k, v in d.items() if k != "tests"}
shown["tests"] = [t for t in d["tests"] if t.get("visibility", "visible") == "visible"]
held = [t for t in d["tests"] if t.get("visibility", "visible") != "visible"]
json.dump(shown, open(sys.argv[2], "w"), indent=1)
json.dump(held, open(sys.argv[3], "w"), indent=1)
PYEOF
                fail "cannot read $g.gradescope as JSON"
        fi
        rm "$work/out/$g.gradescope"
    done
}

# leaks WORD...: no student-visible output has WORD (a whole word, any case)
leaks() {
    for w in "$@"; do
        if grep -ilw -- "$w" "$work"/out/* | grep -v 'gs-held$' > "$work/hits"; then
            sed 's/^/  /' "$work/hits" >&2
            grep -iw -- "$w" $(cat "$work/hits") | head -5 >&2
            fail "feedback: $pol: '$w' is visible to the student"
        fi
    done
}
has() { # FILE TEXT
    grep -qF -- "$2" "$work/out/$1" || fail "feedback: $pol: $1 lacks '$2'"
}

# ---- 2 and 3. full: as before, with the master's explanations only
pol=full
policy full
outputs
has check.text "MASTEREXPLAIN one"
has check.text "actual view"
has check.html "MASTEREXPLAIN three"
[ "$py" = false ] || has check.gs-shown "MASTEREXPLAIN one"
has check.junit "MASTEREXPLAIN one"
has grade.text "MASTEREXPLAIN one"
leaks SHEETEXPLAIN
[ "$py" = false ] || [ "$(cat "$work/out/check.gs-held")" = "[]" ] ||
    fail "feedback: full holds Gradescope tests back"
gs_score() { # the top-level score of check's Gradescope results
    GITHUB_STEP_SUMMARY= "$TLAB" check --lab "$work/m.yaml" --format gradescope "$work/sheet.yaml" |
        tr -d ' \n' | grep -o '"score":[0-9.]*' | head -n 1
}
full_score=$(gs_score)
full_pl=$(tr -d ' \n' < "$work/out/check.prairielearn" | grep -o '"score":[0-9.]*' | head -n 1)

# the verdict words and the evidence of the wrong ops (1 and 3 are views)
secrets="view views MASTEREXPLAIN SHEETEXPLAIN stride strides storage write-through allocated variants sometimes"
pol=wrong-ops
policy wrong-ops
outputs
leaks $secrets
# which ops are wrong is shown
has check.text "wrong"
has check.tap "not ok 1 - 1 x.t()"
has check.tap "ok 2 - 2 x.clone()"
[ "$py" = false ] || has check.gs-shown '"name": "1 x.t()"'
has summary.md 'x\.unsqueeze\(0\)'
# the full feedback is held back, after the due date
if [ "$py" != false ]; then
    has check.gs-held "MASTEREXPLAIN one"
    has check.gs-held "after_due_date"
    has grade.gs-held "MASTEREXPLAIN three"
fi
score=$(gs_score)
[ "$score" = "$full_score" ] || fail "wrong-ops: Gradescope score $score, full gives $full_score"
pl=$(tr -d ' \n' < "$work/out/check.prairielearn" | grep -o '"score":[0-9.]*' | head -n 1)
[ "$pl" = "$full_pl" ] || fail "wrong-ops: PrairieLearn score $pl, full gives $full_pl"

pol=score-only
policy score-only hidden
outputs
leaks $secrets 'x.t()' 'x.clone()' 'unsqueeze' wrong
has check.text "1/3 correct"
has check.text "points"
if [ "$py" != false ]; then
    has check.gs-held "MASTEREXPLAIN one"
    has check.gs-held '"visibility": "hidden"'
    "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if [t["name"] for t in d["tests"]] == ["tamper check", "verdict"] else 1)' \
        "$work/out/check.gs-shown" || fail "score-only: Gradescope shows more than the score"
fi
score=$(gs_score)
[ "$score" = "$full_score" ] || fail "score-only: Gradescope score $score, full gives $full_score"
pl=$(tr -d ' \n' < "$work/out/check.prairielearn" | grep -o '"score":[0-9.]*' | head -n 1)
[ "$pl" = "$full_pl" ] || fail "score-only: PrairieLearn score $pl, full gives $full_pl"

# the instructor's records stay full: the scorecard JSON and grade's csv/json
expect 0 check --lab "$work/m.yaml" --format json "$work/sheet.yaml"
stdout_has '"kind": "view"'
expect 0 grade --lab "$work/m.yaml" --format json "$work/sheet.yaml"
stdout_has '"percent_correct": 0,'
expect 0 grade --lab "$work/m.yaml" "$work/sheet.yaml"
stdout_has "sheet.yaml"

# ---- unknown values are located errors
sed 's/^threshold: 1/threshold: 1\nfeedback: verdicts/' "$work/master.yaml" > "$work/bad.yaml"
expect 2 check --lab "$work/bad.yaml" "$work/sheet.yaml"
stderr_has "bad.yaml:6:11: error: 'feedback' must be full, wrong-ops or score-only, got 'verdicts'"
sed 's/^threshold: 1/threshold: 1\nvisibility: soon/' "$work/master.yaml" > "$work/bad.yaml"
expect 2 check "$work/bad.yaml"
stderr_has "bad.yaml:6:13: error: 'visibility' must be"
exit 0
