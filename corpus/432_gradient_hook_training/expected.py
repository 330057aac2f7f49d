"""A gradient hook on a parameter scales its gradient during training (a per-layer learning rate trick)."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(32)
x = mindspore.tensor(rng.standard_normal((8, 3)), dtype=mindspore.float32)
y = mindspore.tensor(rng.standard_normal((8, 1)), dtype=mindspore.float32)

mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 1))
model[0].weight.register_hook(lambda grad: grad * 0.1)
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
def forward_fn():
    loss = ops.mse_loss(model(x), y)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(3):
    loss, grads = grad_fn()
    optimizer(grads)
    print("step", step, "loss", loss.item())
