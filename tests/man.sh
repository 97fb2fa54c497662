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
# the commands, as --help lists them (its dispatch table), help included
commands=$(sed -n '/^Commands:$/,/^$/p' "$work/stdout" | grep -E '^  [a-z]' | awk '{print $1}')
[ "$(echo "$commands" | wc -l)" -ge 9 ] || fail "--help lists only: $(echo $commands)"
for c in $commands; do
    [ "$c" = help ] && continue
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
for c in $commands; do
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
lab5=$top_srcdir/man/tlab-lab.5
for page in "$man" "$lab5"; do
    "$GROFF" -man -ww -z "$page" > "$work/groff.out" 2>&1 || fail "groff failed on $page: $(cat "$work/groff.out")"
    [ ! -s "$work/groff.out" ] || fail "groff warnings in $page: $(cat "$work/groff.out")"
done

# ---- the pages as a reader sees them (plain text, no bold or underline)
render() { "$GROFF" -man -Tascii -P-c -P-b -P-u "$1" 2> /dev/null; }
render "$man" > "$work/tlab.txt"
render "$lab5" > "$work/tlab-lab.txt"
# no make or configure variable left unsubstituted: $(pkgdatadir), @datadir@
for t in tlab.txt tlab-lab.txt; do
    ! grep -En '\$\(|\$\{|@[a-z_]+@' "$work/$t" || fail "$t: a build variable left as text"
done
# each command is an entry of its own under COMMANDS: its tag at the
# entry indent (7), not run into the paragraph of the entry before
sed -n '/^COMMANDS$/,/^OPTIONS$/p' "$work/tlab.txt" > "$work/commands.txt"
for c in $commands; do
    grep -Eq "^       $c( |\$)" "$work/commands.txt" || fail "tlab(1): '$c' is not an entry of COMMANDS (run into another?)"
    ! grep -Eq "^              .*[.)] $c [A-Z]+" "$work/commands.txt" ||
        fail "tlab(1): '$c' appears inside another command's paragraph"
done
# --device describes the CUDA backend that cuda/ has (kernels, simulator)
sed -n '/^       --device DEV$/,/^$/p' "$work/tlab.txt" | tr '\n' ' ' | tr -s ' ' > "$work/device.txt"
if ls "$top_srcdir"/cuda/*.cu > /dev/null 2>&1; then
    ! grep -qi 'not yet' "$work/device.txt" || fail "tlab(1) --device says the CUDA kernels are not there yet"
    grep -q 'CUDA kernel' "$work/device.txt" || fail "tlab(1) --device does not say copies are CUDA kernels"
    grep -q 'simulator' "$work/device.txt" || fail "tlab(1) --device does not name the emulated device"
fi
# tlab-lab(5) FILES names every shipped lab, with its title
sed -n '/^FILES$/,/^SEE ALSO$/p' "$work/tlab-lab.txt" | tr '\n' ' ' | tr -s ' ' > "$work/files.txt"
for l in "$top_srcdir"/labs/*.yaml; do
    name=labs/$(basename "$l")
    title=$(sed -n 's/^title: *//p' "$l" | head -n 1)
    grep -qF "$name" "$work/files.txt" || fail "tlab-lab(5) FILES does not name $name"
    grep -qiF "$title" "$work/files.txt" || fail "tlab-lab(5) FILES does not give $name's title '$title'"
done
exit 0
