"""Seed 003: clipping the gradients by their global norm between backward and the update."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(3)
net = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 2))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)), dtype=torch.float32))
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(net.parameters(), lr=0.05)
batches = [
    (torch.tensor(rng.standard_normal((8, 5)) * 3.0, dtype=torch.float32), torch.tensor(rng.standard_normal((8, 2)), dtype=torch.float32))
    for _ in range(5)
]

for step, (x, y) in enumerate(batches):
    optimizer.zero_grad()
    loss = loss_fn(net(x), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
    optimizer.step()
    print("step", step, "loss", loss.item())

print("final", [p.sum().item() for p in net.parameters()])
