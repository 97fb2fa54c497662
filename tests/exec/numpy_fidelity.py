# NumPy 1.24 behaviours the op language follows (src/py/pyops.c,
# index_parse.c, bind_numpy.c, value.c; src/runtime/index.c):
# 0-d results of ufuncs and a[()] are NumPy scalars; np.float32(x) builds
# one; float32/float16 scalars print their shortest round-trip digits;
# advanced-indexing results are laid out as NumPy allocates them; a list
# of lists is one array index; UFuncTypeError is a TypeError; `n **= 2`
# runs the 'square' ufunc; arithmetic promotes as np.result_type does
# (value-based for numbers and 0-d arrays); bool arrays print ' True'.
import numpy as np
import torch

z = torch.tensor(1.5).numpy()
print(type(z), type(z[()]), z[()], type(z[...]))
print(type(z - z), z - z, type(-z), type(z > 1), z > 1, type(z * 2), type(z @ z) if False else "")
v = torch.arange(3.).numpy()
print(type(v @ v), v @ v, type(v[0] + v[1]))

a = np.float32(1)
print(type(a), a, type(np.int8(-3)), np.int8(-3), np.bool_(0.5), np.float64(), np.float16(1e4), np.int32(2.7))
print(np.float32(np.float64(1.1)), 5 + np.float32(1), type(5 + np.float32(1)))

n = torch.tensor([1.1, 2.5, 1e-8, 123456789.0, 0.1]).numpy()
print(n[0], repr(n[0]), n[2], n[3], str(n[4]), [n[0], n[1]], f"{n[0]}", n[0] * 2, n.item(0), n.tolist()[0])
h = torch.tensor([1.1, 0.1], dtype=torch.float16).numpy()
print(h[0], repr(h[1]), h[0] + h[1], f"{h[0]}")

m = torch.arange(12.).reshape(3, 4).numpy()
print(m[:, [0, 1]].strides, m[[0, 1]].strides, m[[0, 1], 1:].strides, m.T[[0, 1]].strides, m.T[:, [0, 2]].strides)
x = torch.arange(24.).reshape(2, 3, 4).transpose(0, 2).numpy()
print(x[[-4, 3]].strides, x[:, [0, 1]].strides, x[:, :, [1, 0]].strides, x[[0, 1], :, [1, 0]].strides, x[:, [0, 1], [1, 0]].strides)
print(x[[[0], [1]]].strides, x[np.array([True, False, True, False])].strides, x[::-1][[0, 1]].strides)
print(m[[False, False, False]].strides, m[m > 100].strides, m[[]].strides, m[1:1].strides, m[:, []].strides)
for idx in ([[0], [1]], [[0, 1], [1, 2]], [0, 1], [True, False, True]):
    r = m[idx]
    print(r.shape, r.strides)
for idx in ([0, slice(None)], [0, None], [0, ...]):
    try:
        m[idx]
    except IndexError as e:
        print("IndexError", e)
c = m.copy()
c[[[0], [1]]] = 7
print(c)

b = (torch.arange(4) % 2 == 0).numpy()
i8 = torch.arange(3).to(torch.int8).numpy()
print((b ** 2).dtype, (b ** 2.0).dtype, (i8 ** 2).dtype, (i8 ** 2.0).dtype, b ** 2)
try:
    b **= 2
except TypeError as e:
    print(type(e).__name__, e)
i8 **= 2.0
print(i8)
i64 = torch.arange(3).numpy()
try:
    i64 += 0.5
except TypeError as e:
    print(type(e).__name__, e)
try:
    b *= 0.5
except Exception as e:
    print(type(e).__name__, e)

dts = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.float32, torch.float64]
arrs = [torch.tensor([1, 0, 1]).to(d).numpy() for d in dts]
out = []
for p in arrs:
    for q in arrs:
        out.append((p + q).dtype)
print(*out)
out = []
for p in arrs:
    for s in [True, 1, -1, 200, 300, -200, 70000, 2**40, 1.5, 1e5, 1e39]:
        if p.dtype == np.uint8 and s in (300, 70000, 2**40):
            continue
        out.append((p * s).dtype)
print(*out)
print(*[((p / 2).dtype, (p < 300).dtype, (p == -1).dtype) for p in arrs])
print(*[(p // 2).dtype for p in arrs[1:]])
z = torch.tensor(3, dtype=torch.int8).numpy()
print(type(z + 1), type(z + 1.5), (z + arrs[2]).dtype, (z + arrs[7]).dtype, (torch.tensor(1.5, dtype=torch.float64).numpy() + arrs[7]).dtype)
print(arrs[2] + 300, arrs[2] < 300, arrs[5] + 2**40, arrs[1] < 300, arrs[0], torch.tensor([[True], [False]]).numpy())
# a ufunc's output layout (tlab: TensorIterator's rule, which agrees with
# NumPy here; tests/fixtures/numpy3.known lists where it does not)
u = torch.arange(6).reshape(3, 1, 2).transpose(0, 2).numpy()
w = torch.arange(24.).reshape(2, 3, 4).permute(2, 0, 1).numpy()
print((u > 0).strides, (-u).strides, (u + u).strides, (w * 2).strides, (w + w[:, :1, :]).strides, (w[:1] - w).strides)
