"""Grad mode switched by statements, and a leaf updated in place between forward passes."""

import torch


def scores(weights, inputs):
    return (weights * inputs).sum()


weights = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
inputs = torch.tensor([1.0, 2.0, 3.0])

torch.set_grad_enabled(False)
frozen = scores(weights, inputs)
print("frozen score", frozen.item())
torch.set_grad_enabled(True)

total = scores(weights, inputs)
total.backward()
print("first grad", weights.grad.tolist())
with torch.no_grad():
    weights.mul_(0.5)
weights.grad = None
again = scores(weights, inputs) ** 2
again.backward()
print("second grad", weights.grad.tolist())
