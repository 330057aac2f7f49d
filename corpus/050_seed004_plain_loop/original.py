"""Seed 004: the traditional training loop (zero_grad, backward, step every batch)."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)
model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.4, dtype=torch.float32))
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
train_loader = [
    (torch.tensor(rng.standard_normal((4, 6)), dtype=torch.float32), torch.tensor(rng.standard_normal((4, 3)), dtype=torch.float32))
    for _ in range(5)
]

for i, (images, target) in enumerate(train_loader):
    # 1. input output
    outputs = model(images)
    loss = criterion(outputs, target)

    # 2. backward
    optimizer.zero_grad()  # reset gradient
    loss.backward()
    optimizer.step()
    print("step", i, "loss", loss.item())

print("final", [p.sum().item() for p in model.parameters()])
