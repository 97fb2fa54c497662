#!/usr/bin/python3
"""gen_print_goldens.py - print()/repr()/str() of tensors and other values
as real PyTorch prints them; tests/print.sh runs print_cases.py through
`tlab exec` and compares with print_cases.out byte for byte.

Run with the Python that has torch: /usr/bin/python3 gen_print_goldens.py.
The cases cover the printer's branches: int mode, fixed 4-digit precision,
scientific mode (ratio > 1000, max > 1e8, min < 1e-4), nan/inf, negative
zero, widths, line wrapping at 80 columns, nesting and "..." summaries past
1000 elements, dtype= suffixes (and their wrapping), empty tensors with
size=, bool/int/half tensors, requires_grad, torch.Size, dtypes, devices,
storages, exceptions and f-string format specs. See
../seeds/exec/DIFFERENCES.md for where 1.13 (installed here) and 2.x differ.
"""
import contextlib
import io
import os

CASES = r'''
import torch
print(torch.tensor([1.0, 2.0, 3.0]))
print(torch.tensor([1.5, -2.25, 3.0]))
print(torch.tensor([0.1, 0.25, 100.0]))
print(torch.tensor([1e-5, 1.0]))
print(torch.tensor([1e9, 1.0]))
print(torch.tensor([1.0, 2000.0]))
print(torch.tensor([1.0, 2000.5]))
print(torch.tensor([123456789.0, 2.0]))
print(torch.tensor([float('nan'), 1.0, float('inf'), -float('inf')]))
print(torch.tensor([float('nan'), 1.5]))
print(torch.tensor([float('nan')]))
print(torch.tensor([-0.0, 0.0]))
print(torch.tensor([0.0, 0.0]))
print(torch.tensor(3.5))
print(torch.tensor(7))
print(torch.tensor(True))
print(torch.tensor(-0.001))
print(torch.tensor(1e-10))
print(torch.arange(24, dtype=torch.float32).reshape(2, 3, 4))
print(torch.arange(12).reshape(3, 4))
print(torch.arange(-5, 5))
print(torch.arange(40, dtype=torch.float64) / 3)
print(torch.arange(30) * 1000)
print(torch.arange(2000))
print(torch.arange(2000, dtype=torch.float32).reshape(40, 50))
print(torch.arange(3000).reshape(10, 10, 30))
print(torch.ones(2, 2, 2, 2))
print(torch.zeros(3, dtype=torch.int32))
print(torch.zeros(3, dtype=torch.float16))
print(torch.tensor([1.5, 2.5], dtype=torch.bfloat16))
print(torch.tensor([1, 2], dtype=torch.uint8))
print(torch.tensor([1, 2], dtype=torch.int8))
print(torch.tensor([1, 2], dtype=torch.int16))
print(torch.tensor([True, False, True]))
print(torch.tensor([[True], [False]]))
print(torch.tensor([1.0, 2.0], dtype=torch.float64))
print(torch.arange(60, dtype=torch.float64).reshape(3, 20) / 7)
print(torch.empty(0))
print(torch.zeros(0, dtype=torch.int64))
print(torch.zeros(2, 0))
print(torch.zeros(0, 3, dtype=torch.int32))
print(torch.ones(2, requires_grad=True))
print(torch.tensor([0.5, 0.125], requires_grad=True))
print(torch.tensor([1e-3, 1e-2]))
print(torch.tensor([12345.678, 0.5]))
print(torch.tensor([[1e10, 1.0], [0.5, 2.0]]))
print(torch.tensor([3.0, 4.0]).sqrt())
print(torch.tensor([1.0, 4.0, 9.0]).t())
print(torch.arange(6).reshape(2, 3).t())
print(torch.arange(6.0).expand(3, 6))
print(repr(torch.tensor([1.0])), str(torch.tensor([2])))
x = torch.arange(6.0).reshape(2, 3)
print(x.shape, x.size(), x.stride(), x.dtype, x.device)
print(repr(x.device), repr(x.shape), torch.Size([]), torch.Size([0]))
print(torch.float16, torch.bool, torch.int64, torch.double)
print(x.untyped_storage())
print(torch.tensor([1, 2], dtype=torch.int16).untyped_storage())
print([x[0], (x[1], 2)])
print([1.5, 2.0, 1e20, 1e-7, 0.1 + 0.2])
print(f"{x.sum()} {x.sum():.2f} {x[0, 1]:>6} {x.numel():05d} {0.5:%} {2**20:,} {3.14159:e}")
print(f"{1e-7:g} {123456789.0:g} {1.0:g} {0.0001:.2g} {'ab':>5}|{'ab':<5}|{'ab':^6}|")
print(f"{12:x} {255:#X} {5:b} {-42:+d} {42: d} {3.5!r} {'q'!r} {1.0:.3}")
print(f"{x.shape} {x.dtype} {x.device} {[1, 2]} {None} {True:>5}")
print(type(x), type(x.shape), type(1), type(1.0), type('s'), type(None), type(x.dtype))
try:
    x.view(4)
except RuntimeError as e:
    print(repr(e)[:40], type(e).__name__)
print(1, 2, sep=', ', end='!\n')
print()
print('a', 'b', sep='')
print(torch.equal(x, x.clone()), torch.equal(x, x[:1]), torch.allclose(x, x + 1e-9),
      torch.allclose(x, x + 1), torch.broadcast_shapes((2, 1), (3,), 1))
print(torch.finfo(torch.float32), torch.iinfo(torch.int16), torch.finfo(torch.float16).eps,
      torch.iinfo(torch.uint8).max, torch.finfo(torch.float64).bits)
torch.set_default_dtype(torch.float64)
d = torch.tensor([1.5, 2.0])
print(d, d.dtype, torch.zeros(2), torch.arange(3.0), torch.get_default_dtype(),
      torch.tensor([1.0], dtype=torch.float32), torch.empty(0))
torch.set_default_dtype(torch.float32)
print(torch.tensor([1.0], dtype=torch.float64), torch.get_default_dtype())
g = torch.ones(2, requires_grad=True)
print(g * 2, g[0], g.t(), g.sum(), (g + 1).relu(), g.detach())
with torch.no_grad():
    print(g * 2)
'''


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    import torch
    if not hasattr(torch.Tensor, "untyped_storage"):
        torch.Tensor.untyped_storage = lambda self: self.storage().untyped()
    src = CASES.lstrip("\n")
    with open(os.path.join(here, "print_cases.py"), "w") as f:
        f.write(src)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(src, "print_cases.py", "exec"), {})
    with open(os.path.join(here, "print_cases.out"), "w") as f:
        f.write(out.getvalue())


if __name__ == "__main__":
    main()
