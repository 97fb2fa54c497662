#!/bin/sh
# tests/jobs.sh - `tlab grade --jobs N` (SPEC 2): N threads grade, and the
# output is byte-identical to --jobs 1 in every grade format, class summary
# (stderr) and exit status included, over ~60 sheets: the student sheets of
# every lab (graded against lab01 and lab03, so most are tampered), broken
# ones (invalid YAML, empty, missing file, wrong types) and hand-tampered
# ones. Also: a master whose ops draw random numbers grades the same on
# every thread (each run starts the generator from the seed), and a master
# that cannot run fails the same way with any number of jobs.
#
# Built with -fsanitize=thread this test is the ThreadSanitizer check:
# a report changes stderr (and the exit status), so the comparison fails.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

students=$top_srcdir/tests/students
labs=$top_srcdir/labs
sub=$work/sub
mkdir -p "$sub"

# ---- the submissions: 5 copies of each student sheet, then broken ones
n=0
for round in 1 2 3 4 5; do
    for s in "$students"/*.yaml; do
        cp "$s" "$sub/$(printf 's%03d' "$n")-$(basename "$s")"
        n=$((n + 1))
    done
done
printf 'ops: [\n' > "$sub/x-invalid.yaml"
: > "$sub/x-empty.yaml"
printf 'tlab: 1\nid: lab01\nops:\n  - id: "1"\n    op: x[1:]\n    predict: 42\n' \
    > "$sub/x-badtype.yaml"
printf 'tlab: 1\nid: lab01\nops:\n  - id: "1"\n    op: x[1:]\n  - id: "1"\n    op: x\n' \
    > "$sub/x-dupid.yaml"
sed -e 's/threshold: 16/threshold: 1/' "$students/lab01-fail.yaml" > "$sub/x-threshold.yaml"
sed -e 's/reshape(4, 6)/reshape(6, 4)/' "$students/lab01-pass.yaml" > "$sub/x-setup.yaml"
sed -e 's/op: x\[1:\]/op: x.clone()/' "$students/lab01-pass.yaml" > "$sub/x-op.yaml"
sed -e '/^ops:/,$ s/predict: view/predict: copy/' "$students/lab01-pass.yaml" \
    > "$sub/x-allcopy.yaml"
# every character a CSV or XML field must escape, in a file name
weird='x-we,ird "quote" <&>.yaml'
cp "$students/lab01-pass.yaml" "$sub/$weird"

set -- "$sub"/*.yaml "$sub/x-missing.yaml"
[ "$#" -ge 60 ] || fail "only $# submissions"

# compare MASTER JOBS FORMAT: --jobs 1 and --jobs JOBS agree byte for byte
compare() {
    master=$1 jobs=$2 fmt=$3
    shift 3
    run_tlab grade --lab "$master" --format "$fmt" --jobs 1 "$@"
    s1=$status
    mv "$work/stdout" "$work/out1"
    mv "$work/stderr" "$work/err1"
    run_tlab grade --lab "$master" --format "$fmt" --jobs "$jobs" "$@"
    [ "$status" = "$s1" ] || fail "--jobs $jobs exit $status, --jobs 1 exit $s1 ($fmt)"
    cmp -s "$work/out1" "$work/stdout" || {
        diff "$work/out1" "$work/stdout" | head -n 20 >&2
        fail "--jobs $jobs stdout differs from --jobs 1 ($fmt, $(basename "$master"))"
    }
    cmp -s "$work/err1" "$work/stderr" || {
        diff "$work/err1" "$work/stderr" | head -n 20 >&2
        fail "--jobs $jobs stderr differs from --jobs 1 ($fmt, $(basename "$master"))"
    }
}

for master in "$labs/lab01.yaml" "$labs/lab03.yaml"; do
    for fmt in csv jsonl json junit tap gradescope github; do
        compare "$master" 4 "$fmt" "$@"
    done
done
# more jobs than submissions, and an odd count
compare "$labs/lab01.yaml" 200 csv "$@"
compare "$labs/lab02.yaml" 3 jsonl "$@"
compare "$labs/lab04.yaml" 2 junit "$students/lab04-pass.yaml"
# the device variants: the emulated device here, the GPU where there is one
compare "$labs/lab03.yaml" 4 jsonl --device cuda "$@"

# the records are real: one per sheet, in the order given, with the verdicts
run_tlab grade --lab "$labs/lab01.yaml" --jobs 4 "$@"
# unreadable sheets among them: exit 2 once every record is written
[ "$status" = 2 ] || fail "grade exit $status"
lines=$(wc -l < "$work/stdout")
[ "$lines" -eq $(($# + 1)) ] || fail "$lines CSV lines for $# sheets"
[ "$(sed -n 2p "$work/stdout" | cut -d, -f1)" = "$1" ] || fail "first record is not $1"
tail -n 1 "$work/stdout" | grep -qF "$sub/x-missing.yaml,0,20,0,26,false,false,," ||
    fail "missing sheet record"
stdout_has "$sub/s000-lab01-fail.yaml,"
stdout_has "$sub/x-invalid.yaml,0,20,0,26,false,false,,$sub/x-invalid.yaml:2:1: error: invalid YAML"
stdout_has "$sub/x-threshold.yaml,"
grep -F "$sub/x-threshold.yaml," "$work/stdout" | grep -q ",true,threshold," ||
    fail "threshold tamper not flagged"
stdout_has "\"$sub/x-we,ird \"\"quote\"\" <&>.yaml\",17,20,23,26,true,false,,"
stderr_has "class summary: $# sheets"
# every copy of a sheet got the same record
for s in "$students"/lab01-*.yaml; do
    b=$(basename "$s")
    k=$(grep -F -- "-$b," "$work/stdout" | sed 's/^[^,]*,//' | sort -u | wc -l)
    [ "$k" -eq 1 ] || fail "the copies of $b were graded differently"
done

# ---- random numbers: each op and variant starts from the seed, on any thread
cat > "$work/rand.yaml" <<'EOF'
tlab: 1
id: rand
threshold: 8
setup: |
  import torch
  x = torch.rand(4, 6)
ops:
EOF
for i in 1 2 3 4 5 6 7 8; do
    printf '  - id: "%s"\n    op: x[0, 0].item()\n    predict: ~\n' "$i" >> "$work/rand.yaml"
done
expect 0 run --format json "$work/rand.yaml"
vals=$(grep '"value":' "$work/stdout" | sort -u)
[ "$(echo "$vals" | wc -l)" -eq 1 ] || fail "x[0, 0] differs between ops: $vals"
v=$(echo "$vals" | sed 's/.*"value": *//; s/,$//')
sed "s/predict: ~/predict: {value: $v}/" "$work/rand.yaml" > "$work/rand-sheet.yaml"
for j in 1 4; do
    expect 0 grade --lab "$work/rand.yaml" --jobs "$j" "$work/rand-sheet.yaml" \
        "$work/rand-sheet.yaml"
    stdout_has "$work/rand-sheet.yaml,8,8,8,8,true,false,,"
done

# ---- a master that cannot run: the same located error with any --jobs
sed 's/x = torch.rand(4, 6)/x = torch.rand(4, 6)\n  assert x.shape == (1,)/' \
    "$work/rand.yaml" > "$work/badsetup.yaml"
expect 2 grade --lab "$work/badsetup.yaml" --jobs 1 "$work/rand-sheet.yaml"
cp "$work/stderr" "$work/err1"
stdout_empty
expect 2 grade --lab "$work/badsetup.yaml" --jobs 8 "$work/rand-sheet.yaml"
stdout_empty
cmp -s "$work/err1" "$work/stderr" || fail "setup failure differs with --jobs 8"
stderr_has "AssertionError"
stderr_lines "$(wc -l < "$work/err1")"

exit 0
