#!/usr/bin/python3
"""gen_print_goldens.py - print()/repr()/str() of tensors and other values
as real PyTorch prints them; tests/print.sh runs print_cases.py through
`tlab exec` and compares with print_cases.out byte for byte. This script
runs print_cases.py with torch and writes print_cases.out.

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



def main():
    here = os.path.dirname(os.path.abspath(__file__))
    import torch
    if not hasattr(torch.Tensor, "untyped_storage"):
        torch.Tensor.untyped_storage = lambda self: self.storage().untyped()
    # the cases are print_cases.py itself (tlab exec runs the same file)
    with open(os.path.join(here, "print_cases.py")) as f:
        src = f.read()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(src, "print_cases.py", "exec"), {})
    with open(os.path.join(here, "print_cases.out"), "w") as f:
        f.write(out.getvalue())


if __name__ == "__main__":
    main()
