"""StepLR and ExponentialLR stepped once per epoch."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(33)
model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loader = [
    (torch.tensor(rng.standard_normal((4, 5)), dtype=torch.float32), torch.tensor(rng.standard_normal((4, 2)), dtype=torch.float32))
    for _ in range(6)
]

from torch.optim.lr_scheduler import ExponentialLR, StepLR

scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
for epoch in range(4):
    for data, target in loader[:3]:
        optimizer.zero_grad()
        loss = criterion(model(data), target)
        loss.backward()
        optimizer.step()
    scheduler.step()
    print("epoch", epoch, "loss", loss.item(), "lr", scheduler.get_last_lr()[0])
optimizer2 = torch.optim.SGD(model.parameters(), lr=0.05)
decay = ExponentialLR(optimizer2, gamma=0.7)
for epoch in range(3):
    for data, target in loader[3:]:
        optimizer2.zero_grad()
        loss = criterion(model(data), target)
        loss.backward()
        optimizer2.step()
    decay.step()
    print("epoch", epoch, "loss", loss.item(), "lr", decay.get_last_lr()[0])

print("final", [p.sum().item() for p in model.parameters()])
