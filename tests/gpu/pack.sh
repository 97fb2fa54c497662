#!/bin/sh
# tests/gpu/pack.sh BUILDDIR [DEST] - make the folder tests/gpu/run.sh runs
# on a GPU machine that cannot build tlab (no libyaml/cJSON/check there):
# the binaries of a --with-cuda=yes build (static cudart by default) and,
# in DEST/lib, the shared libraries they need beyond libc/libm/libstdc++.
# DEST defaults to ./build-gpu (carried to the GPU machine with the tree).
set -eu
builddir=${1:?usage: tests/gpu/pack.sh BUILDDIR [DEST]}
dest=${2:-build-gpu}
progs="tlab tests/check_kernels tests/check_cuda tests/check_fixtures tests/check_index tests/check_backend bench/gpu_bandwidth"
# shellcheck disable=SC2086 # $progs is a list of make targets
make -C "$builddir" $progs
mkdir -p "$dest/tests" "$dest/bench" "$dest/lib"
for p in $progs; do
    cp "$builddir/$p" "$dest/$p"
done
for p in $progs; do
    ldd "$dest/$p" | awk '/=> \// && !/libc\.so|libm\.so|libstdc|libgcc|ld-linux|libpthread|libdl|librt/ { print $3 }'
done | sort -u | while read -r lib; do
    cp -L "$lib" "$dest/lib/"
done
echo "pack.sh: $dest ready ($(du -sh "$dest" | cut -f1))"
