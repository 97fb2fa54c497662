#!/bin/sh
# tests/web.sh - `tlab autograder web` and the lab page it writes (issue 25).
#
# Always: the publish command (exit 2 naming where it looked when tlab.wasm
# is missing; the files it writes; lab.yaml byte for byte `tlab new`'s blank
# sheet; lab.js and wasm.js the same lab and wasm; an existing -o refused
# without --force; a filled master refused), with a stand-in wasm module.
# With node and a real tlab.wasm ($TLAB_WASM, else tlab.wasm next to $TLAB):
# tests/web_node.mjs runs the page's WASI host (share/web/wasi.js) on it and
# compares with the native binary. With chromium too ($CHROMIUM): headless
# Chromium loads the published page from file:// (the embedded lab and wasm),
# blank (score 0), then filled through the page's #fill= test mode (the score
# changes), then reloaded without it (localStorage keeps the answers); the
# sheet downloaded by pressing "Download my sheet" (bench/web_cdp.mjs, over
# the DevTools pipe) is the sheet the page shows and passes native
# `tlab check` with the page's score. Then, in the loaded page, real keys
# (bench/web_cdp.mjs --interact) change op 11's prediction and type a new
# rule: the page checks again (the score goes up by one), its sheet and
# localStorage hold the change, and a reload without #fill keeps it. What the
# page loads is under 2,000,000 bytes from file:// (lab.js, wasm.js) and
# over http (lab.yaml, tlab.wasm; web_cdp.mjs --serve), counted from the
# DevTools Network events. TLAB_WEB_SHOTS=DIR also writes the screenshots of
# doc/ (web-desktop.png 1280x900, web-phone.png 390x844 at the result).
# The publish part always runs; the test then exits 77 where
# tlab.wasm, node or chromium is missing (CI installs them).
. "${top_srcdir:-.}/tests/setup"
cd "$top_srcdir"
export TLAB_WEB_DIR="$top_srcdir/share/web"

# ---- no tlab.wasm: exit 2, one message naming where it looked
if [ ! -e "$(dirname "$TLAB")/tlab.wasm" ]; then
    set +e
    env -u TLAB_WASM "$TLAB" autograder web --lab labs/lab01.yaml -o "$work/none" 2> "$work/err"
    rc=$?
    set -e
    [ $rc = 2 ] || fail "no tlab.wasm: exit $rc, not 2"
    grep -q "no tlab.wasm (looked in .*tlab.wasm.*): run 'make wasm'" "$work/err" ||
        fail "no tlab.wasm: $(cat "$work/err")"
    [ ! -e "$work/none" ] || fail "no tlab.wasm: $work/none was created"
fi
set +e
TLAB_WASM="$work/missing.wasm" "$TLAB" autograder web --lab labs/lab01.yaml -o "$work/none" 2> "$work/err"
rc=$?
set -e
[ $rc = 2 ] && grep -q 'TLAB_WASM=.*missing.wasm: no such file' "$work/err" || fail "TLAB_WASM missing: $rc $(cat "$work/err")"
printf 'not wasm' > "$work/bad.wasm"
set +e
TLAB_WASM="$work/bad.wasm" "$TLAB" autograder web --lab labs/lab01.yaml -o "$work/none" 2> "$work/err"
rc=$?
set -e
[ $rc = 2 ] && grep -q 'not a WebAssembly module' "$work/err" || fail "bad wasm: $rc $(cat "$work/err")"

# ---- the published folder, with a stand-in module (the smallest valid wasm)
printf '\000asm\001\000\000\000' > "$work/stub.wasm"
TLAB_WASM="$work/stub.wasm" "$TLAB" autograder web --lab labs/lab01.yaml -o "$work/site" 2> "$work/err" ||
    fail "autograder web: $(cat "$work/err")"
grep -q "wrote the lab page for lab01 to $work/site" "$work/err" || fail "no summary: $(cat "$work/err")"
for f in index.html page.js wasi.js page.css README lab.yaml lab.js tlab.wasm wasm.js; do
    [ -s "$work/site/$f" ] || fail "site/$f missing"
done
for f in index.html page.js wasi.js page.css README; do
    cmp -s "share/web/$f" "$work/site/$f" || fail "site/$f differs from share/web/$f"
done
cmp -s "$work/stub.wasm" "$work/site/tlab.wasm" || fail "site/tlab.wasm is not TLAB_WASM"
"$TLAB" new labs/lab01.yaml > "$work/blank.yaml"
cmp -s "$work/blank.yaml" "$work/site/lab.yaml" || fail "site/lab.yaml is not tlab new's blank sheet"
grep -q 'predict: view\|answer: "' "$work/site/lab.yaml" && fail "site/lab.yaml carries answers"
# wasm.js: the module deflated (one fixed-code block), in base64
[ "$(cat "$work/site/wasm.js")" = 'var TLAB_EMBED_WASM_DEFLATE_RAW = "Y0gszmVkYGAAAA==";' ] ||
    fail "wasm.js: $(cat "$work/site/wasm.js")"
grep -q '</script' "$work/site/lab.js" && fail "lab.js has a raw </script"
# no CDN, no remote URL in what the page loads
grep -Eq '(src|href)="(https?:)?//' "$work/site/index.html" && fail "index.html loads a remote URL"
# an existing folder: refused, then --force
set +e
TLAB_WASM="$work/stub.wasm" "$TLAB" autograder web --lab labs/lab01.yaml -o "$work/site" 2> "$work/err"
rc=$?
set -e
[ $rc = 2 ] && grep -q 'already exists.*--force' "$work/err" || fail "existing -o: $rc $(cat "$work/err")"
TLAB_WASM="$work/stub.wasm" "$TLAB" autograder web --force --lab labs/lab02.yaml -o "$work/site" 2>/dev/null ||
    fail "--force"
"$TLAB" new labs/lab02.yaml | cmp -s - "$work/site/lab.yaml" || fail "--force did not rewrite lab.yaml"
# a filled-in master: refused (located), and --blank blanks it
set +e
TLAB_WASM="$work/stub.wasm" "$TLAB" autograder web --lab answers/lab01.yaml -o "$work/filled" 2> "$work/err"
rc=$?
set -e
[ $rc = 2 ] && grep -q '^answers/lab01.yaml:[0-9]*:[0-9]*: error: the master has' "$work/err" ||
    fail "filled master: $rc $(cat "$work/err")"
[ ! -e "$work/filled" ] || fail "filled master: the folder was written"
TLAB_WASM="$work/stub.wasm" "$TLAB" autograder web --blank --lab answers/lab01.yaml -o "$work/filled" 2>/dev/null ||
    fail "--blank"
grep -q 'predict: view' "$work/filled/lab.yaml" && fail "--blank: answers in lab.yaml"

# ---- the page's WASI host on the real tlab.wasm, in node
wasm=${TLAB_WASM:-$(dirname "$TLAB")/tlab.wasm}
[ -f "$wasm" ] || skip "publish command checked; no tlab.wasm ('make wasm', or TLAB_WASM) for the page"
command -v node >/dev/null 2>&1 || skip "publish command checked; no node for the page's WASI host"
node "$top_srcdir/tests/web_node.mjs" "$wasm" "$TLAB" "$work" || fail "tests/web_node.mjs"
# wasm.js of the real module: node's inflater gives tlab.wasm back byte for byte
TLAB_WASM="$wasm" "$TLAB" autograder web --lab labs/lab01.yaml -o "$work/zsite" 2>/dev/null ||
    fail "autograder web with $wasm"
node -e '
const fs = require("fs"), [js, wasm] = process.argv.slice(1);
const m = /^var TLAB_EMBED_WASM_DEFLATE_RAW = "([A-Za-z0-9+\/=]*)";\n$/.exec(fs.readFileSync(js, "utf8"));
if (!m) { console.error("wasm.js: not one base64 string"); process.exit(1); }
const z = Buffer.from(m[1], "base64"), w = fs.readFileSync(wasm);
if (!require("zlib").inflateRawSync(z).equals(w)) { console.error("wasm.js does not inflate to tlab.wasm"); process.exit(1); }
console.log("wasm.js: " + fs.statSync(js).size + " bytes (deflated " + z.length + ", tlab.wasm " + w.length + ")");
' "$work/zsite/wasm.js" "$wasm" || fail "wasm.js is not tlab.wasm deflated"

# ---- the page in headless Chromium
chromium=${CHROMIUM:-chromium}
command -v "$chromium" >/dev/null 2>&1 || skip "no chromium binary for the page"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_CACHE_HOME="$work/home/.cache" \
    XDG_DATA_HOME="$work/home/.local/share" XDG_RUNTIME_DIR="$work/home/run"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
TLAB_WASM="$wasm" "$TLAB" autograder web --lab labs/lab01.yaml -o "$work/page" 2>/dev/null ||
    fail "autograder web with $wasm"
# dom OUT URL: the DOM after the page's first check (virtual time runs the
# wasm to the end; the page marks <body data-checked=...>)
# (--dump-dom may come before the wasm compiled on a loaded machine: the
# virtual clock runs ahead of the real compile; up to three tries)
dom() {
    for try in 1 2 3; do
        timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
            --no-first-run --disable-extensions --user-data-dir="$work/profile" \
            --virtual-time-budget=60000 --dump-dom "$2" > "$1" 2> "$work/chromium.err" ||
            { sed -n '1,20p' "$work/chromium.err" >&2; fail "chromium failed on $2"; }
        grep -q '<body[^>]* data-checked="[1-9]' "$1" && break
        grep -q 'id="status"[^>]*>loading tlab.wasm' "$1" && [ "$try" -lt 3 ] && continue
        break
    done
    grep -q '<body[^>]* data-checked="[1-9]' "$1" ||
        { grep -o 'id="status"[^<]*' "$1" >&2; fail "the page did not check ($2)"; }
}
attr() { sed -n "s/.*<body[^>]* data-$1=\"\([^\"]*\)\".*/\1/p" "$2"; }
unhtml() { sed -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&quot;/"/g' -e "s/&#39;/'/g" -e 's/&amp;/\&/g'; }
sheet_of() { # the <pre id="sheet"> text of a DOM
    awk '/<pre id="sheet">/{p=1; sub(/.*<pre id="sheet">/,"")} p{ if (sub(/<\/pre>.*/,"")) {printf "%s", $0; exit} print }' "$1" | unhtml
}
url="file://$work/page/index.html"
dom "$work/blank.dom" "$url"
[ "$(attr score "$work/blank.dom")" = 0/21 ] || fail "blank page: score $(attr score "$work/blank.dom")"
[ "$(grep -o '<fieldset class="op"' "$work/blank.dom" | wc -l)" = 21 ] || fail "blank page: not 21 ops"
[ "$(grep -o '<svg class="storage"' "$work/blank.dom" | wc -l)" = 0 ] || true
sheet_of "$work/blank.dom" | cmp -s - "$work/blank.yaml" || fail "blank page: its sheet is not the blank lab"
# fill: the key's verdicts for ops 1-10, a rule each, one wrong (op 11 'error')
"$TLAB" key --format json labs/lab01.yaml > "$work/key.json"
fill=$(node -e '
const k = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const ops = {};
k.ops.slice(0, 10).forEach(o => { ops[o.id] = {predict: o.actual.kind,
  rule: "strides and the offset over the same storage decide it: \"" + o.id + "\" <ok> & done"}; });
ops[k.ops[10].id] = {predict: "error", rule: "it raises"};
const q = {}; q["21"] = "A view keeps the storage; stride and byte offset change, nothing is copied.";
process.stdout.write(encodeURIComponent(JSON.stringify({ops, questions: q, explain: "x.t()[1:]"})));' "$work/key.json")
dom "$work/filled.dom" "$url#fill=$fill"
score=$(attr score "$work/filled.dom")
[ -n "$score" ] && [ "$score" != 0/21 ] || fail "filled page: the score did not change ($score)"
sheet_of "$work/filled.dom" > "$work/sheet.yaml"
# the real download: "Download my sheet" pressed with the keyboard (focus,
# Enter) in real time over the DevTools pipe; the file is the sheet shown
mkdir "$work/dl"
CHROMIUM=$chromium node "$top_srcdir/bench/web_cdp.mjs" "$url#fill=$fill" --download "$work/dl" > "$work/dl.json" ||
    fail "the download did not happen"
[ -f "$work/dl/lab01.yaml" ] || fail "download: no lab01.yaml ($(ls "$work/dl"))"
cmp -s "$work/dl/lab01.yaml" "$work/sheet.yaml" || fail "the downloaded sheet is not the sheet the page shows"
grep -q "\"score\":\"$score\"" "$work/dl.json" || fail "download run: $(cat "$work/dl.json"), not $score"
cp "$work/dl/lab01.yaml" "$work/downloaded.yaml"
set +e
"$TLAB" check --format json "$work/downloaded.yaml" > "$work/native.json" 2> "$work/native.err"
rc=$?
set -e
[ $rc -le 1 ] || fail "native check of the page's sheet: exit $rc: $(cat "$work/native.err")"
native=$(node -e 'const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).score;
process.stdout.write(c.correct + "/" + c.total)' "$work/native.json")
[ "$native" = "$score" ] || fail "page score $score, native tlab check of its sheet $native"
echo "the page: blank 0/21, filled $score; native tlab check of the page's sheet: $native"
grep -q 'rule: "strides and the offset over the same storage decide it: \\"1\\" <ok> & done"' \
    "$work/downloaded.yaml" || fail "the sheet's rule is not the typed text"
# reload without #fill: localStorage brings the same answers back
dom "$work/reload.dom" "$url"
[ "$(attr score "$work/reload.dom")" = "$score" ] || fail "reload: score $(attr score "$work/reload.dom"), not $score"
sheet_of "$work/reload.dom" | cmp -s - "$work/downloaded.yaml" || fail "reload: the sheet changed"
# the explain box ran tlab explain after the lab's setup, picture included
grep -q '^verdict   view (compared with x)' "$work/filled.dom" || fail "the explain box shows no verdict"
grep -q '^storage picture: ' "$work/filled.dom" || fail "the explain box shows no storage picture"
# ---- a change made in the loaded page (bench/web_cdp.mjs --interact, real
# keys over the DevTools pipe): op 11, filled 'error', gets its key's kind
# typed into the picker and a new rule typed into its box; the page checks
# again (the score goes up by one), its sheet holds both, localStorage holds
# both, and a reload without #fill brings them back
kind11=$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).ops[10].actual.kind)' "$work/key.json")
rule11='typed in the page: x is contiguous already, so "11" <returns> x & no copy'
CHROMIUM=$chromium node "$top_srcdir/bench/web_cdp.mjs" "$url#fill=$fill" \
    --interact "$(node -e 'console.log(JSON.stringify({op: "11", predict: process.argv[1], rule: process.argv[2]}))' "$kind11" "$rule11")" \
    > "$work/interact.json" || fail "the interaction run failed"
node -e '
const fs = require("fs"), [file, score, kind, rule, dir] = process.argv.slice(1);
const r = JSON.parse(fs.readFileSync(file, "utf8")).interact, bad = [];
const [c, t] = score.split("/").map(Number), want = (c + 1) + "/" + t;
if (r.before.score !== score) bad.push(`before the change: ${r.before.score}, not ${score}`);
if (r.after.checks < 1) bad.push("no check after the change");
if (r.after.score !== want) bad.push(`after the change: score ${r.after.score}, not ${want}`);
const op11 = (sheet) => { const m = /\n  - id: "11"\n    op: [^\n]*\n    predict: ([^\n]*)\n    rule: ([^\n]*)\n/.exec(sheet); return m && [m[1], m[2]]; };
const q = JSON.stringify(rule);
const a = op11(r.after.sheet);
if (!a || a[0] !== kind || a[1] !== q) bad.push(`the sheet after the change: op 11 ${JSON.stringify(a)}`);
const st = r.after.storage.filter(([k]) => k.startsWith("tlab:lab01:"));
const saved = st.length === 1 && JSON.parse(st[0][1]).ops["11"];
if (!saved || saved.predict !== kind || saved.rule !== rule) bad.push(`localStorage: ${JSON.stringify(r.after.storage)}`);
if (r.reload.score !== want) bad.push(`after the reload: score ${r.reload.score}, not ${want}`);
if (r.reload.sheet !== r.after.sheet) bad.push("after the reload: the sheet differs");
if (r.reload.picker !== kind || r.reload.rule_box !== rule) bad.push(`after the reload: picker ${r.reload.picker}, rule ${r.reload.rule_box}`);
fs.writeFileSync(dir + "/changed.yaml", r.after.sheet);
if (bad.length) { console.error(bad.join("\n")); process.exit(1); }
console.log(`the page, changed in place: ${r.before.score} -> ${r.after.score} (${r.after.checks} check), kept after a reload`);
' "$work/interact.json" "$score" "$kind11" "$rule11" "$work" || fail "the change in the loaded page"
set +e
"$TLAB" check --format json "$work/changed.yaml" > "$work/changed.json" 2> "$work/native.err"
rc=$?
set -e
[ $rc -le 1 ] || fail "native check of the changed sheet: exit $rc: $(cat "$work/native.err")"
changed=$(node -e 'const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).score;
process.stdout.write(c.correct + "/" + c.total)' "$work/changed.json")
[ "$changed" = "$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).interact.after.score)' "$work/interact.json")" ] ||
    fail "native tlab check of the changed sheet: $changed, not the page's score"

# ---- the size of what the page loads: under 2,000,000 bytes from file://
# (lab.js, wasm.js: the deflated module in base64) and over http (lab.yaml,
# tlab.wasm), every response counted by the DevTools Network events
CHROMIUM=$chromium node "$top_srcdir/bench/web_cdp.mjs" "$url" --bytes > "$work/bytes-file.json" ||
    fail "the file:// size run failed"
CHROMIUM=$chromium node "$top_srcdir/bench/web_cdp.mjs" index.html --serve "$work/page" --bytes > "$work/bytes-http.json" ||
    fail "the http size run failed"
for how in file http; do
    node -e '
const fs = require("fs"), [file, how] = process.argv.slice(1);
const r = JSON.parse(fs.readFileSync(file, "utf8")), b = r.bytes;
const want = how === "file" ? ["wasm.js", "lab.js"] : ["tlab.wasm", "lab.yaml"];
const miss = ["index.html", "page.js", "wasi.js", "page.css", ...want].filter((f) => !(b.by_file[f] > 0));
if (r.score !== "0/21" || miss.length) { console.error(`${how}: score ${r.score}, nothing of ${miss}: ${JSON.stringify(b)}`); process.exit(1); }
if (!(b.total < 2000000)) { console.error(`${how}: the page loads ${b.total} bytes, not under 2000000: ${JSON.stringify(b.by_file)}`); process.exit(1); }
console.log(`${how}: the page loads ${b.total} bytes ${JSON.stringify(b.by_file)}`);
' "$work/bytes-$how.json" "$how" || fail "page size ($how)"
done

# ---- TLAB_WEB_SHOTS=DIR: the screenshots of doc/ (the filled page, after
# its check): web-desktop.png at 1280x900, web-phone.png at 390x844
# scrolled to the result (score, download, the report's ops table)
if [ -n "${TLAB_WEB_SHOTS:-}" ]; then
    mkdir -p "$TLAB_WEB_SHOTS"
    CHROMIUM=$chromium node "$top_srcdir/bench/web_cdp.mjs" "$url#fill=$fill" --size 1280x900 \
        --shot "$TLAB_WEB_SHOTS/web-desktop.png" > /dev/null || fail "desktop screenshot"
    CHROMIUM=$chromium node "$top_srcdir/bench/web_cdp.mjs" "$url#fill=$fill" --size 390x844 \
        --scroll '#result-h' --shot "$TLAB_WEB_SHOTS/web-phone.png" > /dev/null || fail "phone screenshot"
    echo "screenshots: $TLAB_WEB_SHOTS/web-desktop.png $TLAB_WEB_SHOTS/web-phone.png"
fi

# the report iframe holds tlab check --format html of that sheet
grep -q '<iframe id="report"[^>]*srcdoc=' "$work/filled.dom" || fail "no report in the page"
set +e
"$TLAB" check --format html "$work/downloaded.yaml" > "$work/native.html"
set -e
want=$(grep -o '<svg class="storage"' "$work/native.html" | wc -l)
got=$(grep -o '&lt;svg class=&quot;storage&quot;' "$work/filled.dom" | wc -l)
[ "$want" -ge 1 ] && [ "$got" = "$want" ] || fail "the page's report has $got storage pictures, native $want"
exit 0
