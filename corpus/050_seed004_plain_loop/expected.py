"""Seed 004: the traditional training loop (zero_grad, backward, step every batch)."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

rng = np.random.default_rng(0)
model = nn.SequentialCell(nn.Dense(6, 8), nn.Tanh(), nn.Dense(8, 3))
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.4, dtype=mindspore.float32))
criterion = nn.MSELoss()
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
train_loader = [
    (mindspore.tensor(rng.standard_normal((4, 6)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 3)), dtype=mindspore.float32))
    for _ in range(5)
]

def forward_fn(images, target):
    # 1. input output
    outputs = model(images)
    loss = criterion(outputs, target)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for i, (images, target) in enumerate(train_loader):
    # 1. input output
    loss, grads = grad_fn(images, target)

    # 2. backward
    optimizer(grads)
    print("step", i, "loss", loss.item())

print("final", [p.sum().item() for p in model.trainable_params()])
