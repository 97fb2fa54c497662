#!/bin/sh
# tests/fuzz.sh - robustness: random bytes and mangled programs through the
# op-language front end must give an error (or run), never a crash or hang.
#
# Each input runs as the op of a golden %%EXEC record, so the whole path
# (lexer, parser, evaluator, diagnostics) is exercised through the binary.
# Inputs: 64 KiB of random bytes, random printable text, deep nesting,
# long operator chains, and valid programs with bytes deleted. Deterministic
# (a fixed seed for awk's generator). A signal (exit >= 128), a timeout or
# a sanitizer report is a failure; exit 0/1 from --run-tests are both fine.

. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"
set +e

failures=0
n=0

# run FILE: feed FILE's bytes to tlab as a .py script
run() {
    n=$((n + 1))
    cp "$1" "$work/in.py"
    if command -v timeout >/dev/null 2>&1; then
        timeout 60 "$TLAB" --run-tests "$work/in.py" >/dev/null 2>"$work/err"
    else
        "$TLAB" --run-tests "$work/in.py" >/dev/null 2>"$work/err"
    fi
    rc=$?
    if [ "$rc" -ge 124 ] || grep -q 'Sanitizer\|runtime error' "$work/err"; then
        echo "FAIL: input $n ($2) exited $rc" >&2
        head -c 2000 "$work/err" >&2
        failures=$((failures + 1))
    fi
}

gen() { # gen SEED KIND BYTES > file
    awk -v seed="$1" -v kind="$2" -v nbytes="$3" 'BEGIN {
        srand(seed)
        alpha = "abcxyz_0123456789()[]{}.,:;=+-*/%@<>!&|^~ \t\n\"#\\'"'"'"
        for (i = 0; i < nbytes; i++) {
            if (kind == "bytes") printf "%c", int(rand() * 256)
            else printf "%s", substr(alpha, int(rand() * length(alpha)) + 1, 1)
        }
    }'
}

i=1
while [ $i -le 8 ]; do
    gen $i bytes 65536 >"$work/f" && run "$work/f" "random bytes seed $i"
    gen $i text 65536 >"$work/f" && run "$work/f" "random text seed $i"
    i=$((i + 1))
done

# deep nesting and long chains
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "("; print "1" }' >"$work/f"
run "$work/f" "5000 open parentheses"
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "["; for (i = 0; i < 5000; i++) printf "]"; print "" }' >"$work/f"
run "$work/f" "5000 nested lists"
awk 'BEGIN { printf "x = 1"; for (i = 0; i < 100000; i++) printf "+1"; print "" }' >"$work/f"
run "$work/f" "100000-term sum"
awk 'BEGIN { printf "x = "; for (i = 0; i < 20000; i++) printf "-"; print "1" }' >"$work/f"
run "$work/f" "20000 unary minus"
awk 'BEGIN { printf "x = a"; for (i = 0; i < 50000; i++) printf ".b"; print "" }' >"$work/f"
run "$work/f" "50000 attributes"
awk 'BEGIN { printf "x = [0]"; for (i = 0; i < 2000; i++) printf "[0]"; print "" }' >"$work/f"
run "$work/f" "2000 subscripts"
printf 'x = [0] * 10**9\n' >"$work/f" && run "$work/f" "huge repetition"
printf 'x = [[0] * 1000000 for i in range(1000000)]\n' >"$work/f" && run "$work/f" "huge comprehension"
printf 'x = "a" * 2**62\n' >"$work/f" && run "$work/f" "huge string"
printf 'x = 2 ** 2 ** 2 ** 2 ** 2\n' >"$work/f" && run "$work/f" "power tower"

# valid programs with bytes deleted
for seed in 1 2 3 4 5 6 7 8 9 10; do
    for f in "$top_srcdir"/tests/seeds/*.py; do
        awk -v seed=$seed 'BEGIN { srand(seed) } { s = $0; if (rand() < 0.3 && length(s) > 0) { k = int(rand() * length(s)) + 1; s = substr(s, 1, k - 1) substr(s, k + 1) } print s }' "$f" >"$work/f"
        run "$work/f" "$(basename "$f") mangled seed $seed"
    done
done

echo "fuzz.sh: $n inputs, $failures failure(s)"
[ "$failures" -eq 0 ] || exit 1
exit 0
