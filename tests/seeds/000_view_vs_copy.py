# Seed 000 (view vs. copy, a first lesson): the operations it lists as
# copies, views and "ambiguous", checked by storage pointers; and the
# NumPy demonstration that views and their base are linked both ways.
import numpy as np
import torch

arr = np.arange(6, dtype=np.float32)
view = arr[1:4]
arr[1] = 100.0
assert view[0] == 100.0
view[1] = 200.0
assert arr[2] == 200.0
assert np.shares_memory(arr, view)

x = torch.arange(9.).reshape(3, 3)
y = torch.ones(3, 3)
assert x.stride() == (3, 1)
p = x.storage().data_ptr()
# always a copy
assert (x + y).storage().data_ptr() != p
assert torch.add(x, y).storage().data_ptr() != p
assert (x * 2).storage().data_ptr() != p
assert x.clone().storage().data_ptr() != p
assert x.detach().clone().storage().data_ptr() != p
assert x.to(torch.float64).storage().data_ptr() != p
# usually a view
assert x[:, 1].storage().data_ptr() == p
assert x.view(9).storage().data_ptr() == p
assert x.transpose(0, 1).storage().data_ptr() == p
assert x.permute(1, 0).storage().data_ptr() == p
assert x.unsqueeze(0).squeeze(0).storage().data_ptr() == p
assert x[:1].expand(3, 3).storage().data_ptr() == p
# ambiguous: reshape / flatten
assert x.reshape(9).storage().data_ptr() == p
assert x.t().reshape(9).storage().data_ptr() != p
assert x.flatten().storage().data_ptr() == p
assert x.t().flatten().storage().data_ptr() != p
# a change through a view is visible in the base and vice versa
col = x[:, 1]
col[0] = -1.0
assert x[0, 1].item() == -1.0
x[2, 1] = -2.0
assert col[2].item() == -2.0
