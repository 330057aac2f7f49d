"""Gradient clipping by value through hooks registered once on every parameter."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

CLIP_VALUE = 0.5

rng = np.random.default_rng(33)
inputs = mindspore.tensor(rng.standard_normal((16, 4)), dtype=mindspore.float32)
targets = mindspore.tensor(rng.standard_normal((16, 2)), dtype=mindspore.float32)

mindspore.manual_seed(0)
model = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2))
for p in model.trainable_params():
    p.register_hook(lambda grad: ops.clamp(grad, -CLIP_VALUE, CLIP_VALUE))

optimizer = optim.SGD(model.trainable_params(), lr=0.1)
criterion = nn.MSELoss()
for epoch in range(3):
    import torch
    # torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets)
    # torch2ms: TM922 gradient hooks (`register_hook` at line 16) change what `.grad` receives; the training step is left unconverted
    loss.backward()
    optimizer.step()
    print("epoch", epoch, "loss", loss.item())
