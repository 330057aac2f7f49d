"""Per-sample loss weights computed under no_grad from the logits of a BatchNorm model."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(3):
    x = torch.tensor(rng.standard_normal((6, 4)), dtype=torch.float32)
    y = torch.tensor(rng.integers(0, 3, size=6), dtype=torch.int64)
    logits = model(x)
    with torch.no_grad():
        confidence = (F.softmax(logits, dim=1) * F.one_hot(y, 3)).sum(dim=1)
        weights = (1 - confidence) ** 2
    optimizer.zero_grad()
    loss = (F.cross_entropy(logits, y, reduction="none") * weights).mean()
    loss.backward()
    optimizer.step()
    print("step", i, loss.item())
