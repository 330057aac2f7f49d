# A vector-Jacobian product through backward(gradient) inside a class method.
import numpy as np
import torch


class Field:
    def __init__(self, scale):
        self.scale = scale

    def pullback(self, points, weights):
        points = points.detach().requires_grad_()
        values = torch.sin(points) * self.scale + points ** 2
        values.backward(weights)
        return values.detach(), points.grad


field = Field(3.0)
pts = torch.tensor(np.linspace(-1.0, 1.0, 5, dtype=np.float32))
wts = torch.tensor(np.array([1.0, 0.5, -1.0, 2.0, 0.25], dtype=np.float32))
vals, grads = field.pullback(pts, wts)
print("values", vals)
print("vjp", grads)
