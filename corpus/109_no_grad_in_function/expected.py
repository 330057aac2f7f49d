# no_grad inside a function that is differentiated: the value computed there is a constant.
import numpy as np
import mindspore
from mindspore import ops


def scaled_loss(x):
    scale = ops.stop_gradient(x.abs().max())
    return (x / scale).pow(2).sum()


x = mindspore.tensor(np.array([0.5, -2.0, 1.0], dtype=np.float32))
def forward_fn(x):
    return scaled_loss(x)
(g,) = (mindspore.grad(forward_fn, grad_position=0)(x),)
print("grad", g)
