# Gradient descent written as a function, with `import torch as T` and requires_grad_().
import numpy as np
import torch as T


def fit(xs, ys, steps=4, lr=0.05):
    slope = T.zeros(1).requires_grad_()
    intercept = T.zeros(1).requires_grad_()
    history = []
    for _ in range(steps):
        residual = slope * xs + intercept - ys
        loss = (residual ** 2).mean()
        loss.backward()
        with T.no_grad():
            slope -= lr * slope.grad
            intercept -= lr * intercept.grad
        slope.grad = None
        intercept.grad = None
        history.append(loss.item())
    return slope, intercept, history


xs = T.tensor(np.array([0.0, 1.0, 2.0, 3.0], dtype=np.float32))
ys = T.tensor(np.array([1.0, 3.0, 5.0, 7.0], dtype=np.float32))
slope, intercept, history = fit(xs, ys)
print("slope", slope)
print("intercept", intercept)
print("history", history)
