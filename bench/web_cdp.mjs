// bench/web_cdp.mjs URL [--size WxH] [--shot FILE.png] [--bench N] [--download DIR] - drive
// headless Chromium over --remote-debugging-pipe (the DevTools protocol on
// fds 3 and 4; no npm package, no websocket) in real time, unlike
// --virtual-time-budget: load URL, wait for the lab page's first check
// (<body data-checked>), then time N more checks (window.tlabBench) and/or
// save a screenshot of the full page at width W, and/or press "Download my
// sheet" with the keyboard (focus, Enter) and wait for the file in DIR.
// Prints JSON.
import { spawn } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';

const args = process.argv.slice(2);
const url = args[0];
const opt = (k, d) => { const i = args.indexOf(k); return i > 0 ? args[i + 1] : d; };
const [w, h] = opt('--size', '1280x900').split('x').map(Number);
const shot = opt('--shot', null), bench = +opt('--bench', 0), dl = opt('--download', null);
const prof = fs.mkdtempSync(path.join(os.tmpdir(), 'tlab-cdp-'));
const chrome = spawn(process.env.CHROMIUM || 'chromium',
  ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
   '--hide-scrollbars', '--remote-debugging-pipe', `--user-data-dir=${prof}`, `--window-size=${w},${h}`, 'about:blank'],
  { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: prof } });
const tx = chrome.stdio[3], rx = chrome.stdio[4];
let id = 0, buf = '';
const waiting = new Map();
rx.on('data', (d) => {
  buf += d.toString();
  let z;
  while ((z = buf.indexOf('\0')) >= 0) {
    const m = JSON.parse(buf.slice(0, z));
    buf = buf.slice(z + 1);
    if (m.id && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
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
  setTimeout(() => { try { fs.rmSync(prof, { recursive: true, force: true }); } catch (e) { /* chromium still exiting */ } process.exit(code); }, 300);
};
setTimeout(() => { console.error('web_cdp: timed out'); done(1); }, 120000);
try {
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId: s } = await send('Target.attachToTarget', { targetId, flatten: true });
  await send('Emulation.setDeviceMetricsOverride', { width: w, height: h, deviceScaleFactor: 1, mobile: false }, s);
  const t0 = Date.now();
  await send('Page.navigate', { url }, s);
  const ev = async (e) => (await send('Runtime.evaluate', { expression: e, awaitPromise: true, returnByValue: true }, s)).result.value;
  let checked;
  while (!(checked = await ev('document.body && document.body.dataset.checked'))) {
    if (Date.now() - t0 > 60000) throw new Error('the page never checked: ' + await ev("document.getElementById('status').textContent"));
    await sleep(20);
  }
  const out = { url, load_to_first_check_ms: Date.now() - t0, checked, score: await ev('document.body.dataset.score'),
                first_check_ms: +(await ev('document.body.dataset.ms')) };
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
