"""Gradient clipping by value through hooks registered once on every parameter."""

import numpy as np
import torch
import torch.nn as nn

CLIP_VALUE = 0.5

rng = np.random.default_rng(33)
inputs = torch.tensor(rng.standard_normal((16, 4)), dtype=torch.float32)
targets = torch.tensor(rng.standard_normal((16, 2)), dtype=torch.float32)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
for p in model.parameters():
    p.register_hook(lambda grad: torch.clamp(grad, -CLIP_VALUE, CLIP_VALUE))

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()
for epoch in range(3):
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()
    print("epoch", epoch, "loss", loss.item())
