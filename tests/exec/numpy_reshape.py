# ndarray.reshape (src/py/bind_numpy.c nd_reshape) against NumPy 1.24: -1
# inference and its errors, views where _attempt_nocopy_reshape allows one
# (C and F order), copies otherwise, strides of new size-1 axes.
import numpy as np
import torch
a = torch.arange(12).numpy()
for s in [(5, -1), (-2, 6), (5,), (-1, -1), (3, 4, -1), (0, -1), ((2, 6),), ([3, 4],), (2, 6), (12,), (2, 2, 3)]:
    try:
        r = a.reshape(*s) if not isinstance(s[0], (tuple, list)) else a.reshape(s[0])
        print(s, r.shape, r.strides, np.shares_memory(r, a))
    except Exception as e:
        print(s, type(e).__name__, e)
b = torch.arange(24.).reshape(2, 3, 4).transpose(0, 1).numpy()
for s in [(6, 4), (3, 8), (3, 2, 2, 2), (24,), (3, 1, 2, 4, 1), (1, 3, 2, 4), (3, 2, 4), (-1,)]:
    r = b.reshape(s)
    print(s, r.strides, np.shares_memory(r, b))
    r2 = b.reshape(s, order='F')
    print(s, r2.strides, np.shares_memory(r2, b))
print(a.reshape(3, 4, order='F').strides)
try:
    a.reshape(2.0, 6)
except Exception as e:
    print(type(e).__name__, e)
print(torch.arange(0).numpy().reshape(0, 3).strides, a[::2].reshape(3, 2).strides, a[::2].reshape(1, 6).strides, a[::2].reshape(6, 1).strides)
c = a.reshape(3, 4)
c[0, 0] = 100
print(a[0], b.T.reshape(4, 6)[0])
e = torch.arange(6).numpy()[::-1]
print(e.reshape(2, 3).strides, e.reshape(2, 3))
