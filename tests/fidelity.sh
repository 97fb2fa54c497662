#!/bin/sh
# tests/fidelity.sh - issue #12 behaviours that are tlab's own rather than
# PyTorch's (so tests/fixtures cannot record them from torch): features
# outside the subset are reported as unsupported with the span (out=,
# names=); views past 2^31 elements are legal while allocating one meets
# the element limit; a matmul allocates only its result and a 1000x1000
# product needs no n^3 temporary.
. "${top_srcdir:-$(dirname "$0")/..}/tests/setup"
cd "$work"

# ---- out= and names= are unsupported (exit 2, the call underlined)
for op in "torch.add(x, 1, out=x)" "torch.neg(x, out=x)" "torch.zeros(2, names=('a',))" \
          "torch.ones(2, 3, names=('a', 'b'))" "torch.empty(2, names=('n',))"; do
    cat > un.yaml <<YEOF
tlab: 1
id: un
title: unsupported
setup: |
  import torch
  x = torch.arange(6.)
ops:
  - {id: "1", op: "$op", predict: copy}
YEOF
    expect 2 run un.yaml
    stderr_has "un.yaml:8:"
    stderr_has "unsupported: tlab does not support"
    stderr_has "^^^"
    stderr_lacks "TypeError"
done
# out=None and names=None are PyTorch's defaults, not the feature
cat > none.yaml <<'YEOF'
tlab: 1
id: none
title: defaults
setup: |
  import torch
  x = torch.arange(6.)
ops:
  - {id: "1", op: "torch.zeros(2, names=None)", predict: {kind: copy, shape: [2]}}
YEOF
expect 0 check none.yaml

# ---- views past 2^31 elements allocate nothing; storage does
cat > big.yaml <<'YEOF'
tlab: 1
id: big
title: a 1-byte tensor that looks like 4 GB
threshold: 100%
setup: |
  import torch
  x = torch.zeros(1, dtype=torch.uint8)
ops:
  - {id: e32, op: "x.expand(2**32)", predict: {kind: view, shape: [4294967296], stride: [0]}}
  - {id: e2d, op: "x.expand(2**16, 2**16)", predict: {kind: view, shape: [65536, 65536], stride: [0, 0]}}
  - {id: idx, op: "x.expand(2**32)[2**31 + 5]", predict: {kind: view, shape: []}}
  - {id: contig, op: "x.expand(2**32).contiguous()", predict: {kind: error, error: LimitError}}
  - {id: clone, op: "x.expand(2**32).clone()", predict: {kind: error, error: LimitError}}
  - {id: ovf, op: "x.expand(2**62, 2**62)", predict: {kind: error, error: RuntimeError}}
YEOF
expect 0 check big.yaml

# ---- matmul: the result's bytes only; no n^3 temporary
cat > mm.yaml <<'YEOF'
tlab: 1
id: mm
title: products
setup: |
  import torch
  x = torch.ones(10, 10)
  z = torch.ones(1000, 1000)
ops:
  - {id: small, op: "x @ x", predict: copy}
  - {id: big, op: "z.matmul(z)", predict: copy}
  - {id: batched, op: "x.expand(3, 10, 10).matmul(x)", predict: copy}
YEOF
expect 0 run --format json --timeout 20 mm.yaml
tr -d ' \n' < "$work/stdout" > mm.json
grep -q '"id":"small".*"shape":\[10,10\].*"bytes_allocated":400,' mm.json ||
    fail "a 10x10 product should allocate 400 bytes: $(cat mm.json)"
grep -q '"id":"big".*"kind":"copy".*"shape":\[1000,1000\].*"bytes_allocated":4000000,' mm.json ||
    fail "a 1000x1000 product should be a 4000000-byte copy: $(cat mm.json)"
grep -q '"id":"batched".*"shape":\[3,10,10\].*"bytes_allocated":1200,' mm.json ||
    fail "a batched product should allocate its result only: $(cat mm.json)"
exit 0
