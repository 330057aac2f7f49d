"""Seed 004: gradient accumulation with reduction='sum' (no division needed)."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(2)
model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.4, dtype=torch.float32))
criterion = nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
train_loader = [
    (torch.tensor(rng.standard_normal((4, 6)), dtype=torch.float32), torch.tensor(rng.standard_normal((4, 3)), dtype=torch.float32))
    for _ in range(8)
]
gradient_accumulation_steps = 4

for i, (images, target) in enumerate(train_loader):
    # 1. input output
    outputs = model(images)
    loss = criterion(outputs, target)

    # 2.1 no regularization with reduction='sum'
    # 2.2 back propagation
    loss.backward()
    # 3. update parameters of net
    if ((i + 1) % gradient_accumulation_steps) == 0:
        # optimizer the net
        optimizer.step()  # update parameters of net
        optimizer.zero_grad()  # reset gradient
    print("micro-batch", i, "loss", loss.item())

print("final", [p.sum().item() for p in model.parameters()])
