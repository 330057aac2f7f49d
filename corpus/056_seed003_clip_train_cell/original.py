"""Seed 003 with --style cell: clipping by the global norm between backward and step becomes a custom
training cell (TrainOneStepCell with ops.clip_by_global_norm on the gradients)."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(6)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)), dtype=torch.float32))
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
dataset = [
    (torch.tensor(rng.standard_normal((6, 4)) * 3.0, dtype=torch.float32), torch.tensor(rng.standard_normal((6, 2)), dtype=torch.float32))
    for _ in range(5)
]

for step, (data, label) in enumerate(dataset):
    optimizer.zero_grad()
    logits = net(data)
    loss = loss_fn(logits, label)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=0.5)
    optimizer.step()
    print("step", step, "loss", loss.item())

print("final", [p.sum().item() for p in net.parameters()])
