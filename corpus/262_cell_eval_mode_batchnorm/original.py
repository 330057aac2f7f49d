"""--style cell on a model trained in eval mode (frozen BatchNorm statistics, as in fine-tuning):
the training cell must leave the model's mode as the program set it."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(262)
model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=torch.float32))
model.eval()
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [
    (torch.tensor(rng.standard_normal((8, 4)), dtype=torch.float32), torch.tensor(rng.standard_normal((8, 1)), dtype=torch.float32))
    for _ in range(4)
]
for inputs, targets in batches:
    optimizer.zero_grad()
    loss = criterion(model(inputs), targets)
    loss.backward()
    optimizer.step()
    print("loss", loss.item())
print("final", [p.sum().item() for p in model.parameters()])
