"""Seed 003 with --style cell: clipping by the global norm between backward and step becomes a custom
training cell (TrainOneStepCell with ops.clip_by_global_norm on the gradients)."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(6)
net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2))
for p in net.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)), dtype=mindspore.float32))
loss_fn = nn.MSELoss()
optimizer = optim.SGD(net.trainable_params(), lr=0.05, momentum=0.9)
dataset = [
    (mindspore.tensor(rng.standard_normal((6, 4)) * 3.0, dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((6, 2)), dtype=mindspore.float32))
    for _ in range(5)
]

class TrainOneStepWithClipCell(nn.TrainOneStepCell):
    def __init__(self, network, optimizer, max_norm):
        super().__init__(network, optimizer)
        self.max_norm = max_norm

    def construct(self, *inputs):
        loss, grads = mindspore.value_and_grad(self.network, None, self.weights)(*inputs)
        grads = ops.clip_by_global_norm(grads, self.max_norm)
        self.optimizer(grads)
        return loss
train_net = TrainOneStepWithClipCell(nn.WithLossCell(net, loss_fn), optimizer, 0.5)
for step, (data, label) in enumerate(dataset):
    loss = train_net(data, label)
    print("step", step, "loss", loss.item())

print("final", [p.sum().item() for p in net.trainable_params()])
