#!/usr/bin/python3
"""verify_keys.py - check lab sheets against real PyTorch (a maintainer tool).

Not used by the test suite (tests/labs.sh runs tlab only). It grades a sheet
the way SPEC.md sections 3-4 describe, but with PyTorch as the runtime, so the
answer keys in answers/ and the expected results in tests/students/*.expect
can be checked against the ground truth:

    /usr/bin/python3 tests/students/verify_keys.py answers/lab0*.yaml \
        tests/students/*.yaml

For every op it prints the verdict on the parent as given and on the parent
variants (column-major or strided, float64), flags wrong predictions, and at
the end compares the sheet's score with NAME.expect when that file exists.
Needs python3-torch (1.13 is fine), python3-yaml and python3-numpy.
"""
import ast
import os
import re
import sys

import numpy as np
import torch
import yaml

if not hasattr(torch.Tensor, "untyped_storage"):  # torch 1.13 shim
    torch.Tensor.untyped_storage = lambda self: self.storage()


def variants(p):
    """The parent variants of SPEC 4, each holding the same values."""
    out = [("as given", p)]
    if p.dim() >= 2:
        st, acc = [], 1
        for n in p.shape:
            st.append(acc)
            acc *= max(n, 1)
        q = torch.empty_strided(p.shape, st, dtype=p.dtype)
        q.copy_(p)
        out.append(("non-contiguous", q))
    else:
        buf = torch.zeros(2 * max(p.numel(), 1), dtype=p.dtype)
        q = buf[::2][: p.numel()].view(p.shape)
        q.copy_(p)
        out.append(("non-contiguous", q))
    other = torch.float32 if p.dtype == torch.float64 else torch.float64
    out.append(("float64" if other == torch.float64 else "float32",
                p.to(other)))
    if p.requires_grad:  # a leaf that requires grad stays one (lab06)
        out = [(n, q if q is p else q.detach().requires_grad_())
               for n, q in out]
    return out


def base_ptr(t):
    return t.storage().data_ptr()


def classify(r, p):
    if isinstance(r, (tuple, list)) and r and all(
            isinstance(e, torch.Tensor) for e in r):
        kinds = [classify(e, p)["kind"] for e in r]
        kind = kinds[0] if all(k == kinds[0] for k in kinds) else "mixed"
        return {"kind": kind, "items": kinds}
    if isinstance(r, torch.Tensor):
        if r is p:
            kind = "alias"
        elif base_ptr(r) == base_ptr(p):
            kind = "view"
        else:
            kind = "copy"
        return {"kind": kind, "shape": list(r.shape), "stride": list(r.stride()),
                "offset": r.storage_offset(),
                "contiguous": r.is_contiguous(), "dtype": str(r.dtype)}
    if isinstance(r, torch.Size):
        r = list(r)
    if isinstance(r, tuple):
        r = list(r)
    if isinstance(r, (np.generic,)):
        r = r.item()
    return {"kind": "value", "value": r}


def run_op(setup, op, parent, variant=None):
    ns = {}
    exec(compile(setup, "<setup>", "exec"), ns)
    if variant is not None:
        ns[parent] = variant(ns[parent])
    p = ns[parent]
    tree = ast.parse(op)
    last = tree.body[-1]
    head = ast.Module(body=tree.body[:-1], type_ignores=[])
    try:
        exec(compile(head, "<op>", "exec"), ns)
        if isinstance(last, ast.Expr):
            r = eval(compile(ast.Expression(last.value), "<op>", "eval"), ns)
        else:
            raise SystemExit("op must end with an expression: %r" % op)
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        return {"kind": "error", "type": type(e).__name__, "message": str(e)}
    return classify(r, p)


def actual_with_variants(setup, op, parent):
    acts = []
    ns = {}
    exec(compile(setup, "<setup>", "exec"), ns)
    for i, (name, _) in enumerate(variants(ns[parent])):
        acts.append((name, run_op(setup, op, parent,
                                  None if i == 0 else
                                  (lambda p, i=i: variants(p)[i][1]))))
    return acts


def kind_ok(pred, kind, varkinds):
    if pred == "sometimes":
        return len(set(varkinds)) > 1
    if pred == "view":
        return kind in ("view", "alias")
    return pred == kind


def op_correct(pred, acts, accept=None):
    kind = acts[0][1]["kind"]
    act = acts[0][1]
    varkinds = [a[1]["kind"] for a in acts]
    if pred is None:
        return False
    if isinstance(pred, str):
        if accept is not None:
            return pred in accept
        return kind_ok(pred, kind, varkinds)
    if "value" in pred:
        return act["kind"] == "value" and act["value"] == pred["value"]
    if "error" in pred:
        return act["kind"] == "error" and act["type"] == pred["error"]
    if not kind_ok(pred.get("kind"), kind, varkinds):
        return False
    for k, v in pred.items():
        if k == "kind":
            continue
        if k == "dtype":
            v = "torch." + v.replace("torch.", "")
        if act.get(k) != v:
            return False
    return True


def words(s):
    return re.findall(r"[a-z0-9_\x80-\uffff]+", s.lower())


def plural_eq(a, b):
    if a == b:
        return True
    if len(a) < len(b):
        a, b = b, a
    return (a in (b + "s", b + "es") or
            (len(b) >= 2 and b.endswith("y") and a == b[:-1] + "ies"))


def mentions(text, phrase):
    t, p = words(text), words(phrase)
    return bool(p) and any(all(plural_eq(t[i + k], p[k]) for k in range(len(p)))
                           for i in range(len(t) - len(p) + 1))


def only(answer, phrase):
    return words(answer) == words(phrase) and bool(words(phrase))


def question_ok(q):
    a = q.get("answer") or ""
    if not a.strip():
        return False, "unanswered"
    for r in q.get("reject", []):
        if only(a, r):
            return False, "rejected: %r" % r
    if len(words(a)) < q.get("min_words", 0):
        return False, "too short"
    m = q.get("mention_any")
    if m and not any(mentions(a, w) for w in m):
        return False, "mentions none of %s" % m
    return True, ""


def check_sheet(path):
    lab = yaml.safe_load(open(path))
    setup = lab["setup"]
    parent = lab.get("parent", "x")
    correct = total = 0
    ok_rules = True
    rules = lab.get("rules") or {}
    print("== %s" % path)
    for o in lab["ops"]:
        acts = actual_with_variants(setup, o["op"], parent)
        good = op_correct(o.get("predict"), acts, o.get("accept"))
        total += 1
        correct += good
        a = acts[0][1]
        desc = a["kind"]
        if a["kind"] == "value":
            desc += " %r" % (a["value"],)
        elif a["kind"] == "error":
            desc += " %s: %s" % (a["type"], a["message"][:60])
        elif "shape" in a:
            desc += " shape=%s stride=%s off=%d contig=%s" % (
                a["shape"], a["stride"], a["offset"], a["contiguous"])
        var = " ".join("%s:%s" % (n, v["kind"]) for n, v in acts[1:])
        print("  %-3s %s %-34s pred=%-22s %s  [%s]" % (
            o["id"], "ok " if good else "XX ", o["op"].replace("\n", "; ")[:34],
            str(o.get("predict"))[:22], desc, var))
        r = o.get("rule")
        if (rules.get("required") and not (r or "").strip()) or any(
                mentions(r or "", x) for x in rules.get("reject", [])):
            ok_rules = False
    qs_ok = True
    for q in lab.get("questions", []) or []:
        ok, why = question_ok(q)
        qs_ok &= ok
        print("  Q%s %s %s" % (q["id"], "ok" if ok else "FAIL", why))
    th = lab["threshold"]
    need = (-(-int(str(th).rstrip("%")) * total // 100)
            if str(th).endswith("%") else int(th))
    passed = correct >= need and qs_ok and ok_rules
    line = "%d/%d correct (threshold %s) - %s" % (
        correct, total, th, "PASS" if passed else "FAIL")
    print("  " + line + ("" if ok_rules else "  [rules missing/rejected]"))
    exp = os.path.splitext(path)[0] + ".expect"
    if os.path.exists(exp):
        want = open(exp).read().split()
        got = ["exit", "0" if passed else "1", "%d/%d" % (correct, total)]
        if want != got:
            print("  EXPECT MISMATCH: want %s got %s" % (want, got))
            return False
    return True


if __name__ == "__main__":
    ok = all([check_sheet(p) for p in sys.argv[1:]])
    sys.exit(0 if ok else 1)
