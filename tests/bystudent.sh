#!/bin/sh
# tests/bystudent.sh - `tlab grade --by-student` (issue #29): each student's
# profile across labs.
#
# Synthetic students (tests/mc_student), each holding beliefs, hand in
# sheets of lab01 and lab02 in three layouts: a folder per student
# (alice/lab01.yaml), a folder per lab (lab01/bob.yaml), and a student:
# field that overrides both. Checks: every sheet graded on the master of
# its id: with the score `grade` gives it; the misconceptions of each
# student with the labs and ops as evidence; the labs not handed in; text,
# json (validating against tlab-grade.schema.json) and html; unreadable
# sheets and sheets of no master listed with their error (exit 2); usage
# errors.
. "${top_srcdir:-.}/tests/setup"

gen=${top_builddir:-.}/tests/mc_student
validate=${top_builddir:-.}/tests/validate_json
[ -x "$gen" ] || fail "no $gen (make check builds it)"
l1=$top_srcdir/labs/lab01.yaml
l2=$top_srcdir/labs/lab02.yaml
cd "$work"

# fill_sheet MASTER ANSWERS: the master with `predict: ~` of each op set
fill_sheet() {
    awk -v answers="$2" '
        BEGIN { while ((getline l < answers) > 0) { split(l, f, " "); a[f[1]] = f[2] } }
        /^  - id: / { id = $0; sub(/^  - id: */, "", id); gsub(/["'"'"']/, "", id) }
        /^    predict: ~ *$/ && (id in a) { sub(/~/, a[id]) }
        { print }
    ' "$1"
}
"$TLAB" key --format json "$l1" > k1.json
"$TLAB" key --format json "$l2" > k2.json
mkdir -p alice lab01 lab02 carol
"$gen" transpose-copies k1.json > ans && fill_sheet "$l1" ans > alice/lab01.yaml
"$gen" noncontiguous-means-copy k2.json > ans && fill_sheet "$l2" ans > alice/lab02.yaml
"$gen" to-same-copies k1.json > ans && fill_sheet "$l1" ans > lab01/bob.yaml
"$gen" transpose-copies k2.json > ans && fill_sheet "$l2" ans > lab02/bob.yaml
# carol's sheet is in a folder named like nobody; its student: field names her
"$gen" transpose-copies k1.json > ans && fill_sheet "$l1" ans |
    sed 's/^id: lab01$/id: lab01\nstudent: carol/' > carol/whatever.yaml
grep -q '^student: carol$' carol/whatever.yaml || fail "carol's sheet not made"

# ---- text
expect 1 grade --by-student --lab "$l1" --lab "$l2" alice/lab01.yaml alice/lab02.yaml \
    lab01/bob.yaml lab02/bob.yaml carol/whatever.yaml
stdout_has "3 students, 5 sheets, 2 labs"
stdout_has "Student alice (from the sheet's folder)"
stdout_has "Student bob (from the sheet's file name)"
stdout_has "Student carol (from its student: field)"
# students in order, each sheet's score as grade gives it
[ "$(sed -n 's/^Student \([a-z]*\) .*/\1/p' "$work/stdout" | tr '\n' ' ')" = "alice bob carol " ] ||
    fail "students not in order"
for f in alice/lab01.yaml lab02/bob.yaml; do
    lab=${f#*/}; case $f in lab02/*|*/lab02.yaml) m=$l2 ;; *) m=$l1 ;; esac
    run_tlab grade --lab "$m" "$f"
    c=$(sed -n "s|^$f,\([0-9]*\),\([0-9]*\),.*|\1/\2|p" "$work/stdout")
    [ -n "$c" ] || fail "grade $f: $(cat "$work/stdout")"
    run_tlab grade --by-student --lab "$l1" --lab "$l2" "$f"
    grep -Eq "^  lab0[12] +$c +.* $f\$" "$work/stdout" || fail "$f: not $c in the profile"
done
expect 1 grade --by-student --lab "$l1" --lab "$l2" alice/lab01.yaml alice/lab02.yaml \
    lab01/bob.yaml lab02/bob.yaml carol/whatever.yaml
# the beliefs with their labs and ops
grep -q '^    transpose-copies: lab01 ops 3, 4, 5, 6$' "$work/stdout" || fail "alice transpose-copies"
grep -q '^    noncontiguous-means-copy: lab02 ops ' "$work/stdout" || fail "alice noncontiguous-means-copy"
grep -q '^    to-same-copies: lab01 ops 15, 16$' "$work/stdout" || fail "bob to-same-copies"
grep -q '^    transpose-copies: lab02 ops ' "$work/stdout" || fail "bob transpose-copies in lab02"
grep -q '^      Thinks transposing or permuting' "$work/stdout" || fail "no belief"
# carol handed in no lab02
sed -n '/^Student carol/,$p' "$work/stdout" | grep -Eq '^  lab02 +not handed in$' ||
    fail "carol's missing lab02"

# a student holding one belief across two labs: one entry, both labs
"$gen" transpose-copies k2.json > ans && fill_sheet "$l2" ans > alice/lab02.yaml
expect 1 grade --by-student --lab "$l1" --lab "$l2" alice/lab01.yaml alice/lab02.yaml
grep -q '^    transpose-copies: lab01 ops 3, 4, 5, 6; lab02 ops ' "$work/stdout" ||
    fail "one belief over two labs: $(cat "$work/stdout")"
[ "$(grep -c '^    [a-z-]*:' "$work/stdout")" = 1 ] || fail "alice holds one belief"

# ---- json: validates, the same facts
expect 1 grade --by-student --format json --lab "$l1" --lab "$l2" alice/lab01.yaml \
    alice/lab02.yaml lab01/bob.yaml lab02/bob.yaml carol/whatever.yaml
cp "$work/stdout" by.json
"$validate" "$top_srcdir/share/tlab-grade.schema.json" by.json || fail "by-student json invalid"
grep -q '"from": "student"' by.json || fail "json: carol from student"
grep -q '"missing": \["lab02"\]' by.json || fail "json: carol's missing lab02"
grep -q '"ops": \["3", "4", "5", "6"\]' by.json || fail "json: ops as evidence"
# the class document still validates against the same schema
expect 1 grade --format json --lab "$l1" alice/lab01.yaml
"$validate" "$top_srcdir/share/tlab-grade.schema.json" "$work/stdout" || fail "class json invalid"

# ---- html
expect 1 grade --by-student --format html --lab "$l1" --lab "$l2" alice/lab01.yaml \
    lab01/bob.yaml
stdout_has '<section class="student">'
stdout_has '<h2>alice</h2>'
stdout_has '<dt><code>transpose-copies</code>: lab01 ops 3, 4, 5, 6</dt>'
if command -v xmllint > /dev/null 2>&1; then
    xmllint --noout "$work/stdout" || fail "the html is not well-formed"
fi

# ---- one --lab: every sheet on it
expect 1 grade --by-student --lab "$l1" alice/lab01.yaml lab01/bob.yaml
stdout_has "2 students, 2 sheets, 1 lab"

# ---- bad sheets: listed with their error, exit 2; names escaped
printf 'tlab: 1\nid: [\n' > alice/broken.yaml
expect 2 grade --by-student --lab "$l1" --lab "$l2" alice/lab01.yaml alice/broken.yaml \
    "$top_srcdir/labs/lab03.yaml"
grep -Eq '^  \? +0 +alice/broken.yaml:3:1: error: ' "$work/stdout" || fail "broken sheet"
stdout_has "lab03.yaml: error: its id 'lab03' is no --lab master's id"
sed 's/^student: carol$/student: "eve\\x1b[31m"/' carol/whatever.yaml > carol/eve.yaml
expect 1 grade --by-student --lab "$l1" carol/eve.yaml
! grep -q "$(printf '\033')" "$work/stdout" || fail "a control character reached the output"

# ---- usage
expect 2 grade --lab "$l1" --lab "$l2" alice/lab01.yaml
stderr_has "several masters need --by-student"
expect 2 grade --by-student --format csv --lab "$l1" alice/lab01.yaml
stderr_has "--by-student writes text, json or html"
expect 2 grade --by-student --lab "$l1" --lab "$l1" alice/lab01.yaml
stderr_has "are both lab 'lab01'"
expect 0 grade --help
stdout_has "--by-student"
stdout_has "student: field"
exit 0
