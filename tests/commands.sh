#!/bin/sh
# tests/commands.sh - the subcommands end to end (commands.c): exit codes,
# located errors with no output file, atomic -o, colour rules, every
# format, `new` blanking, `key`, `explain`, `grade` records and tamper
# flags, and the JSON scorecards validated against the shipped schema.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

sheets=$top_srcdir/tests/sheets
basic=$sheets/basic.yaml
schema=$top_srcdir/share/tlab-scorecard.schema.json

# ---- check: exit 1 (the question fails), report, never reveals blanks
expect 1 check "$basic"
stdout_has "7/9 correct (threshold 6) - FAIL (questions)"
stdout_has "blank    x.float()"
stdout_has "unanswered"
stdout_lacks "$(printf '\033[')"
stdout_has "why      clone() always allocates new storage."
stdout_has "  q2 FAIL: the answer is only 'it depends': say why, specifically"

# passing sheet: a copy without the vague answer
sed -e 's/answer: It depends\./answer: No, t() swaps the strides over the same storage./' \
    -e '/id: blank/,+3d' "$basic" > "$work/pass.yaml"
expect 0 check "$work/pass.yaml"
stdout_has "7/8 correct (threshold 6) - PASS"

# colour: only with --color=always (auto is off in a pipe; NO_COLOR wins over auto)
expect 1 check --color=always "$basic"
stdout_has "$(printf '\033[')"
stdout_has "✓"
NO_COLOR=1 expect 1 check --color=auto "$basic"
stdout_lacks "$(printf '\033[')"

# ---- json scorecard, validated against the schema
expect 1 check --format json -o "$work/card.json" "$basic"
stdout_empty
grep -q '"schema_version": 1' "$work/card.json" || fail "no schema_version"
expect 0 run --format json -o "$work/run.json" "$basic"
grep -q '"predicted"' "$work/run.json" && fail "run document has grading keys"
expect 0 key --format json -o "$work/key.json" "$basic"
grep -q '"answer": "sometimes"' "$work/key.json" || fail "key lacks sometimes"
validate=${top_builddir:-.}/tests/validate_json
[ -x "$validate" ] || fail "tests/validate_json is not built"
for f in card run key; do
    "$validate" "$schema" "$work/$f.json" || fail "$f.json does not match the schema"
done
# every shipped lab's scorecards (graded, run and key documents)
for lab in "$top_srcdir"/answers/*.yaml "$top_srcdir"/tests/students/*.yaml; do
    for cmd in check run key; do
        rc=0
        "$TLAB" $cmd --format json "$lab" > "$work/lab.json" 2>/dev/null || rc=$?
        [ "$rc" -le 1 ] || fail "$cmd $lab: exit $rc"
        "$validate" "$schema" "$work/lab.json" || fail "$cmd $(basename "$lab"): not valid"
    done
done
# the validator can fail: a scorecard with an extra key, a bad kind, no ops
sed 's/"schema_version": 1,/"schema_version": 1, "surprise": true,/' "$work/card.json" > "$work/bad1.json"
sed '0,/"kind": "view"/s//"kind": "maybe"/' "$work/card.json" > "$work/bad2.json"
sed 's/"ops":/"opz":/' "$work/run.json" > "$work/bad3.json"
for f in bad1 bad2 bad3; do
    rc=0
    "$validate" "$schema" "$work/$f.json" 2>/dev/null || rc=$?
    [ "$rc" -eq 1 ] || fail "$f.json should not match the schema (exit $rc)"
done
# deterministic
expect 1 check --format json "$basic"
cmp -s "$work/stdout" "$work/card.json" || fail "json differs between runs"

# ---- other formats
expect 1 check --format tap "$basic"
stdout_has "not ok 8 - wrong x.clone(): predicted view"
expect 1 check --format junit "$basic"
stdout_has '<failure message="unanswered: predict this op to see its verdict" type="unanswered">'
expect 1 check --format gradescope -o "$work/results.json" "$basic"
grep -q '"score": 9,' "$work/results.json" || fail "gradescope score"
expect 1 check --format prairielearn "$basic"
stdout_has '"gradable": true'
: > "$work/summary.md"
GITHUB_STEP_SUMMARY=$work/summary.md expect 1 check --format github "$basic"
stdout_has "line=43,col=14,title=tlab wrong x.clone()::predicted view, actual copy"
stdout_has "::warning file="
grep -qF '| wrong | <code>x\.clone\(\)</code> | view | copy |' "$work/summary.md" || fail "step summary"

# ---- run and key
expect 0 run "$basic"
stdout_has "tview    x.t().view(24)"
stdout_has "RuntimeError: view size is not"
expect 0 key "$basic"
stdout_has "reshape  x.reshape(6, 4)      sometimes   view as given; non-contiguous: copy"

# ---- new: predictions, rules and answers emptied; basic.yaml is filled in,
# so its comments (written beside the answers) go too (tests/leaks.sh)
expect 0 new "$basic"
stdout_lacks "# basic.yaml - fixture sheet"
stdout_has "    predict: ~"
stdout_lacks "predict: view"
stdout_lacks "It depends"
cp "$work/stdout" "$work/blank.yaml"
expect 1 check "$work/blank.yaml"
stdout_has "0/9 correct (threshold 6) - FAIL"
stdout_lacks "alias"

# ---- located errors: exit 2, one message, no output file
printf 'ops:\n  - op: x.t()\n    predcit: view\n' > "$work/typo.yaml"
expect 2 check -o "$work/out.txt" "$work/typo.yaml"
stderr_has "typo.yaml:3:5: error: unknown key 'predcit' in an op (did you mean 'predict'?)"
[ ! -e "$work/out.txt" ] || fail "an output file was written for an invalid sheet"
ls -a "$work" | grep -q '^\.tlab-out' && fail "a temp file was left behind"
printf 'setup: |\n  import torch\n  x = torch.arange(6)\nops:\n  - op: x.t(\n' > "$work/syn.yaml"
expect 2 check "$work/syn.yaml"
stderr_has "syn.yaml:5:"
printf 'setup: |\n  import torch\n  x = torch.arange(6)\n  assert x.shape[0] == 5\nops:\n  - op: x.t()\n' > "$work/setup.yaml"
expect 2 run "$work/setup.yaml"
stderr_has "setup.yaml:4:"
expect 2 check "$work/missing.yaml"
stderr_has "cannot open lab file"

# ---- limits: a per-op error, never a crash
printf 'setup: |\n  import torch\n  x = torch.arange(6)\nops:\n  - {id: big, op: "torch.zeros(10**12)", predict: error}\n  - {id: mem, op: "torch.zeros(10**8)", predict: error}\n' > "$work/big.yaml"
expect 0 check --max-bytes 1M "$work/big.yaml"
stdout_has "2/2 correct"

# ---- devices
expect 0 run --device cuda --format json "$basic"
stdout_has '"used": "cuda-emulated"'
if ! "$TLAB" --version | grep -q 'device ('; then
    expect 2 run --device cuda --require-gpu "$basic"
fi

# ---- explain
expect 0 explain -s 'x = torch.arange(12).reshape(3, 4)' 'x.t()'
stdout_has "verdict   view (compared with x)"
stdout_has "  result    0  3  6  9  1  4  7 10  2  5  8 11"
expect 0 explain --format json -s 'x = torch.arange(6)' 'x.clone()'
stdout_has '"kind": "copy"'
expect 2 explain 'x.t('

# ---- explain: storage pictures (lines break at the parent's rows)
X='x = torch.arange(24.).reshape(4, 6)'
expect 0 explain -s "$X" 'x.t()'
stdout_has "  slot      0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17"
stdout_has "  result    0  4  8 12 16 20  1  5  9 13 17 21  2  6 10 14 18 22"
stdout_has "  slot     18 19 20 21 22 23"
# an expand reads each slot several times: the count, not a bare mark
expect 0 explain -s "$X" 'x[0].expand(3, 6)'
stdout_has "  result   ×3 ×3 ×3 ×3 ×3 ×3  .  .  .  .  .  .  .  .  .  .  .  ."
# a copy: which slot of x each new element was read from, and where x's went
expect 0 explain -s "$X" 'x.t().contiguous()'
stdout_has "  from x    0  6 12 18  1  7 13 19  2  8 14 20  3  9 15 21  4 10 16 22"
stdout_has "  to        0  4  8 12 16 20  1  5  9 13 17 21  2  6 10 14 18 22"
stdout_lacks "  result    0  1  2  3  4  5  6  7"
expect 0 explain -s "$X" 'x[:1].expand(3, 6).contiguous()'
stdout_has "  from x    0  1  2  3  4  5  0  1  2  3  4  5  0  1  2  3  4  5"
stdout_has "  to       ×3 ×3 ×3 ×3 ×3 ×3  .  .  .  .  .  .  .  .  .  .  .  ."
expect 0 explain -s "$X" 'torch.cat([x[0], torch.zeros(2)])'
stdout_has "  from x    0  1  2  3  4  5  +  +"
# computed values are not passed off as reads
expect 0 explain -s "$X" 'x + 1'
stdout_has "a copy; none of its values could be traced to a slot of x's"
stdout_lacks "  from x "
expect 0 explain -s "$X" 'x.flatten().sort(descending=True).values'
stdout_has "none of its values could be traced"

# ---- explain --lab LAB ID: an op of a lab, on its setup and parent
expect 0 explain --lab "$basic" t
stdout_has ">>> x = torch.arange(24, dtype=torch.float32).reshape(4, 6)"
stdout_has "verdict   view (compared with x)"
expect 2 explain --lab "$basic" no-such-op
stderr_has "has no op with id 'no-such-op' (its ids:"
expect 2 explain --lab "$basic" -s 'y = 1' t
stderr_has "-s does not apply with --lab"

# ---- check offers the explain command for each wrong op, pasteable
sed -e '0,/predict: view/s//predict: copy/' "$basic" > "$work/wrong1.yaml"
cd "$work"
expect 1 check wrong1.yaml
stdout_has "    explain  tlab explain --lab wrong1.yaml t"
cmd=$(grep '    explain  tlab explain' "$work/stdout" | head -1 | sed 's/^    explain  tlab //')
eval "set -- $cmd"
expect 0 "$@"
stdout_has "storage picture"
# a path that would pass 80 columns gets no hint (the report keeps its width)
mkdir -p "$work/a-rather-long-directory-name-for-a-course/and-a-section-folder"
cp wrong1.yaml "$work/a-rather-long-directory-name-for-a-course/and-a-section-folder/"
expect 1 check "$work/a-rather-long-directory-name-for-a-course/and-a-section-folder/wrong1.yaml"
stdout_lacks "    explain  tlab explain"
# a quote in the file name is quoted for the shell
cp wrong1.yaml "it's.yaml"
expect 1 check "it's.yaml"
stdout_has "    explain  tlab explain --lab 'it'\\''s.yaml' t"
cd - > /dev/null

# ---- grade: records, tamper, unreadable sheets
sed -e 's/x = torch.arange(24, dtype=torch.float32).reshape(4, 6)/x = torch.zeros(4, 6)/' \
    -e 's/threshold: 6/threshold: 1/' "$basic" > "$work/tampered.yaml"
printf 'ops: [\n' > "$work/broken.yaml"
expect 2 grade --lab "$basic" "$work/pass.yaml" "$work/tampered.yaml" "$work/broken.yaml"
stdout_has "file,correct,total,points,max_points,passed,tampered,changes,error"
# points: 7 op points, q1 (1), q2 (passes in pass.yaml); not the rules
# point: the op it removed has no rule line (every op needs one)
stdout_has "$work/pass.yaml,7,9,9,12,false,true,op blank removed,"
stdout_has "$work/tampered.yaml,7,9,9,12,false,true,setup; threshold,"
stdout_has "$work/broken.yaml,0,9,0,12,false,false,,$work/broken.yaml:2:1: error: invalid YAML"
stderr_has "class summary: 3 sheets, 2 graded, 0 passed, 2 tampered, 1 unreadable"
expect 1 grade --lab "$basic" --format jsonl "$basic"
stdout_has '"file":"'"$basic"'","correct":7,"total":9,"points":9,"max_points":12,"passed":false,"tampered":false,"changes":[],"error":null}'
expect 1 grade --lab "$basic" --format json -q "$basic" "$work/pass.yaml"
stdout_has '"most_common_wrong": "view"'
expect 2 grade --lab "$work/typo.yaml" "$basic"
# nothing graded: said so, no 0.0% per op; percentages null in JSON
expect 2 grade --lab "$basic" "$work/broken.yaml"
stderr_has "class summary: 1 sheet, 0 graded, 0 passed, 0 tampered, 1 unreadable"
stderr_has "  nothing graded"
stderr_lacks "0.0%"
expect 2 grade --lab "$basic" --format json "$work/broken.yaml"
stdout_has '"percent_correct": null'
"$validate" "$top_srcdir/share/tlab-grade.schema.json" "$work/stdout" || fail "grade json schema"
# the most common wrong prediction is an answered one; unanswered counted apart
sed 's/^    predict: view$/    predict: ~/' "$basic" > "$work/blanked.yaml"
expect 1 grade --lab "$basic" "$work/blanked.yaml" "$work/blanked.yaml" "$basic"
stderr_lacks "(unanswered)"
stderr_has "  t           33.3%           2  -"
stderr_has "  wrong        0.0%           2  view (1)"

exit 0
