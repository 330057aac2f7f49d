# Gradient of a small quadratic form, written as a helper function with `import torch as T`.
import numpy as np
import torch as T


def quadratic_and_grad(w_init, a, b):
    w = T.tensor(w_init, requires_grad=True)
    c = T.tensor(0.5, requires_grad=True)
    residual = a @ w - b
    energy = (residual ** 2).sum() * c
    energy.backward()
    return energy.item(), w.grad, c.grad


a = T.tensor(np.array([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]], dtype=np.float32))
b = T.tensor(np.array([1.0, 0.0, 2.0], dtype=np.float32))
energy, gw, gc = quadratic_and_grad(np.array([0.3, -0.2], dtype=np.float32), a, b)
print("energy", energy)
print("grad w", gw)
print("grad c", gc)
