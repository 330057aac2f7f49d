# no_grad inside a function that is differentiated: the value computed there is a constant.
import numpy as np
import torch


def scaled_loss(x):
    with torch.no_grad():
        scale = x.abs().max()
    return (x / scale).pow(2).sum()


x = torch.tensor(np.array([0.5, -2.0, 1.0], dtype=np.float32), requires_grad=True)
(g,) = torch.autograd.grad(scaled_loss(x), x)
print("grad", g)
