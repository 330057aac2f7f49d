# torch.autograd.grad with several inputs, one of them unused (allow_unused=True).
import numpy as np
import mindspore
from mindspore import ops


def partials(x, y, bias):
    def f_fn(x, y):
        f = (x * y).sum() + ops.exp(x).mean()
        return f
    f, f_grads = mindspore.value_and_grad(f_fn, grad_position=(0, 1))(x, y)
    gx, gy, gb = (f_grads[0], f_grads[1], None)
    return f, gx, gy, gb


x = mindspore.tensor(np.array([0.5, -1.0, 2.0], dtype=np.float32))
y = mindspore.tensor(np.array([1.5, 0.25, -0.5], dtype=np.float32))
f, gx, gy, gb = partials(x, y, mindspore.tensor(1.0))
print("f", f)
print("df/dx", gx)
print("df/dy", gy)
print("df/dbias is None", gb is None)
