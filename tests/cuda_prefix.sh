#!/bin/sh
# tests/cuda_prefix.sh - configure's search for the CUDA toolkit
# (m4/tl_cuda_prefix.sh, called by m4/tl_cuda.m4): the toolkit an nvcc
# belongs to, not the parent of the directory where an nvcc was found, so a
# wrapper script or a link named nvcc elsewhere on PATH does not turn into a
# silent CPU-only build (issue #24). Fake toolkits in $work, no CUDA needed;
# where a real nvcc is installed, a wrapper of it too.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"
unset CUDA_HOME CUDA_PATH 2>/dev/null || true

helper=$(cd "$top_srcdir" && pwd)/m4/tl_cuda_prefix.sh
[ -f "$helper" ] || fail "no $helper"
canon() { (cd "$1" && pwd -P); }

# toolkit DIR [INCLUDE-SUBDIR [LIB-SUBDIR]]: a fake toolkit whose nvcc says
# TOP= like the real one (only with --dryrun)
toolkit() {
    mkdir -p "$1/bin" "$1/${2:-include}" "$1/${3:-lib64}"
    : > "$1/${2:-include}/cuda_runtime.h"
    : > "$1/${3:-lib64}/libcudart_static.a"
    cat > "$1/bin/nvcc" <<NVCC
#!/bin/sh
case " \$* " in *" --dryrun "*) echo '#\$ _HERE_=$1/bin'; echo '#\$ TOP=$1/bin/..' >&2 ;; esac
exit 0
NVCC
    chmod +x "$1/bin/nvcc"
}
# find NVCC [PREFIX]: runs the helper (in a scratch directory) into $work/found
find_tk() {
    if (cd "$work/scratch" && sh "$helper" "$@") > "$work/found" 2>&1; then found=0; else found=$?; fi
}
field() { sed -n "s/^$1 //p" "$work/found"; }
mkdir -p "$work/scratch"

# ---- a wrapper script elsewhere on PATH: nvcc --dryrun names the toolkit
toolkit "$work/tk"
mkdir -p "$work/wrap"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$work/tk/bin/nvcc" > "$work/wrap/nvcc"
chmod +x "$work/wrap/nvcc"
find_tk "$work/wrap/nvcc"
[ "$found" = 0 ] || fail "wrapper: no toolkit found: $(cat "$work/found")"
tk=$(canon "$work/tk")
[ "$(field prefix)" = "$tk" ] || fail "wrapper: prefix $(field prefix), not $tk (the parent of the wrapper's directory is $work)"
[ "$(field include)" = "$tk/include" ] || fail "wrapper: include $(field include)"
[ "$(field libdir)" = "$tk/lib64" ] || fail "wrapper: libdir $(field libdir)"
field from | grep -q -- '--dryrun' || fail "wrapper: not found through nvcc --dryrun: $(field from)"
# found through PATH as configure finds it (a bare name)
(PATH=$work/wrap:$PATH; export PATH; cd "$work/scratch" && sh "$helper" nvcc) > "$work/found" ||
    fail "nvcc on PATH: not found"
[ "$(field prefix)" = "$tk" ] || fail "nvcc on PATH: prefix $(field prefix)"
[ ! -e "$work/scratch/tl_cuda_prefix_probe.o" ] || fail "the probe left a file behind"

# ---- an nvcc that does not say TOP=: CUDA_HOME, then CUDA_PATH
printf '#!/bin/sh\nexit 0\n' > "$work/wrap/nvcc"
CUDA_HOME=$work/tk find_tk "$work/wrap/nvcc"
[ "$found" = 0 ] && [ "$(field prefix)" = "$tk" ] && [ "$(field from)" = CUDA_HOME ] ||
    fail "CUDA_HOME is not used: $(cat "$work/found")"
CUDA_PATH=$work/tk find_tk "$work/wrap/nvcc"
[ "$found" = 0 ] && [ "$(field from)" = CUDA_PATH ] || fail "CUDA_PATH is not used: $(cat "$work/found")"
CUDA_HOME=$work/nowhere CUDA_PATH=$work/tk find_tk "$work/wrap/nvcc"
[ "$found" = 0 ] && [ "$(field from)" = CUDA_PATH ] || fail "a CUDA_HOME without headers is not skipped"

# ... and nothing else: a clear reason, exit 1
find_tk "$work/wrap/nvcc"
[ "$found" = 1 ] || fail "no toolkit: exit $found"
grep -q '^cannot find the CUDA toolkit of .*nvcc (no cuda_runtime.h under: ' "$work/found" ||
    fail "no toolkit: no reason given: $(cat "$work/found")"
[ "$(wc -l < "$work/found")" = 1 ] || fail "no toolkit: more than one line"

# ---- a symbolic link to nvcc: the toolkit of its target
toolkit "$work/tk2" targets/x86_64-linux/include targets/x86_64-linux/lib
printf '#!/bin/sh\nexit 0\n' > "$work/tk2/bin/nvcc"     # says no TOP=
mkdir -p "$work/links/bin"
ln -s "$work/tk2/bin/nvcc" "$work/links/bin/nvcc"
find_tk "$work/links/bin/nvcc"
tk2=$(canon "$work/tk2")
[ "$found" = 0 ] && [ "$(field prefix)" = "$tk2" ] || fail "link: $(cat "$work/found")"
[ "$(field include)" = "$tk2/targets/x86_64-linux/include" ] || fail "link: include $(field include)"
[ "$(field libdir)" = "$tk2/targets/x86_64-linux/lib" ] || fail "link: libdir $(field libdir)"

# ---- --with-cuda=PREFIX: only that one, and it must have the headers
find_tk "$work/wrap/nvcc" "$work/tk2"
[ "$found" = 0 ] && [ "$(field prefix)" = "$tk2" ] || fail "--with-cuda=PREFIX: $(cat "$work/found")"
find_tk "$work/tk/bin/nvcc" "$work/wrap"
[ "$found" = 1 ] || fail "--with-cuda=PREFIX without headers: exit $found"
grep -q "no cuda_runtime.h under --with-cuda=$work/wrap" "$work/found" || fail "--with-cuda=PREFIX: $(cat "$work/found")"

# ---- configure uses it, and says why CUDA is off (a warning when an nvcc
# exists); --with-cuda=yes fails
m4=$top_srcdir/m4/tl_cuda.m4
grep -q 'tl_cuda_prefix.sh' "$m4" || fail "m4/tl_cuda.m4 does not use the helper"
! grep -q 'AS_DIRNAME' "$m4" || fail "m4/tl_cuda.m4 still derives the prefix from nvcc's directory"
grep -q 'AC_MSG_WARN(\[CUDA backend not built, although' "$m4" || fail "no configure warning for an unusable nvcc"
if [ -f "$top_srcdir/configure" ]; then
    grep -q 'tl_cuda_prefix.sh' "$top_srcdir/configure" || fail "configure is older than m4/tl_cuda.m4 (autoreconf)"
fi

# ---- a real nvcc, wrapped
if real=$(command -v nvcc 2> /dev/null) && [ -n "$real" ]; then
    printf '#!/bin/sh\nexec "%s" "$@"\n' "$real" > "$work/wrap/nvcc"
    find_tk "$work/wrap/nvcc"
    [ "$found" = 0 ] || fail "a wrapper of $real: $(cat "$work/found")"
    [ -f "$(field include)/cuda_runtime.h" ] || fail "a wrapper of $real: no cuda_runtime.h in $(field include)"
fi
exit 0
