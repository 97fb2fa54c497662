#!/bin/sh
# tests/layering.sh - the include order of the source tree, enforced.
#
# The layers, in the one order that includes may follow (README "Layout"):
#   base -> runtime -> autograd -> py -> lang -> lab -> report -> cli
# cuda/ implements the runtime's backend interface: it sits at the runtime's
# rank and may include base and runtime headers only.
#
# Every `#include "NAME"` under src/ and cuda/ is resolved to the file it
# names (by file name: each folder is one -I). The test fails, naming
# FILE:LINE, on
#   - an edge that runs against the order (a file including a later layer),
#   - a cycle between modules (NAME.c and NAME.h are one module: a.c
#     including b.h while b.c includes a.h is a cycle),
#   - a src/ file including a CUDA header (<cuda*.h>, <cu*.h> of the toolkit,
#     or anything under cuda/), and
#   - an include that resolves to no file in the tree, and
#   - the lexer, AST or parser (src/lang/{lex,ast,parse}) including anything
#     but base: they are the front end, usable without a runtime.
# Edges listed in tests/layering.allow (one "FILE -> NAME" a line) are
# tolerated; the list is empty and is meant to stay so.
#
# Usage: layering.sh ROOT         check the tree at ROOT
#        layering.sh [--self-test] check top_srcdir, and prove the check
#                                   fails on a backward edge, a cycle and a
#                                   CUDA header (what make check runs)
set -u

# Under make check (no argument) the self-test runs too.
selftest=0
case ${1:-} in
    "") root=${top_srcdir:-$(dirname "$0")/..}; selftest=1 ;;
    --self-test) root=${top_srcdir:-$(dirname "$0")/..}; selftest=1 ;;
    *) root=$1 ;;
esac

check_tree() {
    # $1: root of a tree with src/ and cuda/; prints violations, returns 1 on any
    (cd "$1" && find src cuda -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' | LC_ALL=C sort) > "$tmp/files"
    (cd "$1" && while IFS= read -r f; do
        grep -n '^[[:space:]]*#[[:space:]]*include' "$f" | sed "s|^|$f:|"
    done < "$tmp/files") > "$tmp/incs"
    allow=/dev/null
    [ -f "$1/tests/layering.allow" ] && allow="$1/tests/layering.allow"
    awk -v allowfile="$allow" -v filesfile="$tmp/files" '
    function layer(path,   p) {
        if (path ~ /^cuda\//) return 1
        split(path, p, "/")
        return rank[p[2]]
    }
    function module(path,   m) { m = path; sub(/\.(c|h|cu|cuh)$/, "", m); return m }
    function visit(m,   k, n, i, parts) {
        state[m] = 1
        stack[++depth] = m
        n = split(deps[m], parts, " ")
        for (i = 1; i <= n; i++) {
            k = parts[i]
            if (k == "" ) continue
            if (state[k] == 1) {
                cyc = k
                for (j = depth; j >= 1 && stack[j] != k; j--) cyc = stack[j] " -> " cyc
                cyc = k " -> " cyc
                if (!(cyc in seen)) { seen[cyc] = 1
                    printf "%s: include cycle between modules: %s\n", where[m SUBSEP k], cyc; bad = 1 }
            } else if (state[k] == 0) visit(k)
        }
        depth--
        state[m] = 2
    }
    BEGIN {
        rank["base"] = 0; rank["runtime"] = 1; rank["autograd"] = 2; rank["py"] = 3
        rank["lang"] = 4; rank["lab"] = 5; rank["report"] = 6; rank["cli"] = 7
        name[0] = "base"; name[1] = "runtime"; name[2] = "autograd"; name[3] = "py"
        name[4] = "lang"; name[5] = "lab"; name[6] = "report"; name[7] = "cli"
        while ((getline line < filesfile) > 0) {
            n = split(line, p, "/"); base = p[n]
            if (base in byname) dup[base] = 1
            byname[base] = line
            if (line ~ /^src\// && !(p[2] in rank))
                { printf "%s:1: folder %s is not a layer\n", line, p[2]; bad = 1 }
        }
        while ((getline line < allowfile) > 0) {
            sub(/#.*/, "", line); gsub(/^[ \t]+|[ \t]+$/, "", line)
            if (line != "") allowed[line] = 1
        }
    }
    {
        # FILE:LINE:#include ...
        file = $0; sub(/:.*/, "", file)
        rest = substr($0, length(file) + 2)
        lineno = rest; sub(/:.*/, "", lineno)
        text = substr(rest, length(lineno) + 2)
        if (match(text, /<[^>]*>/)) {
            sys = substr(text, RSTART + 1, RLENGTH - 2)
            if (file ~ /^src\// && (sys ~ /^cuda/ || sys ~ /^(cublas|cufft|curand|cusparse|nvrtc|thrust|cub)\// \
                || sys ~ /^(cuda_runtime|cuda_fp16|cuda_bf16|device_launch_parameters|nvml)/)) {
                printf "%s:%s: src/ includes the CUDA header <%s>: CUDA code lives in cuda/\n", file, lineno, sys; bad = 1 }
            next
        }
        if (!match(text, /"[^"]*"/)) next
        inc = substr(text, RSTART + 1, RLENGTH - 2)
        if (inc == "config.h") next
        n = split(inc, q, "/"); ibase = q[n]
        if (!(ibase in byname)) { printf "%s:%s: include \"%s\" names no file under src/ or cuda/\n", file, lineno, inc; bad = 1; next }
        target = byname[ibase]
        if (file SUBSEP target in counted) next
        counted[file SUBSEP target] = 1
        key = file " -> " ibase
        if (key in allowed) { used[key] = 1; next }
        if (file ~ /^src\// && target ~ /^cuda\//) {
            printf "%s:%s: src/ includes %s: the runtime reaches cuda/ only through its backend interface\n", file, lineno, target; bad = 1; next }
        lf = layer(file); lt = layer(target)
        if (lt > lf) {
            printf "%s:%s: %s (layer %s) includes %s (layer %s): against the order base -> runtime -> autograd -> py -> lang -> lab -> report -> cli\n", \
                file, lineno, file, name[lf] (file ~ /^cuda/ ? "(cuda)" : ""), target, name[lt]; bad = 1 }
        if (file ~ /^src\/lang\/(lex|ast|parse)\./ && target !~ /^src\/base\// && target !~ /^src\/lang\/(lex|ast|parse)\./) {
            printf "%s:%s: the lexer, AST and parser depend on base only, not on %s\n", file, lineno, target; bad = 1 }
        mf = module(file); mt = module(target)
        if (mf != mt) {
            if (!((mf SUBSEP mt) in edge)) { edge[mf SUBSEP mt] = 1; deps[mf] = deps[mf] " " mt
                where[mf SUBSEP mt] = file ":" lineno }
            mods[mf] = 1; mods[mt] = 1
        }
    }
    END {
        for (m in mods) if (state[m] == 0) { depth = 0; visit(m) }
        for (k in allowed) if (!(k in used)) printf "tests/layering.allow: stale entry \"%s\" (no such edge)\n", k
        exit bad
    }' "$tmp/incs"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlab-layering.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

status=0
if ! check_tree "$root"; then
    echo "layering: FAIL"
    status=1
else
    echo "layering: ok ($(wc -l < "$tmp/incs") includes in $(wc -l < "$tmp/files") files)"
fi

if [ "$selftest" = 1 ]; then
    # The check itself must fail on a backward edge and on a cycle.
    mkdir "$tmp/tree"
    cp -R "$root/src" "$root/cuda" "$tmp/tree/"
    mkdir "$tmp/tree/tests"
    [ -f "$root/tests/layering.allow" ] && cp "$root/tests/layering.allow" "$tmp/tree/tests/"
    printf '#include "interp.h"\n' >> "$tmp/tree/src/runtime/tensor.c"
    if out=$(check_tree "$tmp/tree") ; then
        echo "self-test: FAIL: an include of interp.h from runtime/tensor.c passed"; status=1
    else
        case $out in
            *"src/runtime/tensor.c:"*"includes src/lang/interp.h"*) echo "self-test: ok (backward edge caught)" ;;
            *) echo "self-test: FAIL: backward edge not named: $out"; status=1 ;;
        esac
    fi
    cp "$root/src/runtime/tensor.c" "$tmp/tree/src/runtime/tensor.c"
    printf '#include "tensor.h"\n' >> "$tmp/tree/src/runtime/dtype.c"
    printf '#include "dtype.h"\n' >> "$tmp/tree/src/runtime/tensor.h"
    printf '#include "dtype.h"\n' >> "$tmp/tree/src/runtime/tensor.c"
    printf '#include "tensor.h"\n' >> "$tmp/tree/src/runtime/dtype.h"
    if out=$(check_tree "$tmp/tree"); then
        echo "self-test: FAIL: a dtype <-> tensor cycle passed"; status=1
    else
        case $out in
            *"include cycle"*) echo "self-test: ok (cycle caught)" ;;
            *) echo "self-test: FAIL: cycle not named: $out"; status=1 ;;
        esac
    fi
    cp "$root/src/runtime/dtype.c" "$root/src/runtime/dtype.h" "$root/src/runtime/tensor.h" "$tmp/tree/src/runtime/"
    printf '#include <cuda_runtime.h>\n' >> "$tmp/tree/src/runtime/storage.c"
    if check_tree "$tmp/tree" > /dev/null; then
        echo "self-test: FAIL: <cuda_runtime.h> in src/ passed"; status=1
    else
        echo "self-test: ok (CUDA header in src/ caught)"
    fi
fi
exit $status
