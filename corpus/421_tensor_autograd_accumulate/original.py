"""Tensor-level autograd in a helper: two backwards accumulate into .grad until it is reset."""

import torch


def fit_line(xs, ys, steps, lr):
    w = torch.tensor(0.5, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    for _ in range(steps):
        prediction = w * xs + b
        loss = ((prediction - ys) ** 2).mean()
        regulariser = 0.1 * w**2
        loss.backward()
        regulariser.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    return w, b, loss


xs = torch.tensor([0.0, 1.0, 2.0, 3.0])
ys = torch.tensor([1.0, 2.9, 5.1, 7.0])
w, b, loss = fit_line(xs, ys, steps=20, lr=0.05)
print("w", w.item(), "b", b.item(), "loss", loss.item())
