#!/bin/sh
# wasm/build.sh - build tlab.wasm (wasm32-wasi); run by `make wasm`.
#
#   wasm/build.sh SRCDIR BUILDDIR OUT SOURCES...
#
# SOURCES: the native build's source list (libtlab_a_SOURCES and
# tlab_SOURCES as Makefile.am names them): its .c files are compiled for
# wasm32-wasi, with cuda/cuda_stub.c (no CUDA there) and the vendored
# libyaml and cJSON of third_party/ (the native builds use the system's).
# The configuration header is the native config.h less what describes the
# native build only (sanitizers, CUDA, valgrind). The target's features
# come from src/base/platform.h (TL_HAVE_THREADS 0, ...).
#
# Environment: WASM_CC (default clang), WASM_CFLAGS (default -O2),
# WASM_LDFLAGS, WASM_SYSROOT (default: the compiler's; Debian's wasi-libc
# is found without one), JOBS (parallel compiles; default: nproc).
# Objects go to BUILDDIR/wasm-obj/; everything is compiled again each time
# (about 90 files, compiled in parallel).
set -eu
srcdir=$1 builddir=$2 out=$3
shift 3
cc=${WASM_CC:-clang}
cflags=${WASM_CFLAGS:--O2}
ldflags=${WASM_LDFLAGS:-}
sysroot=${WASM_SYSROOT:+--sysroot=$WASM_SYSROOT}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
obj=$builddir/wasm-obj
rm -rf "$obj"
mkdir -p "$obj"

# config.h of the wasm build
sed -e '/#define TL_ASAN /d' -e '/#define TL_UBSAN /d' -e '/#define TL_HAVE_CUDA /d' \
    -e '/#define HAVE_VALGRIND_VALGRIND_H /d' -e '/#define TL_BUILD_CONFIG /d' \
    "$builddir/config.h" > "$obj/config.h"
echo '#define TL_BUILD_CONFIG "wasm32-wasi cuda=no threads=no libyaml=0.2.5+cjson=1.7.15 (vendored, third_party/)"' \
    >> "$obj/config.h"

# the source list: .c files once each, the CUDA stub in place of the CUDA backend
list=$obj/sources
: > "$list"
for f in "$@" cuda/cuda_stub.c; do
    case $f in
    *.c) echo "$f" ;;
    esac
done | sort -u > "$list"
for f in third_party/libyaml/src/api.c third_party/libyaml/src/dumper.c \
         third_party/libyaml/src/emitter.c third_party/libyaml/src/loader.c \
         third_party/libyaml/src/parser.c third_party/libyaml/src/reader.c \
         third_party/libyaml/src/scanner.c third_party/libyaml/src/writer.c \
         third_party/cjson/cJSON.c; do
    echo "$f" >> "$list"
done

inc="-I$obj -I$srcdir/src/base -I$srcdir/src/runtime -I$srcdir/src/autograd -I$srcdir/src/py \
-I$srcdir/src/lang -I$srcdir/src/lab -I$srcdir/src/report -I$srcdir/src/cli -I$srcdir/cuda \
-I$srcdir/third_party/libyaml/include -I$srcdir/third_party/cjson"
yamldefs="-DYAML_VERSION_MAJOR=0 -DYAML_VERSION_MINOR=2 -DYAML_VERSION_PATCH=5 -DYAML_VERSION_STRING=\"0.2.5\""
export cc cflags sysroot inc yamldefs obj srcdir
# one compile per file, $jobs at a time; a failure stops the build
tr '\n' '\0' < "$list" | xargs -0 -n 1 -P "$jobs" sh -c '
    f=$1
    o=$obj/$(echo "$f" | tr / _).o
    case $f in
    third_party/*) extra="$yamldefs -w" ;;
    *) extra="-std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration" ;;
    esac
    exec $cc --target=wasm32-wasi $sysroot $cflags -DHAVE_CONFIG_H $extra $inc -c "$srcdir/$f" -o "$o"
' sh

# 8 MiB of stack, as the native main thread (the parser and interpreter
# recurse), placed first so an overflow traps instead of overwriting data;
# at most 2 GiB of memory, so that no address has bit 31, the emulated
# CUDA device's pointer tag (cuda/dev_sim.c)
$cc --target=wasm32-wasi $sysroot $cflags "$obj"/*.o -lm \
    -Wl,-z,stack-size=8388608 -Wl,--stack-first -Wl,--max-memory=2147483648 -Wl,--strip-debug \
    $ldflags -o "$out.tmp"
mv "$out.tmp" "$out"
