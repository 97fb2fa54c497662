/* page.js - the student's lab page: tlab.wasm (through wasi.js) grades the
 * sheet in the browser on every change.
 *
 * The sheet IS the blank lab.yaml with the student's values written into its
 * `predict: ~`, `rule: ~` and `answer: ~` lines (sheetText): what the page
 * grades, shows under "Your sheet" and downloads is exactly the YAML that
 * native `tlab check` reads. The op list comes from `tlab check --format
 * json` of the blank lab, the question prompts from its text; the result is
 * `tlab check --format html` (the HTML report, storage pictures included)
 * in a sandboxed iframe, its score read from the report's score-* cells.
 * State (the values, the explain box) lives in localStorage under the lab's
 * id and text hash, so a reload loses nothing.
 *
 * Test mode: #fill=<URI-encoded JSON {ops:{ID:{predict,rule}},questions:{ID:text}}>
 * replaces the state before the first check (tests/web.sh drives the page
 * with it under chromium --dump-dom). When a check is done, <body> gets
 * data-checked="N" (the number of checks run) and data-score="correct/total";
 * window.tlabBench(n) times n more checks (bench/web.sh).
 */
(function () {
  'use strict';
  var PREDICTIONS = ['view', 'copy', 'alias', 'error', 'sometimes'];
  var $ = function (id) { return document.getElementById(id); };
  var blank, module, labId = 'lab', key, state = { ops: {}, questions: {}, explain: '' };
  var ops = [], questions = [], setup = [], checks = 0, pending = null, running = false;

  function status(msg, bad) {
    var s = $('status');
    s.textContent = msg;
    s.className = bad ? 'bad' : '';
  }
  function loadScript(src) {
    return new Promise(function (ok, no) {
      var s = document.createElement('script');
      s.src = src;
      s.onload = ok;
      s.onerror = function () { no(new Error('cannot load ' + src)); };
      document.head.appendChild(s);
    });
  }
  /* fetch where it works (http), the embedded copy where it does not (file://) */
  function getLab() {
    return fetch('lab.yaml').then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.text();
    }).catch(function () {
      return loadScript('lab.js').then(function () { return window.TLAB_EMBED_LAB; });
    });
  }
  function getWasm() {
    return fetch('tlab.wasm').then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.arrayBuffer();
    }).catch(function () {
      return loadScript('wasm.js').then(function () {
        /* tlab.wasm deflated (raw DEFLATE), in base64: unpacked here */
        var b = atob(window.TLAB_EMBED_WASM_DEFLATE_RAW), u = new Uint8Array(b.length);
        for (var i = 0; i < b.length; i++) u[i] = b.charCodeAt(i);
        if (typeof DecompressionStream === 'undefined')
          throw new Error('this browser cannot unpack wasm.js (no DecompressionStream): ' +
                          'open the page from a web server, which serves tlab.wasm itself');
        return new Response(new Blob([u]).stream()
          .pipeThrough(new DecompressionStream('deflate-raw'))).arrayBuffer();
      });
    }).then(function (buf) { return WebAssembly.compile(buf); });
  }
  function tlab(args, sheet) {
    return TlabWasi.run(module, args, { 'lab.yaml': sheet });
  }
  function hash(s) {
    var h = 5381;
    for (var i = 0; i < s.length; i++) h = (h * 33 + s.charCodeAt(i)) >>> 0;
    return h.toString(16);
  }

  /* ---- the blank text: question prompts, setup, and writing the values */
  function parseText(text) {
    var lines = text.split('\n'), section = null, item = null, inSetup = false;
    for (var i = 0; i < lines.length; i++) {
      var l = lines[i], m;
      if ((m = /^([A-Za-z_]+):(.*)$/.exec(l))) {
        section = m[1];
        item = null;
        inSetup = section === 'setup' && /^\s*\|/.test(m[2]);
        continue;
      }
      if (inSetup) {
        if (/^\s+\S/.test(l)) setup.push(l.replace(/^ {2}/, ''));
        continue;
      }
      if (section === 'questions' && (m = /^\s*- id:\s*"?([^"]*?)"?\s*$/.exec(l))) {
        item = { id: m[1], prompt: '' };
        questions.push(item);
      } else if (item && (m = /^(\s+)prompt:\s*(.*)$/.exec(l))) {
        var v = m[2], ind = m[1].length;
        if (/^[>|]/.test(v)) {
          var parts = [];
          while (i + 1 < lines.length && (lines[i + 1].search(/\S/) > ind || !lines[i + 1].trim()) &&
                 lines[i + 1].trim() !== '' ) parts.push(lines[++i].trim());
          v = parts.join(' ');
        } else v = v.replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
        item.prompt = v;
      }
    }
  }
  function yamlString(s) { return JSON.stringify(s); } /* JSON strings are YAML double-quoted */
  function sheetText() {
    var lines = blank.split('\n'), section = null, id = null;
    return lines.map(function (l) {
      var m;
      if ((m = /^([A-Za-z_]+):/.exec(l))) { section = m[1]; id = null; return l; }
      if ((m = /^\s*- id:\s*"?([^"]*?)"?\s*$/.exec(l))) { id = m[1]; return l; }
      if (id === null || !(m = /^(\s+)(predict|rule|answer): ~\s*$/.exec(l))) return l;
      var v = null;
      if (section === 'ops' && state.ops[id]) {
        var o = state.ops[id];
        if (m[2] === 'predict' && PREDICTIONS.indexOf(o.predict) >= 0) v = o.predict;
        if (m[2] === 'rule' && o.rule && o.rule.trim()) v = yamlString(o.rule.trim());
      }
      if (section === 'questions' && m[2] === 'answer' && state.questions[id] &&
          state.questions[id].trim()) v = yamlString(state.questions[id].trim());
      return v === null ? l : m[1] + m[2] + ': ' + v;
    }).join('\n');
  }

  /* ---- the form */
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function buildForm() {
    var f = $('ops');
    ops.forEach(function (op) {
      var o = state.ops[op.id] || (state.ops[op.id] = { predict: '', rule: '' });
      var box = el('fieldset', { 'class': 'op', id: 'op-' + op.id });
      var lg = el('legend');
      lg.appendChild(el('span', { 'class': 'opid' }, op.id + '.'));
      lg.appendChild(el('code', {}, op.op));
      box.appendChild(lg);
      var sel = el('select', { id: 'predict-' + op.id, name: 'predict-' + op.id });
      sel.appendChild(el('option', { value: '' }, '(no prediction)'));
      PREDICTIONS.forEach(function (p) { sel.appendChild(el('option', { value: p }, p)); });
      sel.value = o.predict || '';
      var rule = el('input', { type: 'text', id: 'rule-' + op.id, name: 'rule-' + op.id,
                               autocomplete: 'off', placeholder: 'the rule that made you say so' });
      rule.value = o.rule || '';
      var l1 = el('label', { 'for': sel.id }, 'Prediction');
      var l2 = el('label', { 'for': rule.id }, 'Rule');
      sel.addEventListener('change', function () { o.predict = sel.value; changed(); });
      rule.addEventListener('input', function () { o.rule = rule.value; changed(); });
      var r1 = el('div', { 'class': 'row' }), r2 = el('div', { 'class': 'row' });
      r1.appendChild(l1); r1.appendChild(sel);
      r2.appendChild(l2); r2.appendChild(rule);
      box.appendChild(r1); box.appendChild(r2);
      f.appendChild(box);
    });
    var q = $('questions');
    if (!questions.length) $('questions-h').hidden = true;
    questions.forEach(function (qu) {
      var box = el('div', { 'class': 'question' });
      var ta = el('textarea', { id: 'answer-' + qu.id, name: 'answer-' + qu.id, rows: '3' });
      ta.value = state.questions[qu.id] || '';
      box.appendChild(el('label', { 'for': ta.id }, qu.id + '. ' + qu.prompt));
      box.appendChild(ta);
      ta.addEventListener('input', function () { state.questions[qu.id] = ta.value; changed(); });
      q.appendChild(box);
    });
  }
  function save() {
    try { localStorage.setItem(key, JSON.stringify(state)); } catch (e) { /* private mode */ }
  }
  function changed() {
    save();
    clearTimeout(pending);
    pending = setTimeout(check, 120);
  }

  /* ---- checking: one tlab run at a time, the latest sheet wins */
  function check() {
    if (running) { pending = setTimeout(check, 30); return; }
    running = true;
    var sheet = sheetText();
    $('sheet').textContent = sheet;
    var t0 = performance.now();
    return tlab(['check', '--format', 'html', 'lab.yaml'], sheet).then(function (r) {
      var ms = performance.now() - t0;
      running = false;
      checks++;
      if (r.code > 1) {
        status('tlab check: ' + r.stderr.trim(), true);
        document.body.dataset.checked = checks;
        return;
      }
      $('report').srcdoc = r.stdout;
      var n = function (k) {
        var m = new RegExp('id="score-' + k + '">([0-9]+)<').exec(r.stdout);
        return m ? +m[1] : NaN;
      };
      var c = n('correct'), t = n('total'), th = n('threshold');
      $('score').textContent = c + ' of ' + t + ' correct (' + th + ' to pass): ' +
        (r.code === 0 ? 'the sheet passes' : 'not yet passing');
      $('score').className = r.code === 0 ? 'pass' : 'fail';
      $('score-bar-text').textContent = c + '/' + t + ' correct (' + th + ' to pass): see the result';
      status('checked in ' + ms.toFixed(1) + ' ms');
      document.body.dataset.score = c + '/' + t;
      document.body.dataset.ms = ms.toFixed(2);
      document.body.dataset.checked = checks;
    });
  }
  function download() {
    var a = el('a', { download: labId + '.yaml' });
    a.href = URL.createObjectURL(new Blob([sheetText()], { type: 'application/x-yaml' }));
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }
  function explain() {
    var expr = $('expr').value.trim();
    state.explain = $('expr').value;
    save();
    if (!expr) return;
    var args = ['explain'];
    setup.forEach(function (s) { if (s.trim()) args.push('-s', s); });
    args.push('--', expr);
    tlab(args, blank).then(function (r) {
      $('explained').textContent = (r.stdout + r.stderr).trim();
    });
  }

  /* n more checks of the current sheet, each timed (bench/web.sh) */
  window.tlabBench = function (n) {
    var times = [];
    function one() {
      if (times.length >= n) return Promise.resolve(times);
      var t0 = performance.now();
      return check().then(function () { times.push(performance.now() - t0); return one(); });
    }
    return one();
  };

  function start() {
    status('loading tlab.wasm...');
    Promise.all([getLab(), getWasm()]).then(function (x) {
      blank = x[0];
      module = x[1];
      parseText(blank);
      return tlab(['check', '--format', 'json', 'lab.yaml'], blank);
    }).then(function (r) {
      var card;
      try { card = JSON.parse(r.stdout); } catch (e) {
        throw new Error('tlab check of the blank lab: ' + r.stderr.trim());
      }
      ops = card.ops;
      labId = card.lab.id || 'lab';
      document.title = labId + ': ' + card.lab.title;
      $('title').textContent = labId + ': ' + card.lab.title;
      key = 'tlab:' + labId + ':' + hash(blank);
      var m = /#fill=(.*)$/.exec(location.hash);
      try {
        var saved = m ? JSON.parse(decodeURIComponent(m[1])) : JSON.parse(localStorage.getItem(key));
        if (saved) state = { ops: saved.ops || {}, questions: saved.questions || {},
                             explain: saved.explain || '' };
      } catch (e) { /* nothing saved */ }
      if (m) save();
      buildForm();
      $('expr').value = state.explain;
      $('download').addEventListener('click', download);
      $('explain-form').addEventListener('submit', function (e) { e.preventDefault(); explain(); });
      $('main').hidden = false;
      if (state.explain.trim()) explain();
      return check();
    }).catch(function (e) {
      status('cannot start: ' + e.message, true);
      document.body.dataset.checked = 'error';
    });
  }
  start();
})();
