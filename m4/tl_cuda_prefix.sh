#!/bin/sh
# tl_cuda_prefix.sh - the CUDA toolkit that an nvcc belongs to, for
# configure (m4/tl_cuda.m4) and tests/cuda_prefix.sh.
#
#   sh tl_cuda_prefix.sh NVCC [PREFIX]
#
# The prefix is the first of these that holds cuda_runtime.h (in include/
# or targets/*/include/):
#   1. PREFIX (configure --with-cuda=PREFIX): the only one tried when given;
#   2. the TOP= that nvcc itself reports (`nvcc --dryrun`), so that a wrapper
#      script or a symbolic link named nvcc elsewhere on PATH (ccache, a
#      module system, a distribution's /usr/bin/nvcc) still finds its real
#      toolkit;
#   3. $CUDA_HOME, then $CUDA_PATH;
#   4. the parent of the directory of nvcc, symbolic links resolved, then
#      as found on PATH.
# Prints three lines, "prefix DIR", "include DIR" and "libdir DIR" (the
# first of lib64, lib and targets/*/lib that has libcudart, else lib64 or
# lib), plus "from HOW", and exits 0; or prints one line saying why none
# was found and exits 1.
nvcc=$1
given=${2-}
if [ -z "$nvcc" ]; then
    echo "usage: tl_cuda_prefix.sh NVCC [PREFIX]"
    exit 2
fi

canon() { (cd "$1" 2> /dev/null && pwd -P); }

# headers DIR: the directory of cuda_runtime.h under DIR, if any
headers() {
    if [ -f "$1/include/cuda_runtime.h" ]; then
        echo "$1/include"
        return 0
    fi
    for h in "$1"/targets/*/include; do
        if [ -f "$h/cuda_runtime.h" ]; then
            echo "$h"
            return 0
        fi
    done
    return 1
}

libdir() {
    for l in "$1/lib64" "$1/lib" "$1"/targets/*/lib; do
        for f in "$l"/libcudart*; do
            if [ -f "$f" ]; then
                echo "$l"
                return 0
            fi
        done
    done
    if [ -d "$1/lib64" ]; then echo "$1/lib64"; else echo "$1/lib"; fi
}

tried=""
# try DIR HOW: DIR is the toolkit when it has the headers
try() {
    [ -n "$1" ] || return 1
    d=$(canon "$1") || d=""
    case " $tried " in *" ${d:-$1} "*) return 1 ;; esac
    if [ -z "$d" ]; then
        tried="$tried $1"
        return 1
    fi
    if inc=$(headers "$d"); then
        echo "prefix $d"
        echo "include $inc"
        echo "libdir $(libdir "$d")"
        echo "from $2"
        exit 0
    fi
    tried="$tried $d"
    return 1
}

if [ -n "$given" ]; then
    try "$given" "--with-cuda=$given"
    echo "no cuda_runtime.h under --with-cuda=$given (in include/ or targets/*/include/)"
    exit 1
fi

# 2. what nvcc says its toolkit is
top=$("$nvcc" --dryrun -c tl_cuda_prefix_probe.cu -o tl_cuda_prefix_probe.o 2>&1 |
      sed -n 's/^#\$ TOP=//p' | sed -n 1p)
try "$top" "$nvcc --dryrun (TOP=$top)"
# 3. the environment
try "${CUDA_HOME-}" "CUDA_HOME"
try "${CUDA_PATH-}" "CUDA_PATH"
# 4. where nvcc is
path=$(command -v "$nvcc" 2> /dev/null) || path=$nvcc
real=$(readlink -f "$path" 2> /dev/null) || real=""
if [ -n "$real" ]; then
    try "$(dirname "$(dirname "$real")")" "the directory of $real"
fi
try "$(dirname "$(dirname "$path")")" "the directory of $path"
echo "cannot find the CUDA toolkit of $nvcc (no cuda_runtime.h under:${tried:- nothing to try})"
exit 1
