# Seed 003 (It starts with a tensor: storage, strides, memory layouts): the
# dense-tensor code of the chapter and its exercises, with the printed
# values turned into asserts. Left out: print/f-strings, named tensors,
# einops, sparse tensors, torch.save/h5py, try/except blocks.
import torch

a = torch.tensor([1.0, 2.0, 3.0])
assert a.shape == (3,) and a.numel() == 3 and a.dim() == 1
ones_2d = torch.ones(3, 2)
assert ones_2d.shape == (3, 2) and ones_2d.sum().item() == 6.0
zeros_3d = torch.zeros(2, 4, 4)
assert zeros_3d.shape == torch.Size([2, 4, 4])

# 3. indexing and slicing
grid = torch.arange(1, 13, dtype=torch.float32).reshape(3, 4)
element = grid[1, 2]
assert element.item() == 7.0
first_column = grid[:, 0]
assert first_column.tolist() == [1.0, 5.0, 9.0]
sub_grid = grid[1:, 1:3]
assert sub_grid.tolist() == [[6.0, 7.0], [10.0, 11.0]]

# 4. broadcasting
col_vector = torch.tensor([[10.0], [20.0], [30.0]])
row_vector = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
assert col_vector.shape == (3, 1) and row_vector.shape == (1, 4)
broadcasted_sum = col_vector + row_vector
assert broadcasted_sum.shape == (3, 4)
assert broadcasted_sum.tolist() == [[11.0, 12.0, 13.0, 14.0], [21.0, 22.0, 23.0, 24.0],
                                    [31.0, 32.0, 33.0, 34.0]]

# 6. dtypes
default_float = torch.tensor([1.0, 2.0, 3.0])
assert default_float.dtype == torch.float32
bf16_tensor = default_float.to(dtype=torch.bfloat16)
assert bf16_tensor.dtype == torch.bfloat16 and bf16_tensor.element_size() == 2
int_labels = torch.tensor([0, 2, 1], dtype=torch.int64)
assert int_labels.dtype == torch.int64

# 7.1 reductions
matrix = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
mean_dim0 = torch.mean(matrix, dim=0)
assert mean_dim0.tolist() == [2.5, 3.5, 4.5] and mean_dim0.shape == (3,)
mean_dim1_kept = torch.mean(matrix, dim=1, keepdim=True)
assert mean_dim1_kept.tolist() == [[2.0], [5.0]] and mean_dim1_kept.shape == (2, 1)

# 7.2 in-place operations
x = torch.ones(2, 2)
x.add_(5.0)
assert x.tolist() == [[6.0, 6.0], [6.0, 6.0]]
x.zero_()
assert x.tolist() == [[0.0, 0.0], [0.0, 0.0]]
assert x._version == 2

# 8. storage
points = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
points[0, 0] = 99.0
assert points[0, 0].item() == 99.0

# 9.1 slicing creates sub-tensor views
points = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
second_point = points[1]
assert second_point.tolist() == [3.0, 4.0]
assert second_point.shape == (2,)
assert second_point.storage_offset() == 2
assert second_point.stride() == (1,)
assert points.storage().data_ptr() == second_point.storage().data_ptr()

# 9.2 transposing without copying
assert points.shape == (3, 2) and points.stride() == (2, 1)
points_t = points.t()
assert points_t.shape == (2, 3) and points_t.stride() == (1, 2)
assert points_t.tolist() == [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]
assert points.data_ptr() == points_t.data_ptr()

# 9.3 higher-dimensional transposition
tensor_3d = torch.zeros(2, 3, 4)
assert tensor_3d.stride() == (12, 4, 1)
permuted_3d = tensor_3d.permute(2, 0, 1)
assert permuted_3d.shape == (4, 2, 3) and permuted_3d.stride() == (1, 12, 4)

# 9.4 contiguity
assert points.is_contiguous()
assert not points_t.is_contiguous()
points_t_cont = points_t.contiguous()
assert points_t_cont.is_contiguous()
assert points_t_cont.stride() == (3, 1)
assert points_t_cont.view(6).tolist() == [1.0, 3.0, 5.0, 2.0, 4.0, 6.0]
assert points_t_cont.data_ptr() != points_t.data_ptr()

# 10. as_strided sliding windows
base = torch.arange(10, dtype=torch.float32)
sliding_windows = base.as_strided(size=(7, 4), stride=(1, 1), storage_offset=0)
assert sliding_windows.shape == (7, 4)
assert sliding_windows[6].tolist() == [6.0, 7.0, 8.0, 9.0]
assert sliding_windows.data_ptr() == base.data_ptr()

# 11. devices
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
cpu_tensor = torch.ones(3, 3)
gpu_tensor = cpu_tensor.to(device=device)
gpu_result = 2.0 * gpu_tensor + 1.0
assert gpu_result.device == gpu_tensor.device
assert gpu_result.sum().item() == 27.0

# 12. NumPy interoperability
import numpy as np
torch_orig = torch.ones(3, dtype=torch.float32)
numpy_view = torch_orig.numpy()
torch_orig.add_(10.0)
assert numpy_view.tolist() == [11.0, 11.0, 11.0]
np_arr = np.array([5.0, 6.0, 7.0], dtype=np.float32)
torch_from_np = torch.from_numpy(np_arr)
assert torch_from_np.tolist() == [5.0, 6.0, 7.0]
np_arr[0] = 1.0
assert torch_from_np[0].item() == 1.0

# 15. Exercise 1
a = torch.tensor(list(range(9)))
assert a.size() == (9,) and a.storage_offset() == 0 and a.stride() == (1,)
b = a.view(3, 3)
assert b.size() == (3, 3) and b.storage_offset() == 0 and b.stride() == (3, 1)
assert a.storage().data_ptr() == b.storage().data_ptr()
c = b[1:, 1:]
assert c.tolist() == [[4, 5], [7, 8]]
assert c.size() == (2, 2) and c.storage_offset() == 4 and c.stride() == (3, 1)

# 15. Exercise 2 (the failing int32 sqrt_ is covered by tests/golden/errors.test)
int_tensor = torch.tensor([1, 4, 9, 16], dtype=torch.int32)
float_tensor = int_tensor.to(dtype=torch.float32)
float_tensor.sqrt_()
assert float_tensor.tolist() == [1.0, 2.0, 3.0, 4.0]
assert int_tensor.tolist() == [1, 4, 9, 16]
assert torch.cos(torch.zeros(2)).tolist() == [1.0, 1.0]
