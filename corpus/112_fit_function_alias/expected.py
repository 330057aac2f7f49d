# Gradient descent written as a function, with `import torch as T` and requires_grad_().
import numpy as np
import mindspore
from mindspore import ops


def fit(xs, ys, steps=4, lr=0.05):
    slope = ops.zeros(1)
    intercept = ops.zeros(1)
    history = []
    def loss_fn(slope, intercept):
        residual = slope * xs + intercept - ys
        loss = (residual ** 2).mean()
        return loss
    for _ in range(steps):
        loss, (slope_grad, intercept_grad) = mindspore.value_and_grad(loss_fn, grad_position=(0, 1))(slope, intercept)
        slope -= lr * slope_grad
        intercept -= lr * intercept_grad
        history.append(loss.item())
    return slope, intercept, history


xs = mindspore.tensor(np.array([0.0, 1.0, 2.0, 3.0], dtype=np.float32))
ys = mindspore.tensor(np.array([1.0, 3.0, 5.0, 7.0], dtype=np.float32))
slope, intercept, history = fit(xs, ys)
print("slope", slope)
print("intercept", intercept)
print("history", history)
