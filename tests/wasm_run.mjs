// wasm_run.mjs - run tlab.wasm under Node's node:wasi like a native tlab.
//
//   node tests/wasm_run.mjs tlab.wasm ARGS...
//
// The guest sees the current directory as "." (relative paths work as in
// the shell; absolute paths are not mapped), the host's
// environment, and stdin/stdout/stderr; its exit status is ours. The
// ExperimentalWarning of node:wasi is silenced so stderr is tlab's alone.
process.removeAllListeners('warning');
process.on('warning', (w) => {
  if (w.name !== 'ExperimentalWarning') console.error(w.toString());
});
const { WASI } = await import('node:wasi');
const fs = await import('node:fs');

const [wasmPath, ...args] = process.argv.slice(2);
if (!wasmPath) {
  console.error('usage: node wasm_run.mjs tlab.wasm ARGS...');
  process.exit(2);
}
const wasi = new WASI({
  version: 'preview1',
  args: ['tlab', ...args],
  env: process.env,
  preopens: { '.': process.cwd() },
  returnOnExit: true,
});
const module = await WebAssembly.compile(fs.readFileSync(wasmPath));
// (getImportObject is Node 20's; Node 18 has the import namespace only)
const imports = wasi.getImportObject ? wasi.getImportObject()
  : { wasi_snapshot_preview1: wasi.wasiImport };
const instance = await WebAssembly.instantiate(module, imports);
process.exitCode = wasi.start(instance);
