// tests/web_node.mjs WASM TLAB WORKDIR - the lab page's WASI host
// (share/web/wasi.js) running tlab.wasm in node gives the native binary's
// output and exit status for what the page runs: check --format html and
// --format json of the blank and of filled sheets (answers/), and explain
// with the lab's setup. Exit 1 with the first difference.
import fs from 'fs';
import path from 'path';
import { execFileSync } from 'child_process';
import { createRequire } from 'module';
import { fileURLToPath } from 'url';

const [wasmPath, tlabArg, work] = process.argv.slice(2);
const tlab = path.resolve(tlabArg);
const top = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const W = createRequire(import.meta.url)(path.join(top, 'share/web/wasi.js'));
const mod = await WebAssembly.compile(fs.readFileSync(wasmPath));
const dir = fs.mkdtempSync(path.join(work, 'node-'));

function native(args, sheet) {
  fs.writeFileSync(path.join(dir, 'lab.yaml'), sheet);
  try {
    const out = execFileSync(tlab, args, { cwd: dir, env: { PATH: process.env.PATH, NO_COLOR: '1', TZ: 'UTC' },
                                           stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, stdout: out.toString() };
  } catch (e) {
    if (!e.stdout) throw e;
    return { code: e.status, stdout: e.stdout.toString() };
  }
}
let bad = 0;
async function same(what, args, sheet) {
  const n = native(args, sheet);
  const t0 = performance.now();
  const w = await W.run(mod, args, { 'lab.yaml': sheet });
  const ms = performance.now() - t0;
  if (w.code !== n.code || w.stdout !== n.stdout) {
    console.error(`${what}: wasm exit ${w.code}, native ${n.code}; stdout ${w.stdout === n.stdout ? 'same' : 'differs'}`);
    console.error(w.stderr.slice(0, 2000));
    bad++;
  } else console.log(`ok ${what} (${ms.toFixed(1)} ms in node)`);
}
const blank = execFileSync(tlab, ['new', path.join(top, 'labs/lab01.yaml')]).toString();
await same('blank lab01 check --format json', ['check', '--format', 'json', 'lab.yaml'], blank);
await same('blank lab01 check --format html', ['check', '--format', 'html', 'lab.yaml'], blank);
for (const f of fs.readdirSync(path.join(top, 'answers')).sort()) {
  const s = fs.readFileSync(path.join(top, 'answers', f), 'utf8');
  await same(`answers/${f} check --format html`, ['check', '--format', 'html', 'lab.yaml'], s);
}
await same('explain', ['explain', '-s', 'import torch', '-s', 'x = torch.arange(24.).reshape(4, 6)', '--', 'x.t()[1:]'], blank);
process.exit(bad ? 1 : 0);
