#!/bin/sh
# tests/cli.sh - the command-line layer (src/main.c): help, version, exit
# codes and usage errors. What the commands do is tested elsewhere; here a
# well-formed command line only has to get past the parser.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

commands="check run grade explain new key exec autograder"

# A usage error is exactly two lines: "tlab: ...PROBLEM" and a hint.
usage_error() {
    expect 2 "$@"
    stdout_empty
    stderr_lines 2
    head -n 1 "$work/stderr" | grep -q '^tlab: ' || fail "error line does not start with 'tlab: '"
    tail -n 1 "$work/stderr" | grep -q "^Try 'tlab [a-z ]*--help'\.\$" || fail "no hint line"
}

# ---- --help, -h, help
expect 0 --help
stderr_empty
stdout_has "Usage: tlab COMMAND"
for c in $commands; do
    grep -q "^  $c " "$work/stdout" || fail "--help does not list command $c"
done
for o in --format --output --device --require-gpu --color --quiet --jobs --lab \
         --stmt --max-bytes --timeout --help --version; do
    stdout_has "$o"
done
stdout_has "Exit status:"
stdout_lacks "--run-tests"           # hidden developer option
cp "$work/stdout" "$work/help"
# The commands --help lists (its dispatch table): each line is whole, the
# synopsis exactly as the command's own usage line gives it, then the
# summary on the same line or, for a long synopsis, on the next.
listed=$(sed -n '/^Commands:$/,/^$/p' "$work/help" | grep -E '^  [a-z]' | awk '{print $1}')
[ "$(echo "$listed" | grep -vx help | tr '\n' ' ')" = "$commands " ] ||
    fail "--help lists the commands '$(echo $listed)', not '$commands help'"
for c in $commands; do
    "$TLAB" "$c" --help > "$work/usage" || fail "$c --help failed"
    syn=$(head -n 1 "$work/usage" | sed "s/^Usage: tlab $c \[OPTION\]\.\.\. //")
    awk -v l="  $c $syn" '$0 == l || index($0, l "  ") == 1 { f = 1 } END { exit !f }' "$work/help" ||
        fail "--help cuts the line of $c (want '  $c $syn')"
done
! sed -n '/^Commands:$/,/^$/p' "$work/help" | grep -Ev '^(Commands:|  [^ ].*| {29}[^ ].*|)$' ||
    fail "--help: a command line that is neither a synopsis nor a summary"

expect 0 -h
cmp -s "$work/stdout" "$work/help" || fail "-h differs from --help"
expect 0 help
cmp -s "$work/stdout" "$work/help" || fail "'tlab help' differs from --help"

for c in $commands; do
    expect 0 "$c" --help
    stderr_empty
    head -n 1 "$work/stdout" | grep -q "^Usage: tlab $c " || fail "$c --help: no usage line"
    stdout_has "Exit status:"
    cp "$work/stdout" "$work/help-$c"
    expect 0 help "$c"
    cmp -s "$work/stdout" "$work/help-$c" || fail "'tlab help $c' differs from '$c --help'"
    expect 0 "$c" -h
    cmp -s "$work/stdout" "$work/help-$c" || fail "'tlab $c -h' differs from '$c --help'"
done
# Each command's help lists the options it takes, and only those.
grep -q -- "--jobs" "$work/help-grade" || fail "grade --help lacks --jobs"
grep -q -- "--lab" "$work/help-grade" || fail "grade --help lacks --lab"
grep -q -- "--stmt" "$work/help-explain" || fail "explain --help lacks --stmt"
! grep -q -- "--jobs" "$work/help-check" || fail "check --help shows --jobs"
! grep -q -- "--format" "$work/help-new" || fail "new --help shows --format"
grep -q "Formats: csv, " "$work/help-grade" || fail "grade --help: csv is not the default format"
grep -q "Formats: text, " "$work/help-check" || fail "check --help: text is not the default format"

usage_error help bogus
usage_error help check run
usage_error help --format json check

# ---- --version: version line, build configuration, CUDA description
expect 0 --version
stderr_empty
sed -n 1p "$work/stdout" | grep -Eq '^tlab [0-9]+\.[0-9]+\.[0-9]+$' || fail "bad version line"
sed -n 2p "$work/stdout" | grep -Eq '^build: cuda=(no|yes .*) asan=(yes|no) ubsan=(yes|no) valgrind=(yes|no) gcov=(yes|no) static-deps=(none|[a-z+]+) lto=(yes|no)$' \
    || fail "bad build configuration line"
sed -n 3p "$work/stdout" | grep -Eq '^cuda: (not built|built, .+)$' || fail "bad cuda line"
# static-deps names the libraries linked from their archives: the binary
# then loads no shared copy of them (configure's --disable-static-deps)
bin=${TLAB_REAL:-$TLAB}
if command -v ldd >/dev/null 2>&1; then
    if grep -q '^build: .* static-deps=[a-z+]*libyaml' "$work/stdout"; then
        ! ldd "$bin" | grep -q 'libyaml' || fail "static-deps names libyaml, but tlab loads libyaml's shared library"
    else
        ldd "$bin" | grep -q 'libyaml' || fail "static-deps lacks libyaml, but tlab does not load libyaml's shared library"
    fi
fi
if grep -q '^build: cuda=no ' "$work/stdout"; then
    grep -q '^cuda: not built$' "$work/stdout" || fail "CUDA not built, but the cuda line says otherwise"
else
    grep -q '^cuda: built, ' "$work/stdout" || fail "CUDA built, but the cuda line says otherwise"
fi
# CUDA_VISIBLE_DEVICES="" hides every GPU: never an error, just no device.
if grep -q '^cuda: built' "$work/stdout"; then
    (
        CUDA_VISIBLE_DEVICES=; export CUDA_VISIBLE_DEVICES
        expect 0 --version
        grep -q '^cuda: built, no device' "$work/stdout" || fail "hidden GPUs are not reported as no device"
    )
fi

# ---- unknown command, missing command
usage_error
stderr_has "missing command"
# ... naming every command --help lists, help included
for c in $listed; do
    grep -Eq "[(, ]$c[,) ]" "$work/stderr" || fail "bare tlab does not name the command $c"
done
[ "$(head -n 1 "$work/stderr" | tr -cd ',' | wc -c)" -eq "$(echo "$listed" | wc -l | awk '{print $1 - 2}')" ] ||
    fail "bare tlab names other commands than --help: $(head -n 1 "$work/stderr")"
usage_error chek lab.yaml
stderr_has "'chek' is not a tlab command (did you mean 'check'?)"
usage_error xplain 'x[1:]'
stderr_has "did you mean 'explain'?"
usage_error frobnicate
stderr_lacks "did you mean"
stderr_has "Try 'tlab --help'."

# ---- unknown options, missing arguments
usage_error check --fromat json lab.yaml
stderr_has "unrecognized option '--fromat' (did you mean '--format'?)"
usage_error --bogus
stderr_has "unrecognized option '--bogus'"
usage_error check -x lab.yaml
stderr_has "invalid option -- 'x'"
usage_error check lab.yaml --format
stderr_has "option '--format' requires an argument"
usage_error check lab.yaml -o
stderr_has "option '-o' requires an argument"
usage_error check --quiet=yes lab.yaml
stderr_has "option '--quiet' doesn't allow an argument"
stderr_has "Try 'tlab check --help'."

# ---- operands
for c in check run new key explain; do
    usage_error "$c"
    stderr_has "missing"
    usage_error "$c" a b
    stderr_has "unexpected extra operand 'b'"
done
usage_error grade s1.yaml
stderr_has "missing --lab"
usage_error grade --lab master.yaml
stderr_has "missing SUBMISSION operand"

# ---- formats: per command
usage_error check --format xml lab.yaml
stderr_has "unknown format 'xml'"
usage_error check --format csv lab.yaml
stderr_has "cannot write format 'csv'"
usage_error run --format jsonl lab.yaml
usage_error run --format gradescope lab.yaml
stderr_has "cannot write format 'gradescope'"
usage_error run --format prairielearn lab.yaml
usage_error grade --lab m.yaml --format html5 s.yaml
usage_error explain --format junit 'x.t()'
usage_error key --format csv m.yaml
usage_error new --format json m.yaml
stderr_has "option '--format' does not apply"

# ---- options that do not apply to the command
usage_error check --jobs 2 lab.yaml
stderr_has "option '--jobs' does not apply to this command"
usage_error run --lab m.yaml lab.yaml
usage_error check -s 'y = x' lab.yaml
stderr_has "option '--stmt' does not apply"
usage_error new --device cpu m.yaml
usage_error new --timeout 1 m.yaml

# ---- option values
usage_error grade --lab m.yaml --jobs 0 s.yaml
stderr_has "invalid --jobs '0'"
usage_error grade --lab m.yaml --jobs abc s.yaml
usage_error grade --lab m.yaml --jobs 1025 s.yaml
usage_error grade --lab m.yaml --jobs -3 s.yaml
usage_error grade --lab '' s.yaml
for v in 0 1Q -5 K 99999999999999999999 99999999999999G 1.5G; do
    usage_error check --max-bytes "$v" lab.yaml
    stderr_has "invalid --max-bytes"
done
for v in 0 -1 abc nan inf 1e3 0x10 86401 1.2.3 ''; do
    usage_error check --timeout "$v" lab.yaml
    stderr_has "invalid --timeout"
done
usage_error check --device gpu lab.yaml
stderr_has "invalid --device 'gpu' (expected auto, cpu or cuda)"
usage_error check --color sometimes lab.yaml
stderr_has "invalid --color 'sometimes'"
usage_error check -o '' lab.yaml
usage_error check --device cpu --require-gpu lab.yaml
stderr_has "--require-gpu contradicts --device cpu"
# The first error is the one reported.
usage_error check --jobs 0 --format xml lab.yaml
stderr_has "invalid --jobs"

# ---- well-formed command lines get past the parser (whatever the command
# then says about lab.yaml, it is not a usage hint)
accepted() {
    run_tlab "$@"
    stderr_lacks "Try 'tlab"
}
accepted check --format json -o "$work/out.json" --device cpu --color never -q \
    --max-bytes 64K --timeout 0.5 "$work/missing.yaml"
accepted run --format=tap --max-bytes 2GiB --timeout 3 --device auto "$work/missing.yaml"
accepted -q check "$work/missing.yaml"                    # options before the command
accepted check "$work/missing.yaml" --format gradescope   # and after the operand
accepted grade --lab "$work/m.yaml" --jobs 4 --format jsonl "$work/a.yaml" "$work/b.yaml"
accepted explain -s 'y = 1' --stmt 'z = 2' --format json 'x.t()'
accepted explain -- '-x'
accepted new -o - "$work/m.yaml"
accepted key --format json --device cuda "$work/m.yaml"
accepted check --form=prairielearn --col=always "$work/missing.yaml"   # unique abbreviations
(   # POSIXLY_CORRECT does not stop option parsing at the first operand
    POSIXLY_CORRECT=1; export POSIXLY_CORRECT
    usage_error check lab.yaml --format xml
    stderr_has "unknown format 'xml'"
)

# ---- --run-tests (hidden): reaches the golden runner, which answers 2 for
# an unreadable file
expect 2 --run-tests "$work/no-such-file.test"
usage_error --run-tests "$work/x.test" check

# ---- TLAB_FREE_AT_EXIT=1 (free the heap before exiting, as under ASan and
# valgrind) changes nothing a user sees: same bytes, same exit status
for f in "$top_srcdir/answers/lab06.yaml" "$top_srcdir/labs/lab01.yaml"; do
    for fmt in text json; do
        if "$TLAB" check --format $fmt "$f" > "$work/kept.out" 2> "$work/kept.err"; then k=0; else k=$?; fi
        if TLAB_FREE_AT_EXIT=1 "$TLAB" check --format $fmt "$f" > "$work/freed.out" 2> "$work/freed.err"; then
            fr=0; else fr=$?; fi
        [ "$k" = "$fr" ] || fail "TLAB_FREE_AT_EXIT=1 changes the exit status of check $f ($k, $fr)"
        cmp -s "$work/kept.out" "$work/freed.out" && cmp -s "$work/kept.err" "$work/freed.err" \
            || fail "TLAB_FREE_AT_EXIT=1 changes the output of check --format $fmt $f"
    done
done

# ---- the lab's digest (computed only when a report prints it) is the
# file's SHA-256, in check's JSON and in grade's
f=$top_srcdir/answers/lab02.yaml
want=$(sha256sum < "$f" | cut -d' ' -f1)
"$TLAB" check --format json "$f" > "$work/c.json" || true
grep -q "\"sha256\": *\"$want\"" "$work/c.json" || fail "check's JSON lacks the lab's sha256 $want"
m=$top_srcdir/labs/lab02.yaml
want=$(sha256sum < "$m" | cut -d' ' -f1)
"$TLAB" grade --format json --lab "$m" "$f" > "$work/g.json" || true
grep -q "\"sha256\": *\"$want\"" "$work/g.json" || fail "grade's JSON lacks the lab's sha256 $want"

# ---- a reader that stops early (`tlab grade ... | head -1`) ends tlab
# normally, as for `git log | head`: the command's own exit status (not
# 141, SIGPIPE), no message. The report is larger than a pipe's buffer, so
# tlab is still writing when head has gone. (`set -o pipefail` where the
# shell has it; the status is captured by hand here for any sh.)
subs=$(ls "$top_srcdir"/tests/students/lab01-*.yaml)
# shellcheck disable=SC2086
if "$TLAB" grade --lab "$top_srcdir/labs/lab01.yaml" --format text $subs $subs $subs $subs $subs $subs \
    > "$work/whole" 2> /dev/null; then want=0; else want=$?; fi
[ "$(wc -c < "$work/whole")" -gt 131072 ] || fail "the grade report is too small to fill a pipe"
# shellcheck disable=SC2086
{ st=0; "$TLAB" grade --lab "$top_srcdir/labs/lab01.yaml" --format text $subs $subs $subs $subs $subs $subs \
      2> "$work/stderr" || st=$?; echo "$st" > "$work/rc"; } | head -n 1 > "$work/stdout"
[ "$(cat "$work/rc")" = "$want" ] || fail "grade | head -1 exited $(cat "$work/rc"), not $want"
[ "$(cat "$work/stdout")" = "$(head -n 1 "$work/whole")" ] || fail "grade | head -1: not the first line"
stderr_lacks "standard output"
stderr_lacks "Broken pipe"
stderr_lacks "tlab: "
# exec: a script that prints more than the reader takes stops at the first
# print the closed pipe refuses (printing on would run into --timeout)
printf 'i = 0\nwhile True:\n    print("line", i)\n    i += 1\n' > "$work/loop.py"
{ st=0; "$TLAB" exec "$work/loop.py" 2> "$work/stderr" || st=$?; echo "$st" > "$work/rc"; } |
    head -n 2 > "$work/stdout"
[ "$(cat "$work/rc")" = 0 ] || fail "exec | head -2 exited $(cat "$work/rc"), not 0"
[ "$(sed -n 2p "$work/stdout")" = "line 1" ] || fail "exec | head -2: not the first lines"
stderr_empty

# ---- exec: the named-tensor UserWarning, once per run, on stderr only
cat > "$work/named.py" <<'PYEOF'
import torch
x = torch.zeros(2, 3, names=('N', 'C'))
y = torch.ones(3, names=('C',))
print((x + y).align_to('C', 'N').names)
PYEOF
expect 0 exec "$work/named.py"
[ "$(cat "$work/stdout")" = "('C', 'N')" ] || fail "named exec printed: $(cat "$work/stdout")"
# as Python's warnings module shows it (torch 1.13.1, Debian): the script
# and line of the statement, then that statement's source line
stderr_lines 2
stderr_has "$work/named.py:2: UserWarning: Named tensors and all their associated APIs are an experimental feature"
stderr_has "(Triggered internally at  ./c10/core/TensorImpl.h:1758.)"
[ "$(sed -n 2p "$work/stderr")" = "  x = torch.zeros(2, 3, names=('N', 'C'))" ] ||
    fail "the warning's second line is not the statement: $(sed -n 2p "$work/stderr")"
# the @ operator names its result as matmul does; a name where an op takes
# only an int is PyTorch's argument-parser TypeError
cat > "$work/named2.py" <<'PYEOF'
import torch
x = torch.zeros(2, 3, 4, names=('A', 'B', 'C'))
print((x @ torch.ones(4, 5, names=('C', 'K'))).names)
print((torch.ones(3, names=('B',)) @ x).names)
try:
    x.argmax('B')
except TypeError as e:
    print(e)
PYEOF
expect 0 exec "$work/named2.py"
[ "$(cat "$work/stdout")" = "('A', 'B', 'K')
('A', 'C')
argmax(): argument 'dim' (position 1) must be int, not str" ] || fail "named @ printed: $(cat "$work/stdout")"
printf 'import torch\nprint(torch.zeros(2).names)\n' > "$work/unnamed.py"
expect 0 exec "$work/unnamed.py"
stderr_empty
# a lab never prints it (stderr is the report's)
cat > "$work/named.yaml" <<'YEOF'
tlab: 1
id: named
title: named
setup: |
  import torch
  x = torch.zeros(2, 3, names=('N', 'C'))
ops:
  - {id: "1", op: "x.align_to('C', 'N')", predict: {kind: view, shape: [3, 2], stride: [1, 3]}}
  - {id: "2", op: "x.sum('C')", predict: {kind: copy, shape: [2]}}
  - {id: "3", op: "x.view(6)", predict: error}
YEOF
expect 0 check "$work/named.yaml"
stderr_lacks "UserWarning"

# ---- writing help to a full disk is an error, not a silent success
if [ -w /dev/full ]; then
    if "$TLAB" --help > /dev/full 2> "$work/stderr"; then status=0; else status=$?; fi
    [ "$status" = 3 ] || fail "--help > /dev/full exited $status, expected 3"
    grep -q "error writing" "$work/stderr" || fail "no write error message"
fi


# einops and sparse COO (#26): rearrange's view/copy is torch's reshape
# rule; a sparse result is a value whose rule says what it stores
expect 0 explain -s "import torch" -s "from einops import rearrange" \
    -s "x = torch.arange(24.).reshape(2, 3, 4)" "rearrange(x, 'b c h -> b (c h)')"
stdout_has "view"
expect 0 explain -s "import torch" -s "from einops import rearrange" \
    -s "x = torch.arange(24.).reshape(2, 3, 4)" "rearrange(x, 'b c h -> b (h c)')"
stdout_has "copy"
expect 0 explain -s "import torch" -s "x = torch.arange(4.)" "x.to_sparse()"
stdout_has "value: the op returns a sparse COO tensor (stored coordinates and"

exit 0
