# Seed 002 (View or copy lab): the twenty operations with the answers of the
# lesson's "Check your work", decided by storage pointers as its stretch
# exercise asks (classify() itself is a `def`, outside tlab's subset).
import torch

x = torch.arange(24, dtype=torch.float32).reshape(4, 6)
base = x.storage().data_ptr()

# views (same storage)
assert x[1:].storage().data_ptr() == base
assert x[:, ::2].storage().data_ptr() == base
assert x.t().storage().data_ptr() == base
assert x.T.storage().data_ptr() == base
assert x.transpose(0, 1).storage().data_ptr() == base
assert x.permute(1, 0).storage().data_ptr() == base
assert x.reshape(3, 8).storage().data_ptr() == base
assert x.view(3, 8).storage().data_ptr() == base
assert x.view(2, 3, 4).storage().data_ptr() == base
assert x.contiguous() is x
assert x.to(device=x.device, dtype=x.dtype) is x
assert x.float() is x
assert x.unsqueeze(0).storage().data_ptr() == base
assert x.squeeze().storage().data_ptr() == base
assert x.expand(4, 6).storage().data_ptr() == base
assert x.unsqueeze(0).expand(8, 4, 6).storage().data_ptr() == base

# copies (new storage)
assert x.t().reshape(8, 3).storage().data_ptr() != base
assert x.t().contiguous().storage().data_ptr() != base
assert x.clone().storage().data_ptr() != base
assert x.to(torch.float16).storage().data_ptr() != base

# sometimes: the same ops on a non-contiguous parent
y = x.t()
assert y.reshape(24).storage().data_ptr() != base
assert y.contiguous() is not y
assert y.to(torch.float64) is not y

# the rule behind 21-23: strides
assert x.t().stride() == (1, 6) and not x.t().is_contiguous()
big = torch.zeros(1).expand(1000, 1000)
assert big.stride() == (0, 0) and big.shape == (1000, 1000)
assert big.storage().nbytes() == 4

# 25: permute is a view with channels-last strides, contiguous() copies
act = torch.zeros(2, 3, 4, 5)
nhwc = act.permute(0, 2, 3, 1)
assert nhwc.stride() == (60, 5, 1, 20)
assert nhwc.contiguous().stride() == (60, 15, 3, 1)
assert act.contiguous(memory_format=torch.channels_last).stride() == (60, 1, 15, 3)
