"""A custom autograd.Function (ctx, save_for_backward, apply) inside a model that is trained."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


class ScaledTanh(nn.Cell):
    def construct(self, x):
        y = ops.tanh(x)
        return 2 * y

    def bprop(self, x, out, grad_output):
        y = ops.tanh(x)
        return (grad_output * 2 * (1 - y * y),)


class Regressor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Dense(3, 8)
        self.out = nn.Dense(8, 1)

    def construct(self, x):
        return self.out(ScaledTanh()(self.hidden(x)))


rng = np.random.default_rng(3)
x = mindspore.tensor(rng.standard_normal((16, 3)), dtype=mindspore.float32)
y = mindspore.tensor(rng.standard_normal((16, 1)), dtype=mindspore.float32)

mindspore.set_seed(0)
model = Regressor()
optimizer = optim.Adam(model.trainable_params(), lr=0.01)
def forward_fn():
    loss = ops.mean((model(x) - y) ** 2)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(4):
    loss, grads = grad_fn()
    optimizer(grads)
    print("step", step, "loss", loss.item())
