"""A plain training loop converted in the TrainOneStepCell style (--style cell)."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

rng = np.random.default_rng(20)
inputs = mindspore.tensor(rng.standard_normal((16, 4)), dtype=mindspore.float32)
targets = mindspore.tensor(rng.standard_normal((16, 1)), dtype=mindspore.float32)

mindspore.set_seed(0)
network = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 1))
loss_fn = nn.MSELoss()
optimizer = optim.SGD(network.trainable_params(), lr=0.05, momentum=0.9)
train_net = nn.TrainOneStepCell(nn.WithLossCell(network, loss_fn), optimizer)
for epoch in range(4):
    loss = train_net(inputs, targets)
    print("epoch", epoch, "loss", loss.item())
