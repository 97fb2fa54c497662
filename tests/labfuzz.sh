#!/bin/sh
# tests/labfuzz.sh - mutated lab sheets through `tlab check`: whatever the
# bytes, tlab ends with 0, 1 or 2 (graded, or one located error), never a
# signal, a hang, an internal error (3) or a sanitizer report.
#
# Sources: every sheet in labs/, answers/, tests/students/ and tests/sheets/.
# Mutations (deterministic: a fixed seed per iteration): flip bytes to
# random bytes, flip bytes to YAML/Python punctuation, delete lines,
# duplicate a block of lines, swap two lines, truncate. TLAB_FUZZ_ITERS
# sets the number of iterations (default 300).
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"
set +e

iters=${TLAB_FUZZ_ITERS:-300}
vlimit=4194304 # KiB; not for ASan/valgrind builds (see tests/hostile.sh)
if ! (ulimit -v $vlimit && "$TLAB" --version >/dev/null 2>&1 && :) 2>/dev/null; then
    vlimit=
fi
tmo=
if command -v timeout >/dev/null 2>&1 && [ "${TLAB_VALGRIND:-0}" != 1 ]; then
    tmo="timeout 120"
fi

set -- "$top_srcdir"/labs/*.yaml "$top_srcdir"/answers/*.yaml \
    "$top_srcdir"/tests/students/*.yaml "$top_srcdir"/tests/sheets/*.yaml
nsrc=0
for f in "$@"; do
    [ -f "$f" ] && nsrc=$((nsrc + 1))
done
[ "$nsrc" -gt 0 ] || skip "no lab sheets found"

# mutate SEED KIND < SHEET > MUTANT
mutate() {
    awk -v seed="$1" -v kind="$2" '
    BEGIN { srand(seed); punct = ":-[]{}#&*!|>\"'"'"'%@`,?()=.0123456789 \n\t" }
    { line[NR] = $0 }
    function rnd(n) { return int(rand() * n) + 1 }
    END {
        n = NR
        if (kind == "bytes" || kind == "punct") {
            text = ""
            for (i = 1; i <= n; i++) text = text line[i] "\n"
            len = length(text)
            k = rnd(8)
            for (j = 0; j < k; j++) {
                p = rnd(len)
                if (kind == "bytes") c = sprintf("%c", int(rand() * 255) + 1)
                else c = substr(punct, rnd(length(punct)), 1)
                text = substr(text, 1, p - 1) c substr(text, p + 1)
            }
            printf "%s", text
            exit
        }
        if (kind == "truncate") {
            text = ""
            for (i = 1; i <= n; i++) text = text line[i] "\n"
            printf "%s", substr(text, 1, rnd(length(text)))
            exit
        }
        if (kind == "delete") {
            k = rnd(4)
            for (j = 0; j < k; j++) del[rnd(n)] = 1
            for (i = 1; i <= n; i++) if (!(i in del)) print line[i]
            exit
        }
        if (kind == "dup") {
            a = rnd(n); b = a + rnd(12); if (b > n) b = n
            for (i = 1; i <= b; i++) print line[i]
            for (i = a; i <= n; i++) print line[i]
            exit
        }
        # swap
        a = rnd(n); b = rnd(n); t = line[a]; line[a] = line[b]; line[b] = t
        for (i = 1; i <= n; i++) print line[i]
    }'
}

kinds="bytes punct delete dup swap truncate"
failures=0
i=0
while [ "$i" -lt "$iters" ]; do
    i=$((i + 1))
    # the i-th source sheet, cyclically, and the i-th mutation kind
    k=$(( (i - 1) % nsrc + 1 ))
    eval "src=\${$k}"
    kind=$(echo $kinds | awk -v i="$i" '{ print $((i - 1) % NF + 1) }')
    mutate "$i" "$kind" < "$src" > "$work/m.yaml"
    (
        if [ -n "$vlimit" ]; then ulimit -v $vlimit; fi
        exec $tmo "$TLAB" check --timeout 0.5 "$work/m.yaml"
    ) > /dev/null 2> "$work/err"
    rc=$?
    if [ "$rc" -gt 2 ] || grep -q 'Sanitizer\|runtime error:' "$work/err"; then
        echo "FAIL: iteration $i ($kind of $(basename "$src")) exited $rc" >&2
        head -c 2000 "$work/err" >&2
        cp "$work/m.yaml" "labfuzz-failure-$i.yaml" 2>/dev/null &&
            echo "  (sheet kept as labfuzz-failure-$i.yaml)" >&2
        failures=$((failures + 1))
    elif [ "$rc" = 2 ] && { [ "$(grep -c '^[^ ].*error: ' "$work/err")" != 1 ] ||
        ! grep -q "^$work/m.yaml:[0-9]*:[0-9]*: error: " "$work/err"; }; then
        echo "FAIL: iteration $i ($kind of $(basename "$src")): exit 2 without one located error" >&2
        head -c 2000 "$work/err" >&2
        cp "$work/m.yaml" "labfuzz-failure-$i.yaml" 2>/dev/null
        failures=$((failures + 1))
    fi
done

echo "labfuzz.sh: $iters mutants of $nsrc sheets, $failures failure(s)"
[ "$failures" -eq 0 ] || exit 1
