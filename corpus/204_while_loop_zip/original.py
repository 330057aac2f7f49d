"""A while loop over an iterator of zipped inputs and targets."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(24)
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

inputs = [x for x, _ in loader]
targets = [y for _, y in loader]
batches = iter(zip(inputs, targets))
step = 0
while step < 5:
    data, target = next(batches)
    optimizer.zero_grad()
    loss = criterion(model(data), target)
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item())
    step += 1

print("final", [p.sum().item() for p in model.parameters()])
