#!/bin/sh
# tests/labs.sh - grade every shipped lab sheet through the real tlab binary.
#
# For each tests/students/NAME.yaml, NAME.expect holds the expected exit
# status and score ("exit 1" and "15/20"); the answer keys in answers/ must
# score full marks and exit 0; the blank masters in labs/ must score 0 and
# exit 1. Each sheet is checked twice: the final text line
# ("15/20 correct (threshold 16) - FAIL") and the score object of
# --format json. The keys themselves were verified against PyTorch with
# tests/students/verify_keys.py (not needed here: no Python at test time).
#
# Sources tests/setup ($TLAB, $top_srcdir, $work), then collects every
# mismatch instead of stopping at the first one.

. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"
set +e
# shellcheck disable=SC2154 # $work comes from tests/setup
tmp=$work

failures=0
checks=0

bad() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# check_sheet SHEET WANT_EXIT WANT_SCORE
check_sheet() {
    sheet=$1 want_exit=$2 want_score=$3
    checks=$((checks + 1))

    "$TLAB" check --color never "$sheet" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne "$want_exit" ]; then
        bad "$sheet: text: exit $rc, expected $want_exit"
        sed 's/^/    /' "$tmp/err" | head -n 5 >&2
    fi
    line=$(grep -E '^[0-9]+/[0-9]+ correct' "$tmp/out" | tail -n 1)
    score=${line%% *}
    if [ "$score" != "$want_score" ]; then
        bad "$sheet: text: score line '$line', expected $want_score"
    fi
    if [ "$want_exit" -eq 0 ]; then verdict=PASS; else verdict=FAIL; fi
    case $line in
        *"- $verdict"|*"- $verdict ("*) ;;
        *) bad "$sheet: text: '$line' does not end in '- $verdict'" ;;
    esac

    "$TLAB" check --format json "$sheet" >"$tmp/json" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne "$want_exit" ]; then
        bad "$sheet: json: exit $rc, expected $want_exit"
    fi
    flat=$(tr -d ' \t\r\n' <"$tmp/json")
    got=$(printf '%s\n' "$flat" |
        grep -o '"score":{"correct":[0-9]*,"total":[0-9]*' |
        sed 's/.*"correct":\([0-9]*\),"total":\([0-9]*\)/\1\/\2/')
    if [ "$got" != "$want_score" ]; then
        bad "$sheet: json: score '$got', expected $want_score"
    fi
    passed=$(printf '%s\n' "$flat" | grep -o '"passed":[a-z]*' | tail -n 1)
    if [ "$want_exit" -eq 0 ]; then want_passed=true; else want_passed=false; fi
    if [ "$passed" != "\"passed\":$want_passed" ]; then
        bad "$sheet: json: top-level '$passed', expected $want_passed"
    fi
}

# total number of ops in a lab: lines of the form '  - id: "N"' before
# 'questions:'
count_ops() {
    sed -n '/^ops:/,/^questions:/p' "$1" | grep -c '^  - id: '
}

# 1. the answer keys: full marks
for key in "$top_srcdir"/answers/lab0*.yaml; do
    n=$(count_ops "$key")
    check_sheet "$key" 0 "$n/$n"
done

# 2. the blank masters: nothing answered, nothing revealed
for master in "$top_srcdir"/labs/lab0*.yaml; do
    n=$(count_ops "$master")
    check_sheet "$master" 1 "0/$n"
    grep -qi unanswered "$tmp/out" ||
        bad "$master: blank ops are not reported as unanswered"

    # tlab new on a master gives a sheet that checks the same way
    checks=$((checks + 1))
    if "$TLAB" new "$master" >"$tmp/new.yaml" 2>"$tmp/err"; then
        check_sheet "$tmp/new.yaml" 1 "0/$n"
    else
        bad "$master: tlab new failed"
    fi

    # tlab key and tlab run execute every op without a lab error
    for cmd in key run; do
        checks=$((checks + 1))
        "$TLAB" "$cmd" "$master" >"$tmp/$cmd" 2>"$tmp/err"
        rc=$?
        [ "$rc" -eq 0 ] || bad "$master: tlab $cmd: exit $rc"
    done
done

# 3. the student sheets and their expected results
for expect in "$top_srcdir"/tests/students/*.expect; do
    sheet=${expect%.expect}.yaml
    want_exit=$(sed -n 's/^exit \([0-9]*\)$/\1/p' "$expect")
    want_score=$(grep -E '^[0-9]+/[0-9]+$' "$expect")
    if [ ! -f "$sheet" ] || [ -z "$want_exit" ] || [ -z "$want_score" ]; then
        bad "$expect: malformed or missing sheet"
        continue
    fi
    check_sheet "$sheet" "$want_exit" "$want_score"
done

# 4. instructor batch grading: every student sheet is graded against its
#    master with the same score, and none of them counts as tampered.
for master in "$top_srcdir"/labs/lab0*.yaml; do
    lab=$(basename "$master" .yaml)
    set -- "$top_srcdir"/tests/students/"$lab"-*.yaml
    [ -f "$1" ] || continue
    checks=$((checks + 1))
    "$TLAB" grade --format csv --lab "$master" "$@" >"$tmp/grade.csv" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -gt 1 ]; then
        bad "tlab grade --lab $master: exit $rc"
        continue
    fi
    for sheet in "$@"; do
        want=$(grep -E '^[0-9]+/[0-9]+$' "${sheet%.yaml}.expect")
        row=$(awk -F, -v f="$(basename "$sheet")" '
            NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
            index($(col["file"]), f) {
                t = $(col["tampered"])
                print $(col["correct"]) "/" $(col["total"]) " " t
            }' "$tmp/grade.csv" | tr -d '"')
        case $row in
            "$want false"|"$want 0"|"$want no"|"$want ") ;;
            *) bad "tlab grade: $sheet: '$row', expected '$want' untampered" ;;
        esac
    done
done

# 5. the lab file manual: renders without a warning, carries the version
checks=$((checks + 1))
page=$top_srcdir/man/tlab-lab.5
version=$("$TLAB" --version | sed -n '1s/^tlab //p')
sed -n '/^\.TH /p' "$page" | grep -qF "\"tlab $version\"" ||
    bad "$page: .TH does not carry version $version"
GROFF=${GROFF:-$(command -v groff || echo no)}
if [ "$GROFF" != no ] && [ -n "$GROFF" ]; then
    "$GROFF" -man -ww -z "$page" >"$tmp/groff" 2>&1
    [ -s "$tmp/groff" ] && bad "$page: groff warnings: $(head -n 3 "$tmp/groff")"
fi

echo "labs.sh: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
