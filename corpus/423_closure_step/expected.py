"""optimizer.step(closure): the closure re-evaluates the loss, as LBFGS-style code is written."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

rng = np.random.default_rng(24)
x = mindspore.tensor(rng.standard_normal((10, 2)), dtype=mindspore.float32)
y = mindspore.tensor(rng.standard_normal((10, 1)), dtype=mindspore.float32)

mindspore.set_seed(0)
model = nn.Dense(2, 1)
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
criterion = nn.MSELoss()


def closure():
    import torch
    # torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    # torch2ms: TM921 this backward() runs inside an optimizer closure (`optimizer.step(closure)`, LBFGS); the training step is left unconverted
    loss.backward()
    return loss


for step in range(4):
    loss = optimizer.step(closure)
    print("step", step, "loss", loss.item())
