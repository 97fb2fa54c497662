#!/usr/bin/python3
"""torch_labs.py - the PyTorch reference for tlab's end-to-end benchmarks.

What `tlab check SHEET` and `tlab grade --lab MASTER SHEET...` do, written
the direct way in Python with real PyTorch (1.13 CPU, one thread):

  check  load the sheet (PyYAML, libyaml loader when present); for every op
         run setup afresh, evaluate the op and classify the result (alias /
         view / copy / error / value, by object identity and storage
         pointer) with a write-through probe, once on the parent as given
         and once per parent variant (column-major copy, other float dtype),
         as tlab does for `sometimes`; then mark the predictions and the
         questions' word checks and render a text report.
  grade  run the master's ops once (as tlab does), then per sheet: load it,
         compare setup/parent/threshold/ops with the master (tamper check),
         mark it, and write one CSV record.

The marking is simpler than tlab's (kinds, values and shape/stride fields;
no feedback texts), so it is a lower bound on the Python-side work.

Prints one JSON object: import_s (importing torch, numpy and yaml: excluded
from the per-sheet times and reported on its own), sheet_s (check: the
fastest of --reps sheets after one untimed warm-up sheet; grade: the whole run
divided by the sheets), nops, copy_bytes (bytes of the new storages that the
ops' results own, summed over the ops of one sheet, parent as given), runs.
"""
import argparse
import ast
import json
import sys
import time

T0 = time.perf_counter()
import numpy as np  # noqa: E402  (the labs' setup imports it too)
import torch  # noqa: E402
import yaml  # noqa: E402
IMPORT_S = time.perf_counter() - T0

torch.set_num_threads(1)
if not hasattr(torch.Tensor, "untyped_storage"):  # 1.13: the labs use 2.x's name
    torch.Tensor.untyped_storage = lambda self: self.storage()
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def compile_op(src):
    tree = ast.parse(src, mode="exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = compile(ast.Expression(tree.body.pop().value), "<op>", "eval")
    return compile(tree, "<op>", "exec"), last


def noncontig(p):
    if p.dim() >= 2:
        st, acc = [], 1
        for s in p.shape:
            st.append(acc)
            acc *= max(s, 1)
        t = torch.empty_strided(p.shape, st, dtype=p.dtype)
    else:
        n = p.numel()
        buf = torch.zeros(2 * (n if n else (1 if p.dim() == 0 else 0)), dtype=p.dtype)
        t = buf.as_strided(p.shape, (2,) * p.dim(), 0)
    t.copy_(p)
    return t


def other_dtype(p):
    return p.to(torch.float32 if p.dtype == torch.float64 else torch.float64, copy=True)


def storage(t):
    return t.untyped_storage()


def same_storage(a, b):
    return storage(a).data_ptr() == storage(b).data_ptr() and storage(a).nbytes() > 0


def probe(r, p):
    """Write through r's element 0; did p's storage see it?"""
    if r.numel() == 0 or p.numel() == 0:
        return None
    with torch.no_grad():
        e = r.as_strided((), (), r.storage_offset())
        before = p.clone()
        old = e.clone()
        e.copy_(~old if old.dtype == torch.bool else old + 1)
        changed = not torch.equal(p, before)
        e.copy_(old)
    return changed


def classify(r, p):
    if isinstance(r, torch.Tensor):
        if r is p:
            kind = "alias"
        elif same_storage(r, p):
            kind = "view"
        else:
            kind = "copy"
        probe(r, p)
        return {"kind": kind, "shape": list(r.shape), "stride": list(r.stride()),
                "offset": r.storage_offset(), "contiguous": r.is_contiguous(),
                "bytes": storage(r).nbytes() if kind == "copy" else 0}
    if isinstance(r, (tuple, list)) and r and all(isinstance(t, torch.Tensor) for t in r):
        items = [classify(t, p) for t in r]
        kinds = {i["kind"] for i in items}
        return {"kind": kinds.pop() if len(kinds) == 1 else "mixed", "items": items,
                "bytes": sum(i["bytes"] for i in items)}
    if isinstance(r, np.ndarray):
        return {"kind": "value", "value": r.tolist(), "bytes": 0}
    return {"kind": "value", "value": r, "bytes": 0}


def run_once(setup, code, parent, variant):
    ns = {}
    exec(setup, ns)
    p = ns[parent]
    if variant == 1:
        p = ns[parent] = noncontig(p)
    elif variant == 2:
        p = ns[parent] = other_dtype(p)
    try:
        stmts, last = code
        exec(stmts, ns)
        r = eval(last, ns) if last is not None else None
    except Exception as e:  # the op's `error` verdict
        return {"kind": "error", "type": type(e).__name__, "message": str(e), "bytes": 0}
    return classify(r, p)


def signature(ev):
    if "items" in ev:
        return tuple(i["kind"] for i in ev["items"])
    return ev["kind"]


def run_lab(lab):
    setup = compile(lab.get("setup") or "", "<setup>", "exec")
    parent = lab.get("parent") or "x"
    out = []
    for op in lab["ops"]:
        code = compile_op(op["op"])
        ev = run_once(setup, code, parent, 0)
        sig = signature(ev)
        ev["sometimes"] = any(signature(run_once(setup, code, parent, v)) != sig
                              for v in (1, 2))
        out.append(ev)
    return out


def plain(v):
    """Tuples and torch.Size compare as YAML lists."""
    return [plain(i) for i in v] if isinstance(v, (tuple, list)) else v


def op_correct(pred, ev, accept):
    if pred is None:
        return False
    kind = pred.get("kind") if isinstance(pred, dict) else pred
    if isinstance(pred, dict) and "value" in pred:
        return ev["kind"] == "value" and plain(ev.get("value")) == pred["value"]
    if accept:
        ok = kind in accept
    elif kind == "sometimes":
        ok = ev["sometimes"]
    elif kind == "view":
        ok = ev["kind"] in ("view", "alias")
    else:
        ok = kind == ev["kind"]
    if ok and isinstance(pred, dict):
        for key, evk in (("shape", "shape"), ("stride", "stride"),
                         ("offset", "offset"), ("contiguous", "contiguous")):
            if key in pred and ev.get(evk) != pred[key]:
                ok = False
    return ok


def question_ok(q, sq):
    ans = (sq or {}).get("answer") or ""
    words = [w.strip(".,;:!?()\"'").lower() for w in ans.split()]
    if len(words) < int(q.get("min_words") or 0):
        return False
    if ans.strip().lower() in [r.lower() for r in q.get("reject") or []]:
        return False
    keys = [k.lower() for k in q.get("mention_any") or []]
    return not keys or any(w in keys or w.rstrip("s") in keys for w in words)


def mark(master, sheet, verdicts):
    ops = {str(o.get("id")): o for o in sheet.get("ops") or []}
    correct = points = 0
    for mop, ev in zip(master["ops"], verdicts):
        sop = ops.get(str(mop.get("id")), {})
        if op_correct(sop.get("predict"), ev, mop.get("accept")):
            correct += 1
            points += int(mop.get("points") or 1)
    qs = {str(q.get("id")): q for q in sheet.get("questions") or []}
    qok = all(question_ok(q, qs.get(str(q.get("id")))) for q in master.get("questions") or [])
    thr = master.get("threshold")
    if isinstance(thr, str) and thr.endswith("%"):
        thr = -(-len(master["ops"]) * int(thr[:-1]) // 100)
    return correct, points, bool(correct >= int(thr or 0) and qok)


def tamper(master, sheet):
    changes = [k for k in ("setup", "parent", "threshold") if master.get(k) != sheet.get(k)]
    sops = {str(o.get("id")): o for o in sheet.get("ops") or []}
    for mop in master["ops"]:
        s = sops.get(str(mop.get("id")))
        if s is None or s.get("op") != mop.get("op") or s.get("accept") != mop.get("accept"):
            changes.append("op " + str(mop.get("id")))
    return changes


def load(path):
    with open(path, "rb") as f:
        return yaml.load(f, Loader=Loader)


def check_once(path):
    lab = load(path)
    ev = run_lab(lab)
    correct, points, passed = mark(lab, lab, ev)
    lines = ["%s  %-8s %s" % (o.get("id"), e["kind"], o["op"].splitlines()[0])
             for o, e in zip(lab["ops"], ev)]
    lines.append("score %d/%d %s" % (correct, len(ev), "PASS" if passed else "FAIL"))
    report = "\n".join(lines)
    return len(ev), sum(e["bytes"] for e in ev), report


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["check", "grade"])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--lab", help="grade: the master lab")
    ap.add_argument("--reps", type=int, default=5, help="check: sheets timed")
    a = ap.parse_args()
    if a.mode == "check":
        times = []
        check_once(a.files[0])  # warm-up: first-call dispatch costs stay out
        for _ in range(max(a.reps, 1)):
            t0 = time.perf_counter()
            nops, nbytes, _report = check_once(a.files[0])
            times.append(time.perf_counter() - t0)
        res = {"import_s": IMPORT_S, "sheet_s": min(times), "nops": nops,
               "copy_bytes": nbytes, "runs": len(times)}
    else:
        t0 = time.perf_counter()
        master = load(a.lab)
        verdicts = run_lab(master)
        rows = ["file,correct,total,points,passed,tampered,changes"]
        for path in a.files:
            try:
                sheet = load(path)
                ch = tamper(master, sheet)
                c, p, ok = mark(master, sheet, verdicts)
                rows.append("%s,%d,%d,%d,%s,%s,%s" % (path, c, len(verdicts), p, ok,
                                                      bool(ch), ";".join(ch)))
            except Exception as e:  # an unreadable sheet scores 0
                rows.append("%s,0,%d,0,False,False,%s" % (path, len(verdicts), e))
        "\n".join(rows)
        total = time.perf_counter() - t0
        res = {"import_s": IMPORT_S, "total_s": total, "sheet_s": total / len(a.files),
               "nops": len(verdicts), "nsheets": len(a.files),
               "copy_bytes": sum(e["bytes"] for e in verdicts), "runs": 1}
    json.dump(res, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
