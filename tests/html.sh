#!/bin/sh
# tests/html.sh - `--format html` through the real binary: the scorecard
# page of every shipped sheet (check), the class report of every shipped lab
# and of a generated class of 60 submissions (grade: wrong predictions, a
# tampered threshold, an unreadable sheet), check --lab, an unreadable and a
# hostile sheet. Every page must be well-formed (xmllint --noout: the pages
# are XML-compatible HTML5), self-contained (no http:// or https://, no
# <script), and show the numbers of --format json; run, key and explain
# refuse the format.
. "${top_srcdir:-.}/tests/setup"
. "$top_srcdir/tests/html_class.inc"
command -v xmllint >/dev/null 2>&1 || skip "xmllint (libxml2-utils) is not installed"
cd "$top_srcdir"

# page FILE: a complete, well-formed, self-contained document
page() {
    [ -s "$1" ] || fail "$1: empty or missing"
    xmllint --noout "$1" 2> "$work/xmllint.err" || { cat "$work/xmllint.err" >&2; fail "$1: not well-formed"; }
    head -n 1 "$1" | grep -qx '<!DOCTYPE html>' || fail "$1: no <!DOCTYPE html>"
    grep -q '<meta charset="utf-8"/>' "$1" || fail "$1: no charset"
    grep -q '<title>' "$1" || fail "$1: no title"
    tail -n 1 "$1" | grep -qx '</html>' || fail "$1: does not end with </html>"
    ! grep -qiE 'https?://' "$1" || fail "$1: has an external URL"
    ! grep -qi '<script' "$1" || fail "$1: has a script"
    ! LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$1" || fail "$1: has a control character"
}

# json_score KEY FILE: the top-level score's KEY in a check JSON document
json_score() { sed -n '/^  "score": {$/,/^  }/p' "$2" | sed -n "s/^    \"$1\": \([0-9]*\),*\$/\1/p"; }
# html_num ID FILE: the number shown in <b id="ID">
html_num() { sed -n "s/.*<b id=\"$1\">\([0-9]*\)<\/b>.*/\1/p" "$2"; }

# ---- check: every shipped sheet
n=0
for sheet in answers/*.yaml; do
    b=$(basename "$sheet" .yaml)
    expect 0 check --format html -o "$work/$b.html" "$sheet"
    stdout_empty
    page "$work/$b.html"
    "$TLAB" check --format json "$sheet" > "$work/$b.json" || fail "$sheet: json"
    nops=$(grep -c '^      "op": ' "$work/$b.json")
    [ "$(grep -c '<tr class="op ' "$work/$b.html")" = "$nops" ] || fail "$b: op rows != $nops"
    [ "$(grep -c '<svg class="storage"' "$work/$b.html")" = "$nops" ] || fail "$b: pictures != $nops"
    for k in correct total threshold; do
        [ "$(html_num "score-$k" "$work/$b.html")" = "$(json_score "$k" "$work/$b.json")" ] ||
            fail "$b: $k differs from --format json"
    done
    [ "$(html_num score-points "$work/$b.html")" = "$(json_score points "$work/$b.json")" ] ||
        fail "$b: points differ from --format json"
    grep -q '<span class="mark">✓</span> [0-9]*/[0-9]* correct (threshold [0-9]*) - PASS<' "$work/$b.html" ||
        fail "$b: no PASS verdict"
    n=$((n + 1))
done
[ "$n" -ge 6 ] || fail "only $n shipped sheets"

# the same page on stdout; the document is deterministic
expect 0 check --format html answers/lab01.yaml
cmp -s "$work/stdout" "$work/lab01.html" || fail "stdout and -o differ"
# check --lab MASTER: the sheet graded on the master
expect 0 check --format html -o "$work/lab01-lab.html" --lab labs/lab01.yaml answers/lab01.yaml
page "$work/lab01-lab.html"
grep -q 'graded against <code>labs/lab01.yaml</code>' "$work/lab01-lab.html" || fail "check --lab: master not named"
[ "$(grep -c '<svg class="storage"' "$work/lab01-lab.html")" = "$(grep -c '<svg class="storage"' "$work/lab01.html")" ] ||
    fail "check --lab: not every op has a picture"

# ---- grade: every shipped lab against its answers
for lab in labs/lab*.yaml; do
    b=$(basename "$lab" .yaml)
    expect 0 grade --format html -o "$work/class-$b.html" --lab "$lab" answers/"$b"*.yaml
    page "$work/class-$b.html"
    grep -q '<svg class="histogram"' "$work/class-$b.html" || fail "$b: no histogram"
done

# ---- a class of 60 (tests/html_class.inc)
make_class "$work/class"
expect 2 grade --format html -o "$work/class60.html" --lab labs/lab01.yaml "$work"/class/s*.yaml
page "$work/class60.html"
expect 2 grade --jobs 3 --format html -o "$work/class60-j3.html" --lab labs/lab01.yaml "$work"/class/s*.yaml
cmp -s "$work/class60-j3.html" "$work/class60.html" || fail "grade --jobs 3 changed the class report"
"$TLAB" grade --format json --lab labs/lab01.yaml "$work"/class/s*.yaml > "$work/class60.json" 2>/dev/null &&
    fail "grade json: expected a non-zero exit"
[ "$(grep -c '<tr class="student ' "$work/class60.html")" = 60 ] || fail "class: not 60 rows"
[ "$(html_num class-submissions "$work/class60.html")" = 60 ] || fail "class: submissions"
[ "$(html_num class-unreadable "$work/class60.html")" = 1 ] || fail "class: unreadable"
[ "$(html_num class-tampered "$work/class60.html")" = 1 ] || fail "class: tampered"
for k in graded passed; do
    want=$(sed -n '/^  "summary": {$/,/^  }/p' "$work/class60.json" | sed -n "s/^    \"$k\": \([0-9]*\),\$/\1/p")
    [ -n "$want" ] && [ "$(html_num "class-$k" "$work/class60.html")" = "$want" ] ||
        fail "class: $k differs from --format json ($want)"
done
[ "$(grep -c '<tr class="class-op">' "$work/class60.html")" = 21 ] || fail "class: op rows"
grep -q 's13.yaml:' "$work/class60.html" || fail "class: the unreadable sheet's located error"
grep -q 'threshold' "$work/class60.html" || fail "class: no threshold"
# the histogram has one labelled bar per score reached, counts summing to 59
sum=$(sed -n 's/.*data-count="\([0-9]*\)".*/\1/p' "$work/class60.html" | awk '{s += $1} END {print s}')
[ "$sum" = 59 ] || fail "histogram counts sum to $sum, not 59 graded sheets"

# ---- an unreadable sheet: a complete page, score 0, the located error
printf 'tlab: 1\nops:\n  - id: "1"\n    op: x[1:]\n    points: many\n' > "$work/bad.yaml"
expect 2 check --format html -o "$work/bad.html" "$work/bad.yaml"
stderr_has "bad.yaml:5:"
page "$work/bad.html"
grep -q 'bad.yaml:5:' "$work/bad.html" || fail "unreadable: no located error in the page"
[ "$(html_num score-correct "$work/bad.html")" = 0 ] || fail "unreadable: score not 0"
# ... and graded against a master: the master's totals, score 0
expect 2 check --format html -o "$work/bad-lab.html" --lab labs/lab01.yaml "$work/bad.yaml"
page "$work/bad-lab.html"
grep -q 'bad.yaml:5:' "$work/bad-lab.html" || fail "unreadable --lab: no located error"
[ "$(html_num score-correct "$work/bad-lab.html")" = 0 ] || fail "unreadable --lab: score not 0"
[ "$(html_num score-total "$work/bad-lab.html")" = 21 ] || fail "unreadable --lab: not the master's total"

# ---- hostile text: escaped, never raw markup or a control character
esc=$(printf '\033')
bel=$(printf '\007')
cat > "$work/hostile.yaml" <<EOF
tlab: 1
id: "<script>alert(1)</script>"
title: "\\e]0;pwned\\a"
threshold: 2
setup: |
  import torch
  x = torch.arange(6.0)
ops:
  - id: "<script>alert(1)</script>"
    op: x[1:]
    predict: view
    rule: "</code><img src=x onerror=alert(1)> \\e[2J"
  - id: "\\e]0;pwned\\a"
    op: x.clone()
    predict: view
EOF
expect 1 check --format html -o "$work/hostile.html" "$work/hostile.yaml"
page "$work/hostile.html"
! grep -q '<img' "$work/hostile.html" || fail "hostile: raw <img"
! grep -qF "$esc" "$work/hostile.html" || fail "hostile: raw ESC"
! grep -qF "$bel" "$work/hostile.html" || fail "hostile: raw BEL"
grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$work/hostile.html" || fail "hostile: id not shown escaped"
grep -qF '\e]0;pwned\x07' "$work/hostile.html" || fail "hostile: control not shown as a visible escape"

# ---- questions: each prompt and the student's own answer, escaped (a
# hostile answer stays text), beside its pass/fail and reasons; under the
# feedback: policy (questions as under full for wrong-ops, none for
# score-only)
for fb in full wrong-ops score-only; do
    cat > "$work/q-$fb.yaml" <<EOF
tlab: 1
feedback: $fb
threshold: 1
setup: |
  import torch
  x = torch.arange(6.0)
ops:
  - {id: t, op: "x[1:]", predict: view}
questions:
  - id: q1
    prompt: "Why is <b>x[1:]</b> a \"view\"?"
    answer: "<script>alert('x')</script> & \"quotes\" share the storage"
    mention_any: [storage]
  - id: q2
    prompt: What does clone() allocate?
    answer: "nothing <i>at all</i>"
    mention_any: [buffer]
  - id: q3
    prompt: Blank one
    answer: ~
EOF
    expect 1 check --format html -o "$work/q-$fb.html" "$work/q-$fb.yaml"
    page "$work/q-$fb.html"
    f=$work/q-$fb.html
    ! grep -q '<b>x\|<i>at\|<script' "$f" || fail "questions ($fb): raw markup from the sheet"
    if [ $fb = score-only ]; then
        ! grep -q 'Why is\|share the storage\|clone() allocate' "$f" || fail "questions (score-only): a question is shown"
        continue
    fi
    grep -qF '<td class="prompt">Why is &lt;b&gt;x[1:]&lt;/b&gt; a &quot;view&quot;?</td>' "$f" ||
        fail "questions ($fb): q1's prompt not shown escaped"
    grep -qF '<td class="answer">&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quotes&quot; share the storage</td>' "$f" ||
        fail "questions ($fb): q1's answer not shown escaped"
    grep -qF '<td class="answer">nothing &lt;i&gt;at all&lt;/i&gt;</td>' "$f" || fail "questions ($fb): q2's answer missing"
    grep -qF '<td class="prompt">Blank one</td><td class="answer unanswered">unanswered</td>' "$f" ||
        fail "questions ($fb): q3 not shown unanswered"
    [ "$(grep -c '<tr class="question ' "$f")" = 3 ] || fail "questions ($fb): not one row per question"
    grep -q '<tr class="question ok">.*&lt;script&gt;.*pass' "$f" || fail "questions ($fb): q1 not beside its pass"
    grep -q '<tr class="question wrong">.*nothing &lt;i&gt;.*FAIL.*buffer' "$f" || fail "questions ($fb): q2 not beside its FAIL and reason"
done
# ... graded against a master: the student's answer, never the master's
sed 's/nothing <i>at all<\/i>/a new buffer of its own/' "$work/q-full.yaml" > "$work/q-sheet.yaml"
expect 1 check --format html -o "$work/q-lab.html" --lab "$work/q-full.yaml" "$work/q-sheet.yaml"
page "$work/q-lab.html"
grep -qF '<td class="answer">a new buffer of its own</td>' "$work/q-lab.html" || fail "questions --lab: not the sheet's answer"
! grep -q 'at all' "$work/q-lab.html" || fail "questions --lab: the master's answer is shown"

# ---- the format belongs to check and grade only
usage_html() {
    expect 2 "$@"
    stderr_has "cannot write format 'html'"
    stdout_empty
}
usage_html run --format html answers/lab01.yaml
usage_html key --format html labs/lab01.yaml
usage_html explain --format html 'x.t()'
exit 0
