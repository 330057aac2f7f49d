"""CosineAnnealingLR per step and ReduceLROnPlateau on the epoch loss."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(34)
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

cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=6, eta_min=0.01)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=0)
for epoch in range(3):
    total = 0.0
    for data, target in loader:
        optimizer.zero_grad()
        loss = criterion(model(data), target)
        loss.backward()
        optimizer.step()
        cosine.step()
        total += loss.item()
    plateau.step(total)
    print("epoch", epoch, "loss", total, "lr", float(optimizer.param_groups[0]["lr"]))

print("final", [p.sum().item() for p in model.parameters()])
