# out= dtype rules per op (outarg.c's policy) and out=(values, indices); goldens by gen.sh
# (torch 1.13). Left out where tlab follows 2.x: diag and where with a mismatched out,
# cumsum/cumprod/prod into float16.
import torch
def show(label, f):
    try:
        r = f()
        print(label, r.dtype, r.tolist())
    except RuntimeError as e:
        print(label, 'RuntimeError', e)
f32 = torch.tensor([[1.5, 2.5, 0.5], [3.5, 1.5, 2.0]])
sf = torch.tensor([[1.5, -2.5, 0.5], [3.5, 1.5, 2.0]])
si = torch.tensor([[1, -2, 0], [3, 1, 2]])
idx = torch.tensor([[0], [2]])
def show2(label, f):
    try:
        r = f()
        print(label, r.dtype, (r.double() * 1000).round().tolist())
    except RuntimeError as e:
        print(label, 'RuntimeError', e)
show('cumsum torch.float64', lambda: torch.cumsum(f32, 1, out=torch.empty(2, 3, dtype=torch.float64)))
show('cumprod torch.float64', lambda: torch.cumprod(f32, 1, out=torch.empty(2, 3, dtype=torch.float64)))
show('take_along_dim torch.float64', lambda: torch.take_along_dim(f32, idx, 1, out=torch.empty(2, 1, dtype=torch.float64)))
show('scatter torch.float64', lambda: torch.scatter(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.float64)))
show('scatter_value torch.float64', lambda: torch.scatter(f32, 1, idx, 2.0, out=torch.empty(2, 3, dtype=torch.float64)))
show('scatter_add torch.float64', lambda: torch.scatter_add(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.float64)))
show('index_copy torch.float64', lambda: torch.index_copy(f32, 0, torch.tensor([1]), torch.ones(1, 3), out=torch.empty(2, 3, dtype=torch.float64)))
show('msort torch.float64', lambda: torch.msort(f32, out=torch.empty(2, 3, dtype=torch.float64)))
show('gather torch.float64', lambda: torch.gather(f32, 1, idx, out=torch.empty(2, 1, dtype=torch.float64)))
show('index_select torch.float64', lambda: torch.index_select(f32, 1, torch.tensor([0]), out=torch.empty(2, 1, dtype=torch.float64)))
show('take torch.float64', lambda: torch.take(f32, torch.tensor([1]), out=torch.empty(1, dtype=torch.float64)))
show('masked_select torch.float64', lambda: torch.masked_select(f32, f32 > 1, out=torch.empty(5, dtype=torch.float64)))
show('lerp torch.float64', lambda: torch.lerp(f32, f32, 0.5, out=torch.empty(2, 3, dtype=torch.float64)))
show('sum torch.float64', lambda: torch.sum(f32, 1, out=torch.empty(2, dtype=torch.float64)))
show('prod torch.float64', lambda: torch.prod(f32, 1, out=torch.empty(2, dtype=torch.float64)))
show('mean torch.float64', lambda: torch.mean(f32, 1, out=torch.empty(2, dtype=torch.float64)))
show('amax torch.float64', lambda: torch.amax(f32, 1, out=torch.empty(2, dtype=torch.float64)))
show('amin torch.float64', lambda: torch.amin(f32, 1, out=torch.empty(2, dtype=torch.float64)))
show('argmax torch.float64', lambda: torch.argmax(f32, 1, out=torch.empty(2, dtype=torch.float64)))
show('argmin torch.float64', lambda: torch.argmin(f32, 1, out=torch.empty(2, dtype=torch.float64)))
show('cat torch.float64', lambda: torch.cat([f32, f32], out=torch.empty(4, 3, dtype=torch.float64)))
show('stack torch.float64', lambda: torch.stack([f32, f32], out=torch.empty(2, 2, 3, dtype=torch.float64)))
show('tril torch.float64', lambda: torch.tril(f32, out=torch.empty(2, 3, dtype=torch.float64)))
show('triu torch.float64', lambda: torch.triu(f32, out=torch.empty(2, 3, dtype=torch.float64)))
show('mm torch.float64', lambda: torch.mm(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.float64)))
show('matmul torch.float64', lambda: torch.matmul(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.float64)))
show('nonzero torch.float64', lambda: torch.nonzero(f32, out=torch.empty(0, 2, dtype=torch.float64)))
show('narrow_copy torch.float64', lambda: torch.narrow_copy(f32, 1, 0, 2, out=torch.empty(2, 2, dtype=torch.float64)))
show('clamp torch.float64', lambda: torch.clamp(f32, 0, 1, out=torch.empty(2, 3, dtype=torch.float64)))
show('bmm torch.float64', lambda: torch.bmm(f32[None], f32.t()[None], out=torch.empty(1, 2, 2, dtype=torch.float64)))
show('take_along_dim torch.float16', lambda: torch.take_along_dim(f32, idx, 1, out=torch.empty(2, 1, dtype=torch.float16)))
show('scatter torch.float16', lambda: torch.scatter(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.float16)))
show('scatter_value torch.float16', lambda: torch.scatter(f32, 1, idx, 2.0, out=torch.empty(2, 3, dtype=torch.float16)))
show('scatter_add torch.float16', lambda: torch.scatter_add(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.float16)))
show('index_copy torch.float16', lambda: torch.index_copy(f32, 0, torch.tensor([1]), torch.ones(1, 3), out=torch.empty(2, 3, dtype=torch.float16)))
show('msort torch.float16', lambda: torch.msort(f32, out=torch.empty(2, 3, dtype=torch.float16)))
show('gather torch.float16', lambda: torch.gather(f32, 1, idx, out=torch.empty(2, 1, dtype=torch.float16)))
show('index_select torch.float16', lambda: torch.index_select(f32, 1, torch.tensor([0]), out=torch.empty(2, 1, dtype=torch.float16)))
show('take torch.float16', lambda: torch.take(f32, torch.tensor([1]), out=torch.empty(1, dtype=torch.float16)))
show('masked_select torch.float16', lambda: torch.masked_select(f32, f32 > 1, out=torch.empty(5, dtype=torch.float16)))
show('lerp torch.float16', lambda: torch.lerp(f32, f32, 0.5, out=torch.empty(2, 3, dtype=torch.float16)))
show('sum torch.float16', lambda: torch.sum(f32, 1, out=torch.empty(2, dtype=torch.float16)))
show('mean torch.float16', lambda: torch.mean(f32, 1, out=torch.empty(2, dtype=torch.float16)))
show('amax torch.float16', lambda: torch.amax(f32, 1, out=torch.empty(2, dtype=torch.float16)))
show('amin torch.float16', lambda: torch.amin(f32, 1, out=torch.empty(2, dtype=torch.float16)))
show('argmax torch.float16', lambda: torch.argmax(f32, 1, out=torch.empty(2, dtype=torch.float16)))
show('argmin torch.float16', lambda: torch.argmin(f32, 1, out=torch.empty(2, dtype=torch.float16)))
show('cat torch.float16', lambda: torch.cat([f32, f32], out=torch.empty(4, 3, dtype=torch.float16)))
show('stack torch.float16', lambda: torch.stack([f32, f32], out=torch.empty(2, 2, 3, dtype=torch.float16)))
show('tril torch.float16', lambda: torch.tril(f32, out=torch.empty(2, 3, dtype=torch.float16)))
show('triu torch.float16', lambda: torch.triu(f32, out=torch.empty(2, 3, dtype=torch.float16)))
show('mm torch.float16', lambda: torch.mm(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.float16)))
show('matmul torch.float16', lambda: torch.matmul(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.float16)))
show('nonzero torch.float16', lambda: torch.nonzero(f32, out=torch.empty(0, 2, dtype=torch.float16)))
show('narrow_copy torch.float16', lambda: torch.narrow_copy(f32, 1, 0, 2, out=torch.empty(2, 2, dtype=torch.float16)))
show('clamp torch.float16', lambda: torch.clamp(f32, 0, 1, out=torch.empty(2, 3, dtype=torch.float16)))
show('bmm torch.float16', lambda: torch.bmm(f32[None], f32.t()[None], out=torch.empty(1, 2, 2, dtype=torch.float16)))
show('cumsum torch.long', lambda: torch.cumsum(f32, 1, out=torch.empty(2, 3, dtype=torch.long)))
show('cumprod torch.long', lambda: torch.cumprod(f32, 1, out=torch.empty(2, 3, dtype=torch.long)))
show('take_along_dim torch.long', lambda: torch.take_along_dim(f32, idx, 1, out=torch.empty(2, 1, dtype=torch.long)))
show('scatter torch.long', lambda: torch.scatter(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.long)))
show('scatter_value torch.long', lambda: torch.scatter(f32, 1, idx, 2.0, out=torch.empty(2, 3, dtype=torch.long)))
show('scatter_add torch.long', lambda: torch.scatter_add(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.long)))
show('index_copy torch.long', lambda: torch.index_copy(f32, 0, torch.tensor([1]), torch.ones(1, 3), out=torch.empty(2, 3, dtype=torch.long)))
show('msort torch.long', lambda: torch.msort(f32, out=torch.empty(2, 3, dtype=torch.long)))
show('gather torch.long', lambda: torch.gather(f32, 1, idx, out=torch.empty(2, 1, dtype=torch.long)))
show('index_select torch.long', lambda: torch.index_select(f32, 1, torch.tensor([0]), out=torch.empty(2, 1, dtype=torch.long)))
show('take torch.long', lambda: torch.take(f32, torch.tensor([1]), out=torch.empty(1, dtype=torch.long)))
show('masked_select torch.long', lambda: torch.masked_select(f32, f32 > 1, out=torch.empty(5, dtype=torch.long)))
show('lerp torch.long', lambda: torch.lerp(f32, f32, 0.5, out=torch.empty(2, 3, dtype=torch.long)))
show('sum torch.long', lambda: torch.sum(f32, 1, out=torch.empty(2, dtype=torch.long)))
show('prod torch.long', lambda: torch.prod(f32, 1, out=torch.empty(2, dtype=torch.long)))
show('mean torch.long', lambda: torch.mean(f32, 1, out=torch.empty(2, dtype=torch.long)))
show('amax torch.long', lambda: torch.amax(f32, 1, out=torch.empty(2, dtype=torch.long)))
show('amin torch.long', lambda: torch.amin(f32, 1, out=torch.empty(2, dtype=torch.long)))
show('argmax torch.long', lambda: torch.argmax(f32, 1, out=torch.empty(2, dtype=torch.long)))
show('argmin torch.long', lambda: torch.argmin(f32, 1, out=torch.empty(2, dtype=torch.long)))
show('cat torch.long', lambda: torch.cat([f32, f32], out=torch.empty(4, 3, dtype=torch.long)))
show('stack torch.long', lambda: torch.stack([f32, f32], out=torch.empty(2, 2, 3, dtype=torch.long)))
show('tril torch.long', lambda: torch.tril(f32, out=torch.empty(2, 3, dtype=torch.long)))
show('triu torch.long', lambda: torch.triu(f32, out=torch.empty(2, 3, dtype=torch.long)))
show('mm torch.long', lambda: torch.mm(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.long)))
show('matmul torch.long', lambda: torch.matmul(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.long)))
show('nonzero torch.long', lambda: torch.nonzero(f32, out=torch.empty(0, 2, dtype=torch.long)))
show('narrow_copy torch.long', lambda: torch.narrow_copy(f32, 1, 0, 2, out=torch.empty(2, 2, dtype=torch.long)))
show('clamp torch.long', lambda: torch.clamp(f32, 0, 1, out=torch.empty(2, 3, dtype=torch.long)))
show('bmm torch.long', lambda: torch.bmm(f32[None], f32.t()[None], out=torch.empty(1, 2, 2, dtype=torch.long)))
show('cumsum torch.int32', lambda: torch.cumsum(f32, 1, out=torch.empty(2, 3, dtype=torch.int32)))
show('cumprod torch.int32', lambda: torch.cumprod(f32, 1, out=torch.empty(2, 3, dtype=torch.int32)))
show('take_along_dim torch.int32', lambda: torch.take_along_dim(f32, idx, 1, out=torch.empty(2, 1, dtype=torch.int32)))
show('scatter torch.int32', lambda: torch.scatter(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.int32)))
show('scatter_value torch.int32', lambda: torch.scatter(f32, 1, idx, 2.0, out=torch.empty(2, 3, dtype=torch.int32)))
show('scatter_add torch.int32', lambda: torch.scatter_add(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.int32)))
show('index_copy torch.int32', lambda: torch.index_copy(f32, 0, torch.tensor([1]), torch.ones(1, 3), out=torch.empty(2, 3, dtype=torch.int32)))
show('msort torch.int32', lambda: torch.msort(f32, out=torch.empty(2, 3, dtype=torch.int32)))
show('gather torch.int32', lambda: torch.gather(f32, 1, idx, out=torch.empty(2, 1, dtype=torch.int32)))
show('index_select torch.int32', lambda: torch.index_select(f32, 1, torch.tensor([0]), out=torch.empty(2, 1, dtype=torch.int32)))
show('take torch.int32', lambda: torch.take(f32, torch.tensor([1]), out=torch.empty(1, dtype=torch.int32)))
show('masked_select torch.int32', lambda: torch.masked_select(f32, f32 > 1, out=torch.empty(5, dtype=torch.int32)))
show('lerp torch.int32', lambda: torch.lerp(f32, f32, 0.5, out=torch.empty(2, 3, dtype=torch.int32)))
show('sum torch.int32', lambda: torch.sum(f32, 1, out=torch.empty(2, dtype=torch.int32)))
show('prod torch.int32', lambda: torch.prod(f32, 1, out=torch.empty(2, dtype=torch.int32)))
show('mean torch.int32', lambda: torch.mean(f32, 1, out=torch.empty(2, dtype=torch.int32)))
show('amax torch.int32', lambda: torch.amax(f32, 1, out=torch.empty(2, dtype=torch.int32)))
show('amin torch.int32', lambda: torch.amin(f32, 1, out=torch.empty(2, dtype=torch.int32)))
show('argmax torch.int32', lambda: torch.argmax(f32, 1, out=torch.empty(2, dtype=torch.int32)))
show('argmin torch.int32', lambda: torch.argmin(f32, 1, out=torch.empty(2, dtype=torch.int32)))
show('cat torch.int32', lambda: torch.cat([f32, f32], out=torch.empty(4, 3, dtype=torch.int32)))
show('stack torch.int32', lambda: torch.stack([f32, f32], out=torch.empty(2, 2, 3, dtype=torch.int32)))
show('tril torch.int32', lambda: torch.tril(f32, out=torch.empty(2, 3, dtype=torch.int32)))
show('triu torch.int32', lambda: torch.triu(f32, out=torch.empty(2, 3, dtype=torch.int32)))
show('mm torch.int32', lambda: torch.mm(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.int32)))
show('matmul torch.int32', lambda: torch.matmul(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.int32)))
show('nonzero torch.int32', lambda: torch.nonzero(f32, out=torch.empty(0, 2, dtype=torch.int32)))
show('narrow_copy torch.int32', lambda: torch.narrow_copy(f32, 1, 0, 2, out=torch.empty(2, 2, dtype=torch.int32)))
show('clamp torch.int32', lambda: torch.clamp(f32, 0, 1, out=torch.empty(2, 3, dtype=torch.int32)))
show('bmm torch.int32', lambda: torch.bmm(f32[None], f32.t()[None], out=torch.empty(1, 2, 2, dtype=torch.int32)))
show('cumsum torch.bool', lambda: torch.cumsum(f32, 1, out=torch.empty(2, 3, dtype=torch.bool)))
show('cumprod torch.bool', lambda: torch.cumprod(f32, 1, out=torch.empty(2, 3, dtype=torch.bool)))
show('take_along_dim torch.bool', lambda: torch.take_along_dim(f32, idx, 1, out=torch.empty(2, 1, dtype=torch.bool)))
show('scatter torch.bool', lambda: torch.scatter(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.bool)))
show('scatter_value torch.bool', lambda: torch.scatter(f32, 1, idx, 2.0, out=torch.empty(2, 3, dtype=torch.bool)))
show('scatter_add torch.bool', lambda: torch.scatter_add(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.bool)))
show('index_copy torch.bool', lambda: torch.index_copy(f32, 0, torch.tensor([1]), torch.ones(1, 3), out=torch.empty(2, 3, dtype=torch.bool)))
show('msort torch.bool', lambda: torch.msort(f32, out=torch.empty(2, 3, dtype=torch.bool)))
show('gather torch.bool', lambda: torch.gather(f32, 1, idx, out=torch.empty(2, 1, dtype=torch.bool)))
show('index_select torch.bool', lambda: torch.index_select(f32, 1, torch.tensor([0]), out=torch.empty(2, 1, dtype=torch.bool)))
show('take torch.bool', lambda: torch.take(f32, torch.tensor([1]), out=torch.empty(1, dtype=torch.bool)))
show('masked_select torch.bool', lambda: torch.masked_select(f32, f32 > 1, out=torch.empty(5, dtype=torch.bool)))
show('lerp torch.bool', lambda: torch.lerp(f32, f32, 0.5, out=torch.empty(2, 3, dtype=torch.bool)))
show('sum torch.bool', lambda: torch.sum(f32, 1, out=torch.empty(2, dtype=torch.bool)))
show('prod torch.bool', lambda: torch.prod(f32, 1, out=torch.empty(2, dtype=torch.bool)))
show('mean torch.bool', lambda: torch.mean(f32, 1, out=torch.empty(2, dtype=torch.bool)))
show('amax torch.bool', lambda: torch.amax(f32, 1, out=torch.empty(2, dtype=torch.bool)))
show('amin torch.bool', lambda: torch.amin(f32, 1, out=torch.empty(2, dtype=torch.bool)))
show('argmax torch.bool', lambda: torch.argmax(f32, 1, out=torch.empty(2, dtype=torch.bool)))
show('argmin torch.bool', lambda: torch.argmin(f32, 1, out=torch.empty(2, dtype=torch.bool)))
show('cat torch.bool', lambda: torch.cat([f32, f32], out=torch.empty(4, 3, dtype=torch.bool)))
show('stack torch.bool', lambda: torch.stack([f32, f32], out=torch.empty(2, 2, 3, dtype=torch.bool)))
show('tril torch.bool', lambda: torch.tril(f32, out=torch.empty(2, 3, dtype=torch.bool)))
show('triu torch.bool', lambda: torch.triu(f32, out=torch.empty(2, 3, dtype=torch.bool)))
show('mm torch.bool', lambda: torch.mm(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.bool)))
show('matmul torch.bool', lambda: torch.matmul(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.bool)))
show('nonzero torch.bool', lambda: torch.nonzero(f32, out=torch.empty(0, 2, dtype=torch.bool)))
show('narrow_copy torch.bool', lambda: torch.narrow_copy(f32, 1, 0, 2, out=torch.empty(2, 2, dtype=torch.bool)))
show('clamp torch.bool', lambda: torch.clamp(f32, 0, 1, out=torch.empty(2, 3, dtype=torch.bool)))
show('bmm torch.bool', lambda: torch.bmm(f32[None], f32.t()[None], out=torch.empty(1, 2, 2, dtype=torch.bool)))
show('cumsum torch.int16', lambda: torch.cumsum(f32, 1, out=torch.empty(2, 3, dtype=torch.int16)))
show('cumprod torch.int16', lambda: torch.cumprod(f32, 1, out=torch.empty(2, 3, dtype=torch.int16)))
show('take_along_dim torch.int16', lambda: torch.take_along_dim(f32, idx, 1, out=torch.empty(2, 1, dtype=torch.int16)))
show('scatter torch.int16', lambda: torch.scatter(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.int16)))
show('scatter_value torch.int16', lambda: torch.scatter(f32, 1, idx, 2.0, out=torch.empty(2, 3, dtype=torch.int16)))
show('scatter_add torch.int16', lambda: torch.scatter_add(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.int16)))
show('index_copy torch.int16', lambda: torch.index_copy(f32, 0, torch.tensor([1]), torch.ones(1, 3), out=torch.empty(2, 3, dtype=torch.int16)))
show('msort torch.int16', lambda: torch.msort(f32, out=torch.empty(2, 3, dtype=torch.int16)))
show('gather torch.int16', lambda: torch.gather(f32, 1, idx, out=torch.empty(2, 1, dtype=torch.int16)))
show('index_select torch.int16', lambda: torch.index_select(f32, 1, torch.tensor([0]), out=torch.empty(2, 1, dtype=torch.int16)))
show('take torch.int16', lambda: torch.take(f32, torch.tensor([1]), out=torch.empty(1, dtype=torch.int16)))
show('masked_select torch.int16', lambda: torch.masked_select(f32, f32 > 1, out=torch.empty(5, dtype=torch.int16)))
show('lerp torch.int16', lambda: torch.lerp(f32, f32, 0.5, out=torch.empty(2, 3, dtype=torch.int16)))
show('sum torch.int16', lambda: torch.sum(f32, 1, out=torch.empty(2, dtype=torch.int16)))
show('prod torch.int16', lambda: torch.prod(f32, 1, out=torch.empty(2, dtype=torch.int16)))
show('mean torch.int16', lambda: torch.mean(f32, 1, out=torch.empty(2, dtype=torch.int16)))
show('amax torch.int16', lambda: torch.amax(f32, 1, out=torch.empty(2, dtype=torch.int16)))
show('amin torch.int16', lambda: torch.amin(f32, 1, out=torch.empty(2, dtype=torch.int16)))
show('argmax torch.int16', lambda: torch.argmax(f32, 1, out=torch.empty(2, dtype=torch.int16)))
show('argmin torch.int16', lambda: torch.argmin(f32, 1, out=torch.empty(2, dtype=torch.int16)))
show('cat torch.int16', lambda: torch.cat([f32, f32], out=torch.empty(4, 3, dtype=torch.int16)))
show('stack torch.int16', lambda: torch.stack([f32, f32], out=torch.empty(2, 2, 3, dtype=torch.int16)))
show('tril torch.int16', lambda: torch.tril(f32, out=torch.empty(2, 3, dtype=torch.int16)))
show('triu torch.int16', lambda: torch.triu(f32, out=torch.empty(2, 3, dtype=torch.int16)))
show('mm torch.int16', lambda: torch.mm(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.int16)))
show('matmul torch.int16', lambda: torch.matmul(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.int16)))
show('nonzero torch.int16', lambda: torch.nonzero(f32, out=torch.empty(0, 2, dtype=torch.int16)))
show('narrow_copy torch.int16', lambda: torch.narrow_copy(f32, 1, 0, 2, out=torch.empty(2, 2, dtype=torch.int16)))
show('clamp torch.int16', lambda: torch.clamp(f32, 0, 1, out=torch.empty(2, 3, dtype=torch.int16)))
show('bmm torch.int16', lambda: torch.bmm(f32[None], f32.t()[None], out=torch.empty(1, 2, 2, dtype=torch.int16)))
show('cumsum torch.uint8', lambda: torch.cumsum(f32, 1, out=torch.empty(2, 3, dtype=torch.uint8)))
show('cumprod torch.uint8', lambda: torch.cumprod(f32, 1, out=torch.empty(2, 3, dtype=torch.uint8)))
show('take_along_dim torch.uint8', lambda: torch.take_along_dim(f32, idx, 1, out=torch.empty(2, 1, dtype=torch.uint8)))
show('scatter torch.uint8', lambda: torch.scatter(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.uint8)))
show('scatter_value torch.uint8', lambda: torch.scatter(f32, 1, idx, 2.0, out=torch.empty(2, 3, dtype=torch.uint8)))
show('scatter_add torch.uint8', lambda: torch.scatter_add(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.uint8)))
show('index_copy torch.uint8', lambda: torch.index_copy(f32, 0, torch.tensor([1]), torch.ones(1, 3), out=torch.empty(2, 3, dtype=torch.uint8)))
show('msort torch.uint8', lambda: torch.msort(f32, out=torch.empty(2, 3, dtype=torch.uint8)))
show('gather torch.uint8', lambda: torch.gather(f32, 1, idx, out=torch.empty(2, 1, dtype=torch.uint8)))
show('index_select torch.uint8', lambda: torch.index_select(f32, 1, torch.tensor([0]), out=torch.empty(2, 1, dtype=torch.uint8)))
show('take torch.uint8', lambda: torch.take(f32, torch.tensor([1]), out=torch.empty(1, dtype=torch.uint8)))
show('masked_select torch.uint8', lambda: torch.masked_select(f32, f32 > 1, out=torch.empty(5, dtype=torch.uint8)))
show('lerp torch.uint8', lambda: torch.lerp(f32, f32, 0.5, out=torch.empty(2, 3, dtype=torch.uint8)))
show('sum torch.uint8', lambda: torch.sum(f32, 1, out=torch.empty(2, dtype=torch.uint8)))
show('prod torch.uint8', lambda: torch.prod(f32, 1, out=torch.empty(2, dtype=torch.uint8)))
show('mean torch.uint8', lambda: torch.mean(f32, 1, out=torch.empty(2, dtype=torch.uint8)))
show('amax torch.uint8', lambda: torch.amax(f32, 1, out=torch.empty(2, dtype=torch.uint8)))
show('amin torch.uint8', lambda: torch.amin(f32, 1, out=torch.empty(2, dtype=torch.uint8)))
show('argmax torch.uint8', lambda: torch.argmax(f32, 1, out=torch.empty(2, dtype=torch.uint8)))
show('argmin torch.uint8', lambda: torch.argmin(f32, 1, out=torch.empty(2, dtype=torch.uint8)))
show('cat torch.uint8', lambda: torch.cat([f32, f32], out=torch.empty(4, 3, dtype=torch.uint8)))
show('stack torch.uint8', lambda: torch.stack([f32, f32], out=torch.empty(2, 2, 3, dtype=torch.uint8)))
show('tril torch.uint8', lambda: torch.tril(f32, out=torch.empty(2, 3, dtype=torch.uint8)))
show('triu torch.uint8', lambda: torch.triu(f32, out=torch.empty(2, 3, dtype=torch.uint8)))
show('mm torch.uint8', lambda: torch.mm(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.uint8)))
show('matmul torch.uint8', lambda: torch.matmul(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.uint8)))
show('nonzero torch.uint8', lambda: torch.nonzero(f32, out=torch.empty(0, 2, dtype=torch.uint8)))
show('narrow_copy torch.uint8', lambda: torch.narrow_copy(f32, 1, 0, 2, out=torch.empty(2, 2, dtype=torch.uint8)))
show('clamp torch.uint8', lambda: torch.clamp(f32, 0, 1, out=torch.empty(2, 3, dtype=torch.uint8)))
show('bmm torch.uint8', lambda: torch.bmm(f32[None], f32.t()[None], out=torch.empty(1, 2, 2, dtype=torch.uint8)))
show('take_along_dim torch.bfloat16', lambda: torch.take_along_dim(f32, idx, 1, out=torch.empty(2, 1, dtype=torch.bfloat16)))
show('scatter torch.bfloat16', lambda: torch.scatter(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.bfloat16)))
show('scatter_value torch.bfloat16', lambda: torch.scatter(f32, 1, idx, 2.0, out=torch.empty(2, 3, dtype=torch.bfloat16)))
show('scatter_add torch.bfloat16', lambda: torch.scatter_add(f32, 1, idx, torch.ones(2, 1), out=torch.empty(2, 3, dtype=torch.bfloat16)))
show('index_copy torch.bfloat16', lambda: torch.index_copy(f32, 0, torch.tensor([1]), torch.ones(1, 3), out=torch.empty(2, 3, dtype=torch.bfloat16)))
show('msort torch.bfloat16', lambda: torch.msort(f32, out=torch.empty(2, 3, dtype=torch.bfloat16)))
show('gather torch.bfloat16', lambda: torch.gather(f32, 1, idx, out=torch.empty(2, 1, dtype=torch.bfloat16)))
show('index_select torch.bfloat16', lambda: torch.index_select(f32, 1, torch.tensor([0]), out=torch.empty(2, 1, dtype=torch.bfloat16)))
show('take torch.bfloat16', lambda: torch.take(f32, torch.tensor([1]), out=torch.empty(1, dtype=torch.bfloat16)))
show('masked_select torch.bfloat16', lambda: torch.masked_select(f32, f32 > 1, out=torch.empty(5, dtype=torch.bfloat16)))
show('lerp torch.bfloat16', lambda: torch.lerp(f32, f32, 0.5, out=torch.empty(2, 3, dtype=torch.bfloat16)))
show('sum torch.bfloat16', lambda: torch.sum(f32, 1, out=torch.empty(2, dtype=torch.bfloat16)))
show('mean torch.bfloat16', lambda: torch.mean(f32, 1, out=torch.empty(2, dtype=torch.bfloat16)))
show('amax torch.bfloat16', lambda: torch.amax(f32, 1, out=torch.empty(2, dtype=torch.bfloat16)))
show('amin torch.bfloat16', lambda: torch.amin(f32, 1, out=torch.empty(2, dtype=torch.bfloat16)))
show('argmax torch.bfloat16', lambda: torch.argmax(f32, 1, out=torch.empty(2, dtype=torch.bfloat16)))
show('argmin torch.bfloat16', lambda: torch.argmin(f32, 1, out=torch.empty(2, dtype=torch.bfloat16)))
show('cat torch.bfloat16', lambda: torch.cat([f32, f32], out=torch.empty(4, 3, dtype=torch.bfloat16)))
show('stack torch.bfloat16', lambda: torch.stack([f32, f32], out=torch.empty(2, 2, 3, dtype=torch.bfloat16)))
show('tril torch.bfloat16', lambda: torch.tril(f32, out=torch.empty(2, 3, dtype=torch.bfloat16)))
show('triu torch.bfloat16', lambda: torch.triu(f32, out=torch.empty(2, 3, dtype=torch.bfloat16)))
show('mm torch.bfloat16', lambda: torch.mm(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.bfloat16)))
show('matmul torch.bfloat16', lambda: torch.matmul(f32, f32.t(), out=torch.empty(2, 2, dtype=torch.bfloat16)))
show('nonzero torch.bfloat16', lambda: torch.nonzero(f32, out=torch.empty(0, 2, dtype=torch.bfloat16)))
show('narrow_copy torch.bfloat16', lambda: torch.narrow_copy(f32, 1, 0, 2, out=torch.empty(2, 2, dtype=torch.bfloat16)))
show('clamp torch.bfloat16', lambda: torch.clamp(f32, 0, 1, out=torch.empty(2, 3, dtype=torch.bfloat16)))
show('bmm torch.bfloat16', lambda: torch.bmm(f32[None], f32.t()[None], out=torch.empty(1, 2, 2, dtype=torch.bfloat16)))
show2('abs sf torch.float64', lambda: torch.abs(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('neg sf torch.float64', lambda: torch.neg(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('sign sf torch.float64', lambda: torch.sign(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('ceil sf torch.float64', lambda: torch.ceil(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('floor sf torch.float64', lambda: torch.floor(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('round sf torch.float64', lambda: torch.round(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('trunc sf torch.float64', lambda: torch.trunc(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('frac sf torch.float64', lambda: torch.frac(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('sqrt sf torch.float64', lambda: torch.sqrt(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('rsqrt sf torch.float64', lambda: torch.rsqrt(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('sigmoid sf torch.float64', lambda: torch.sigmoid(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('exp sf torch.float64', lambda: torch.exp(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('exp2 sf torch.float64', lambda: torch.exp2(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('expm1 sf torch.float64', lambda: torch.expm1(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('log sf torch.float64', lambda: torch.log(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('log2 sf torch.float64', lambda: torch.log2(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('log10 sf torch.float64', lambda: torch.log10(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('log1p sf torch.float64', lambda: torch.log1p(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('sin sf torch.float64', lambda: torch.sin(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('cos sf torch.float64', lambda: torch.cos(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('tan sf torch.float64', lambda: torch.tan(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('tanh sf torch.float64', lambda: torch.tanh(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('asin sf torch.float64', lambda: torch.asin(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('acos sf torch.float64', lambda: torch.acos(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('atan sf torch.float64', lambda: torch.atan(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('erf sf torch.float64', lambda: torch.erf(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('reciprocal sf torch.float64', lambda: torch.reciprocal(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('square sf torch.float64', lambda: torch.square(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('logical_not sf torch.float64', lambda: torch.logical_not(sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('abs si torch.float64', lambda: torch.abs(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('neg si torch.float64', lambda: torch.neg(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('sign si torch.float64', lambda: torch.sign(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('ceil si torch.float64', lambda: torch.ceil(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('floor si torch.float64', lambda: torch.floor(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('round si torch.float64', lambda: torch.round(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('trunc si torch.float64', lambda: torch.trunc(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('frac si torch.float64', lambda: torch.frac(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('sqrt si torch.float64', lambda: torch.sqrt(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('rsqrt si torch.float64', lambda: torch.rsqrt(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('sigmoid si torch.float64', lambda: torch.sigmoid(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('exp si torch.float64', lambda: torch.exp(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('exp2 si torch.float64', lambda: torch.exp2(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('expm1 si torch.float64', lambda: torch.expm1(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('log si torch.float64', lambda: torch.log(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('log2 si torch.float64', lambda: torch.log2(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('log10 si torch.float64', lambda: torch.log10(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('log1p si torch.float64', lambda: torch.log1p(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('sin si torch.float64', lambda: torch.sin(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('cos si torch.float64', lambda: torch.cos(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('tan si torch.float64', lambda: torch.tan(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('tanh si torch.float64', lambda: torch.tanh(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('asin si torch.float64', lambda: torch.asin(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('acos si torch.float64', lambda: torch.acos(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('atan si torch.float64', lambda: torch.atan(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('erf si torch.float64', lambda: torch.erf(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('reciprocal si torch.float64', lambda: torch.reciprocal(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('square si torch.float64', lambda: torch.square(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('bitwise_not si torch.float64', lambda: torch.bitwise_not(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('logical_not si torch.float64', lambda: torch.logical_not(si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('abs sf torch.long', lambda: torch.abs(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('neg sf torch.long', lambda: torch.neg(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('sign sf torch.long', lambda: torch.sign(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('ceil sf torch.long', lambda: torch.ceil(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('floor sf torch.long', lambda: torch.floor(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('round sf torch.long', lambda: torch.round(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('trunc sf torch.long', lambda: torch.trunc(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('frac sf torch.long', lambda: torch.frac(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('sqrt sf torch.long', lambda: torch.sqrt(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('rsqrt sf torch.long', lambda: torch.rsqrt(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('sigmoid sf torch.long', lambda: torch.sigmoid(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('exp sf torch.long', lambda: torch.exp(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('exp2 sf torch.long', lambda: torch.exp2(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('expm1 sf torch.long', lambda: torch.expm1(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('log sf torch.long', lambda: torch.log(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('log2 sf torch.long', lambda: torch.log2(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('log10 sf torch.long', lambda: torch.log10(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('log1p sf torch.long', lambda: torch.log1p(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('sin sf torch.long', lambda: torch.sin(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('cos sf torch.long', lambda: torch.cos(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('tan sf torch.long', lambda: torch.tan(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('tanh sf torch.long', lambda: torch.tanh(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('asin sf torch.long', lambda: torch.asin(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('acos sf torch.long', lambda: torch.acos(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('atan sf torch.long', lambda: torch.atan(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('erf sf torch.long', lambda: torch.erf(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('reciprocal sf torch.long', lambda: torch.reciprocal(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('square sf torch.long', lambda: torch.square(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('logical_not sf torch.long', lambda: torch.logical_not(sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('abs si torch.long', lambda: torch.abs(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('neg si torch.long', lambda: torch.neg(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('sign si torch.long', lambda: torch.sign(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('ceil si torch.long', lambda: torch.ceil(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('floor si torch.long', lambda: torch.floor(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('round si torch.long', lambda: torch.round(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('trunc si torch.long', lambda: torch.trunc(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('sqrt si torch.long', lambda: torch.sqrt(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('rsqrt si torch.long', lambda: torch.rsqrt(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('sigmoid si torch.long', lambda: torch.sigmoid(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('exp si torch.long', lambda: torch.exp(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('exp2 si torch.long', lambda: torch.exp2(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('expm1 si torch.long', lambda: torch.expm1(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('log si torch.long', lambda: torch.log(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('log2 si torch.long', lambda: torch.log2(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('log10 si torch.long', lambda: torch.log10(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('log1p si torch.long', lambda: torch.log1p(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('sin si torch.long', lambda: torch.sin(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('cos si torch.long', lambda: torch.cos(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('tan si torch.long', lambda: torch.tan(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('tanh si torch.long', lambda: torch.tanh(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('asin si torch.long', lambda: torch.asin(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('acos si torch.long', lambda: torch.acos(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('atan si torch.long', lambda: torch.atan(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('erf si torch.long', lambda: torch.erf(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('reciprocal si torch.long', lambda: torch.reciprocal(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('square si torch.long', lambda: torch.square(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('bitwise_not si torch.long', lambda: torch.bitwise_not(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('logical_not si torch.long', lambda: torch.logical_not(si, out=torch.empty(2, 3, dtype=torch.long)))
show2('add sf torch.float64', lambda: torch.add(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('sub sf torch.float64', lambda: torch.sub(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('mul sf torch.float64', lambda: torch.mul(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('div sf torch.float64', lambda: torch.div(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('true_divide sf torch.float64', lambda: torch.true_divide(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('pow sf torch.float64', lambda: torch.pow(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('atan2 sf torch.float64', lambda: torch.atan2(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('maximum sf torch.float64', lambda: torch.maximum(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('minimum sf torch.float64', lambda: torch.minimum(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('eq sf torch.float64', lambda: torch.eq(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('ne sf torch.float64', lambda: torch.ne(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('lt sf torch.float64', lambda: torch.lt(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('le sf torch.float64', lambda: torch.le(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('gt sf torch.float64', lambda: torch.gt(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('ge sf torch.float64', lambda: torch.ge(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('logical_and sf torch.float64', lambda: torch.logical_and(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('logical_or sf torch.float64', lambda: torch.logical_or(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('logical_xor sf torch.float64', lambda: torch.logical_xor(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('clamp_min sf torch.float64', lambda: torch.clamp_min(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('clamp_max sf torch.float64', lambda: torch.clamp_max(sf, sf, out=torch.empty(2, 3, dtype=torch.float64)))
show2('add si torch.float64', lambda: torch.add(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('sub si torch.float64', lambda: torch.sub(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('mul si torch.float64', lambda: torch.mul(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('div si torch.float64', lambda: torch.div(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('true_divide si torch.float64', lambda: torch.true_divide(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('pow si torch.float64', lambda: torch.pow(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('atan2 si torch.float64', lambda: torch.atan2(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('maximum si torch.float64', lambda: torch.maximum(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('minimum si torch.float64', lambda: torch.minimum(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('eq si torch.float64', lambda: torch.eq(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('ne si torch.float64', lambda: torch.ne(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('lt si torch.float64', lambda: torch.lt(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('le si torch.float64', lambda: torch.le(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('gt si torch.float64', lambda: torch.gt(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('ge si torch.float64', lambda: torch.ge(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('logical_and si torch.float64', lambda: torch.logical_and(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('logical_or si torch.float64', lambda: torch.logical_or(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('logical_xor si torch.float64', lambda: torch.logical_xor(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('clamp_min si torch.float64', lambda: torch.clamp_min(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('clamp_max si torch.float64', lambda: torch.clamp_max(si, si, out=torch.empty(2, 3, dtype=torch.float64)))
show2('add sf torch.long', lambda: torch.add(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('sub sf torch.long', lambda: torch.sub(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('mul sf torch.long', lambda: torch.mul(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('div sf torch.long', lambda: torch.div(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('true_divide sf torch.long', lambda: torch.true_divide(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('pow sf torch.long', lambda: torch.pow(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('atan2 sf torch.long', lambda: torch.atan2(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('maximum sf torch.long', lambda: torch.maximum(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('minimum sf torch.long', lambda: torch.minimum(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('eq sf torch.long', lambda: torch.eq(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('ne sf torch.long', lambda: torch.ne(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('lt sf torch.long', lambda: torch.lt(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('le sf torch.long', lambda: torch.le(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('gt sf torch.long', lambda: torch.gt(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('ge sf torch.long', lambda: torch.ge(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('logical_and sf torch.long', lambda: torch.logical_and(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('logical_or sf torch.long', lambda: torch.logical_or(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('logical_xor sf torch.long', lambda: torch.logical_xor(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('clamp_min sf torch.long', lambda: torch.clamp_min(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('clamp_max sf torch.long', lambda: torch.clamp_max(sf, sf, out=torch.empty(2, 3, dtype=torch.long)))
show2('add si torch.long', lambda: torch.add(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('sub si torch.long', lambda: torch.sub(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('mul si torch.long', lambda: torch.mul(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('div si torch.long', lambda: torch.div(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('true_divide si torch.long', lambda: torch.true_divide(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('pow si torch.long', lambda: torch.pow(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('atan2 si torch.long', lambda: torch.atan2(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('maximum si torch.long', lambda: torch.maximum(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('minimum si torch.long', lambda: torch.minimum(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('eq si torch.long', lambda: torch.eq(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('ne si torch.long', lambda: torch.ne(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('lt si torch.long', lambda: torch.lt(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('le si torch.long', lambda: torch.le(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('gt si torch.long', lambda: torch.gt(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('ge si torch.long', lambda: torch.ge(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('logical_and si torch.long', lambda: torch.logical_and(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('logical_or si torch.long', lambda: torch.logical_or(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('logical_xor si torch.long', lambda: torch.logical_xor(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('clamp_min si torch.long', lambda: torch.clamp_min(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('clamp_max si torch.long', lambda: torch.clamp_max(si, si, out=torch.empty(2, 3, dtype=torch.long)))
show2('add sf torch.bool', lambda: torch.add(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('sub sf torch.bool', lambda: torch.sub(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('mul sf torch.bool', lambda: torch.mul(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('div sf torch.bool', lambda: torch.div(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('true_divide sf torch.bool', lambda: torch.true_divide(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('pow sf torch.bool', lambda: torch.pow(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('atan2 sf torch.bool', lambda: torch.atan2(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('maximum sf torch.bool', lambda: torch.maximum(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('minimum sf torch.bool', lambda: torch.minimum(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('eq sf torch.bool', lambda: torch.eq(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('ne sf torch.bool', lambda: torch.ne(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('lt sf torch.bool', lambda: torch.lt(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('le sf torch.bool', lambda: torch.le(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('gt sf torch.bool', lambda: torch.gt(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('ge sf torch.bool', lambda: torch.ge(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('logical_and sf torch.bool', lambda: torch.logical_and(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('logical_or sf torch.bool', lambda: torch.logical_or(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('logical_xor sf torch.bool', lambda: torch.logical_xor(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('clamp_min sf torch.bool', lambda: torch.clamp_min(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('clamp_max sf torch.bool', lambda: torch.clamp_max(sf, sf, out=torch.empty(2, 3, dtype=torch.bool)))
show2('add si torch.bool', lambda: torch.add(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('sub si torch.bool', lambda: torch.sub(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('mul si torch.bool', lambda: torch.mul(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('div si torch.bool', lambda: torch.div(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('true_divide si torch.bool', lambda: torch.true_divide(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('pow si torch.bool', lambda: torch.pow(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('atan2 si torch.bool', lambda: torch.atan2(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('maximum si torch.bool', lambda: torch.maximum(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('minimum si torch.bool', lambda: torch.minimum(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('eq si torch.bool', lambda: torch.eq(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('ne si torch.bool', lambda: torch.ne(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('lt si torch.bool', lambda: torch.lt(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('le si torch.bool', lambda: torch.le(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('gt si torch.bool', lambda: torch.gt(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('ge si torch.bool', lambda: torch.ge(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('logical_and si torch.bool', lambda: torch.logical_and(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('logical_or si torch.bool', lambda: torch.logical_or(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('logical_xor si torch.bool', lambda: torch.logical_xor(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('clamp_min si torch.bool', lambda: torch.clamp_min(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
show2('clamp_max si torch.bool', lambda: torch.clamp_max(si, si, out=torch.empty(2, 3, dtype=torch.bool)))
x = torch.tensor([[3., 1, 2], [0, 5, 4]])
v = torch.empty(0)
i = torch.empty(0, dtype=torch.long)
r = torch.kthvalue(x, 2, 1, out=(v, i))
print(r)
print(type(r).__name__, r[0] is v, r.values is v, r.indices is i, v._version, i._version)
def pair(label, f):
    try:
        r = f()
        print(label, type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
    except RuntimeError as e:
        print(label, 'RuntimeError', e)
    except TypeError as e:
        print(label, 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))
    print('kthvalue ok', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue ok', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue ok', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)))
    print('kthvalue vd', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue vd', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue vd', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.int32)))
    print('kthvalue id', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue id', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue id', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, out=[torch.empty(0), torch.empty(0, dtype=torch.long)])
    print('kthvalue list', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue list', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue list', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, out=(torch.empty(0),))
    print('kthvalue one', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue one', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue one', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long), torch.empty(0)))
    print('kthvalue three', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue three', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue three', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, out=(torch.empty(2, 3), torch.empty(2, 3, dtype=torch.long)))
    print('kthvalue sizes', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue sizes', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue sizes', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, out=(torch.zeros(2, 6)[:, ::2], torch.zeros(2, 6, dtype=torch.long)[:, ::2]))
    print('kthvalue strided', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue strided', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue strided', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, out=(torch.zeros(4)[::2], torch.zeros(4, dtype=torch.long)[::2]))
    print('kthvalue strided1', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue strided1', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue strided1', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, True, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))
    print('kthvalue_keep ok', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue_keep ok', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue_keep ok', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, True, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)))
    print('kthvalue_keep vd', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue_keep vd', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue_keep vd', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, True, out=(torch.empty(0), torch.empty(0, dtype=torch.int32)))
    print('kthvalue_keep id', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue_keep id', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue_keep id', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, True, out=[torch.empty(0), torch.empty(0, dtype=torch.long)])
    print('kthvalue_keep list', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue_keep list', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue_keep list', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, True, out=(torch.empty(0),))
    print('kthvalue_keep one', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue_keep one', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue_keep one', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, True, out=(torch.empty(0), torch.empty(0, dtype=torch.long), torch.empty(0)))
    print('kthvalue_keep three', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue_keep three', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue_keep three', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, True, out=(torch.empty(2, 3), torch.empty(2, 3, dtype=torch.long)))
    print('kthvalue_keep sizes', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue_keep sizes', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue_keep sizes', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, True, out=(torch.zeros(2, 6)[:, ::2], torch.zeros(2, 6, dtype=torch.long)[:, ::2]))
    print('kthvalue_keep strided', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue_keep strided', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue_keep strided', 'TypeError', e)
try:
    r = torch.kthvalue(x, 2, 1, True, out=(torch.zeros(4)[::2], torch.zeros(4, dtype=torch.long)[::2]))
    print('kthvalue_keep strided1', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('kthvalue_keep strided1', 'RuntimeError', e)
except TypeError as e:
    print('kthvalue_keep strided1', 'TypeError', e)
try:
    r = torch.sort(x, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))
    print('sort ok', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort ok', 'RuntimeError', e)
except TypeError as e:
    print('sort ok', 'TypeError', e)
try:
    r = torch.sort(x, 1, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)))
    print('sort vd', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort vd', 'RuntimeError', e)
except TypeError as e:
    print('sort vd', 'TypeError', e)
try:
    r = torch.sort(x, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.int32)))
    print('sort id', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort id', 'RuntimeError', e)
except TypeError as e:
    print('sort id', 'TypeError', e)
try:
    r = torch.sort(x, 1, out=[torch.empty(0), torch.empty(0, dtype=torch.long)])
    print('sort list', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort list', 'RuntimeError', e)
except TypeError as e:
    print('sort list', 'TypeError', e)
try:
    r = torch.sort(x, 1, out=(torch.empty(0),))
    print('sort one', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort one', 'RuntimeError', e)
except TypeError as e:
    print('sort one', 'TypeError', e)
try:
    r = torch.sort(x, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long), torch.empty(0)))
    print('sort three', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort three', 'RuntimeError', e)
except TypeError as e:
    print('sort three', 'TypeError', e)
try:
    r = torch.sort(x, 1, out=(torch.empty(2, 3), torch.empty(2, 3, dtype=torch.long)))
    print('sort sizes', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort sizes', 'RuntimeError', e)
except TypeError as e:
    print('sort sizes', 'TypeError', e)
try:
    r = torch.sort(x, 1, out=(torch.zeros(2, 6)[:, ::2], torch.zeros(2, 6, dtype=torch.long)[:, ::2]))
    print('sort strided', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort strided', 'RuntimeError', e)
except TypeError as e:
    print('sort strided', 'TypeError', e)
try:
    r = torch.sort(x, 1, out=(torch.zeros(4)[::2], torch.zeros(4, dtype=torch.long)[::2]))
    print('sort strided1', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort strided1', 'RuntimeError', e)
except TypeError as e:
    print('sort strided1', 'TypeError', e)
try:
    r = torch.sort(x, 0, True, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))
    print('sort_desc ok', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort_desc ok', 'RuntimeError', e)
except TypeError as e:
    print('sort_desc ok', 'TypeError', e)
try:
    r = torch.sort(x, 0, True, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)))
    print('sort_desc vd', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort_desc vd', 'RuntimeError', e)
except TypeError as e:
    print('sort_desc vd', 'TypeError', e)
try:
    r = torch.sort(x, 0, True, out=(torch.empty(0), torch.empty(0, dtype=torch.int32)))
    print('sort_desc id', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort_desc id', 'RuntimeError', e)
except TypeError as e:
    print('sort_desc id', 'TypeError', e)
try:
    r = torch.sort(x, 0, True, out=[torch.empty(0), torch.empty(0, dtype=torch.long)])
    print('sort_desc list', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort_desc list', 'RuntimeError', e)
except TypeError as e:
    print('sort_desc list', 'TypeError', e)
try:
    r = torch.sort(x, 0, True, out=(torch.empty(0),))
    print('sort_desc one', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort_desc one', 'RuntimeError', e)
except TypeError as e:
    print('sort_desc one', 'TypeError', e)
try:
    r = torch.sort(x, 0, True, out=(torch.empty(0), torch.empty(0, dtype=torch.long), torch.empty(0)))
    print('sort_desc three', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort_desc three', 'RuntimeError', e)
except TypeError as e:
    print('sort_desc three', 'TypeError', e)
try:
    r = torch.sort(x, 0, True, out=(torch.empty(2, 3), torch.empty(2, 3, dtype=torch.long)))
    print('sort_desc sizes', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort_desc sizes', 'RuntimeError', e)
except TypeError as e:
    print('sort_desc sizes', 'TypeError', e)
try:
    r = torch.sort(x, 0, True, out=(torch.zeros(2, 6)[:, ::2], torch.zeros(2, 6, dtype=torch.long)[:, ::2]))
    print('sort_desc strided', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort_desc strided', 'RuntimeError', e)
except TypeError as e:
    print('sort_desc strided', 'TypeError', e)
try:
    r = torch.sort(x, 0, True, out=(torch.zeros(4)[::2], torch.zeros(4, dtype=torch.long)[::2]))
    print('sort_desc strided1', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('sort_desc strided1', 'RuntimeError', e)
except TypeError as e:
    print('sort_desc strided1', 'TypeError', e)
try:
    r = torch.topk(x, 2, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))
    print('topk ok', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('topk ok', 'RuntimeError', e)
except TypeError as e:
    print('topk ok', 'TypeError', e)
try:
    r = torch.topk(x, 2, 1, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)))
    print('topk vd', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('topk vd', 'RuntimeError', e)
except TypeError as e:
    print('topk vd', 'TypeError', e)
try:
    r = torch.topk(x, 2, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.int32)))
    print('topk id', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('topk id', 'RuntimeError', e)
except TypeError as e:
    print('topk id', 'TypeError', e)
try:
    r = torch.topk(x, 2, 1, out=[torch.empty(0), torch.empty(0, dtype=torch.long)])
    print('topk list', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('topk list', 'RuntimeError', e)
except TypeError as e:
    print('topk list', 'TypeError', e)
try:
    r = torch.topk(x, 2, 1, out=(torch.empty(0),))
    print('topk one', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('topk one', 'RuntimeError', e)
except TypeError as e:
    print('topk one', 'TypeError', e)
try:
    r = torch.topk(x, 2, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long), torch.empty(0)))
    print('topk three', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('topk three', 'RuntimeError', e)
except TypeError as e:
    print('topk three', 'TypeError', e)
try:
    r = torch.topk(x, 2, 1, out=(torch.empty(2, 3), torch.empty(2, 3, dtype=torch.long)))
    print('topk sizes', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('topk sizes', 'RuntimeError', e)
except TypeError as e:
    print('topk sizes', 'TypeError', e)
try:
    r = torch.topk(x, 2, 1, out=(torch.zeros(2, 6)[:, ::2], torch.zeros(2, 6, dtype=torch.long)[:, ::2]))
    print('topk strided', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('topk strided', 'RuntimeError', e)
except TypeError as e:
    print('topk strided', 'TypeError', e)
try:
    r = torch.topk(x, 2, 1, out=(torch.zeros(4)[::2], torch.zeros(4, dtype=torch.long)[::2]))
    print('topk strided1', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('topk strided1', 'RuntimeError', e)
except TypeError as e:
    print('topk strided1', 'TypeError', e)
try:
    r = torch.max(x, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))
    print('max ok', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max ok', 'RuntimeError', e)
except TypeError as e:
    print('max ok', 'TypeError', e)
try:
    r = torch.max(x, 1, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)))
    print('max vd', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max vd', 'RuntimeError', e)
except TypeError as e:
    print('max vd', 'TypeError', e)
try:
    r = torch.max(x, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.int32)))
    print('max id', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max id', 'RuntimeError', e)
except TypeError as e:
    print('max id', 'TypeError', e)
try:
    r = torch.max(x, 1, out=[torch.empty(0), torch.empty(0, dtype=torch.long)])
    print('max list', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max list', 'RuntimeError', e)
except TypeError as e:
    print('max list', 'TypeError', e)
try:
    r = torch.max(x, 1, out=(torch.empty(0),))
    print('max one', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max one', 'RuntimeError', e)
except TypeError as e:
    print('max one', 'TypeError', e)
try:
    r = torch.max(x, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.long), torch.empty(0)))
    print('max three', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max three', 'RuntimeError', e)
except TypeError as e:
    print('max three', 'TypeError', e)
try:
    r = torch.max(x, 1, out=(torch.empty(2, 3), torch.empty(2, 3, dtype=torch.long)))
    print('max sizes', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max sizes', 'RuntimeError', e)
except TypeError as e:
    print('max sizes', 'TypeError', e)
try:
    r = torch.max(x, 1, out=(torch.zeros(2, 6)[:, ::2], torch.zeros(2, 6, dtype=torch.long)[:, ::2]))
    print('max strided', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max strided', 'RuntimeError', e)
except TypeError as e:
    print('max strided', 'TypeError', e)
try:
    r = torch.max(x, 1, out=(torch.zeros(4)[::2], torch.zeros(4, dtype=torch.long)[::2]))
    print('max strided1', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max strided1', 'RuntimeError', e)
except TypeError as e:
    print('max strided1', 'TypeError', e)
try:
    r = torch.min(x, 0, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))
    print('min ok', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('min ok', 'RuntimeError', e)
except TypeError as e:
    print('min ok', 'TypeError', e)
try:
    r = torch.min(x, 0, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)))
    print('min vd', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('min vd', 'RuntimeError', e)
except TypeError as e:
    print('min vd', 'TypeError', e)
try:
    r = torch.min(x, 0, out=(torch.empty(0), torch.empty(0, dtype=torch.int32)))
    print('min id', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('min id', 'RuntimeError', e)
except TypeError as e:
    print('min id', 'TypeError', e)
try:
    r = torch.min(x, 0, out=[torch.empty(0), torch.empty(0, dtype=torch.long)])
    print('min list', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('min list', 'RuntimeError', e)
except TypeError as e:
    print('min list', 'TypeError', e)
try:
    r = torch.min(x, 0, out=(torch.empty(0),))
    print('min one', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('min one', 'RuntimeError', e)
except TypeError as e:
    print('min one', 'TypeError', e)
try:
    r = torch.min(x, 0, out=(torch.empty(0), torch.empty(0, dtype=torch.long), torch.empty(0)))
    print('min three', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('min three', 'RuntimeError', e)
except TypeError as e:
    print('min three', 'TypeError', e)
try:
    r = torch.min(x, 0, out=(torch.empty(2, 3), torch.empty(2, 3, dtype=torch.long)))
    print('min sizes', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('min sizes', 'RuntimeError', e)
except TypeError as e:
    print('min sizes', 'TypeError', e)
try:
    r = torch.min(x, 0, out=(torch.zeros(2, 6)[:, ::2], torch.zeros(2, 6, dtype=torch.long)[:, ::2]))
    print('min strided', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('min strided', 'RuntimeError', e)
except TypeError as e:
    print('min strided', 'TypeError', e)
try:
    r = torch.min(x, 0, out=(torch.zeros(4)[::2], torch.zeros(4, dtype=torch.long)[::2]))
    print('min strided1', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('min strided1', 'RuntimeError', e)
except TypeError as e:
    print('min strided1', 'TypeError', e)
try:
    r = torch.max(x, 1, keepdim=True, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))
    print('max_keep ok', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max_keep ok', 'RuntimeError', e)
except TypeError as e:
    print('max_keep ok', 'TypeError', e)
try:
    r = torch.max(x, 1, keepdim=True, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)))
    print('max_keep vd', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max_keep vd', 'RuntimeError', e)
except TypeError as e:
    print('max_keep vd', 'TypeError', e)
try:
    r = torch.max(x, 1, keepdim=True, out=(torch.empty(0), torch.empty(0, dtype=torch.int32)))
    print('max_keep id', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max_keep id', 'RuntimeError', e)
except TypeError as e:
    print('max_keep id', 'TypeError', e)
try:
    r = torch.max(x, 1, keepdim=True, out=[torch.empty(0), torch.empty(0, dtype=torch.long)])
    print('max_keep list', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max_keep list', 'RuntimeError', e)
except TypeError as e:
    print('max_keep list', 'TypeError', e)
try:
    r = torch.max(x, 1, keepdim=True, out=(torch.empty(0),))
    print('max_keep one', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max_keep one', 'RuntimeError', e)
except TypeError as e:
    print('max_keep one', 'TypeError', e)
try:
    r = torch.max(x, 1, keepdim=True, out=(torch.empty(0), torch.empty(0, dtype=torch.long), torch.empty(0)))
    print('max_keep three', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max_keep three', 'RuntimeError', e)
except TypeError as e:
    print('max_keep three', 'TypeError', e)
try:
    r = torch.max(x, 1, keepdim=True, out=(torch.empty(2, 3), torch.empty(2, 3, dtype=torch.long)))
    print('max_keep sizes', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max_keep sizes', 'RuntimeError', e)
except TypeError as e:
    print('max_keep sizes', 'TypeError', e)
try:
    r = torch.max(x, 1, keepdim=True, out=(torch.zeros(2, 6)[:, ::2], torch.zeros(2, 6, dtype=torch.long)[:, ::2]))
    print('max_keep strided', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max_keep strided', 'RuntimeError', e)
except TypeError as e:
    print('max_keep strided', 'TypeError', e)
try:
    r = torch.max(x, 1, keepdim=True, out=(torch.zeros(4)[::2], torch.zeros(4, dtype=torch.long)[::2]))
    print('max_keep strided1', type(r).__name__, r.values.tolist(), r.indices.tolist(), r.values.stride())
except RuntimeError as e:
    print('max_keep strided1', 'RuntimeError', e)
except TypeError as e:
    print('max_keep strided1', 'TypeError', e)
try:
    torch.topk(x, 1, out=torch.empty(0))
except TypeError as e:
    print(e)
vv = torch.zeros(2, 6)
ii = torch.zeros(2, 6, dtype=torch.long)
torch.sort(x, 1, out=(vv[:, 1::2], ii[:, ::2]))
print(vv, ii)
try:
    torch.sort(torch.ones(3, requires_grad=True), out=(torch.empty(0), torch.empty(0, dtype=torch.long)))
except RuntimeError as e:
    print(e)
