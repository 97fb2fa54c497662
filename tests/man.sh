#!/bin/sh
# tests/man.sh - man/tlab.1 against the binary: every long option printed by
# `tlab --help` or `tlab COMMAND --help` and every command is documented; the
# version in .TH is the binary's; the required sections exist; and, where
# groff is installed, the page renders without a single warning.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

man=$top_srcdir/man/tlab.1
[ -f "$man" ] || fail "$man is missing"

# The page as plain text: roff escapes for '-' and font changes removed.
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' "$man" > "$work/man.txt"

# ---- options
expect 0 --help
cp "$work/stdout" "$work/all-help"
for c in check run grade explain new key; do
    expect 0 "$c" --help
    cat "$work/stdout" >> "$work/all-help"
done
grep -o -- '--[a-z][a-z-]*' "$work/all-help" | sort -u > "$work/options"
[ "$(wc -l < "$work/options")" -ge 13 ] || fail "found only $(wc -l < "$work/options") long options in --help"
# Each has its own entry (a .B/.BI/.BR tag line) in the OPTIONS section.
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$work/man.txt" > "$work/man-options.txt"
missing=""
while read -r opt; do
    grep -Eq -- "^\.B[IR]? .*$opt([^a-z-]|\$)" "$work/man-options.txt" || missing="$missing $opt"
done < "$work/options"
[ -z "$missing" ] || fail "options missing from man/tlab.1:$missing"

# ---- commands: each has its own entry under COMMANDS
for c in check run grade explain new key help; do
    grep -Eq "^\.BI? \"?$c( |\"|\$)" "$work/man.txt" || fail "command '$c' has no entry in man/tlab.1"
done

# ---- sections
for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS '"EXIT STATUS"' FILES EXAMPLES '"SEE ALSO"'; do
    grep -q "^\.SH $s\$" "$man" || fail "man/tlab.1 has no section $s"
done
grep -q 'tlab-lab (5)' "$work/man.txt" || fail "SEE ALSO does not name tlab-lab(5)"

# ---- version
expect 0 --version
version=$(sed -n '1s/^tlab //p' "$work/stdout")
grep -q "^\.TH TLAB 1 \"[0-9-]*\" \"tlab $version\"" "$man" \
    || fail ".TH does not carry version $version"

# ---- rendering: no warnings at all (-ww), output discarded (-z)
GROFF=${GROFF:-$(command -v groff || echo no)}
if [ "$GROFF" = no ] || [ -z "$GROFF" ]; then
    echo "man.sh: groff not installed: rendering check skipped" >&2
    exit 0
fi
"$GROFF" -man -ww -z "$man" > "$work/groff.out" 2>&1 || fail "groff failed: $(cat "$work/groff.out")"
[ ! -s "$work/groff.out" ] || fail "groff warnings: $(cat "$work/groff.out")"
exit 0
