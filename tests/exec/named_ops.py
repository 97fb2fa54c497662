# named tensors through tlab exec: results, names and error texts
import torch
x = torch.zeros(2, 3, 4, names=('N', 'C', 'W')) + torch.arange(24.).reshape(2, 3, 4)
try:
    print('x.names', '->', x.names)
except Exception as e:
    print('x.names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.sum('C').names", '->', x.sum('C').names)
except Exception as e:
    print("x.sum('C').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("torch.sum(x, 'C').names", '->', torch.sum(x, 'C').names)
except Exception as e:
    print("torch.sum(x, 'C').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.mean('W').names", '->', x.mean('W').names)
except Exception as e:
    print("x.mean('W').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("torch.mean(x, 'W').names", '->', torch.mean(x, 'W').names)
except Exception as e:
    print("torch.mean(x, 'W').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.sum(('C', 'W')).names", '->', x.sum(('C', 'W')).names)
except Exception as e:
    print("x.sum(('C', 'W')).names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.size('C')", '->', x.size('C'))
except Exception as e:
    print("x.size('C')", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.stride('W')", '->', x.stride('W'))
except Exception as e:
    print("x.stride('W')", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.dim()', '->', x.dim())
except Exception as e:
    print('x.dim()', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.argmax('C').names", '->', x.argmax('C').names)
except Exception as e:
    print("x.argmax('C').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.amax('C').names", '->', x.amax('C').names)
except Exception as e:
    print("x.amax('C').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.max('C')[0].names", '->', x.max('C')[0].names)
except Exception as e:
    print("x.max('C')[0].names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.min('C').values.names", '->', x.min('C').values.names)
except Exception as e:
    print("x.min('C').values.names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.unsqueeze(0).names', '->', x.unsqueeze(0).names)
except Exception as e:
    print('x.unsqueeze(0).names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.chunk(2, 'W')[1].names", '->', x.chunk(2, 'W')[1].names)
except Exception as e:
    print("x.chunk(2, 'W')[1].names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.flatten(['C', 'W'], 'CW').names", '->', x.flatten(['C', 'W'], 'CW').names)
except Exception as e:
    print("x.flatten(['C', 'W'], 'CW').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.unflatten('W', (('W1', 2), ('W2', 2))).names", '->', x.unflatten('W', (('W1', 2), ('W2', 2))).names)
except Exception as e:
    print("x.unflatten('W', (('W1', 2), ('W2', 2))).names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.transpose('C', 'W').names", '->', x.transpose('C', 'W').names)
except Exception as e:
    print("x.transpose('C', 'W').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.align_to('W', ...).names", '->', x.align_to('W', ...).names)
except Exception as e:
    print("x.align_to('W', ...).names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.align_to('W', 'C', 'N').stride()", '->', x.align_to('W', 'C', 'N').stride())
except Exception as e:
    print("x.align_to('W', 'C', 'N').stride()", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("(x @ torch.ones(4, 2, names=('W', 'K'))).names", '->', (x @ torch.ones(4, 2, names=('W', 'K'))).names)
except Exception as e:
    print("(x @ torch.ones(4, 2, names=('W', 'K'))).names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.matmul(torch.ones(4)).names', '->', x.matmul(torch.ones(4)).names)
except Exception as e:
    print('x.matmul(torch.ones(4)).names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('torch.matmul(x, torch.ones(4, 5)).names', '->', torch.matmul(x, torch.ones(4, 5)).names)
except Exception as e:
    print('torch.matmul(x, torch.ones(4, 5)).names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.cumsum('W').names", '->', x.cumsum('W').names)
except Exception as e:
    print("x.cumsum('W').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.refine_names('N', ...).names", '->', x.refine_names('N', ...).names)
except Exception as e:
    print("x.refine_names('N', ...).names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.rename(None).names', '->', x.rename(None).names)
except Exception as e:
    print('x.rename(None).names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.rename(C='D').names", '->', x.rename(C='D').names)
except Exception as e:
    print("x.rename(C='D').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.select('C', 0).names", '->', x.select('C', 0).names)
except Exception as e:
    print("x.select('C', 0).names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.index_select('C', torch.tensor([0, 2])).names", '->', x.index_select('C', torch.tensor([0, 2])).names)
except Exception as e:
    print("x.index_select('C', torch.tensor([0, 2])).names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.t()', '->', x.t())
except Exception as e:
    print('x.t()', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x[0].names', '->', x[0].names)
except Exception as e:
    print('x[0].names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x[:, 1].names', '->', x[:, 1].names)
except Exception as e:
    print('x[:, 1].names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x[..., :2].names', '->', x[..., :2].names)
except Exception as e:
    print('x[..., :2].names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('(x > 3).names', '->', (x > 3).names)
except Exception as e:
    print('(x > 3).names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.abs().names', '->', x.abs().names)
except Exception as e:
    print('x.abs().names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.float().names', '->', x.float().names)
except Exception as e:
    print('x.float().names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.contiguous().names', '->', x.contiguous().names)
except Exception as e:
    print('x.contiguous().names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.clone().names', '->', x.clone().names)
except Exception as e:
    print('x.clone().names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.view(24)', '->', x.view(24))
except Exception as e:
    print('x.view(24)', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.reshape(24)', '->', x.reshape(24))
except Exception as e:
    print('x.reshape(24)', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.permute(2, 0, 1).names', '->', x.permute(2, 0, 1).names)
except Exception as e:
    print('x.permute(2, 0, 1).names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.expand(2, 3, 4).names', '->', x.expand(2, 3, 4).names)
except Exception as e:
    print('x.expand(2, 3, 4).names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("torch.cat([x, x], 'C').names", '->', torch.cat([x, x], 'C').names)
except Exception as e:
    print("torch.cat([x, x], 'C').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('torch.stack([x, x]).names', '->', torch.stack([x, x]).names)
except Exception as e:
    print('torch.stack([x, x]).names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.size(None)', '->', x.size(None))
except Exception as e:
    print('x.size(None)', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.align_as(torch.zeros(4, 3, 2, names=('W', 'C', 'N'))).names", '->', x.align_as(torch.zeros(4, 3, 2, names=('W', 'C', 'N'))).names)
except Exception as e:
    print("x.align_as(torch.zeros(4, 3, 2, names=('W', 'C', 'N'))).names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.std('W').names", '->', x.std('W').names)
except Exception as e:
    print("x.std('W').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.prod('W').names", '->', x.prod('W').names)
except Exception as e:
    print("x.prod('W').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.all('W').names", '->', x.all('W').names)
except Exception as e:
    print("x.all('W').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.sort('W')[0].names", '->', x.sort('W')[0].names)
except Exception as e:
    print("x.sort('W')[0].names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.topk(2, 'W').values.names", '->', x.topk(2, 'W').values.names)
except Exception as e:
    print("x.topk(2, 'W').values.names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.unbind('C')[0].names", '->', x.unbind('C')[0].names)
except Exception as e:
    print("x.unbind('C')[0].names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.var('W').names", '->', x.var('W').names)
except Exception as e:
    print("x.var('W').names", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.masked_fill(x > 3, 0.).names', '->', x.masked_fill(x > 3, 0.).names)
except Exception as e:
    print('x.masked_fill(x > 3, 0.).names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.mul_(2).names', '->', x.mul_(2).names)
except Exception as e:
    print('x.mul_(2).names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print('x.zero_().names', '->', x.zero_().names)
except Exception as e:
    print('x.zero_().names', '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x + torch.ones(2, 3, 4, names=('N', 'D', 'W'))", '->', x + torch.ones(2, 3, 4, names=('N', 'D', 'W')))
except Exception as e:
    print("x + torch.ones(2, 3, 4, names=('N', 'D', 'W'))", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.align_to('N', 'Q')", '->', x.align_to('N', 'Q'))
except Exception as e:
    print("x.align_to('N', 'Q')", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.rename('A', 'A', 'B')", '->', x.rename('A', 'A', 'B'))
except Exception as e:
    print("x.rename('A', 'A', 'B')", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("torch.zeros(2, names=('a', 'a'))", '->', torch.zeros(2, names=('a', 'a')))
except Exception as e:
    print("torch.zeros(2, names=('a', 'a'))", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.sum('Q')", '->', x.sum('Q'))
except Exception as e:
    print("x.sum('Q')", '-> ' + type(e).__name__ + ': ' + str(e))
try:
    print("x.refine_names('A', 'B', 'C')", '->', x.refine_names('A', 'B', 'C'))
except Exception as e:
    print("x.refine_names('A', 'B', 'C')", '-> ' + type(e).__name__ + ': ' + str(e))
