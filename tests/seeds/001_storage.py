# Seed 001 (Tensors and storage: which data did you change?): every assert of
# the lesson, run by tlab (tests/seeds.sh) and checkable with real PyTorch.
import torch

values = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
assert values.shape == (2, 3, 4)
assert values.ndim == 3 and values.numel() == 24
assert torch.tensor(5.0).shape == ()
assert torch.empty(0).numel() == 0
assert values[0].shape == (3, 4)
assert values[0:1].shape == (1, 3, 4)

# dtypes of literals: int64 for ints, the default float dtype for floats
assert torch.tensor([1, 2]).dtype == torch.int64
assert torch.tensor([1.0, 2.0]).dtype == torch.float32
assert torch.tensor([True, False]).dtype == torch.bool

# .to() and .float() may return the original object
assert values.to(dtype=torch.float32) is values
assert values.float() is values
assert values.to(torch.float64) is not values

base = torch.arange(6).reshape(2, 3)
window = base[:, 1:]
snapshot = window.clone()
window[0, 0] = 50
assert base[0, 1].item() == 50
assert snapshot[0, 0].item() == 1
assert window is not base

grid = torch.arange(30).reshape(5, 6)
spaced = grid[:, ::2]
flat = spaced.view(-1)
assert not spaced.is_contiguous()
assert flat.stride() == (2,)
assert flat.tolist() == list(range(0, 30, 2))

swapped = grid.transpose(0, 1)
repacked = swapped.reshape(-1)
assert repacked[:5].tolist() == [0, 6, 12, 18, 24]
assert repacked.data_ptr() != swapped.data_ptr()

# contiguous() returns its input unchanged when the layout already holds
assert grid.contiguous() is grid

# flatten / squeeze / unsqueeze
batch = torch.zeros(1, 3, 4)
assert batch.flatten(start_dim=1).shape == (1, 12)
assert batch.squeeze().shape == (3, 4)
assert batch.squeeze(0).shape == (3, 4)
assert batch.unsqueeze(1).shape == (1, 1, 3, 4)

# selecting samples: basic slicing is a view, advanced indexing a copy
mask = values > 10
picked = values[mask]
picked[0] = -1.0
assert values[0, 2, 3].item() == 11.0
values[mask] = 0.0
assert values[0, 2, 3].item() == 0.0
assert values[-1].shape == (3, 4)
matrix = torch.arange(16).reshape(4, 4)
assert matrix[::2, ::2].shape == (2, 2)
assert matrix[::2][::2].shape == (1, 4)
assert matrix.flip(0)[0].tolist() == [12, 13, 14, 15]

first = torch.tensor([2, 4, 6])
second = torch.tensor([8, 10, 12])
assert torch.cat([first, second]).shape == (6,)
assert torch.stack([first, second]).shape == (2, 3)
assert [part.numel() for part in torch.arange(7).split(3)] == [3, 3, 1]
assert len(torch.arange(4).chunk(3)) == 2
assert len(torch.tensor_split(torch.arange(4), 3)) == 3

# split outputs are a tuple whose tensors share storage
parts = torch.arange(6).split(2)
parts[1][0] = 100
assert len(parts) == 3 and parts[1][0].item() == 100
assert torch.arange(6).split(2)[1].storage_offset() == 2

# crossing into NumPy and Python
import numpy as np
array = np.arange(3, dtype=np.float32)
copied = torch.tensor(array)
shared = torch.from_numpy(array)
array[0] = 7.0
assert copied[0].item() == 0.0
assert shared[0].item() == 7.0
assert np.shares_memory(shared.numpy(), array)
as_t = torch.as_tensor(array)
assert as_t.data_ptr() == shared.data_ptr()

t = torch.arange(6.).reshape(2, 3)
assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
rows = list(t)
assert len(rows) == 2 and rows[0].shape == (3,)
assert torch.tensor([[2.5]]).item() == 2.5
