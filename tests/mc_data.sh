#!/bin/sh
# mc_data.sh - src/lab/misconceptions_data.c is share/misconceptions.yaml
# as a C string (the catalogue compiled into tlab, also for tlab.wasm).
# After editing the catalogue, regenerate it:
#   TLAB_MC_REGEN=1 make check TESTS=tests/mc_data.sh
# (or: sh tests/mc_data.sh with top_srcdir set and TLAB_MC_REGEN=1).
. "${top_srcdir:-.}/tests/setup"

gen() {
    echo '/* generated from share/misconceptions.yaml by tests/mc_data.sh (TLAB_MC_REGEN=1) */'
    echo 'extern const char tl_misconceptions_builtin[];'
    echo 'const char tl_misconceptions_builtin[] ='
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' \
        "$top_srcdir/share/misconceptions.yaml"
    echo ';'
}

gen > "$work/data.c"
if [ -n "${TLAB_MC_REGEN:-}" ]; then
    cp "$work/data.c" "$top_srcdir/src/lab/misconceptions_data.c"
    echo "regenerated src/lab/misconceptions_data.c"
fi
cmp -s "$work/data.c" "$top_srcdir/src/lab/misconceptions_data.c" ||
    fail "src/lab/misconceptions_data.c is stale: TLAB_MC_REGEN=1 make check TESTS=tests/mc_data.sh"
exit 0
