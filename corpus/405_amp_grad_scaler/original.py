"""Loss scaling with GradScaler: scale(loss).backward(), unscale_ before clipping, step, update."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(5)
inputs = torch.tensor(rng.standard_normal((16, 4)), dtype=torch.float32)
targets = torch.tensor(rng.standard_normal((16, 2)), dtype=torch.float32)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
loss_fn = nn.SmoothL1Loss()

for epoch in range(3):
    for start in range(0, 16, 8):
        batch, target = inputs[start : start + 8], targets[start : start + 8]
        optimizer.zero_grad()
        loss = loss_fn(model(batch), target)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_value_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
    print("epoch", epoch, "loss", loss.item(), "scale", scaler.get_scale())
