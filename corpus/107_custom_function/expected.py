# A custom autograd.Function with a hand-written backward (a straight-through clamp).
import numpy as np
import mindspore
from mindspore import nn


class StraightThroughClamp(nn.Cell):
    def construct(self, x, limit):
        return x.clamp(-limit, limit)

    def bprop(self, x, limit, out, grad_output):
        # pass the gradient through, damped outside the range
        inside = (x.abs() <= limit).float()
        return grad_output * (inside + 0.1 * (1.0 - inside)), None


class Exp(nn.Cell):
    def construct(self, x):
        result = x.exp()
        return result

    def bprop(self, x, out, grad_output):
        (result,) = (out,)
        return (grad_output * result,)


def objective(x):
    clamped = StraightThroughClamp()(x, 1.0)
    return (Exp()(clamped) * 2.0).sum()


x = mindspore.tensor(np.array([-2.0, -0.5, 0.3, 1.5], dtype=np.float32))
def value_fn(x):
    value = objective(x)
    return value
value, x_grad = mindspore.value_and_grad(value_fn, grad_position=0)(x)
print("value", value)
print("grad", x_grad)
