"""The device-agnostic idiom: pick cuda when available, move model and data with .to(device)."""

import numpy as np
import torch
import torch.nn as nn

use_cuda = torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")

rng = np.random.default_rng(26)
features = torch.tensor(rng.standard_normal((12, 4)), dtype=torch.float32)
labels = torch.tensor(rng.integers(0, 3, size=12), dtype=torch.int64)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    data, target = features.to(device), labels.to(device)
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(data), target)
    loss.backward()
    optimizer.step()
    print("epoch", epoch, "loss", loss.item())
if use_cuda:
    print("gpu memory", torch.cuda.memory_allocated())
