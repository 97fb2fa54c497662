#!/bin/sh
# tests/scatter.sh - the scatter family of issue #27 through the binary, on
# the CPU and on the emulated CUDA device: in-place forms are the parent
# itself with one version bump, out-of-place forms are copies (row-major
# for scatter/index_copy/masked_scatter, self's strides for index_fill and
# put), and a bad index is the op's IndexError in torch's words.
# (Values for every dtype and layout: tests/fixtures/ops27b.json.)
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"
cd "$work"

cat > sc.yaml <<'YEOF'
tlab: 1
id: sc
title: scatter family
threshold: 100%
setup: |
  import torch
  x = torch.arange(6.).reshape(3, 2).t()
ops:
  - {id: f, op: "x.index_fill_(1, torch.tensor([2, 0]), -1.)", predict: {kind: alias, shape: [2, 3], stride: [1, 2]}}
  - {id: fo, op: "x.index_fill(1, torch.tensor([0]), 5)", predict: {kind: copy, shape: [2, 3], stride: [1, 2]}}
  - {id: c, op: "x.index_copy(0, torch.tensor([1, 0]), torch.ones(2, 3))", predict: {kind: copy, shape: [2, 3], stride: [3, 1]}}
  - {id: s, op: "x.scatter_(1, torch.tensor([[0, 0]]), 2., reduce='multiply')", predict: {kind: alias, shape: [2, 3]}}
  - {id: sa, op: "x.scatter_add(0, torch.tensor([[1, 1, 1]]), torch.ones(1, 3))", predict: {kind: copy, stride: [3, 1]}}
  - {id: m, op: "x.masked_scatter(x > 2, torch.zeros(6))", predict: {kind: copy, shape: [2, 3], stride: [3, 1]}}
  - {id: p, op: "x.put_(torch.tensor([0, 0]), torch.ones(2), accumulate=True)", predict: {kind: alias}}
  - {id: po, op: "x.put(torch.tensor([-1]), torch.ones(1))", predict: {kind: copy, stride: [1, 2]}}
YEOF
expect 0 check sc.yaml
expect 0 check --device cuda sc.yaml

cat > bad.yaml <<'YEOF'
tlab: 1
id: bad
title: a bad index
setup: |
  import torch
  x = torch.arange(6.)
ops:
  - {id: "1", op: "x.put_(torch.tensor([6]), torch.ones(1))", predict: copy}
YEOF
expect 0 run bad.yaml
stdout_has "IndexError: out of range: tried to access index 6 on a tensor of 6"
stderr_lacks "internal error"

# on the CPU self is written in place (no cap short of the memory budget:
# 100 MB and 80 MB selves; a device's host copies stay bounded at 64 MiB)
cat > big.yaml <<'YEOF'
tlab: 1
id: big
title: a big scatter
setup: |
  import torch
  x = torch.zeros(5000, 5000)
  y = torch.zeros(20000000)
ops:
  - {id: "1", op: "x.index_fill_(0, torch.tensor([0]), 1.)", predict: {kind: alias, shape: [5000, 5000]}}
  - {id: "2", op: "y.index_fill_(0, torch.tensor([1]), 2.)[:3].tolist()", predict: {kind: value, value: [0.0, 2.0, 0.0]}}
  - {id: "3", op: "y.scatter_add_(0, torch.tensor([5, 5]), torch.ones(2))[4:7].tolist()", predict: {kind: value, value: [0.0, 2.0, 0.0]}}
YEOF
expect 0 check big.yaml

# einsum: a pure permutation of one operand is a view of it; a sum is a copy
cat > es.yaml <<'YEOF'
tlab: 1
id: es
title: einsum
threshold: 100%
setup: |
  import torch
  x = torch.arange(6.).reshape(2, 3)
ops:
  - {id: p, op: "torch.einsum('ij->ji', x)", predict: {kind: view, shape: [3, 2], stride: [1, 3]}}
  - {id: d, op: "torch.einsum('ii->i', x[:, :2])", predict: {kind: view, shape: [2], stride: [4]}}
  - {id: s, op: "torch.einsum('ij->i', x)", predict: {kind: copy, shape: [2], stride: [1]}}
  - {id: m, op: "torch.einsum('ij,kj->ik', x, x)", predict: {kind: copy, shape: [2, 2], stride: [2, 1]}}
YEOF
expect 0 check es.yaml
expect 0 check --device cuda es.yaml

# index_put_ with device indices and repeated targets past 64 entries:
# the device sorts the targets and folds each run (cuda/kernels.h
# scatter_fold); every dtype, both modes, a row and a column scatter,
# equal to the CPU's sequential loop byte for byte
cat > ip.py <<'PYEOF'
import torch
for dt in [torch.float32, torch.int64, torch.bool, torch.float16]:
    for acc in [False, True]:
        i = (torch.arange(500, device='cpu') * 7919) % 37
        v = ((torch.arange(500 * 3, device='cpu') % 11) - 5).reshape(500, 3).to(dt)
        xc = torch.zeros(40, 3, dtype=dt, device='cpu')
        xc.index_put_((i,), v, accumulate=acc)
        xg = torch.zeros(40, 3, dtype=dt, device='cuda')
        xg.index_put_((i.cuda(),), v.cuda(), accumulate=acc)
        yc = torch.zeros(3, 40, dtype=dt, device='cpu')
        yc[:, i] = v.t()
        yg = torch.zeros(3, 40, dtype=dt, device='cuda')
        yg[:, i.cuda()] = v.t().cuda()
        print(torch.equal(xc, xg.cpu()), torch.equal(yc, yg.cpu()))
PYEOF
expect 0 exec --device cuda ip.py
[ "$(grep -c '^True True$' "$work/stdout")" = 8 ] || fail "device index_put_ with repeated targets differs from the CPU: $(cat "$work/stdout")"
