#!/bin/sh
# bench/web.sh [LAB] - the lab page in headless Chromium (issue 25): the time
# of one `tlab check` of LAB (default labs/lab01.yaml, the blank sheet) inside
# the page once it has loaded (the page's performance.now() around a fresh
# tlab.wasm instance, the check and the report in the iframe; the median of 20,
# in real time through bench/web_cdp.mjs), and the size of what the browser
# loads (index.html, page.js, wasi.js, page.css, tlab.wasm, lab.yaml).
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
node "$top/bench/web_cdp.mjs" "file://$work/site/index.html" --bench 20 > "$work/cdp.json"
cd "$work/site"
bytes=$(cat index.html page.js wasi.js page.css tlab.wasm lab.yaml | wc -c)
echo "lab: $lab"
echo "in Chromium: $(cat "$work/cdp.json")"
echo "page + wasm: $bytes bytes ($(awk "BEGIN{printf \"%.2f\", $bytes/1048576}") MiB); tlab.wasm $(wc -c < tlab.wasm) bytes"
echo "file:// loads wasm.js instead of tlab.wasm: $(wc -c < wasm.js) bytes (base64)"
