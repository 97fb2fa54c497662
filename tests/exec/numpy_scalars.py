# an element of an ndarray is a NumPy scalar: its class, isinstance against NumPy's types and Python's
import torch
import numpy as np
x = torch.arange(6.).reshape(2, 3)
s = x.numpy()[0, 1]
print(type(s))
print(s, s.shape, s.dtype)
print(isinstance(s, np.float32), isinstance(s, np.float64), isinstance(s, float), isinstance(s, int))
print(isinstance(s, (int, np.float32)), isinstance(1.0, np.float32), isinstance(s, type(s)))
d = x.double().numpy()[1, 2]
print(type(d), isinstance(d, float), isinstance(d, np.float64), isinstance(d, np.float32))
i = x.long().numpy()[0, 1]
print(type(i), isinstance(i, int), isinstance(i, np.int64))
b = torch.tensor([True, False]).numpy()[1]
print(type(b), isinstance(b, bool), isinstance(b, np.bool_))
for dt in [torch.float16, torch.int32, torch.int16, torch.int8, torch.uint8]:
    e = torch.ones(2, dtype=dt).numpy()[0]
    print(type(e), e.dtype)
print(type(s + 1), type(s * 2.0), type(i + 1))
