#!/bin/sh
# bench/web.sh [LAB] - the lab page in headless Chromium (issue 25): the time
# of one `tlab check` of LAB (default labs/lab01.yaml, the blank sheet) inside
# the page once it has loaded (the page's performance.now() around a fresh
# tlab.wasm instance, the check and the report in the iframe; the median of 20,
# in real time through bench/web_cdp.mjs), and the bytes the browser loads,
# counted by web_cdp.mjs --bytes: from file:// (index.html, page.js,
# wasi.js, page.css, lab.js, wasm.js: tlab.wasm deflated, in base64) and
# over http from 127.0.0.1 (web_cdp.mjs --serve: lab.yaml and tlab.wasm).
# Goals: < 50 ms and < 2 MB. Needs a built tlab, tlab.wasm ($TLAB_WASM, else
# ./tlab.wasm) and chromium ($CHROMIUM). Run from the build tree.
set -eu
lab=${1:-labs/lab01.yaml}
top=$(cd "$(dirname "$0")/.." && pwd)
tlab=${TLAB:-./tlab}
wasm=${TLAB_WASM:-./tlab.wasm}
chromium=${CHROMIUM:-chromium}
[ -f "$wasm" ] || { echo "bench/web.sh: no $wasm (make wasm)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
TLAB_WEB_DIR="$top/share/web" TLAB_WASM="$wasm" "$tlab" autograder web --lab "$lab" -o "$work/site" 2>/dev/null
node "$top/bench/web_cdp.mjs" "file://$work/site/index.html" --bench 20 --bytes > "$work/cdp.json"
node "$top/bench/web_cdp.mjs" index.html --serve "$work/site" --bytes > "$work/http.json"
total() { node -e 'const b = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).bytes;
console.log(b.total + " bytes (" + (b.total / 1048576).toFixed(2) + " MiB): " + JSON.stringify(b.by_file))' "$1"; }
echo "lab: $lab"
echo "in Chromium: $(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); delete r.bytes; console.log(JSON.stringify(r))' "$work/cdp.json")"
echo "file:// loads $(total "$work/cdp.json")"
echo "http loads $(total "$work/http.json")"
echo "tlab.wasm $(wc -c < "$work/site/tlab.wasm") bytes, wasm.js $(wc -c < "$work/site/wasm.js") bytes"
