# Linear regression by hand: backward, an update under no_grad, and zeroed gradients.
import numpy as np
import torch

X = torch.tensor(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32))
y = torch.tensor(np.array([1.0, 2.0, 3.0], dtype=np.float32))
w = torch.zeros(2, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.01
for epoch in range(5):
    pred = X @ w + b
    loss = ((pred - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    print("epoch", epoch, "loss", loss.item())
print("w", w)
print("b", b)
