#!/bin/sh
# tests/hostile/bounds.sh - hostile sheets, round two (issue 16): every
# sheet is bounded in time and memory, nothing from a linked file leaks,
# nothing is forged. Each case states its bound: it finishes within its
# budget (a `timeout` guard, and elapsed seconds checked), it ends with
# exit 2 and ONE located error line or with a graded result, no output
# holds a raw control character, and no output quotes a linked file.
#
# Sheets: the fixed ones in tests/hostile/ (forged.yaml, cr.yaml,
# comments.yaml, secret.txt); the large ones are generated in $work.
. "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/setup"
hdir=$top_srcdir/tests/hostile

slow=1 # elapsed-time bounds are multiplied by this (sanitizers, valgrind)
case $("$TLAB" --version 2>/dev/null | sed -n 2p) in
*asan=yes* | *ubsan=yes*) slow=4 ;;
esac
if [ "${TLAB_VALGRIND:-0}" = 1 ]; then
    slow=40
fi
if command -v timeout >/dev/null 2>&1; then
    have_timeout=1
else
    have_timeout=0
fi

# b LIMIT ARG...: run tlab under a wall-clock guard of LIMIT*slow seconds;
# $status, $elapsed, $work/stdout, $work/stderr. A hang, a signal or a
# sanitizer report fails the test.
b() {
    lim=$(($1 * slow))
    shift
    echo "tlab $*" > "$work/cmd"
    t0=$(date +%s)
    if [ "$have_timeout" = 1 ]; then
        set -- timeout "$lim" "$TLAB" "$@"
    else
        set -- "$TLAB" "$@"
    fi
    if "$@" > "$work/stdout" 2> "$work/stderr"; then status=0; else status=$?; fi
    elapsed=$(($(date +%s) - t0))
    [ "$status" != 124 ] || fail "tlab ran past its bound of $lim s"
    [ "$status" -lt 128 ] || fail "tlab was killed by signal $((status - 128))"
    ! grep -q 'Sanitizer\|runtime error:' "$work/stderr" || fail "sanitizer report"
    [ "$elapsed" -le "$lim" ] || fail "took $elapsed s (bound $lim s)"
    clean_output
}

# No raw control character (C0 but newline, DEL, ESC) in either output.
clean_output() {
    if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$work/stdout" "$work/stderr"; then
        fail "a raw control character in the output"
    fi
}

# located WHERE: exit 2 and exactly one error line, starting `WHERE`.
located() {
    [ "$status" = 2 ] || fail "expected exit status 2, got $status"
    n=$(grep -c '^[^ ].*error:' "$work/stderr" || true)
    [ "$n" = 1 ] || fail "expected one error line, got $n"
    grep -q "^$1" "$work/stderr" || fail "the error line does not start with '$1'"
}

# grade with an unreadable submission: the class is graded (every record
# written), exit 2 names that one sheet was unreadable
class_graded() {
    [ "$status" -le 2 ] || fail "expected exit status 0-2, got $status"
    [ -s "$work/stdout" ] || fail "no class records"
    ! grep -q '^[^ ].*error:' "$work/stderr" || fail "an error line on stderr"
}

graded() {
    [ "$status" = 0 ] || [ "$status" = 1 ] || fail "expected a graded result (0/1), got $status"
    ! grep -q '^[^ ].*error:' "$work/stderr" || fail "an error line on stderr"
}

cd "$work"

# ------------------------------------------------ 1. the write-through probe
# A list of 10^6 references to a 1 MiB parent (and 10^5 views of it): each
# item is probed in O(1), one pass over the parent in all (was ~10 hours).
cat > probe.yaml <<'EOF'
tlab: 1
threshold: 100%
setup: |
  import torch
  x = torch.zeros(2**18)
ops:
  - {id: refs, op: "[x] * 10**6", predict: alias}
  - {id: views, op: "[x[i:i + 4] for i in range(10**5)]", predict: view}
  - {id: tuple, op: "tuple([x.t()] * 10**5)", predict: view}
EOF
# --timeout 30: a sanitizer build needs ~4 s of CPU an op here (the plain
# one well under 1 s); the quadratic probe this guards against took hours
b 60 check --timeout 30 probe.yaml
graded
[ "$status" = 0 ] || fail "the probe verdicts are wrong"

# ------------------------------------------------------ 2. the linear loader
# A 1 MiB sheet on one line (a flow mapping): its located error in well
# under a second (was ~250 s), also inside `tlab grade`.
awk 'BEGIN { printf "{tlab: 1, title: \""; for (i = 0; i < 100000; i++) printf "\303\251"
    printf "\", ops: ["; for (i = 0; i < 36000; i++) printf "{id: a%d, op: x}, ", i; printf "{id: a, op: x}], bogus: 1}\n" }' > oneline.yaml
[ "$(wc -c < oneline.yaml)" -le 1048576 ] || fail "oneline.yaml is over 1 MiB"
b 20 check oneline.yaml
located 'oneline.yaml:1:'
grep -q "too many ops\|unknown key 'bogus'" "$work/stderr" || fail "not the expected error"
cp "$hdir/cr.yaml" master.yaml
b 20 grade --lab master.yaml oneline.yaml master.yaml
class_graded
grep -q '^oneline.yaml,0,.*oneline.yaml:1:[0-9]*: error: ' "$work/stdout" || fail "the CSV lacks the located error"
# byte columns of a long line with multi-byte characters are exact: the
# bad value after 1000 two-byte characters is at byte column 2033
awk 'BEGIN { printf "{tlab: 1, title: \""; for (i = 0; i < 1000; i++) printf "\303\251"; print "\", threshold: x, ops: [{op: x}]}" }' > cols.yaml
b 20 check cols.yaml
located "cols.yaml:1:2033: error: 'threshold'"
# CR and CR LF line breaks count as libyaml counts them, in errors too
printf 'tlab: 1\rid: a\r\ntitle: t\rthreshold: x\rops: [{op: x}]\r' > crerr.yaml
b 20 check crerr.yaml
located "crerr.yaml:4:12: error: 'threshold'"
grep -q '^ 4 | threshold: x' "$work/stderr" || fail "the wrong source line is shown"

# ---------------------------------------------------- 3. FIFOs and devices
if mkfifo fifo.yaml 2>/dev/null; then
    b 20 check fifo.yaml
    located 'fifo.yaml: error: not a regular file'
    b 20 grade --lab master.yaml fifo.yaml master.yaml
    class_graded
    grep -q '^fifo.yaml,0,.*fifo.yaml: error: not a regular file' "$work/stdout" ||
        fail "the FIFO submission is not reported"
    grep -q '^master.yaml,2,' "$work/stdout" || fail "the rest of the class was not graded"
fi
if [ -c /dev/zero ]; then
    b 20 check /dev/zero
    located '/dev/zero: error: not a regular file'
fi
mkdir dir.yaml
b 20 check dir.yaml
located 'dir.yaml: error: not a regular file'

# ------------------------------------------------------ 4. symbolic links
cp "$hdir/secret.txt" secret.txt
ln -s secret.txt link.yaml
nosecret() {
    ! grep -q 's3cret\|hunter2' "$work/stdout" "$work/stderr" || fail "the linked file's text leaked"
}
b 20 check link.yaml
located 'link.yaml: error: is a symbolic link: tlab does not follow links in submissions'
nosecret
for f in csv jsonl json junit; do
    b 20 grade --format "$f" --lab master.yaml link.yaml master.yaml
    class_graded
    nosecret
    grep -q 'is a symbolic link' "$work/stdout" || fail "grade --format $f does not say why"
done
b 20 new link.yaml
located 'link.yaml: error: is a symbolic link'
# the master may be a link too: refused unless --follow-links
ln -s master.yaml mlink.yaml
b 20 grade --lab mlink.yaml master.yaml
located 'mlink.yaml: error: is a symbolic link'
b 20 grade --follow-links --lab mlink.yaml master.yaml
graded
b 20 check --follow-links link.yaml
[ "$status" = 2 ] || fail "--follow-links: expected exit 2 for the secret file, got $status"
! grep -q 'symbolic link' "$work/stderr" || fail "--follow-links did not follow the link"

# ------------------------------------------------ 5. the per-sheet budget
# 1000 slow ops: each runs out of its own time; the sheet's budget stops
# the rest with one located error naming the op (was ~3.3 hours).
awk 'BEGIN { print "tlab: 1\nsetup: |\n  import torch\n  x = torch.zeros(4, 4)\nops:"
    for (i = 0; i < 1000; i++) printf "  - {id: s%d, op: \"x[:1, :1].expand(2**15, 2**16).sum()\", predict: error}\n", i }' > slow.yaml
b 30 check --timeout 0.05 --sheet-timeout 1 slow.yaml
located 'slow.yaml:[0-9]*:[0-9]*: error: sheet time budget exceeded (1 s of CPU time per sheet; see --sheet-timeout) while running op .s[0-9]*.'
b 30 run --format json --timeout 0.05 --sheet-timeout 1 -o out.json slow.yaml
located 'slow.yaml:'
[ ! -e out.json ] || fail "a report was written for a sheet that ran out of time"
# grade runs the master under the same budget: a master that runs out is
# refused like any other sheet
b 30 grade --jobs 2 --timeout 0.05 --sheet-timeout 1 --lab slow.yaml master.yaml
located 'slow.yaml:'
usage_bad() {
    [ "$status" = 2 ] || fail "expected exit status 2, got $status"
    grep -q "invalid --sheet-timeout" "$work/stderr" || fail "no usage message"
}
b 5 check --sheet-timeout 0 slow.yaml
usage_bad
b 5 check --sheet-timeout nan slow.yaml
usage_bad
"$TLAB" check --help | grep -q -- '--sheet-timeout S  CPU seconds for a whole sheet or submission (default 60)' ||
    fail "--help does not document --sheet-timeout"

# --------------------------------------------------- 6. one memory ledger
# Lists and strings are charged with the tensors: next to 128 MiB of
# tensors, three lists of 10^7 ints (~2 GB unchecked) stop at --max-bytes,
# and the process's peak RSS stays within the limit plus the objects'
# allowance (16 MiB) plus a fixed overhead for the binary (64 MiB). Skipped
# under sanitizers and valgrind (their shadow memory is not tlab's).
cat > mem.yaml <<'EOF'
tlab: 1
threshold: 100%
setup: |
  import torch
  x = torch.zeros(2**25)
ops:
  - {id: lists, op: "[list(range(10**7)) for i in range(3)]", predict: {kind: error, error: LimitError}}
  - {id: strs, op: "['ab' * 10**6 for i in range(300)]", predict: {kind: error, error: LimitError}}
  - {id: view, op: "x[1:]", predict: view}
EOF
if [ -x /usr/bin/time ] && [ "$slow" = 1 ]; then
    b 120 check --max-bytes 256M mem.yaml
    # (a memory limit is no verdict a prediction can match: issue #28, so
    # the two limited ops score 0 and only the view passes)
    [ "$status" = 1 ] && grep -q '^1/3 correct' "$work/stdout" ||
        fail "the lists and strings were not stopped by --max-bytes (or scored)"
    /usr/bin/time -f '%M' -o rss.txt "$TLAB" check --max-bytes 256M mem.yaml > /dev/null 2>&1 || true
    rss=$(tail -n 1 rss.txt)
    [ "$rss" -le $(((256 + 16 + 64) * 1024)) ] || fail "peak RSS $rss KiB is over --max-bytes 256M plus the overhead"
    b 120 run --format json --max-bytes 256M mem.yaml
    grep -q 'memory limit exceeded' "$work/stdout" || fail "the error does not say memory limit exceeded"
fi

# ------------------------------------------------------- 7. nothing forged
# Every string from a sheet is escaped: no fake located error, workflow
# command or result line, no raw escape sequence, in any output format.
cp "$hdir/forged.yaml" forged.yaml
noforged() {
    ! grep -q '^forged.yaml:99\|^::error file=x\|^20/20 correct\|^[^ ]*b.yaml:99:1' "$work/stdout" "$work/stderr" ||
        fail "a forged line reached the output"
}
for f in text json junit tap gradescope prairielearn github; do
    b 20 check --format "$f" forged.yaml
    graded
    noforged
done
b 20 run forged.yaml
graded
noforged
grep -q 'a\\n20/2' "$work/stdout" || fail "the newline of an id is not shown as \\n"
grep -q 'b\\e\[2J' "$work/stdout" || fail "the escape of an id is not shown as \\e"
for f in csv jsonl json junit; do
    b 20 grade --format "$f" --lab forged.yaml forged.yaml
    graded
    noforged
done
# a block scalar quoted by a loader error stays on its one line
printf 'tlab: 1\nthreshold: |\n  5\n  b.yaml:99:1: error: forged\n  ::error::forged\nops: [{op: x}]\n' > forgeerr.yaml
b 20 check forgeerr.yaml
located 'forgeerr.yaml:2:12: error: '
noforged
! grep -q '^::error' "$work/stderr" || fail "a workflow command reached stderr"
grep -q 'got .5\\nb.yaml:99:1: error: forged\\n::error::forged' "$work/stderr" ||
    fail "the quoted block scalar is not escaped on one line"
b 20 check --format github forgeerr.yaml
[ "$status" = 2 ] || fail "expected exit 2"
noforged
# a raw escape sequence in the file: refused at its byte, never echoed
printf 'tlab: 1\nid: "a\033[2Jb"\n' > esc.yaml
b 20 check esc.yaml
located 'esc.yaml:2:7: error: control character 0x1b'

# ------------------------------------------------ 8. tlab new round-trips
# CR-only line breaks: every prediction, rule and answer blanked (the
# blank sheet scored 20/20 before), the breaks kept as CR.
cp "$hdir/cr.yaml" cr.yaml
b 20 new -o crblank.yaml cr.yaml
[ "$status" = 0 ] || fail "tlab new failed"
[ "$(tr -cd '\n' < crblank.yaml | wc -c)" = 0 ] || fail "the blank sheet has LF breaks"
[ "$(tr -cd '\r' < crblank.yaml | wc -c)" = "$(tr -cd '\r' < cr.yaml | wc -c)" ] || fail "line breaks lost"
# cr.yaml is filled in: its comment, written beside an answer, goes too
! grep -q '# a comment' crblank.yaml || fail "a filled-in sheet's comment reached its blank sheet"
b 20 check crblank.yaml
[ "$status" = 1 ] || fail "the blank sheet of cr.yaml does not fail: $status"
grep -q '0/2 correct' "$work/stdout" || fail "the blank sheet still scores"
grep -q 'q FAIL: unanswered' "$work/stdout" || fail "the answer was not blanked"
# comments.yaml is filled in, so its comments (inside the emptied values
# too) go with the answers; a `#` inside a scalar is no comment; `~` never
# glues onto `#`
cp "$hdir/comments.yaml" comments.yaml
b 20 new -o cblank.yaml comments.yaml
[ "$status" = 0 ] || fail "tlab new failed"
for c in c1 c2 c3 c4 c5 c6; do
    ! grep -q "# $c" cblank.yaml || fail "comment $c reached the blank sheet"
done
grep -q 'prompt: p' cblank.yaml || fail "the question lost its prompt"
! grep -q '~#' cblank.yaml || fail "'~#' in the blank sheet"
! grep -q 'not a comment\|an # answer' cblank.yaml || fail "an answer survived"
b 20 check cblank.yaml
[ "$status" = 1 ] || fail "the blank sheet does not load and fail: $status"
grep -q '0/4 correct' "$work/stdout" || fail "the blank sheet still scores"

# ------------------------------------------------------ 9. small ones
if [ -c /dev/full ]; then
    if "$TLAB" check forged.yaml > /dev/full 2> full.err; then status=0; else status=$?; fi
    [ "$status" = 3 ] || fail "a write error on stdout exits $status, not 3"
    [ "$(grep -c 'cannot write to standard output' full.err)" = 1 ] || fail "not reported once"
fi

echo "bounds.sh: all cases passed"
