# Attribute assignment (src/py/setattr.c): x.grad = ..., x.requires_grad =
# ..., x.data = ..., and `w.data -= ...` in a hand-written SGD loop.
# Errors whose text torch 2.x changed print their class only (tlab follows
# 2.x, these goldens come from 1.13):
#   - x.grad = 1: 1.13 "... but got grad of typeint", 2.x "... of type int";
#   - a grad of another size or dtype: 1.13 "assigned grad has data of a
#     different size/type", 2.x "attempting to assign a gradient of size
#     '[3]' to a tensor of size '[2]'. ..." and "... with dtype 'double' to
#     a tensor with grad_dtype 'float'. ...";
#   - a read-only property: 1.13 names the class 'torch._C._TensorBase',
#     2.x 'torch._C.TensorBase'.
import torch

x = torch.ones(2, requires_grad=True)
(x * 2).sum().backward()
print(x.grad)
x.grad = None
print(x.grad)
x.grad = torch.zeros(2)
print(x.grad, x.grad.requires_grad)
(x * 3).sum().backward()
print(x.grad)
g = torch.arange(4.).reshape(2, 2).t()
m = torch.ones(2, 2, requires_grad=True)
m.grad = g
print(m.grad.stride(), m.grad is g)

w = torch.tensor([1.0, 2.0], requires_grad=True)
for _ in range(3):
    loss = (w * w).sum()
    loss.backward()
    w.data -= 0.1 * w.grad
    w.grad.zero_()
print(w, w.requires_grad, w.is_leaf, w._version)

y = torch.ones(3)
y.requires_grad = True
print(y.requires_grad, y.is_leaf)
(y * y).sum().backward()
print(y.grad)
y.requires_grad = False
print(y.requires_grad)

d = torch.ones(2)
v = d[:1]
d.data = torch.arange(6.).reshape(2, 3)
print(d, d.shape, v)
n = torch.ones(2)
n.grad = torch.ones(2)
print(n.grad, n.requires_grad)
a, x.grad = 5, torch.full((2,), 7.)
print(a, x.grad)

def full(code):
    try:
        code()
        print("ok")
    except Exception as e:
        print(type(e).__name__, e)

def kind(code):
    try:
        code()
        print("ok")
    except Exception as e:
        print(type(e).__name__)

def s_grad(t, v):
    t.grad = v

def s_rg(t, v):
    t.requires_grad = v

def s_data(t, v):
    t.data = v

full(lambda: s_grad(x, x))
kind(lambda: s_grad(x, 1))
kind(lambda: s_grad(x, torch.zeros(3)))
kind(lambda: s_grad(x, torch.zeros(2, dtype=torch.float64)))
full(lambda: s_rg(y, 1))
full(lambda: s_rg(y, None))
full(lambda: s_rg(x * 2, False))
full(lambda: s_rg(x * 2, True))
full(lambda: s_rg(torch.ones(2, dtype=torch.long), True))
full(lambda: s_rg(torch.ones(2, dtype=torch.long), False))
full(lambda: s_data(d, 3))

def s_shape(t):
    t.shape = (2,)

def s_leaf(t):
    t.is_leaf = False

kind(lambda: s_shape(x))
kind(lambda: s_leaf(x))
