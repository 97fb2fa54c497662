# Seed 004 (views, aliasing and in-place operations): strides of a
# transpose, the shared version counter, detach() vs clone(). Left out: the
# autograd parts (backward passes, gradient formulas, DDP buckets).
import torch

m = torch.zeros(4, 8)
assert m.stride() == (8, 1)
assert m.t().shape == (8, 4) and m.t().stride() == (1, 8)
assert m.t().data_ptr() == m.data_ptr()

x = torch.arange(6.).reshape(2, 3)
try_view = x.t()
assert not try_view.is_contiguous()
assert try_view.reshape(6).data_ptr() != x.data_ptr()
assert x[:, ::2].reshape(4).data_ptr() != x.data_ptr()

# the version counter is shared by views and bumped by every in-place write
v = x[0]
assert x._version == 0
v.add_(1)
assert x._version == 1 and v._version == 1
x.mul_(2)
assert v._version == 2
x[1, 1] = 5.0
assert x._version == 3
x[:, 0] += 1
assert x._version == 5

# detach() stops gradients, not aliasing
d = x.detach()
d.zero_()
assert x.sum().item() == 0.0
assert x._version == 6
assert d.data_ptr() == x.data_ptr()

# clone() copies; detach().clone() is independent
c = x.detach().clone()
c.add_(1)
assert x.sum().item() == 0.0
assert c._version == 1 and x._version == 6

# squaring in place overwrites the input
s = torch.tensor([1.0, 2.0, 3.0])
s.pow_(2)
assert s.tolist() == [1.0, 4.0, 9.0]
r = torch.tensor([-1.0, 2.0])
r.relu_()
assert r.tolist() == [0.0, 2.0]
