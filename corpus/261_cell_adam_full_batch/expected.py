"""--style cell on the simplest loop: Adam, one Linear layer, inputs bound once before the loop and
the loss written as criterion(model(x), y)."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

rng = np.random.default_rng(261)
model = nn.Dense(4, 2)
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
opt = optim.Adam(model.trainable_params(), lr=1e-2)
loss_fn = nn.MSELoss()
x = mindspore.tensor(rng.standard_normal((8, 4)), dtype=mindspore.float32); y = mindspore.tensor(rng.standard_normal((8, 2)), dtype=mindspore.float32)
train_net = nn.TrainOneStepCell(nn.WithLossCell(model, loss_fn), opt)
for step in range(3):
    loss = train_net(x, y)
    print("step", step, "loss", loss.item())
print("final", [p.sum().item() for p in model.trainable_params()])
