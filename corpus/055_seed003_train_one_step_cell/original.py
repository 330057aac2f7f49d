"""Seed 003 with --style cell: a plain training loop becomes nn.TrainOneStepCell(nn.WithLossCell(...))."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(5)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
dataset = [
    (torch.tensor(rng.standard_normal((6, 4)), dtype=torch.float32), torch.tensor(rng.standard_normal((6, 2)), dtype=torch.float32))
    for _ in range(5)
]

for epoch in range(2):
    for data, label in dataset:
        optimizer.zero_grad()
        logits = net(data)
        loss = loss_fn(logits, label)
        loss.backward()
        optimizer.step()
    print("epoch", epoch, "loss", loss.item())

print("final", [p.sum().item() for p in net.parameters()])
