"""Seed 003 with --style cell: a plain training loop becomes nn.TrainOneStepCell(nn.WithLossCell(...))."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

rng = np.random.default_rng(5)
net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2))
for p in net.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
loss_fn = nn.MSELoss()
optimizer = optim.SGD(net.trainable_params(), lr=0.05, momentum=0.9)
dataset = [
    (mindspore.tensor(rng.standard_normal((6, 4)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((6, 2)), dtype=mindspore.float32))
    for _ in range(5)
]

train_net = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer)
for epoch in range(2):
    for data, label in dataset:
        loss = train_net(data, label)
    print("epoch", epoch, "loss", loss.item())

print("final", [p.sum().item() for p in net.trainable_params()])
