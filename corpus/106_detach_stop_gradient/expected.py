# detach() cuts a value out of the gradient: d(x * stop(x))/dx = stop(x).
import numpy as np
import mindspore
from mindspore import ops

x = mindspore.tensor(np.array([1.0, -2.0, 3.0], dtype=np.float32))
def loss_fn(x):
    target = ops.stop_gradient(x * 2.0)
    loss = ((x - target) ** 2).sum() + (x * ops.stop_gradient(x)).sum()
    return loss, target
(loss, target), x_grad = mindspore.value_and_grad(loss_fn, grad_position=0, has_aux=True)(x)
print("loss", loss)
print("x.grad", x_grad)
