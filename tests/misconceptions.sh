#!/bin/sh
# misconceptions.sh - the misconceptions of a scorecard (issue #29).
#
# For every shipped lab and every belief of share/misconceptions.yaml, a
# synthetic student (tests/mc_student, from `tlab key --format json`) who
# holds that one belief and answers everything else right is graded with
# `tlab check --lab`: the scorecard names exactly that belief when at least
# min_ops (2 unless the catalogue says) of its wrong answers come from it,
# and no misconception otherwise. The one exception is a lab whose
# evidence cannot tell the belief from a narrower one listed before it
# (the student's wrong answers are exactly the narrower belief's): the
# narrower one is named, and this test checks that it is that case.
# Every belief must be recognised in at least one shipped lab. The
# scorecards validate against the schema, and the text report has the
# section.
. "${top_srcdir:-.}/tests/setup"

gen=${top_builddir:-.}/tests/mc_student
validate=${top_builddir:-.}/tests/validate_json
schema=$top_srcdir/share/tlab-scorecard.schema.json
[ -x "$gen" ] || fail "no $gen (make check builds it)"
tags=$(sed -n 's/^  - tag: *//p' "$top_srcdir/share/misconceptions.yaml")
[ -n "$tags" ] || fail "no tags in share/misconceptions.yaml"

# min_ops TAG: the catalogue's min_ops of TAG (2 when absent)
min_ops() {
    awk -v t="$1" '/^  - tag: / { on = ($3 == t) } on && /^    min_ops: / { m = $2 }
                   END { print m ? m : 2 }' "$top_srcdir/share/misconceptions.yaml"
}
# earlier A B: A is listed before B in the catalogue
earlier() {
    for t in $tags; do
        [ "$t" = "$1" ] && return 0
        [ "$t" = "$2" ] && return 1
    done
    return 1
}

# fill_sheet MASTER ANSWERS: the master with `predict: ~` of each op set
fill_sheet() {
    awk -v answers="$2" '
        BEGIN { while ((getline l < answers) > 0) { split(l, f, " "); a[f[1]] = f[2] } }
        /^  - id: / { id = $0; sub(/^  - id: */, "", id); gsub(/["'"'"']/, "", id) }
        /^    predict: ~ *$/ && (id in a) { sub(/~/, a[id]) }
        { print }
    ' "$1"
}

: > "$work/seen"
for lab in "$top_srcdir"/labs/lab0*.yaml; do
    name=$(basename "$lab" .yaml)
    "$TLAB" key --format json "$lab" > "$work/key.json" || fail "$name: tlab key failed"
    for tag in $tags; do
        "$gen" "$tag" "$work/key.json" > "$work/ans" || fail "$name $tag: mc_student failed"
        misled=$(grep -c ' misled$' "$work/ans" || true)
        fill_sheet "$lab" "$work/ans" > "$work/$name-$tag.yaml"
        rc=0
        "$TLAB" check --lab "$lab" --format json "$work/$name-$tag.yaml" \
            > "$work/card.json" 2> "$work/err" || rc=$?
        [ "$rc" -le 1 ] || fail "$name $tag: tlab check exit $rc: $(cat "$work/err")"
        got=$(sed -n '/"misconceptions": \[/,/^  \]/s/^      "tag": "\(.*\)",$/\1/p' "$work/card.json" |
              tr '\n' ' ')
        min=$(min_ops "$tag")
        if [ "$misled" -ge "$min" ]; then
            if [ "$got" != "$tag " ]; then
                # the one case a lab cannot tell: the same wrong answers
                # as a narrower belief listed before it (which is named)
                other=${got% }
                case $got in *" "*" "*|"") fail "$name: a student holding $tag ($misled ops) is tagged: '${got}'" ;; esac
                "$gen" "$other" "$work/key.json" | grep ' misled$' > "$work/other" || true
                grep ' misled$' "$work/ans" | cmp -s - "$work/other" && earlier "$other" "$tag" ||
                    fail "$name: a student holding $tag ($misled ops) is tagged: '${got}'"
                echo "$name: $tag gives the same wrong answers as $other (named)"
                continue
            fi
            echo "$tag" >> "$work/seen"
        else
            [ -z "$got" ] ||
                fail "$name: a student holding $tag ($misled op) is tagged: '${got}'"
        fi
    done
    "$validate" "$schema" "$work/card.json" || fail "$name: the scorecard does not validate"
done
for tag in $tags; do
    grep -qx "$tag" "$work/seen" || fail "$tag is recognised in no shipped lab"
done

"$TLAB" key --format json "$top_srcdir/labs/lab01.yaml" > "$work/key01.json"
# two beliefs at once: both named, never the catch-all everything-copies
# that covers their ops (the student answers view right on the other views)
for pair in transpose-copies+to-same-copies transpose-copies+contiguous-always-copies \
        to-same-copies+noncontiguous-means-copy; do
    want=$(for t in $tags; do case "+$pair+" in *"+$t+"*) printf '%s ' "$t" ;; esac; done)
    "$gen" "$pair" "$work/key01.json" > "$work/ans"
    fill_sheet "$top_srcdir/labs/lab01.yaml" "$work/ans" > "$work/two.yaml"
    rc=0
    "$TLAB" check --lab "$top_srcdir/labs/lab01.yaml" --format json "$work/two.yaml" \
        > "$work/card.json" 2> "$work/err" || rc=$?
    [ "$rc" -le 1 ] || fail "lab01 $pair: exit $rc: $(cat "$work/err")"
    got=$(sed -n '/"misconceptions": \[/,/^  \]/s/^      "tag": "\(.*\)",$/\1/p' "$work/card.json" |
          tr '\n' ' ')
    [ "$got" = "$want" ] || fail "lab01: a student holding $pair is tagged '$got', wanted '$want'"
done
# a student right on eleven views, wrong on 7, 15, 16 (view/alias said copy)
# among others: to-same-copies, not everything-copies
rc=0
"$TLAB" check --lab "$top_srcdir/labs/lab01.yaml" --format json \
    "$top_srcdir/tests/students/lab01-fifteen.yaml" > "$work/card.json" 2> /dev/null || rc=$?
got=$(sed -n '/"misconceptions": \[/,/^  \]/s/^      "tag": "\(.*\)",$/\1/p' "$work/card.json" |
      tr '\n' ' ')
[ "$got" = "to-same-copies " ] || fail "lab01-fifteen is tagged '$got'"

# the text section: tags, the ops as evidence, the belief and the hint
lab=$top_srcdir/labs/lab01.yaml
rc=0
"$TLAB" check --lab "$lab" "$work/lab01-transpose-copies.yaml" > "$work/text" || rc=$?
[ "$rc" -eq 1 ] || fail "lab01 transpose-copies: exit $rc"
grep -q '^Misconceptions$' "$work/text" || fail "no Misconceptions section in text"
grep -q '^  transpose-copies (ops 3, 4, 5, 6' "$work/text" ||
    fail "text: transpose-copies without its ops: $(grep -A1 Misconceptions "$work/text")"
grep -q '^    Hint: ' "$work/text" || fail "text: no hint"

# the class report ranks the beliefs by how many students hold them (ties
# in catalogue order), with the ops that reveal each: text, JSON, HTML
cp "$work/lab01-transpose-copies.yaml" "$work/lab01-transpose-again.yaml"
set -- "$work/lab01-transpose-copies.yaml" "$work/lab01-transpose-again.yaml" \
    "$work/lab01-everything-copies.yaml" "$work/lab01-to-same-copies.yaml" \
    "$work/lab01-noncontiguous-means-copy.yaml"
want="transpose-copies to-same-copies noncontiguous-means-copy everything-copies "
rc=0
"$TLAB" grade --lab "$lab" --format json "$@" > "$work/class.json" 2> /dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "grade json: exit $rc"
"$validate" "$top_srcdir/share/tlab-grade.schema.json" "$work/class.json" ||
    fail "the class record does not validate"
got=$(sed -n '/^  "summary"/,$p' "$work/class.json" |
      sed -n '/^    "misconceptions": \[/,/^    \]/s/^        "tag": "\(.*\)",$/\1/p' | tr '\n' ' ')
[ "$got" = "$want" ] || fail "class json ranking: '$got', wanted '$want'"
grep -q '^        "students": 2,$' "$work/class.json" || fail "class json: 2 students for one"
rc=0
"$TLAB" grade --lab "$lab" --format text "$@" > /dev/null 2> "$work/class.txt" || rc=$?
[ "$rc" -eq 1 ] || fail "grade text: exit $rc"
got=$(sed -n '/^  misconception /,$s/^  \([a-z-]*\)  *[0-9].*/\1/p' "$work/class.txt" | tr '\n' ' ')
[ "$got" = "$want" ] || fail "class text ranking: '$got' ($(cat "$work/class.txt"))"
grep -q '^  transpose-copies  *2  40.0%  3 (2), 4 (2), 5 (2), 6 (2)$' "$work/class.txt" ||
    fail "class text: transpose-copies row"
rc=0
"$TLAB" grade --lab "$lab" --format html "$@" > "$work/class.html" 2> /dev/null || rc=$?
[ "$rc" -eq 1 ] || fail "grade html: exit $rc"
got=$(sed -n 's/^<tr class="class-misconception"><td><code>\([a-z-]*\)<.*/\1/p' "$work/class.html" |
      tr '\n' ' ')
[ "$got" = "$want" ] || fail "class html ranking: '$got'"
rc=0
"$TLAB" check --lab "$lab" --format html "$work/lab01-transpose-copies.yaml" > "$work/card.html" ||
    rc=$?
grep -q '^<dt><code>transpose-copies</code> (ops <a href="#op-3">3</a>' "$work/card.html" ||
    fail "scorecard html: no transpose-copies"

# a master's own misconceptions: an entry that only its tagged ops support,
# and min_ops: 1 for a shipped one
awk '
    /^ops:/ { print "misconceptions:"
              print "  - tag: slicing-copies"
              print "    belief: Thinks a slice copies the rows it keeps."
              print "    hint: A slice only moves the offset and the strides."
              print "    predicts: copy"
              print "  - tag: transpose-copies"
              print "    min_ops: 1" }
    /^  - id: / { id = $0; sub(/^  - id: */, "", id); gsub(/"/, "", id) }
    { print }
    /^    predict: ~/ && (id == "1" || id == "2") { print "    misconceptions: [slicing-copies]" }
' "$lab" > "$work/custom.yaml"
"$TLAB" key --format json "$lab" > "$work/key.json"
"$gen" advanced-indexing-views "$work/key.json" > "$work/right"
! grep -q misled "$work/right" || fail "lab01 has advanced indexing now: pick another belief"
sed -e 's/^1 .*/1 copy/' -e 's/^2 .*/2 copy/' "$work/right" > "$work/ans"
fill_sheet "$work/custom.yaml" "$work/ans" > "$work/custom-s1.yaml"
sed -e 's/^3 .*/3 copy/' "$work/right" > "$work/ans"
fill_sheet "$work/custom.yaml" "$work/ans" > "$work/custom-s2.yaml"
fill_sheet "$lab" "$work/ans" > "$work/plain-s2.yaml"
card_tags() {
    rc=0
    "$TLAB" check --lab "$1" --format json "$2" > "$work/card.json" 2> "$work/err" || rc=$?
    [ "$rc" -le 1 ] || fail "check $2: exit $rc: $(cat "$work/err")"
    sed -n '/"misconceptions": \[/,/^  \]/s/^      "tag": "\(.*\)",$/\1/p' "$work/card.json" |
        tr '\n' ' '
}
got=$(card_tags "$work/custom.yaml" "$work/custom-s1.yaml")
[ "$got" = "slicing-copies " ] || fail "custom misconception: '$got'"
grep -q '"1", "2"\]' "$work/card.json" || grep -A3 '"slicing-copies"' "$work/card.json" | grep -q '"2"' ||
    fail "custom misconception: ops"
got=$(card_tags "$work/custom.yaml" "$work/custom-s2.yaml")
[ "$got" = "transpose-copies " ] || fail "min_ops: 1 from the master: '$got'"
got=$(card_tags "$lab" "$work/plain-s2.yaml")
[ -z "$got" ] || fail "one op is not enough without the master's min_ops: '$got'"
# the blank sheet names no misconception (tlab new drops them)
"$TLAB" new "$work/custom.yaml" > "$work/blank.yaml" 2> "$work/err" ||
    fail "tlab new: $(cat "$work/err")"
! grep -q misconception "$work/blank.yaml" || fail "tlab new kept the misconceptions"
"$TLAB" check --lab "$work/custom.yaml" "$work/blank.yaml" > /dev/null 2>&1 ||
    [ $? -eq 1 ] || fail "the blank sheet of a lab with misconceptions is not graded"
# a tag no misconception has, and a bad entry: the lab is refused, located
sed 's/misconceptions: \[slicing-copies\]/misconceptions: [slicing-copy]/' "$work/custom.yaml" \
    > "$work/bad-tag.yaml"
sed 's/^    predicts: copy$/    predicts: copies/' "$work/custom.yaml" > "$work/bad-entry.yaml"
for f in bad-tag bad-entry; do
    rc=0
    "$TLAB" check "$work/$f.yaml" > /dev/null 2> "$work/err" || rc=$?
    [ "$rc" -eq 2 ] || fail "$f.yaml: exit $rc"
    grep -q "^$work/$f.yaml:[0-9]*:[0-9]*: error: .*misconception\|predicts" "$work/err" ||
        fail "$f.yaml: $(cat "$work/err")"
done

# the generator knows only the catalogue's tags
"$gen" no-such-tag "$work/key.json" 2> /dev/null && fail "mc_student took an unknown tag"

# a malformed catalogue: one located error, exit 2
printf 'tlab-misconceptions: 1\nmisconceptions:\n  - tag: a\n    belief: b\n    hint: c\n    when: {actual: sometimes}\n    predicts: copy\n' > "$work/bad1.yaml"
printf 'tlab-misconceptions: 1\nmisconceptions:\n  - tag: a\n    belief: b\n    hint: c\n    when: {op_kind: t}\n    predicts: veiw\n' > "$work/bad2.yaml"
printf 'tlab-misconceptions: 1\nmisconceptions:\n  - tag: a\n    belief: b\n    hint: c\n    when: {colour: red}\n    predicts: copy\n' > "$work/bad3.yaml"
printf 'tlab-misconceptions: 1\nmisconceptions:\n  - tag: a\n    belief: b\n    hint: c\n    when: {truth: view}\n    predicts: copy\n    min_ops: 0\n' > "$work/bad4.yaml"
for k in 1:6:20 2:7:15 3:6:12 4:8:14; do
    f=${k%%:*}
    rc=0
    "$gen" --parse "$work/bad$f.yaml" > /dev/null 2> "$work/err" || rc=$?
    [ "$rc" -eq 2 ] || fail "bad$f.yaml: exit $rc"
    [ "$(wc -l < "$work/err")" -eq 1 ] || fail "bad$f.yaml: not one line: $(cat "$work/err")"
    grep -q "^$work/bad$f.yaml:${k#*:}: error: " "$work/err" ||
        fail "bad$f.yaml: $(cat "$work/err"), wanted at ${k#*:}"
done
"$gen" --parse "$top_srcdir/share/misconceptions.yaml" > "$work/tags" ||
    fail "the shipped catalogue does not parse"
[ "$(cat "$work/tags")" = "$(printf '%s\n' $tags)" ] || fail "tags differ"
exit 0
