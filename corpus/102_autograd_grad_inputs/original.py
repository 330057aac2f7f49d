# torch.autograd.grad with several inputs, one of them unused (allow_unused=True).
import numpy as np
import torch
from torch import autograd


def partials(x, y, bias):
    x = x.requires_grad_()
    y = y.requires_grad_()
    bias = bias.requires_grad_()
    f = (x * y).sum() + torch.exp(x).mean()
    gx, gy, gb = autograd.grad(f, [x, y, bias], allow_unused=True)
    return f, gx, gy, gb


x = torch.tensor(np.array([0.5, -1.0, 2.0], dtype=np.float32))
y = torch.tensor(np.array([1.5, 0.25, -0.5], dtype=np.float32))
f, gx, gy, gb = partials(x, y, torch.tensor(1.0))
print("f", f)
print("df/dx", gx)
print("df/dy", gy)
print("df/dbias is None", gb is None)
