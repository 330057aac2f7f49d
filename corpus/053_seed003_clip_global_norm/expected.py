"""Seed 003: clipping the gradients by their global norm between backward and the update."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(3)
net = nn.SequentialCell(nn.Dense(5, 16), nn.ReLU(), nn.Dense(16, 2))
for p in net.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)), dtype=mindspore.float32))
loss_fn = nn.MSELoss()
optimizer = optim.Adam(net.trainable_params(), lr=0.05)
batches = [
    (mindspore.tensor(rng.standard_normal((8, 5)) * 3.0, dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((8, 2)), dtype=mindspore.float32))
    for _ in range(5)
]

def forward_fn(x, y):
    loss = loss_fn(net(x), y)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step, (x, y) in enumerate(batches):
    loss, grads = grad_fn(x, y)
    grads = ops.clip_by_global_norm(grads, 1.0)
    optimizer(grads)
    print("step", step, "loss", loss.item())

print("final", [p.sum().item() for p in net.trainable_params()])
