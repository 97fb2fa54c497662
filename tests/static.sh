#!/bin/sh
# tests/static.sh - `make tlab-static` (issue #25): one statically linked
# file: ldd calls it "not a dynamic executable", --version says it is
# static, it grades a shipped sheet byte for byte as the dynamic tlab does,
# and the link pulled in none of glibc's NSS functions (getpwnam & co.,
# which a static glibc binary would dlopen at run time). Skipped (77)
# where the static build cannot be made (no libc.a, a sanitizer build).
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"

static=${top_builddir}/tlab-static
if [ ! -x "$static" ]; then
    if ! make -C "$top_builddir" -s tlab-static > "$work/build.log" 2>&1; then
        cat "$work/build.log" >&2
        skip "make tlab-static failed here (no static libc, or a sanitizer build)"
    fi
fi

out=$(ldd "$static" 2>&1 || true)
case $out in
*"not a dynamic executable"*|*"statically linked"*) ;;
*) fail "ldd tlab-static: $out" ;;
esac
if command -v readelf > /dev/null 2>&1; then
    ! readelf -d "$static" 2>/dev/null | grep -q NEEDED || fail "tlab-static needs shared libraries"
fi
if command -v nm > /dev/null 2>&1 && nm "$static" > "$work/nm" 2>/dev/null && [ -s "$work/nm" ]; then
    ! grep -E ' (getpwnam|getpwuid|getgrnam|getaddrinfo|gethostbyname)(_r)?$' "$work/nm" ||
        fail "tlab-static links glibc NSS functions"
fi

"$static" --version > "$work/version"
grep -q '^linked: static' "$work/version" || fail "tlab-static --version does not say static"
"$TLAB" --version > "$work/version-dyn"
! grep -q '^linked: static' "$work/version-dyn" || fail "the dynamic tlab says static"

cd "$top_srcdir"
for args in "check answers/lab01.yaml" "check tests/students/lab01-fail.yaml" \
            "run labs/lab02.yaml" "key labs/lab03.yaml"; do
    set +e
    # shellcheck disable=SC2086
    "$TLAB" $args > "$work/dyn.out" 2>&1; s1=$?
    # shellcheck disable=SC2086
    "$static" $args > "$work/static.out" 2>&1; s2=$?
    set -e
    [ "$s1" = "$s2" ] || fail "tlab $args: exit $s1, tlab-static $s2"
    cmp -s "$work/dyn.out" "$work/static.out" || {
        diff "$work/dyn.out" "$work/static.out" | head -20 >&2
        fail "tlab-static $args differs from tlab"
    }
done
exit 0
