# A vector-Jacobian product through backward(gradient) inside a class method.
import numpy as np
import mindspore
from mindspore import ops


class Field:
    def __init__(self, scale):
        self.scale = scale

    def pullback(self, points, weights):
        points = ops.stop_gradient(points)
        def values_fn(points):
            values = ops.sin(points) * self.scale + points ** 2
            return values
        values, values_vjp = mindspore.vjp(values_fn, points)
        (points_grad,) = values_vjp(weights)
        return ops.stop_gradient(values), points_grad


field = Field(3.0)
pts = mindspore.tensor(np.linspace(-1.0, 1.0, 5, dtype=np.float32))
wts = mindspore.tensor(np.array([1.0, 0.5, -1.0, 2.0, 0.25], dtype=np.float32))
vals, grads = field.pullback(pts, wts)
print("values", vals)
print("vjp", grads)
