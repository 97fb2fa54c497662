# tests/gpu/big.py - tests/gpu/run.sh's "big" check: every kernel family on
# @N@ elements (@R@ x @C@ for the 2-D ones), on the device (--device cuda:
# factories without device= make device tensors) and on the CPU, compared
# bit for bit. run.sh substitutes @N@, @R@ and @C@.
import torch
n = @N@
# 1000 distinct values (k / 7), cycled: a repeat, not a remainder (the CPU's
# float remainder is its slow path: 2^27 of them ran past the check's time)
c = (torch.arange(1000, dtype=torch.float32, device="cpu") / 7).repeat(n // 1000 + 1)[:n]
g = c.cuda()
print("copy strided", n, torch.equal(g[::2].clone().cpu(), c[::2].clone()))
print("transpose", n, torch.equal(g.view(@R@, @C@).t().contiguous().cpu(), c.view(@R@, @C@).t().contiguous()))
# the specialised copy loops (cuda/kernels_spec.h): 4 x 4 tiles of 1- and
# 8-byte elements, a 4-D permute, 4-element runs of an expanded row
b8 = (torch.arange(n, device="cpu") % 97).to(torch.int8)
print("transpose int8", n, torch.equal(b8.cuda().view(@R@, @C@).t().contiguous().cpu(), b8.view(@R@, @C@).t().contiguous()))
print("transpose float64", n, torch.equal(g.double().view(@R@, @C@).t().contiguous().cpu(), c.double().view(@R@, @C@).t().contiguous()))
print("permute nchw-nhwc", n, torch.equal(g.view(4, @R@ // 4, 8, @C@ // 8).permute(0, 2, 3, 1).contiguous().cpu(),
                                          c.view(4, @R@ // 4, 8, @C@ // 8).permute(0, 2, 3, 1).contiguous()))
print("expand row", n, torch.equal(g[:@C@].expand(@R@, @C@).contiguous().cpu(), c[:@C@].expand(@R@, @C@).contiguous()))
print("broadcast", n, torch.equal((g.view(@R@, @C@) + g[:@C@]).cpu(), c.view(@R@, @C@) + c[:@C@]))
print("float16", n, torch.equal(g.half().cpu(), c.half()))
print("bfloat16", n, torch.equal(g.bfloat16().cpu(), c.bfloat16()))
print("where", n, torch.equal(torch.where(g > 50, g, -g).cpu(), torch.where(c > 50, c, -c)))
# floating sums, means and products: both devices fold in one order
# (src/runtime/reduce_order.h), so they are equal bit for bit
print("sum", n, torch.equal(g.view(@R@, @C@).sum(1).cpu(), c.view(@R@, @C@).sum(1)))
print("sum float64", n, torch.equal(g.double().view(@R@, @C@).sum(0).cpu(), c.double().view(@R@, @C@).sum(0)))
print("argmax", n, torch.equal(g.view(@R@, @C@).argmax(1).cpu(), c.view(@R@, @C@).argmax(1)))
print("all-reduce", n, torch.equal(g.sum().cpu(), c.sum()))
print("mean", n, torch.equal(g.mean().cpu(), c.mean()))
print("sum float16", n, torch.equal(g.half().sum().cpu(), c.half().sum()))
print("mean bfloat16", n, torch.equal(g.bfloat16().view(@R@, @C@).mean(0).cpu(), c.bfloat16().view(@R@, @C@).mean(0)))
print("prod", n, torch.equal((1 + g / 1e6).double().prod().cpu(), (1 + c / 1e6).double().prod()))
# index families on at most 2^26 elements: tlab's limit on one advanced
# index (an error past it, on every device)
m = min(n, 2**26)
i = torch.arange(1000, device="cpu").repeat(m // 1000 + 1)[:m]
g = g[:m]
c = c[:m]
tg = torch.zeros(1000)
tc = torch.zeros(1000, device="cpu")
tg.index_put_((i.cuda(),), g, accumulate=True)
tc.index_put_((i,), c, accumulate=True)
print("index_put accumulate", m, torch.equal(tg.cpu(), tc))
tg[i.cuda()] = g
tc[i] = c
print("index_put repeated", m, torch.equal(tg.cpu(), tc))
print("gather", m, torch.equal(g[i.cuda()].cpu(), c[i]))
print("sort", m, torch.equal(g.view(-1, 256).sort(1)[0].cpu(), c.view(-1, 256).sort(1)[0]))
print("done")
