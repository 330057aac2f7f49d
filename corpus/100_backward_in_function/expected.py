# Gradient of a small quadratic form, written as a helper function with `import torch as T`.
import numpy as np
import mindspore


def quadratic_and_grad(w_init, a, b):
    w = mindspore.tensor(w_init)
    c = mindspore.tensor(0.5)
    def energy_fn(w, c):
        residual = a @ w - b
        energy = (residual ** 2).sum() * c
        return energy
    energy, (w_grad, c_grad) = mindspore.value_and_grad(energy_fn, grad_position=(0, 1))(w, c)
    return energy.item(), w_grad, c_grad


a = mindspore.tensor(np.array([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]], dtype=np.float32))
b = mindspore.tensor(np.array([1.0, 0.0, 2.0], dtype=np.float32))
energy, gw, gc = quadratic_and_grad(np.array([0.3, -0.2], dtype=np.float32), a, b)
print("energy", energy)
print("grad w", gw)
print("grad c", gc)
