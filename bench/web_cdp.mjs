// bench/web_cdp.mjs URL [--size WxH] [--serve DIR] [--bytes] [--interact JSON]
//   [--scroll SEL] [--shot FILE.png] [--bench N] [--download DIR] - drive
// headless Chromium over --remote-debugging-pipe (the DevTools protocol on
// fds 3 and 4; no npm package, no websocket) in real time, unlike
// --virtual-time-budget: load URL, wait for the lab page's first check
// (<body data-checked>), then time N more checks (window.tlabBench) and/or
// save a screenshot of the viewport at width W (after scrolling SEL to the
// top), and/or press "Download my sheet" with the keyboard (focus, Enter)
// and wait for the file in DIR.
//   --serve DIR   serve DIR over http on 127.0.0.1 (a free port) and load
//                 URL relative to it (e.g. index.html)
//   --bytes       count the bytes of every response the page loaded (the
//                 DevTools Network events: body bytes, or the encoded
//                 length where larger), with each URL's share
//   --interact {"op":ID,"predict":P,"rule":R}  in the loaded page, as a
//                 student would: focus op ID's prediction picker and type P
//                 (the select's type-ahead), focus its rule box, select its
//                 text and type R; wait for the check that follows; record
//                 the score, the sheet text and localStorage's tlab: entries;
//                 then reload the page without URL's #fragment and record
//                 the score and sheet again
// Prints JSON.
import { spawn } from 'child_process';
import fs from 'fs';
import http from 'http';
import os from 'os';
import path from 'path';

const args = process.argv.slice(2);
const opt = (k, d) => { const i = args.indexOf(k); return i > 0 ? args[i + 1] : d; };
const [w, h] = opt('--size', '1280x900').split('x').map(Number);
const shot = opt('--shot', null), bench = +opt('--bench', 0), dl = opt('--download', null);
const serve = opt('--serve', null), bytes = args.includes('--bytes'), scroll = opt('--scroll', null);
const interact = opt('--interact', null) && JSON.parse(opt('--interact'));
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
                '.wasm': 'application/wasm', '.yaml': 'text/plain; charset=utf-8' };
let server = null, url = args[0];
if (serve) { // a static host: the files of DIR as they are, 404 for the rest
  server = http.createServer((q, r) => {
    const f = path.join(serve, decodeURIComponent(new URL(q.url, 'http://h').pathname));
    if (!f.startsWith(path.resolve(serve)) || !fs.existsSync(f) || !fs.statSync(f).isFile()) {
      r.writeHead(404); r.end(); return;
    }
    r.writeHead(200, { 'Content-Type': TYPES[path.extname(f)] || 'application/octet-stream' });
    r.end(fs.readFileSync(f));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${server.address().port}/${args[0]}`;
}
const prof = fs.mkdtempSync(path.join(os.tmpdir(), 'tlab-cdp-'));
const chrome = spawn(process.env.CHROMIUM || 'chromium',
  ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
   '--hide-scrollbars', '--remote-debugging-pipe', `--user-data-dir=${prof}`, `--window-size=${w},${h}`, 'about:blank'],
  { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: prof } });
const tx = chrome.stdio[3], rx = chrome.stdio[4];
let id = 0, buf = '';
const waiting = new Map(), listeners = [];
rx.on('data', (d) => {
  buf += d.toString();
  let z;
  while ((z = buf.indexOf('\0')) >= 0) {
    const m = JSON.parse(buf.slice(0, z));
    buf = buf.slice(z + 1);
    if (m.id && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
    else if (m.method) listeners.forEach((f) => f(m));
  }
});
function send(method, params = {}, sessionId) {
  const m = { id: ++id, method, params };
  if (sessionId) m.sessionId = sessionId;
  tx.write(JSON.stringify(m) + '\0');
  return new Promise((ok, no) => waiting.set(m.id, (r) => r.error ? no(new Error(method + ': ' + r.error.message)) : ok(r.result)));
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const done = (code) => {
  chrome.kill();
  if (server) server.close();
  setTimeout(() => { try { fs.rmSync(prof, { recursive: true, force: true }); } catch (e) { /* chromium still exiting */ } process.exit(code); }, 300);
};
setTimeout(() => { console.error('web_cdp: timed out'); done(1); }, 120000);
try {
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId: s } = await send('Target.attachToTarget', { targetId, flatten: true });
  await send('Emulation.setDeviceMetricsOverride', { width: w, height: h, deviceScaleFactor: 1, mobile: false }, s);
  const req = new Map(); // requestId -> {url, body, encoded, failed}
  if (bytes) {
    listeners.push((m) => {
      const p = m.params || {};
      const r = req.get(p.requestId) || { url: '', body: 0, encoded: 0 };
      if (m.method === 'Network.requestWillBeSent') r.url = p.request.url;
      else if (m.method === 'Network.dataReceived') r.body += p.dataLength;
      else if (m.method === 'Network.loadingFinished') r.encoded = p.encodedDataLength;
      else if (m.method === 'Network.loadingFailed') r.failed = p.errorText || 'failed';
      else return;
      req.set(p.requestId, r);
    });
    await send('Network.enable', {}, s);
  }
  const ev = async (e) => (await send('Runtime.evaluate', { expression: e, awaitPromise: true, returnByValue: true }, s)).result.value;
  const sheet = () => ev("document.getElementById('sheet').textContent");
  // load u and wait for the page's first check
  async function load(u) {
    const t = Date.now();
    await ev('window.tlabOldDocument = true');
    await send('Page.navigate', { url: u }, s);
    let c;
    while (!(c = await ev('!window.tlabOldDocument && document.body && document.body.dataset.checked')) ||
           c === 'error') {
      if (c === 'error' || Date.now() - t > 60000)
        throw new Error('the page never checked: ' + await ev("document.getElementById('status').textContent"));
      await sleep(20);
    }
    return { ms: Date.now() - t, checked: c };
  }
  const first = await load(url);
  const out = { url, load_to_first_check_ms: first.ms, checked: first.checked, score: await ev('document.body.dataset.score'),
                first_check_ms: +(await ev('document.body.dataset.ms')) };
  if (bytes) {
    await sleep(200);
    const by = {}, failed = [];
    let total = 0;
    for (const r of req.values()) {
      const name = r.url.replace(/^.*\//, '').replace(/[?#].*$/, '') || r.url;
      if (r.failed) { failed.push(name + ': ' + r.failed); continue; }
      const n = Math.max(r.body, r.encoded);
      by[name] = (by[name] || 0) + n;
      total += n;
    }
    out.bytes = { total, by_file: by, failed };
  }
  if (interact) {
    const key = (k, text) => send('Input.dispatchKeyEvent', { type: k, text, key: text, unmodifiedText: text }, s);
    const before = { score: out.score, checked: +out.checked };
    const sel = `document.getElementById('predict-${interact.op}')`, rule = `document.getElementById('rule-${interact.op}')`;
    await ev(`${sel}.focus()`);
    for (const ch of interact.predict) { await key('keyDown', ch); await key('keyUp', ch); }
    const picked = await ev(`${sel}.value`);
    if (picked !== interact.predict) throw new Error(`typing ${interact.predict} in the picker chose '${picked}'`);
    await ev(`${rule}.focus(), ${rule}.select()`);
    await send('Input.insertText', { text: interact.rule }, s);
    // the check that follows: one run after the last change, then quiet
    const t2 = Date.now();
    let last = before.checked, since = Date.now();
    for (;;) {
      const c = +(await ev('document.body.dataset.checked'));
      if (c !== last) { last = c; since = Date.now(); }
      if (last > before.checked && Date.now() - since > 600) break;
      if (Date.now() - t2 > 30000) throw new Error('no check after the change');
      await sleep(25);
    }
    const after = { score: await ev('document.body.dataset.score'), checks: last - before.checked,
                    rule_box: await ev(`${rule}.value`), sheet: await sheet(),
                    storage: await ev("Object.keys(localStorage).filter((k) => k.startsWith('tlab:')).map((k) => [k, localStorage.getItem(k)])") };
    const again = await load(url.replace(/#.*$/, ''));
    const reload = { checked: again.checked, score: await ev('document.body.dataset.score'), sheet: await sheet(),
                     picker: await ev(`${sel}.value`), rule_box: await ev(`${rule}.value`) };
    out.interact = { before, after, reload };
  }
  if (bench) {
    const t = await ev(`window.tlabBench(${bench})`);
    const sorted = [...t].sort((a, b) => a - b);
    out.check_ms = { n: t.length, median: +sorted[sorted.length >> 1].toFixed(2), min: +sorted[0].toFixed(2), max: +sorted[sorted.length - 1].toFixed(2) };
  }
  if (dl) {
    await send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: path.resolve(dl) });
    await ev("document.getElementById('download').focus()");
    for (const type of ['keyDown', 'keyUp'])
      await send('Input.dispatchKeyEvent', { type, key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13,
                                            text: type === 'keyDown' ? '\r' : undefined }, s);
    const t1 = Date.now();
    let files = [];
    while (!(files = fs.readdirSync(dl).filter((f) => !f.endsWith('.crdownload'))).length) {
      if (Date.now() - t1 > 20000) throw new Error('no download in ' + dl);
      await sleep(50);
    }
    out.download = path.join(dl, files[0]);
  }
  if (shot) {
    if (scroll) await ev(`document.querySelector(${JSON.stringify(scroll)}).scrollIntoView({ block: 'start' })`);
    await sleep(+opt('--wait', 1500)); // the report iframe paints
    const r = await send('Page.captureScreenshot', { format: 'png' }, s);
    fs.writeFileSync(shot, Buffer.from(r.data, 'base64'));
    out.shot = shot;
  }
  console.log(JSON.stringify(out));
  done(0);
} catch (e) {
  console.error('web_cdp: ' + e.message);
  done(1);
}
