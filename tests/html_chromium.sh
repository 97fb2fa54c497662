#!/bin/sh
# tests/html_chromium.sh - the HTML reports in a real browser: headless
# Chromium loads the check page of every shipped sheet, the class report of
# every shipped lab and of a generated class of 60 (tests/html_class.inc),
# and this test checks the DOM the browser built (one op row and one storage
# SVG per op, the score numbers of --format json, one student row per
# submission) and two 1280x800 screenshots (PNG of that size, not blank).
# Skips (77) without a `chromium` binary ($CHROMIUM overrides). 15 browser
# starts in all. With TLAB_HTML_SHOTS=DIR the screenshots are kept there
# (that is how doc/check-report.png and doc/class-report.png are made).
. "${top_srcdir:-.}/tests/setup"
. "$top_srcdir/tests/html_class.inc"
chromium=${CHROMIUM:-chromium}
command -v "$chromium" >/dev/null 2>&1 || skip "no chromium binary"
cd "$top_srcdir"

# a private profile: HOME and the XDG directories in $work
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_CACHE_HOME="$work/home/.cache" \
    XDG_DATA_HOME="$work/home/.local/share" XDG_RUNTIME_DIR="$work/home/run"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

browse() { # browse OUT FLAG... FILE: one headless run, stdout to OUT
    out=$1
    shift
    timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --no-first-run --disable-extensions --hide-scrollbars --user-data-dir="$work/profile" \
        "$@" > "$out" 2> "$work/chromium.err" ||
        { sed -n '1,20p' "$work/chromium.err" >&2; fail "chromium failed on $*"; }
}
dom() { browse "$1" --dump-dom "file://$2"; [ -s "$1" ] || fail "empty DOM for $2"; }
# shot PNG FILE: a 1280x800 screenshot
shot() {
    browse "$work/shot.out" --window-size=1280,800 --screenshot="$1" "file://$2"
    [ -s "$1" ] || fail "no screenshot of $2"
    # PNG signature, then IHDR width and height (big-endian) at bytes 16..23
    sig=$(od -An -tx1 -N8 "$1" | tr -d ' \n')
    [ "$sig" = 89504e470d0a1a0a ] || fail "$1: not a PNG"
    wh=$(od -An -tu1 -j16 -N8 "$1" | awk '{print ($1*2^24+$2*2^16+$3*2^8+$4) "x" ($5*2^24+$6*2^16+$7*2^8+$8)}')
    [ "$wh" = 1280x800 ] || fail "$1: $wh, not 1280x800"
    # a blank 1280x800 page compresses to a few KB; text, tables and SVG don't
    size=$(wc -c < "$1")
    [ "$size" -gt 40000 ] || fail "$1: only $size bytes: a blank page?"
    if [ -n "${TLAB_HTML_SHOTS:-}" ]; then cp "$1" "$TLAB_HTML_SHOTS/"; fi
}
count() { grep -o "$1" "$2" | wc -l | tr -d ' '; }
json_score() { sed -n '/^  "score": {$/,/^  }/p' "$2" | sed -n "s/^    \"$1\": \([0-9]*\),*\$/\1/p"; }
dom_num() { sed -n "s/.*<b id=\"$1\">\([0-9]*\)<\/b>.*/\1/p" "$2"; }

# ---- the check page of every shipped sheet: 6 starts, and one screenshot
for sheet in answers/*.yaml; do
    b=$(basename "$sheet" .yaml)
    "$TLAB" check --format html -o "$work/$b.html" "$sheet" || fail "$sheet: check --format html"
    "$TLAB" check --format json "$sheet" > "$work/$b.json" || fail "$sheet: check --format json"
    dom "$work/$b.dom" "$work/$b.html"
    nops=$(grep -c '^      "op": ' "$work/$b.json")
    [ "$(count '<tr class="op ' "$work/$b.dom")" = "$nops" ] || fail "$b: DOM op rows != $nops"
    [ "$(count '<svg class="storage"' "$work/$b.dom")" = "$nops" ] || fail "$b: DOM pictures != $nops"
    [ "$(count '<section class="card ' "$work/$b.dom")" = "$nops" ] || fail "$b: DOM cards != $nops"
    for k in correct total points threshold; do
        shown=$(dom_num "score-$k" "$work/$b.dom")
        [ -n "$shown" ] && [ "$shown" = "$(json_score "$k" "$work/$b.json")" ] ||
            fail "$b: the page shows $k '$shown', --format json $(json_score "$k" "$work/$b.json")"
    done
    # the browser kept the storage slots inside their SVGs
    [ "$(count '<rect class="slot' "$work/$b.dom")" = "$(count '<rect class="slot' "$work/$b.html")" ] ||
        fail "$b: the browser moved storage slots"
done
shot "$work/check-report.png" "$work/lab01.html"

# ---- the class report of every shipped lab: 6 starts
for lab in labs/lab*.yaml; do
    b=$(basename "$lab" .yaml)
    set -- answers/"$b"*.yaml
    "$TLAB" grade --format html -o "$work/class-$b.html" --lab "$lab" "$@" 2>/dev/null ||
        fail "$lab: grade --format html"
    dom "$work/class-$b.dom" "$work/class-$b.html"
    [ "$(count '<tr class="student ' "$work/class-$b.dom")" = $# ] || fail "$b: DOM student rows"
    [ "$(count '<svg class="histogram"' "$work/class-$b.dom")" = 1 ] || fail "$b: no histogram"
done

# ---- the class of 60: one DOM, one screenshot
make_class "$work/class"
"$TLAB" grade --format html -o "$work/class-report.html" --lab labs/lab01.yaml "$work"/class/s*.yaml \
    2>/dev/null && fail "class of 60: expected exit 2 (an unreadable sheet)"
"$TLAB" grade --format json --lab labs/lab01.yaml "$work"/class/s*.yaml > "$work/class.json" 2>/dev/null || :
dom "$work/class.dom" "$work/class-report.html"
[ "$(count '<tr class="student ' "$work/class.dom")" = 60 ] || fail "class: DOM student rows != 60"
[ "$(count '<tr class="class-op">' "$work/class.dom")" = 21 ] || fail "class: DOM op rows != 21"
for k in graded passed tampered unreadable; do
    want=$(sed -n '/^  "summary": {$/,/^  }/p' "$work/class.json" | sed -n "s/^    \"$k\": \([0-9]*\),\$/\1/p")
    [ -n "$want" ] && [ "$(dom_num "class-$k" "$work/class.dom")" = "$want" ] ||
        fail "class: the page's $k differs from --format json ($want)"
done
shot "$work/class-report.png" "$work/class-report.html"
exit 0
