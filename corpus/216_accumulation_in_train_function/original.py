"""Seed 004's accumulation inside a train() function called once per epoch (the step count divides
the number of micro-batches, so no gradient is left over between calls)."""

import numpy as np
import torch
import torch.nn as nn


def train(model, criterion, optimizer, train_loader, accumulation_steps, epoch):
    model.train()
    for i, (images, target) in enumerate(train_loader):
        outputs = model(images)
        loss = criterion(outputs, target) / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
            print("epoch", epoch, "update", (i + 1) // accumulation_steps, "loss", loss.item())


rng = np.random.default_rng(36)
model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
loader = [
    (torch.tensor(rng.standard_normal((3, 4)), dtype=torch.float32), torch.tensor(rng.standard_normal((3, 2)), dtype=torch.float32))
    for _ in range(6)
]
for epoch in range(2):
    train(model, criterion, optimizer, loader, 3, epoch)

print("final", [p.sum().item() for p in model.parameters()])
