"""Weights initialised with model.apply(init_fn) and nn.init, trained with a cosine schedule."""

import math

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


def init_weights(module):
    if isinstance(module, nn.Dense):
        module.weight.set_data(mindspore.common.initializer.initializer(mindspore.common.initializer.XavierUniform(), module.weight.shape, module.weight.dtype))
        module.bias.set_data(mindspore.common.initializer.initializer(mindspore.common.initializer.Constant(value=0.01), module.bias.shape, module.bias.dtype))


rng = np.random.default_rng(21)
x = mindspore.tensor(rng.standard_normal((12, 3)), dtype=mindspore.float32)
y = mindspore.tensor(np.sin(rng.standard_normal((12, 1))), dtype=mindspore.float32)

mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(3, 8), nn.Tanh(), nn.Dense(8, 1))
model.apply(init_weights)
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=4)
def forward_fn():
    loss = ops.mse_loss(model(x), y)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for epoch in range(4):
    loss, grads = grad_fn()
    optimizer(grads)
    scheduler.step()
    print("epoch", epoch, "loss", loss.item(), "lr", scheduler.get_last_lr()[0])
print("expected final lr", 0.05 * (1 + math.cos(math.pi * 4 / 4)))
