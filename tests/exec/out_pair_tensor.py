# torch.sort/kthvalue/max/min given one tensor as out=: the argument parser's
# TypeError (they take a tuple of two); max(x, x, out=) is left out
import torch
x = torch.tensor([3., 1, 2])
o = torch.empty(3)
for k in range(6):
    try:
        if k == 0: r = torch.sort(x, out=o)
        if k == 1: r = torch.sort(x, 0, out=o)
        if k == 2: r = torch.kthvalue(x, 1, out=o)
        if k == 3: r = torch.kthvalue(x, 1, 0, out=o)
        if k == 4: r = torch.max(x, 0, out=o)
        if k == 5: r = torch.min(x, out=o)
        print(k, 'ok', r)
    except Exception as e:
        print(k, type(e).__name__, e)
        print('---')
