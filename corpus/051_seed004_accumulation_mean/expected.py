"""Seed 004: gradient accumulation with reduction='mean' (the loss divided by the number of steps)."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(1)
model = nn.SequentialCell(nn.Dense(6, 8), nn.Tanh(), nn.Dense(8, 3))
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.4, dtype=mindspore.float32))
criterion = nn.MSELoss(reduction="mean")
optimizer = optim.SGD(model.trainable_params(), lr=0.2)
train_loader = [
    (mindspore.tensor(rng.standard_normal((4, 6)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 3)), dtype=mindspore.float32))
    for _ in range(8)
]
gradient_accumulation_steps = 4

def forward_fn(images, target):
    # 1. input output
    outputs = model(images)
    loss = criterion(outputs, target)

    # 2.1 loss regularization
    loss = loss / gradient_accumulation_steps
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
for i, (images, target) in enumerate(train_loader):
    # 1. input output

    # 2.1 loss regularization
    loss, grads = grad_fn(images, target)
    accum_grads = tuple(map(ops.add, accum_grads, grads))
    # 3. update parameters of net
    if ((i + 1) % gradient_accumulation_steps) == 0:
        optimizer(accum_grads)
        accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
    print("micro-batch", i, "loss", loss.item())

print("final", [p.sum().item() for p in model.trainable_params()])
