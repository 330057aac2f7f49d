# grad_outputs: the vector-Jacobian product of a vector-valued function.
import numpy as np
import mindspore

x = mindspore.tensor(np.array([1.0, 2.0, 3.0], dtype=np.float32))
v = mindspore.tensor(np.array([1.0, 0.1, 0.01], dtype=np.float32))
def y_fn(x):
    y = x ** 3 - 2.0 * x
    return y
y, y_vjp = mindspore.vjp(y_fn, x)
(vjp,) = y_vjp(v)
print("y", y)
print("vjp", vjp)
