#!/bin/sh
# tests/autograd_net.sh - the autograd safety net (src/py/bind_grad.c): an
# op tlab has no backward formula for, run on tensors that require grad,
# is reported as unsupported (exit 2, FILE:LINE:COL, the call underlined)
# instead of handing back a result that silently lost its history; the
# net stays out of the way under no_grad, on detached tensors, for integer
# results, for the ops PyTorch gives no grad_fn, and for the ops that have
# a formula. tests/fixtures/autograd_math.json (check_autograd) holds the
# formulas' own cases.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"
cd "$work"

prelude='import torch
x = torch.tensor([[1.5, -2.0, 3.0], [4.0, 0.5, -6.0]], requires_grad=True)
w = torch.tensor([[2.0, 1.0, -1.0], [0.5, 3.0, 2.0]])
y = x * 1'

# ---- refused: exit 2 at the op's line and column, the call underlined
for case in "x.floor_divide(w)|Tensor.floor_divide" "torch.floor_divide(x, 2)|Tensor.floor_divide" \
            "y.floor_divide_(w)|Tensor.floor_divide_" "x // 2|the // operator" \
            "2.5 % x|the % operator with a number on the left" \
            "x.clamp(min=w, max=5.0)|Tensor.clamp with a number and a tensor for bounds"; do
    op=${case%%|*}
    what=${case#*|}
    printf '%s\nz = %s\nprint("not reached")\n' "$prelude" "$op" > net.py
    expect 2 exec net.py
    stderr_has "net.py:5:5: error: unsupported: tlab does not support autograd through $what"
    stderr_has "^^^"
    stdout_lacks "not reached"
done
printf '%s\ny //= 2\n' "$prelude" > aug.py
expect 2 exec aug.py
stderr_has "aug.py:5:1: error: unsupported: tlab does not support autograd through the //= operator"

# ---- in a lab: the op's error is the unsupported one, located in the sheet
cat > un.yaml <<'YEOF'
tlab: 1
id: net
title: no formula
setup: |
  import torch
  x = torch.arange(6.).requires_grad_()
ops:
  - {id: "1", op: "x.floor_divide(2)", predict: copy}
YEOF
expect 2 run un.yaml
stderr_has "un.yaml:8:"
stderr_has "unsupported: tlab does not support autograd through Tensor.floor_divide"
stderr_has "^^^"

# ---- allowed: no grad mode, detached inputs, integer and bool results,
# PyTorch's no-grad_fn ops, ops with formulas, in-place writes PyTorch does
# not record
cat > ok.py <<PYEOF
$prelude
with torch.no_grad():
    a = x.floor_divide(w)
    b = x // 2
    y.floor_divide_(2)
c = x.detach().floor_divide(w)
i = x.argmax(1)
m = x > 0
e = torch.zeros_like(x)
f = x.new_ones(2)
d = x.detach()
g = x.rsqrt().sum() + torch.where(m, x, 0.).sum() + x.var() + x.max() + x.prod(1).sum()
g.backward()
y2 = x * 1
y2.logical_and_(m)
print(a.requires_grad, b.requires_grad, c.requires_grad, i.dtype, m.dtype, e.requires_grad,
      f.requires_grad, d.requires_grad, g.grad_fn.name(), y2.grad_fn.name(), x.grad is None)
PYEOF
expect 0 exec ok.py
stdout_has "False False False torch.int64 torch.bool False False False AddBackward0 MulBackward0 False"
