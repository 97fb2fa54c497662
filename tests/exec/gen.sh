#!/bin/sh
# tests/exec/gen.sh - regenerate the goldens of tests/exec.sh from real
# PyTorch: for each NAME.py, NAME.out (stdout) and NAME.err (stderr, the
# script's absolute path written as SCRIPT). Needs /usr/bin/python3 with
# torch (Debian's python3-torch 1.13.1); the tests never do.
set -eu
cd "$(dirname "$0")"
for f in *.py; do
    n=${f%.py}
    p=$(pwd)/$f
    /usr/bin/python3 -W default "$p" > "$n.out" 2> "$n.err.tmp" || true
    sed "s|$p|SCRIPT|g" "$n.err.tmp" > "$n.err"
    rm -f "$n.err.tmp"
done
