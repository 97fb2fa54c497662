#!/bin/sh
# tests/variants.sh - per-student variants (issue #29) end to end, on
# tests/variants/lab01v.yaml (lab01 with two parents: a row-major and a
# column-major x):
#   - key --variants: each op's verdict in every variant, how many change,
#     a warning for an op that errors in only some variants;
#   - new --student ID --key FILE: each student's sheet, with that
#     variant's setup and a student:/variant:/tag: record, the same bytes
#     every time; two students of different variants differ in setup;
#   - each sheet, filled in with its own variant's true verdicts, grades
#     every op correct (grade and check --lab, with --key);
#   - grade --key flags a sheet whose student or variant was swapped (score
#     0 with the located reason); check --lab --student flags another
#     student's sheet;
#   - the other variant's answers copied score below the threshold;
#   - an all-sometimes sheet scores 0 on a variant (its own verdict only);
#     lab01v stays labs/lab01.yaml plus variants: (comments aside);
#   - a malformed variants: list is a located error (exit 2);
#   - generators (variants: {generate: ...}): the cross product with its
#     names, the key-time warnings, students' sheets graded on them, bad
#     values located.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"
master=$top_srcdir/tests/variants/lab01v.yaml
cd "$work"
printf 'a course secret\n' > key
printf 'another secret\n' > key2

# ---- the class-wide table
expect 0 key --variants "$master"
stdout_has "setup"
head -n 1 "$work/stdout" | grep -Eq '^op +setup +a +b +op text$' || fail "table header: $(head -n 1 "$work/stdout")"
grep -Eq '^9 +view +view +error +\* x\.view\(3, 8\)$' "$work/stdout" || fail "op 9 row"
grep -Eq '^1 +view +view +view +x\[1:\]$' "$work/stdout" || fail "op 1 row"
changed=$(sed -n 's/^\([0-9]*\) of 21 ops change verdict between the 2 variants.*/\1/p' "$work/stdout")
[ -n "$changed" ] || fail "no count of changed ops"
[ "$(grep -c ' \* ' "$work/stdout")" = "$changed" ] || fail "count $changed disagrees with the rows"
stderr_has "lab01v.yaml:85:5: warning: op 9 errors in variant b but not in a"
# plain key: the same warnings, its own output unchanged
expect 0 key "$master"
stderr_has "warning: op 10 errors in variant b but not in a"
stdout_lacks "change verdict"

# ---- each student's sheet
sa="" sb=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
    expect 0 new --student "s$i" --key key "$master"
    v=$(sed -n 's/^variant: //p' "$work/stdout")
    if [ "$v" = a ] && [ -z "$sa" ]; then sa=s$i; cp "$work/stdout" a.yaml; fi
    if [ "$v" = b ] && [ -z "$sb" ]; then sb=s$i; cp "$work/stdout" b.yaml; fi
done
[ -n "$sa" ] && [ -n "$sb" ] || fail "16 students and not one of each variant ($sa, $sb)"
# the same sheet every time; another key, another tag
expect 0 new --student "$sa" --key key "$master"
cmp -s "$work/stdout" a.yaml || fail "new --student is not reproducible"
expect 0 new --student "$sa" --key key2 "$master"
[ "$(sed -n 's/^tag: //p' "$work/stdout")" != "$(sed -n 's/^tag: //p' a.yaml)" ] || fail "the tag ignores the key"
grep -q "^student: \"$sa\"$" a.yaml || fail "a.yaml lacks student: $sa"
grep -Eq '^tag: [0-9a-f]{32}$' a.yaml || fail "a.yaml lacks a tag"
! grep -q '^variants:' a.yaml || fail "a student's sheet lists the variants"
grep -q 'reshape(6, 4).t()' b.yaml || fail "b.yaml lacks variant b's setup"
! grep -q 'reshape(6, 4).t()' a.yaml || fail "a.yaml has variant b's setup"
sed -n '/^setup:/,/^parent:/p' a.yaml > a.setup
sed -n '/^setup:/,/^parent:/p' b.yaml > b.setup
! cmp -s a.setup b.setup || fail "the two students' setups are the same"
# a blank sheet: no predictions, no explanations
! grep -q 'explanation:' a.yaml || fail "a student's sheet has explanations"

# ---- fill a sheet with the true verdicts of its own setup (tlab key)
fill() { # fill SHEET KEYSOURCE OUT
    "$TLAB" key --format json "$2" 2>/dev/null |
        awk '/^      "id": /{want=1; next} want && /^        "kind": /{gsub(/[",]/, "", $2); print $2; want=0}' > "$3.kinds"
    [ "$(wc -l < "$3.kinds")" = 21 ] || fail "key of $2: $(wc -l < "$3.kinds") verdicts"
    awk -v kf="$3.kinds" 'BEGIN { while ((getline k < kf) > 0) ks[++n] = k }
        /^    predict: ~$/ { i++; sub(/~$/, ks[i]) } { print }' "$1" > "$3"
}
fill a.yaml a.yaml a-true.yaml
fill b.yaml b.yaml b-true.yaml
differ=$(paste -d ' ' a-true.yaml.kinds b-true.yaml.kinds | awk '$1 != $2' | wc -l)
[ "$differ" = "$changed" ] || fail "the sheets' keys differ in $differ ops, the table says $changed"

expect 1 grade --lab "$master" --key key a-true.yaml b-true.yaml
grep -q '^a-true.yaml,21,21,21,27,false,false,,$' "$work/stdout" || fail "a-true: $(cat "$work/stdout")"
grep -q '^b-true.yaml,21,21,21,27,false,false,,$' "$work/stdout" || fail "b-true: $(cat "$work/stdout")"
expect 1 check --lab "$master" --key key b-true.yaml
stdout_has "21/21 correct (threshold 16)"
expect 1 check --lab "$master" --key key --student "$sb" --format json b-true.yaml
grep -q '"correct": 21' "$work/stdout" || fail "check --format json: not 21 correct"

# ---- swapped sheets
# another student's sheet, renamed
sed "s/^student: .*/student: \"$sb\"/" a-true.yaml > swap-student.yaml
# another variant's setup and name on one's own sheet
awk -v bs=b.setup 'BEGIN { while ((getline l < bs) > 0) s = s l "\n" }
    /^setup:/ { skip = 1; printf "%s", s; next } skip && /^parent:/ { skip = 0; next }
    !skip { print }' a-true.yaml | sed 's/^variant: a$/variant: b/' > swap-variant.yaml
grep -q '^variant: b$' swap-variant.yaml || fail "swap-variant.yaml not made"
expect 2 grade --lab "$master" --key key swap-student.yaml swap-variant.yaml a-true.yaml
grep -q "^swap-student.yaml,0,21,0,27,false,false,,\"swap-student.yaml:[0-9]*:6: error: the tag does not match student '$sb' and variant 'a'" "$work/stdout" ||
    fail "swap-student not flagged: $(cat "$work/stdout")"
grep -q "^swap-variant.yaml,0,21,0,27,false,false,,\"swap-variant.yaml:[0-9]*:6: error: the tag does not match student '$sa' and variant 'b'" "$work/stdout" ||
    fail "swap-variant not flagged: $(cat "$work/stdout")"
grep -q '^a-true.yaml,21,21,' "$work/stdout" || fail "a-true graded with the swaps"
# the wrong key: every tag fails
expect 2 grade --lab "$master" --key key2 a-true.yaml
stdout_has "the tag does not match"
# a sheet without the record, under --key
expect 2 grade --lab "$master" --key key "$top_srcdir/answers/lab01.yaml"
stdout_has "has no student:, variant: and tag: record"
# check --lab --student: a classmate's sheet handed in as is
expect 2 check --lab "$master" --key key --student "$sb" a-true.yaml
stderr_has "this is the sheet of student '$sa', handed in by '$sb'"
# grade --key: the same student's sheet in two submissions (a classmate's,
# handed in as is, keeps its valid tag): both flagged, each naming the other
mkdir -p dup
cp a-true.yaml dup/a-true.yaml
expect 1 grade --lab "$master" --key key a-true.yaml dup/a-true.yaml b-true.yaml
grep -q '^a-true.yaml,21,21,21,27,false,true,' "$work/stdout" || fail "a-true not flagged: $(cat "$work/stdout")"
grep -q '^dup/a-true.yaml,21,21,21,27,false,true,' "$work/stdout" || fail "dup/a-true not flagged: $(cat "$work/stdout")"
grep -q '^b-true.yaml,21,21,21,27,false,false,,$' "$work/stdout" || fail "b-true flagged: $(cat "$work/stdout")"
expect 1 grade --lab "$master" --key key --format json a-true.yaml dup/a-true.yaml
stdout_has "the sheet of student '$sa' is handed in as dup/a-true.yaml too"

# ---- copying the other variant's answers
fill b.yaml a.yaml copied.yaml
expect 1 grade --lab "$master" --key key copied.yaml
got=$(sed -n 's/^copied.yaml,\([0-9]*\),21,.*/\1/p' "$work/stdout")
[ -n "$got" ] && [ "$got" -lt 16 ] || fail "copied answers scored $got (threshold 16)"
[ "$got" = $((21 - changed)) ] || fail "copied answers scored $got, expected $((21 - changed))"

# ---- an all-sometimes sheet scores nothing on a variant: a variant's
# sheet is graded on its own verdict (plus the master's explicit accept:)
sed 's/^    predict: ~$/    predict: sometimes/' a.yaml > a-some.yaml
sed 's/^    predict: ~$/    predict: sometimes/' b.yaml > b-some.yaml
expect 1 grade --lab "$master" --key key a-some.yaml b-some.yaml
grep -q '^a-some.yaml,0,21,' "$work/stdout" || fail "all-sometimes on a: $(cat "$work/stdout")"
grep -q '^b-some.yaml,0,21,' "$work/stdout" || fail "all-sometimes on b: $(cat "$work/stdout")"
# the master's own setup keeps sometimes (the plain lab01 sheet)
sed -e '/^variants:/,$d' "$master" | sed 's/^    predict: ~$/    predict: sometimes/' > plain-some.yaml
expect 1 grade --lab "$master" plain-some.yaml
got=$(sed -n 's/^plain-some.yaml,\([0-9]*\),.*/\1/p' "$work/stdout")
[ "$got" -gt 0 ] || fail "sometimes scores nothing on the master's own setup"

# ---- lab01v is labs/lab01.yaml with variants: (comments aside)
strip() { sed -e '/^#/d' -e '/^variants:/,/^[^ ]/{/^variants:/d;/^  /d;}' "$1"; }
strip "$master" > v.stripped
strip "$top_srcdir/labs/lab01.yaml" > l.stripped
cmp -s v.stripped l.stripped || fail "tests/variants/lab01v.yaml is out of step with labs/lab01.yaml: $(diff l.stripped v.stripped | head -5)"

# ---- without --key: each sheet on its own variant, the tag unchecked
expect 1 grade --lab "$master" a-true.yaml b-true.yaml
grep -c ',21,21,21,27,' "$work/stdout" | grep -qx 2 || fail "without --key: $(cat "$work/stdout")"
# a variant the master lacks
sed 's/^variant: a$/variant: zz/' a-true.yaml > zz.yaml
expect 2 grade --lab "$master" zz.yaml
stdout_has "this sheet is for variant 'zz', which the master does not have"

# ---- platform bundles: the student id from the platform
expect 0 autograder prairielearn --lab "$master" --key key -o pl
stderr_has "params.student"
[ -f pl/variants.key ] || fail "the PrairieLearn bundle lacks the key"
mkdir -p plroot/student plroot/data
cp a-true.yaml plroot/student/lab01.yaml
printf '{"params": {"student": "%s"}}\n' "$sa" > plroot/data/data.json
TLAB_GRADE_ROOT=$work/plroot sh pl/run.sh || fail "run.sh failed"
grep -q '"gradable": true' plroot/results/results.json || fail "PrairieLearn: $(head -c 300 plroot/results/results.json)"
printf '{"params": {"student": "%s"}}\n' "$sb" > plroot/data/data.json
TLAB_GRADE_ROOT=$work/plroot sh pl/run.sh || fail "run.sh failed"
grep -q "handed in by '$sb'" plroot/results/results.json || fail "PrairieLearn: a classmate's sheet passed"
printf 'not a tarball' > fake.tar; gzip fake.tar
TLAB_TARBALL=$work/fake.tar.gz run_tlab autograder gradescope --lab "$master" --key key -o gs.zip
[ "$status" = 0 ] || fail "gradescope bundle: $(cat "$work/stderr")"
stderr_has "submission_metadata.json"
if command -v unzip > /dev/null 2>&1; then
    mkdir -p gsroot/source gsroot/submission
    (cd gsroot/source && unzip -qq ../../gs.zip) || fail "unzip gs.zip"
    cp b-true.yaml gsroot/submission/lab01.yaml
    printf '{"users": [{"email": "%s", "id": 7}], "previous_submissions": []}\n' "$sb" > gsroot/submission_metadata.json
    TLAB_AUTOGRADER_ROOT=$work/gsroot sh gsroot/source/run_autograder || fail "run_autograder failed"
    ! grep -q 'could not be graded' gsroot/results/results.json || fail "Gradescope: $(head -c 300 gsroot/results/results.json)"
    printf '{"users": [{"email": "%s"}]}\n' "$sa" > gsroot/submission_metadata.json
    TLAB_AUTOGRADER_ROOT=$work/gsroot sh gsroot/source/run_autograder || fail "run_autograder failed"
    grep -q "handed in by '$sa'" gsroot/results/results.json || fail "Gradescope: a classmate's sheet passed"
fi
expect 2 autograder github --lab "$master" --key key -o gh
stderr_has "--key applies to gradescope and prairielearn"
expect 2 autograder prairielearn --lab "$top_srcdir/labs/lab02.yaml" --key key -o pl2
stderr_has "the master has none"
expect 2 check --lab "$master" --student-from "moodle:x.json" a-true.yaml
stderr_has "expected gradescope:FILE or prairielearn:FILE"

# ---- usage and bad input
expect 2 new --student s1 "$master"
stderr_has "--student and --key go together"
expect 2 new --student s1 --key key "$top_srcdir/labs/lab02.yaml"
stderr_has "has no variants:"
expect 2 new --student "" --key key "$master"
expect 2 new --student s1 --key missing-key "$master"
stderr_has "cannot read the key file"
expect 2 key --variants "$top_srcdir/labs/lab02.yaml"
bad() { # bad YAML-TAIL LINE:COL TEXT
    printf 'tlab: 1\nid: t\nsetup: |\n  import torch\n  x = torch.zeros(4)\nops:\n  - id: "1"\n    op: x[1:]\n%b' "$1" > bad.yaml
    expect 2 key bad.yaml
    stderr_has "bad.yaml:$2: error: $3"
}
bad 'variants: 3\n' 9:11 "'variants' must be a list of {name, setup}"
bad 'variants: []\n' 9:11 "'variants' is empty"
bad 'variants:\n  - {name: a}\n' 10:5 "variant 'a' needs a 'setup'"
bad 'variants:\n  - {setup: "x = 1"}\n' 10:5 "a variant needs a 'name'"
bad 'variants:\n  - {name: a, setup: "x = 1"}\n  - {name: a, setup: "x = 2"}\n' 11:12 "duplicate variant name 'a'"
bad 'variants:\n  - {name: a, setup: "x = 1", shape: [2]}\n' 10:31 "unknown key 'shape' in a variant"
bad 'variants:\n  - {name: a b, setup: "x = 1"}\n' 10:12 "a variant's 'name' must be a plain word"
bad 'variants:\n  - {name: a, setup: "x = ("}\n' 10:23 "syntax error"
# ---- generators: variants: {generate: ...} (vargen.h), the cross product
sed '/^variants:/,$d' "$master" > gen.yaml
printf 'variants: {generate: {shape: [[4, 6], [6, 4]], transposed: [false, true], dtype: [float32, int64]}}\n' >> gen.yaml
expect 0 key --variants gen.yaml
head -n 1 "$work/stdout" | grep -Eq '^op +setup +4x6-n-float32 +4x6-n-int64 +4x6-t-float32 +4x6-t-int64 +6x4-n-float32 +6x4-n-int64 +6x4-t-float32 +6x4-t-int64 +op text$' ||
    fail "generated names: $(head -n 1 "$work/stdout")"
grep -Eq '^9 +view +view +view +error +error +view +view +error +error +\* x\.view\(3, 8\)$' "$work/stdout" ||
    fail "generated op 9 row"
grep -q '^16 .* \* x.float()$' "$work/stdout" || fail "the int64 variants change x.float()"
stdout_has "ops change verdict between the 8 variants"
# the key-time check holds for generated variants
stderr_has "gen.yaml:85:5: warning: op 9 errors in variant 4x6-t-float32 4x6-t-int64 6x4-t-float32 6x4-t-int64 but not in"
stderr_has "gen.yaml:175:5: warning: op 19 errors in variant 6x4-n-float32"
# a student's sheet of a generated variant: its setup, and full marks on it
gv="" gw=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    expect 0 new --student "g$i" --key key gen.yaml
    v=$(sed -n 's/^variant: //p' "$work/stdout")
    case $v in *-t-int64) [ -n "$gv" ] || { gv=$v; cp "$work/stdout" g1.yaml; } ;;
               *-n-float32) [ -n "$gw" ] || { gw=$v; cp "$work/stdout" g2.yaml; } ;; esac
done
[ -n "$gv" ] && [ -n "$gw" ] || fail "20 students and no transposed int64 and no plain float32 variant"
grep -q 'dtype=torch.int64).reshape(.*).t()$' g1.yaml || fail "g1.yaml lacks its generated setup"
fill g1.yaml g1.yaml g1-true.yaml
fill g2.yaml g2.yaml g2-true.yaml
expect 1 grade --lab gen.yaml --key key g1-true.yaml g2-true.yaml
grep -c ',21,21,21,27,' "$work/stdout" | grep -qx 2 || fail "generated variants: $(cat "$work/stdout")"
# mixed with written variants; step and channels_last
sed '/^variants:/,$d' "$master" > gen2.yaml
printf 'variants:\n  - {name: a, setup: "x = torch.arange(24.).reshape(4, 6)"}\n  - generate: {shape: [[1, 2, 3, 4]], step: [1, 2], channels_last: [false, true]}\n' >> gen2.yaml
expect 0 key --variants gen2.yaml
head -n 1 "$work/stdout" | grep -Eq '^op +setup +a +s1-cf +s1-cl +s2-cf +s2-cl +op text$' ||
    fail "step/channels_last names: $(head -n 1 "$work/stdout")"
expect 0 new --student s1 --key key gen2.yaml
bad 'variants: {generate: {shape: [[4, 6]], dtype: [float33]}}\n' 9:48 "unknown dtype"
bad 'variants: {generate: {shape: [4, 6]}}\n' 9:30 "'shape' must be a list of shapes"
bad 'variants: {generate: {shape: [[4, 6]], channels_last: [true]}}\n' 9:31 "channels_last needs 4-D shapes"
bad 'variants: {generat: {shape: [[4]]}}\n' 9:12 "unknown key 'generat' in 'variants'"
bad 'variants:\n  - {name: g, setup: "x = 1"}\n  - generate: {shape: [[3]]}\n' 11:15 "duplicate variant name 'g'"
exit 0
