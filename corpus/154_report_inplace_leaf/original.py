# An in-place update of a leaf before its gradient is taken: reported (TM914).
import torch


def shifted(x):
    x.requires_grad_()
    x += 1.0
    loss = (x * x).sum()
    loss.backward()
    return x.grad
