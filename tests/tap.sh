#!/bin/sh
# tests/tap.sh - tlab's TAP read by real consumers: Perl's prove
# (TAP::Harness) and python3-tap (tests/tap_check.py). For every shipped
# sheet graded on its master (check --lab) and for grade over several
# sheets: TAP version 13, no parse errors, and the consumer counts exactly
# the failures tlab printed; an answer key passes prove outright; an
# unreadable sheet is a bail out that both consumers see. Skips (77) when
# neither consumer is installed.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

have_prove=no have_py=no
command -v prove >/dev/null 2>&1 && have_prove=yes
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3 || echo false)
"$py" -c 'import tap' >/dev/null 2>&1 && have_py=yes
[ $have_prove = yes ] || [ $have_py = yes ] || skip "neither prove nor python3-tap is installed"

# consume FILE: both consumers accept FILE; prove's failure count must
# be tlab's count of 'not ok' lines
consume() {
    f=$1
    if [ $have_prove = yes ]; then
        prove -e cat "$f" > "$work/prove.out" 2>&1 || true
        if grep -q 'Parse errors\|know about versions\|Unknown TAP token' "$work/prove.out"; then
            cat "$work/prove.out" >&2
            fail "prove: parse errors in $f"
        fi
        nok=$(grep -c '^not ok ' "$f" || true)
        if [ "$nok" -eq 0 ]; then
            grep -q '^Result: PASS' "$work/prove.out" || {
                cat "$work/prove.out" >&2
                fail "prove: $f has no failures but does not pass"
            }
        else
            grep -q "Failed: $nok)" "$work/prove.out" || {
                cat "$work/prove.out" >&2
                fail "prove: $f: expected $nok failed tests"
            }
        fi
    fi
    if [ $have_py = yes ]; then
        "$py" "$top_srcdir/tests/tap_check.py" "$f" > "$work/py.out" 2>&1 || {
            cat "$work/py.out" >&2
            fail "python3-tap does not read $f as TAP 13"
        }
    fi
}

n=0
for sheet in "$top_srcdir"/answers/lab0*.yaml "$top_srcdir"/tests/students/lab0*.yaml \
    "$top_srcdir"/labs/lab0*.yaml; do
    base=$(basename "$sheet")
    master=$top_srcdir/labs/${base%%[-.]*}.yaml
    run_tlab check --lab "$master" --format tap "$sheet"
    [ "$status" -le 1 ] || fail "check --lab $master $sheet: exit $status"
    head -n 1 "$work/stdout" | grep -qx 'TAP version 13' || fail "$sheet: not TAP version 13"
    cp "$work/stdout" "$work/sheet.tap"
    consume "$work/sheet.tap"
    case $sheet in
        */answers/*)
            ! grep -q '^not ok' "$work/sheet.tap" || fail "$sheet: an answer key has a failed test"
            ;;
    esac
    n=$((n + 1))
done
[ "$n" -ge 15 ] || fail "only $n shipped sheets found"

# plain check of the fixture sheet (its own master) and run (no grading)
run_tlab check --format tap "$top_srcdir/tests/sheets/basic.yaml"
cp "$work/stdout" "$work/basic.tap"
consume "$work/basic.tap"
run_tlab run --format tap "$top_srcdir/tests/sheets/basic.yaml"
cp "$work/stdout" "$work/run.tap"
consume "$work/run.tap"

# several sheets in one stream, one of them unreadable: a failed test
printf 'ops: [\n' > "$work/broken.yaml"
run_tlab grade --lab "$top_srcdir/labs/lab01.yaml" --format tap \
    "$top_srcdir/answers/lab01.yaml" "$top_srcdir/tests/students/lab01-fail.yaml" "$work/broken.yaml"
[ "$status" = 2 ] || fail "grade with an unreadable sheet: exit $status, expected 2"
cp "$work/stdout" "$work/grade.tap"
consume "$work/grade.tap"
grep -q "^not ok [0-9]* - .*broken.yaml: read .*broken.yaml$" "$work/grade.tap" ||
    fail "the unreadable sheet is not a failed test"

# one unreadable sheet: Bail out! with the located error
run_tlab check --lab "$top_srcdir/labs/lab01.yaml" --format tap "$work/broken.yaml"
[ "$status" = 2 ] || fail "check --lab on an unreadable sheet: exit $status, expected 2"
grep -q "^Bail out! .*broken.yaml:2:1: error: invalid YAML" "$work/stdout" || fail "no Bail out!"
cp "$work/stdout" "$work/bail.tap"
if [ $have_prove = yes ]; then
    prove -e cat "$work/bail.tap" > "$work/prove.out" 2>&1 && fail "prove passed a bail out"
    grep -q 'Further testing stopped' "$work/prove.out" || fail "prove did not see the bail out"
fi
if [ $have_py = yes ]; then
    "$py" "$top_srcdir/tests/tap_check.py" "$work/bail.tap" bail || fail "python3-tap: no bail out"
fi
exit 0
