"""Hand-written SGD through p.grad (word_language_model style), with model.zero_grad()."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(32)
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

lr = 0.2
for step, (data, target) in enumerate(loader):
    model.zero_grad()
    loss = criterion(model(data), target)
    loss.backward()
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)
    print("step", step, "loss", loss.item())

print("final", [p.sum().item() for p in model.parameters()])
