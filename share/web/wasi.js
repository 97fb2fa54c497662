/* wasi.js - a small WASI preview1 host for running tlab.wasm once per call,
 * in the browser or in Node (the same file; tests/web_node.mjs uses it).
 *
 * Why our own and not @bjorn3/browser_wasi_shim: tlab needs a dozen calls
 * (args, environ, clocks, random, stdout/stderr, and a flat in-memory
 * directory to read the lab from), and one file of ours keeps the page
 * dependency-free, reviewable in full and loadable from file:// without a
 * bundler. Everything else answers ENOSYS.
 *
 *   TlabWasi.run(module, args, files) -> Promise<{code, stdout, stderr, files}>
 * module: a compiled WebAssembly.Module; args: argv without argv[0];
 * files: {name: string | Uint8Array} in the preopened directory "." (also "/").
 * A fresh instance per call: tlab's state never leaks between runs.
 */
(function (root) {
  'use strict';
  var E = { SUCCESS: 0, ACCES: 2, BADF: 8, EXIST: 20, INVAL: 28, ISDIR: 31, NOENT: 44,
            NOSYS: 52, NOTDIR: 54, SPIPE: 70 };
  var enc = new TextEncoder(), dec = new TextDecoder();

  function Exit(code) { this.code = code; }

  function run(module, args, files) {
    var fs = {};
    Object.keys(files || {}).forEach(function (k) {
      var v = files[k];
      fs[k.replace(/^\.?\//, '')] = typeof v === 'string' ? enc.encode(v) : v;
    });
    var out = [], err = [];
    var argv = ['tlab'].concat(args).map(function (a) { return enc.encode(a + '\0'); });
    var env = [enc.encode('NO_COLOR=1\0'), enc.encode('TZ=UTC\0')];
    /* fd table: 0-2 stdio, 3 "." and 4 "/" preopens, then open files */
    var fds = { 0: { kind: 'in' }, 1: { kind: 'out', sink: out }, 2: { kind: 'out', sink: err },
                3: { kind: 'dir', name: '.' }, 4: { kind: 'dir', name: '/' } };
    var nextFd = 5;
    var inst;
    function mem() { return new DataView(inst.exports.memory.buffer); }
    function bytes() { return new Uint8Array(inst.exports.memory.buffer); }
    function str(p, n) { return dec.decode(bytes().slice(p, p + n)); }
    function norm(path) {
      var parts = [];
      path.split('/').forEach(function (s) {
        if (s === '' || s === '.') return;
        if (s === '..') parts.pop(); else parts.push(s);
      });
      return parts.join('/');
    }
    function isDir(p) {
      if (p === '') return true;
      return Object.keys(fs).some(function (k) { return k.indexOf(p + '/') === 0; });
    }
    function putList(list, pp, bufp) {
      var dv = mem(), b = bytes(), off = bufp;
      list.forEach(function (s, i) { dv.setUint32(pp + 4 * i, off, true); b.set(s, off); off += s.length; });
      return E.SUCCESS;
    }
    function sizes(list, np, sp) {
      var dv = mem();
      dv.setUint32(np, list.length, true);
      dv.setUint32(sp, list.reduce(function (a, s) { return a + s.length; }, 0), true);
      return E.SUCCESS;
    }
    function filestat(p, type, size) {
      var dv = mem();
      for (var i = 0; i < 64; i += 8) dv.setBigUint64(p + i, 0n, true);
      dv.setUint8(p + 16, type);
      dv.setBigUint64(p + 24, 1n, true);
      dv.setBigUint64(p + 32, BigInt(size), true);
      return E.SUCCESS;
    }
    function iov(p, n, f) {
      var dv = mem(), total = 0;
      for (var i = 0; i < n; i++) {
        var got = f(dv.getUint32(p + 8 * i, true), dv.getUint32(p + 8 * i + 4, true));
        total += got;
        if (got < dv.getUint32(p + 8 * i + 4, true)) break;
      }
      return total;
    }
    var wasi = {
      args_get: function (pp, bp) { return putList(argv, pp, bp); },
      args_sizes_get: function (np, sp) { return sizes(argv, np, sp); },
      environ_get: function (pp, bp) { return putList(env, pp, bp); },
      environ_sizes_get: function (np, sp) { return sizes(env, np, sp); },
      clock_res_get: function (id, p) { mem().setBigUint64(p, 1000n, true); return E.SUCCESS; },
      clock_time_get: function (id, prec, p) {
        var ms = id === 0 ? Date.now() : (typeof performance !== 'undefined' ? performance.now() : Date.now());
        mem().setBigUint64(p, BigInt(Math.round(ms * 1e6)), true);
        return E.SUCCESS;
      },
      random_get: function (p, n) {
        var b = bytes();
        for (var i = 0; i < n; i++) b[p + i] = (Math.random() * 256) | 0;
        return E.SUCCESS;
      },
      proc_exit: function (code) { throw new Exit(code); },
      sched_yield: function () { return E.SUCCESS; },
      fd_prestat_get: function (fd, p) {
        var f = fds[fd];
        if (!f || f.kind !== 'dir' || fd > 4) return E.BADF;
        mem().setUint8(p, 0);
        mem().setUint32(p + 4, enc.encode(f.name).length, true);
        return E.SUCCESS;
      },
      fd_prestat_dir_name: function (fd, p, n) {
        var f = fds[fd];
        if (!f || f.kind !== 'dir' || fd > 4) return E.BADF;
        bytes().set(enc.encode(f.name).slice(0, n), p);
        return E.SUCCESS;
      },
      fd_fdstat_get: function (fd, p) {
        var f = fds[fd];
        if (!f) return E.BADF;
        var dv = mem();
        dv.setUint8(p, f.kind === 'dir' ? 3 : f.kind === 'file' ? 4 : 2);
        dv.setUint16(p + 2, 0, true);
        dv.setBigUint64(p + 8, 0xffffffffn, true);
        dv.setBigUint64(p + 16, 0xffffffffn, true);
        return E.SUCCESS;
      },
      fd_fdstat_set_flags: function () { return E.SUCCESS; },
      fd_filestat_get: function (fd, p) {
        var f = fds[fd];
        if (!f) return E.BADF;
        if (f.kind === 'file') return filestat(p, 4, fs[f.path].length);
        return filestat(p, f.kind === 'dir' ? 3 : 2, 0);
      },
      path_filestat_get: function (fd, flags, pp, pn, p) {
        if (!fds[fd] || fds[fd].kind !== 'dir') return E.BADF;
        var path = norm(str(pp, pn));
        if (fs[path]) return filestat(p, 4, fs[path].length);
        if (isDir(path)) return filestat(p, 3, 0);
        return E.NOENT;
      },
      path_open: function (fd, dirflags, pp, pn, oflags, rb, ri, fdflags, op) {
        if (!fds[fd] || fds[fd].kind !== 'dir') return E.BADF;
        var path = norm(str(pp, pn));
        var exists = Object.prototype.hasOwnProperty.call(fs, path);
        if (!exists && isDir(path)) {
          if (oflags & 1 && oflags & 4) return E.EXIST;
          fds[nextFd] = { kind: 'dir', name: path };
        } else {
          if (oflags & 2) return exists ? E.NOTDIR : E.NOENT;
          if (!exists && !(oflags & 1)) return E.NOENT;
          if (exists && oflags & 1 && oflags & 4) return E.EXIST;
          if (!exists || oflags & 8) fs[path] = new Uint8Array(0);
          fds[nextFd] = { kind: 'file', path: path, pos: 0, append: !!(fdflags & 1) };
        }
        mem().setUint32(op, nextFd++, true);
        return E.SUCCESS;
      },
      fd_close: function (fd) {
        if (!fds[fd]) return E.BADF;
        if (fd > 4) delete fds[fd];
        return E.SUCCESS;
      },
      fd_read: function (fd, p, n, np) {
        var f = fds[fd];
        if (!f) return E.BADF;
        if (f.kind === 'in') { mem().setUint32(np, 0, true); return E.SUCCESS; }
        if (f.kind !== 'file') return E.BADF;
        var data = fs[f.path];
        var got = iov(p, n, function (bp, bl) {
          var chunk = data.subarray(f.pos, f.pos + bl);
          bytes().set(chunk, bp);
          f.pos += chunk.length;
          return chunk.length;
        });
        mem().setUint32(np, got, true);
        return E.SUCCESS;
      },
      fd_write: function (fd, p, n, np) {
        var f = fds[fd];
        if (!f) return E.BADF;
        var put = iov(p, n, function (bp, bl) {
          var chunk = bytes().slice(bp, bp + bl);
          if (f.kind === 'out') { f.sink.push(chunk); return bl; }
          if (f.kind !== 'file') return 0;
          var old = fs[f.path];
          if (f.append) f.pos = old.length;
          var end = Math.max(old.length, f.pos + bl);
          var grown = new Uint8Array(end);
          grown.set(old);
          grown.set(chunk, f.pos);
          fs[f.path] = grown;
          f.pos += bl;
          return bl;
        });
        mem().setUint32(np, put, true);
        return E.SUCCESS;
      },
      fd_seek: function (fd, off, whence, p) {
        var f = fds[fd];
        if (!f) return E.BADF;
        if (f.kind !== 'file') return E.SPIPE;
        var base = whence === 0 ? 0 : whence === 1 ? f.pos : fs[f.path].length;
        var pos = base + Number(off);
        if (pos < 0) return E.INVAL;
        f.pos = pos;
        mem().setBigUint64(p, BigInt(pos), true);
        return E.SUCCESS;
      },
      fd_tell: function (fd, p) {
        var f = fds[fd];
        if (!f || f.kind !== 'file') return E.BADF;
        mem().setBigUint64(p, BigInt(f.pos), true);
        return E.SUCCESS;
      },
      fd_sync: function () { return E.SUCCESS; },
      fd_datasync: function () { return E.SUCCESS; },
      fd_advise: function () { return E.SUCCESS; },
      fd_filestat_set_size: function (fd, size) {
        var f = fds[fd];
        if (!f || f.kind !== 'file') return E.BADF;
        var g = new Uint8Array(Number(size));
        g.set(fs[f.path].subarray(0, g.length));
        fs[f.path] = g;
        return E.SUCCESS;
      },
      path_unlink_file: function (fd, pp, pn) {
        var path = norm(str(pp, pn));
        if (!fs[path]) return E.NOENT;
        delete fs[path];
        return E.SUCCESS;
      },
      path_rename: function (fd, pp, pn, fd2, qp, qn) {
        var a = norm(str(pp, pn)), b = norm(str(qp, qn));
        if (!fs[a]) return E.NOENT;
        fs[b] = fs[a];
        delete fs[a];
        return E.SUCCESS;
      },
      path_create_directory: function () { return E.SUCCESS; },
    };
    var imports = { wasi_snapshot_preview1: {} };
    WebAssembly.Module.imports(module).forEach(function (im) {
      if (im.kind !== 'function') return;
      imports[im.module] = imports[im.module] || {};
      imports[im.module][im.name] = wasi[im.name] && im.module === 'wasi_snapshot_preview1'
        ? wasi[im.name] : function () { return E.NOSYS; };
    });
    function join(chunks) {
      var n = chunks.reduce(function (a, c) { return a + c.length; }, 0), b = new Uint8Array(n), o = 0;
      chunks.forEach(function (c) { b.set(c, o); o += c.length; });
      return dec.decode(b);
    }
    return WebAssembly.instantiate(module, imports).then(function (i) {
      inst = i;
      var code = 0;
      try { inst.exports._start(); } catch (e) {
        if (e instanceof Exit) code = e.code;
        else { err.push(enc.encode('tlab.wasm: ' + e + '\n')); code = 3; }
      }
      return { code: code, stdout: join(out), stderr: join(err), files: fs };
    });
  }

  var api = { run: run };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  root.TlabWasi = api;
})(typeof globalThis !== 'undefined' ? globalThis : this);
