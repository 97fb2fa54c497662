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

# the text section: tags, the ops as evidence, the belief and the hint
lab=$top_srcdir/labs/lab01.yaml
rc=0
"$TLAB" check --lab "$lab" "$work/lab01-transpose-copies.yaml" > "$work/text" || rc=$?
[ "$rc" -eq 1 ] || fail "lab01 transpose-copies: exit $rc"
grep -q '^Misconceptions$' "$work/text" || fail "no Misconceptions section in text"
grep -q '^  transpose-copies (ops 3, 4, 5, 6' "$work/text" ||
    fail "text: transpose-copies without its ops: $(grep -A1 Misconceptions "$work/text")"
grep -q '^    Hint: ' "$work/text" || fail "text: no hint"
exit 0
